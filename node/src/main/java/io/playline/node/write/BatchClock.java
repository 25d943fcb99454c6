package io.playline.node.write;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The batcher's one source of time: when a submission was read, how long a batch waited, and when
 * its next drain is due all come from here, so its tests can run on a clock they advance.
 * {@link PendingWrite#receivedNanos()} must be read from the same clock ({@link WriteBatcher#nanoTime()}).
 *
 * <p>{@link #schedule} runs its task on the batcher's loop; both methods may be called from any
 * thread.
 */
interface BatchClock {
  long nanoTime();

  /** Runs {@code task} on the batcher's loop {@code delayNanos} from now (at once when not positive). */
  void schedule(Runnable task, long delayNanos);

  /** The production clock: {@link System#nanoTime()} and the loop's own timers. */
  static BatchClock on(EventExecutor loop) {
    return new BatchClock() {
      @Override
      public long nanoTime() {
        return System.nanoTime();
      }

      @Override
      public void schedule(Runnable task, long delayNanos) {
        loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
      }
    };
  }
}
