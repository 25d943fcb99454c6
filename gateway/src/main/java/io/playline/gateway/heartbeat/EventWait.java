package io.playline.gateway.heartbeat;

import io.playline.gateway.budget.UserBudgets;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How long one connection is told to wait before it sends events again: the {@code retry_after_ms}
 * of its last events refusal, on the user budgets' clock ({@link UserBudgets#nanoTime}). The
 * heartbeat step starts a wait ({@link HeartbeatHandler}); the decode step reads it, so a heartbeat
 * with events sent meanwhile is refused from its seq alone, undecoded. Made with the connection,
 * before it authenticates (nothing waits then). Confined to the connection's executor.
 */
public final class EventWait {
  private final LongSupplier budgetClock;
  private long untilNanos;

  /** @param budgetClock the user budgets' clock, {@link UserBudgets#nanoTime} */
  public EventWait(LongSupplier budgetClock) {
    this.budgetClock = budgetClock;
    this.untilNanos = budgetClock.getAsLong();
  }

  /** Whether events arriving now are refused undecoded: the last refusal's wait runs. */
  public boolean waiting() {
    return waiting(budgetClock.getAsLong());
  }

  boolean waiting(long budgetNanos) {
    return budgetNanos - untilNanos < 0;
  }

  /** A refusal at {@code budgetNanos} told the client to retry after {@code retryAfterMs}. */
  void start(long budgetNanos, long retryAfterMs) {
    untilNanos = budgetNanos + TimeUnit.MILLISECONDS.toNanos(retryAfterMs);
  }

  /** What is left of the wait at {@code budgetNanos} (negative once it ended). */
  long leftNanos(long budgetNanos) {
    return untilNanos - budgetNanos;
  }
}
