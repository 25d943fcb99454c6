package io.playline.time;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * At most one log line per interval for an event that can repeat at any rate (a failing Redis
 * delete, a full outbox, Kafka down): a warning per event would flood the log exactly when an
 * operator reads it. The first event is reported at once, then at most one per interval by a
 * {@link Time}, so a test moves a manual time instead of waiting. {@link #count()} also says how
 * many events the line stands for, for a line that reports them.
 *
 * <p>Thread-safe and lock-free: one increment and one clock read per event; of events racing at a
 * due time exactly one is reported.
 */
public final class LogThrottle {
  /** The interval of Playline's throttled lines unless a line has a reason for another. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

  private final Time time;
  private final long intervalNanos;
  private final AtomicLong unreported = new AtomicLong();
  private final AtomicLong nextNanos;

  /** A line at most every {@link #DEFAULT_INTERVAL} of {@code time}, the first at once. */
  public LogThrottle(Time time) {
    this(time, DEFAULT_INTERVAL);
  }

  /** A line at most every {@code interval} of {@code time}, the first at once. */
  public LogThrottle(Time time, Duration interval) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval: " + interval + " (expected: > 0)");
    }
    this.time = time;
    this.intervalNanos = interval.toNanos();
    this.nextNanos = new AtomicLong(time.nanoTime());
  }

  /**
   * Counts one event: how many events a line logged now should report (this one and those held back
   * since the last line) when a line is due, else 0 (log nothing).
   */
  public long count() {
    long pending = unreported.incrementAndGet();
    long now = time.nanoTime();
    long next = nextNanos.get();
    if (now - next >= 0 && nextNanos.compareAndSet(next, now + intervalNanos)) {
      unreported.addAndGet(-pending);
      return pending;
    }
    return 0;
  }

  /** Counts one event: whether a line is due now, for a line that does not report the count. */
  public boolean tryAcquire() {
    return count() > 0;
  }

  /** The interval, for the line's text. */
  public Duration interval() {
    return Duration.ofNanos(intervalNanos);
  }
}
