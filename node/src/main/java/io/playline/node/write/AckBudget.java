package io.playline.node.write;

import java.time.Duration;

/**
 * How long a batch may wait for company under {@code heartbeat.ack.budget}, steered by what the
 * node's acks actually took. The target is four fifths of the budget (the rest is headroom for the
 * hand-offs after the ack leaves the batcher and the way back to the player): each batch's answer
 * reports how long its oldest heartbeat took from read to ack; one over the target cuts the wait
 * by a quarter, one within it lets the wait grow by 1/256 of the target, up to the target itself
 * (additive increase, multiplicative decrease). A cut answers one spell once: a batch whose oldest
 * heartbeat was read before the last cut waited under the longer wait, or sat through the same
 * hiccup, and does not cut again (as TCP cuts its window once per loss episode, not once per lost
 * segment) — else a hiccup of a few batches' length, on a busy machine several a minute, cut the
 * wait to a fraction and batches stayed small while it grew back. So the wait settles where a few
 * spells in a hundred batches reach the target — whatever the round trip, its tail and the
 * machine's hiccups cost here — and a Redis that slows down shortens it at every batch read after
 * the last cut (every other batch when each gathers during the one before). It starts at half the
 * target.
 *
 * <p>Written on the batcher's loop only; {@link #waitNanos()} may be read from any thread (metrics).
 */
final class AckBudget {
  private final long targetNanos;
  private final long stepNanos;
  private volatile long waitNanos;
  /** When the wait was last cut (batcher clock); a batch read before it does not cut again. */
  private long lastCutNanos;
  private boolean cut;

  AckBudget(Duration budget) {
    this.targetNanos = budget.toNanos() / 5 * 4;
    this.stepNanos = Math.max(1, targetNanos / 256);
    this.waitNanos = targetNanos / 2;
  }

  /** Whether batches wait for company at all (a budget of zero sends each batch as soon as it may). */
  boolean enabled() {
    return targetNanos > 0;
  }

  /** A batch whose oldest heartbeat was read at {@code readNanos} was answered at {@code endNanos} (batcher clock). */
  void answered(long readNanos, long endNanos) {
    if (!enabled()) {
      return;
    }
    long wait = waitNanos;
    if (endNanos - readNanos <= targetNanos) {
      waitNanos = Math.min(targetNanos, wait + stepNanos);
    } else if (!cut || readNanos - lastCutNanos >= 0) {
      waitNanos = wait - wait / 4;
      lastCutNanos = endNanos;
      cut = true;
    }
  }

  /** How long the oldest heartbeat of a batch may wait for company now; 0 = none. */
  long waitNanos() {
    return waitNanos;
  }
}
