package io.playline.time;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The one clock of a Playline process: what time it is, and when a delayed task runs. Code that
 * measures a duration, checks a deadline or an expiry, or schedules a timeout asks this, never
 * {@link System#nanoTime()}, {@link System#currentTimeMillis()}, {@link Instant#now()} or an
 * executor's own {@code schedule} directly; so a test can hand the code a manual time
 * ({@code io.playline.testing.ManualTime}) and move it forward instead of waiting for the wall
 * clock. Production uses {@link #SYSTEM}.
 *
 * <p>Implementations are thread-safe.
 */
public interface Time {
  /** The machine's clocks and each executor's own timers. */
  Time SYSTEM = new SystemTime();

  /**
   * Monotonic nanoseconds, for durations and deadlines only (as {@link System#nanoTime()}: the
   * origin is arbitrary, compare two readings with {@code a - b < 0}).
   */
  long nanoTime();

  /** Wall-clock milliseconds since the epoch (UTC), for timestamps and expiries. */
  long millis();

  /** {@link #millis()} as an instant. */
  default Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  /** This time's wall clock as a {@link Clock} (UTC), for libraries that take one. */
  Clock clock();

  /**
   * Runs {@code task} on {@code executor} once {@code delay} has passed by this time (at once
   * when it is not positive). Cancelling the returned future before then keeps the task from
   * running; the future's other methods say only whether it was cancelled or has run.
   */
  ScheduledFuture<?> schedule(ScheduledExecutorService executor, Runnable task, long delay, TimeUnit unit);

  /**
   * Takes a permit from {@code permits}, waiting until one is released or {@code timeout} has
   * passed by this time: for a thread of its own that sleeps until its next deadline unless woken
   * early (as {@link Semaphore#tryAcquire(long, TimeUnit)}). True when a permit was taken.
   */
  boolean tryAcquire(Semaphore permits, long timeout, TimeUnit unit) throws InterruptedException;
}
