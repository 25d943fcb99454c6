package io.playline.node.write;

import io.playline.time.Time;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The decision to hold a batch back for company under an ack budget: how long, by the {@link
 * AckBudget} the acks steer, and whether at all, by a moving average of the gaps between
 * heartbeats (waiting pays only while heartbeats arrive faster than one per wait).
 *
 * <p>Confined to the batcher's loop, but for {@link #waitNanos()} (read by the metrics).
 */
final class CompanyWait {
  private final AckBudget budget;
  private final Time time;
  /** A long quiet spell counts as a few budgets, so the average recovers within a few heartbeats. */
  private final long maxGapNanos;
  /** Moving average of the gap between heartbeats; MAX_VALUE until known. */
  private long gapNanos = Long.MAX_VALUE;
  private long lastArrivalsNanos = Long.MIN_VALUE;
  /** When the waiting batch's oldest heartbeat was read. */
  private long startNanos;

  CompanyWait(Duration ackBudget, Time time) {
    this.budget = new AckBudget(ackBudget);
    this.time = time;
    this.maxGapNanos = 4 * ackBudget.toNanos();
  }

  /** Whether batches wait for company at all. */
  boolean enabled() {
    return budget.enabled();
  }

  /** How long a batch may wait for company now. */
  long waitNanos() {
    return budget.waitNanos();
  }

  /**
   * How much longer the queued heartbeats should wait for company before they leave as a batch, 0
   * for not at all: only while the queue holds too few heartbeats and they have been arriving faster
   * than one per wait — counted from when {@code oldest}, the oldest queued heartbeat, was read.
   */
  long waitFor(@Nullable PendingWrite oldest, WriteIntake intake) {
    long wait = budget.waitNanos();
    if (oldest == null || intake.companyEnough() || gapNanos >= wait) {
      return 0;
    }
    startNanos = oldest.receivedNanos();
    return startNanos + wait - time.nanoTime();
  }

  /** When the batch that waited last had its oldest heartbeat read. */
  long startNanos() {
    return startNanos;
  }

  /** Folds the heartbeats of one drain into the moving average of the gap between arrivals. */
  void arrived(int heartbeats) {
    if (!budget.enabled()) {
      return; // the gap only decides waiting
    }
    long now = time.nanoTime();
    long last = lastArrivalsNanos;
    lastArrivalsNanos = now;
    if (last == Long.MIN_VALUE) {
      return;
    }
    long gap = Math.min((now - last) / heartbeats, maxGapNanos);
    gapNanos = gapNanos == Long.MAX_VALUE ? gap : gapNanos + (gap - gapNanos) / 8;
  }

  /** A batch whose oldest heartbeat was read at {@code readNanos} was answered at {@code endNanos}. */
  void answered(long readNanos, long endNanos) {
    budget.answered(readNanos, endNanos);
  }
}
