package io.playline.job.consume;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential back-off with jitter for retrying one failed operation: the n-th delay is drawn
 * uniformly from [d/2, d] with d = min(cap, base * 2^(n-1)), so many job processes that lost the
 * same backend do not come back in lock step. Not thread-safe; one per retrying thread.
 */
final class RetryBackoff {
  private final long baseMs;
  private final long capMs;
  private int attempts;

  RetryBackoff(Duration base, Duration cap) {
    this.baseMs = Math.max(1, base.toMillis());
    this.capMs = Math.max(baseMs, cap.toMillis());
  }

  /** The delay before the next attempt; counts one more failure. */
  Duration next() {
    attempts++;
    int shift = Math.min(attempts - 1, 30);
    long ceiling = Math.min(capMs, baseMs << shift);
    long floor = ceiling / 2;
    return Duration.ofMillis(floor + ThreadLocalRandom.current().nextLong(ceiling - floor + 1));
  }

  /** Failures since the last {@link #reset()}. */
  int attempts() {
    return attempts;
  }

  void reset() {
    attempts = 0;
  }
}
