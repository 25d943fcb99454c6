package io.playline.gateway.budget;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.proto.v1.Error;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How long the answer to an {@code Auth} over its user's {@code user.max.auths.per.minute} is held
 * back: {@code user.auth.refusal.hold}, or the refusal's {@code retry_after_ms} if shorter. A client
 * that reconnects the moment it is refused — a reconnect bug, or a churn against its own account —
 * is so slowed to one attempt per hold on each of its connections, and the node spends a timer on it
 * instead of a new TCP connection, upgrade and token check each time. The account that spends
 * past its budget pays; nobody else waits (an honest user within its budget is never held).
 *
 * <p>Bounded per node: at most {@code user.auth.refusal.hold.max.connections} connections are held
 * at once ({@code playline.user.auth.refusals.held}); past it refusals are answered at once ({@code
 * playline.user.auth.refusals.unheld}), so what the holds keep open stays far below the node's
 * descriptors whatever one account does. Thread-safe.
 */
public final class AuthRefusalHold {
  private final long holdNanos;
  private final int maxHeld;
  private final AtomicInteger held = new AtomicInteger();
  private final Counter unheld;

  public AuthRefusalHold(Duration hold, int maxHeld, MeterRegistry registry) {
    if (hold.isNegative() || maxHeld < 0) {
      throw new IllegalArgumentException("auth refusal hold: " + hold + ", at most " + maxHeld
          + " connections (expected: both >= 0)");
    }
    this.holdNanos = hold.toNanos();
    this.maxHeld = maxHeld;
    Gauge.builder("playline.user.auth.refusals.held", held, AtomicInteger::get)
        .description("Connections whose Auth over user.max.auths.per.minute waits for its answer "
            + "(user.auth.refusal.hold)")
        .register(registry);
    unheld = Counter.builder("playline.user.auth.refusals.unheld")
        .description("Auth refusals answered at once because user.auth.refusal.hold.max.connections were held")
        .register(registry);
  }

  /**
   * How long to hold {@code refusal} (an auth budget's {@code RATE_LIMITED}) before answering it, in
   * nanoseconds; 0 to answer now. A positive answer takes one place: {@link #release} it exactly once.
   */
  public long take(Error refusal) {
    if (holdNanos == 0 || maxHeld == 0) {
      return 0;
    }
    if (held.incrementAndGet() > maxHeld) {
      held.decrementAndGet();
      unheld.increment();
      return 0;
    }
    long retryNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, refusal.getRetryAfterMs()));
    return Math.min(holdNanos, retryNanos);
  }

  /** A held refusal was answered, or its connection closed first. */
  public void release() {
    held.decrementAndGet();
  }
}
