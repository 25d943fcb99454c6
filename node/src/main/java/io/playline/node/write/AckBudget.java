package io.playline.node.write;

import java.time.Duration;

/**
 * How long a batch may wait for company under {@code heartbeat.ack.budget}, steered by what the
 * node's acks actually took. The target is four fifths of the budget (the rest is headroom for the
 * hand-offs after the ack leaves the batcher and the way back to the player): each batch's answer
 * reports how long its oldest heartbeat took from read to ack; one over the target cuts the wait
 * by a quarter, one within it lets the wait grow by 1/256 of the target, up to the target itself
 * (additive increase, multiplicative decrease). So the wait settles where a few batches in a
 * hundred reach the target — whatever the round trip, its tail and the machine's hiccups cost
 * here — and a Redis that slows down shortens it within a few batches. It starts at half the target.
 *
 * <p>Written on the batcher's loop only; {@link #waitNanos()} may be read from any thread (metrics).
 */
final class AckBudget {
  private final long targetNanos;
  private final long stepNanos;
  private volatile long waitNanos;

  AckBudget(Duration budget) {
    this.targetNanos = budget.toNanos() / 5 * 4;
    this.stepNanos = Math.max(1, targetNanos / 256);
    this.waitNanos = targetNanos / 2;
  }

  /** Whether batches wait for company at all (a budget of zero sends each batch as soon as it may). */
  boolean enabled() {
    return targetNanos > 0;
  }

  /** A batch was answered {@code oldestNanos} after its oldest heartbeat was read. */
  void answered(long oldestNanos) {
    if (!enabled()) {
      return;
    }
    long wait = waitNanos;
    waitNanos = oldestNanos > targetNanos ? wait - wait / 4 : Math.min(targetNanos, wait + stepNanos);
  }

  /** How long the oldest heartbeat of a batch may wait for company now; 0 = none. */
  long waitNanos() {
    return waitNanos;
  }
}
