package io.playline.node.write;

import java.time.Duration;

/**
 * How long a batch may wait for company under {@code heartbeat.ack.budget}: four fifths of the
 * budget less the round trip Redis is expected to take, so the wait plus the round trip stays
 * within the budget with a fifth left for the hand-offs around them. The expected round trip is
 * the smoothed round trip plus four times its mean deviation (as TCP times its retransmits), so a
 * Redis that slows down shortens the wait at once and a budget it cannot meet leaves none.
 *
 * <p>Written on the batcher's loop only; {@link #waitNanos()} may be read from any thread (metrics).
 */
final class AckBudget {
  private final long waitCapNanos;
  /** Smoothed round trip, -1 until the first one is known. Volatile for the metrics scraper; one writer. */
  private volatile long smoothedNanos = -1;
  private volatile long deviationNanos;

  AckBudget(Duration budget) {
    this.waitCapNanos = budget.toNanos() / 5 * 4;
  }

  /** Whether batches wait for company at all (a budget of zero sends each batch as soon as it may). */
  boolean enabled() {
    return waitCapNanos > 0;
  }

  /** Folds one batch's round trip into the estimate. */
  void roundTrip(long nanos) {
    if (smoothedNanos < 0) {
      smoothedNanos = nanos;
      deviationNanos = nanos / 2;
      return;
    }
    deviationNanos += (Math.abs(smoothedNanos - nanos) - deviationNanos) / 4;
    smoothedNanos += (nanos - smoothedNanos) / 8;
  }

  /** The round trip a batch is expected to take (0 before the first one). */
  long expectedRoundTripNanos() {
    return smoothedNanos < 0 ? 0 : smoothedNanos + 4 * deviationNanos;
  }

  /** How long the oldest heartbeat of a batch may wait for company now; 0 = none. */
  long waitNanos() {
    return Math.max(0, waitCapNanos - expectedRoundTripNanos());
  }
}
