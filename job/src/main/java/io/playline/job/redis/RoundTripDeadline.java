package io.playline.job.redis;

import io.playline.time.Time;
import java.time.Duration;

/**
 * When a pipelined round trip must have answered, by the job's {@link Time}: every reply of the
 * round trip is awaited against the same deadline ({@link RedisFailures#await}).
 */
record RoundTripDeadline(Time time, long atNanos) {
  /** {@code timeout} from now. */
  static RoundTripDeadline after(Time time, Duration timeout) {
    return new RoundTripDeadline(time, time.nanoTime() + timeout.toNanos());
  }

  /** What is left of it now; never negative. */
  long remainingNanos() {
    return Math.max(0, atNanos - time.nanoTime());
  }
}
