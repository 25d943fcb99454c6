package io.playline.testing;

import io.playline.time.Time;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The machine's time with its wall clock {@code offset} off (ahead when positive): a node whose
 * clock is wrong. Durations, deadlines and timers are the machine's; only {@link #millis()} (and
 * {@link #clock()}) are skewed.
 */
public final class SkewedTime implements Time {
  private final Duration offset;
  private final Clock clock;

  public SkewedTime(Duration offset) {
    this.offset = offset;
    this.clock = Clock.offset(Time.SYSTEM.clock(), offset);
  }

  @Override
  public long nanoTime() {
    return Time.SYSTEM.nanoTime();
  }

  @Override
  public long millis() {
    return Time.SYSTEM.millis() + offset.toMillis();
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public ScheduledFuture<?> schedule(ScheduledExecutorService executor, Runnable task, long delay, TimeUnit unit) {
    return Time.SYSTEM.schedule(executor, task, delay, unit);
  }

  @Override
  public boolean tryAcquire(Semaphore permits, long timeout, TimeUnit unit) throws InterruptedException {
    return Time.SYSTEM.tryAcquire(permits, timeout, unit);
  }

  @Override
  public String toString() {
    return "Time.SYSTEM skewed by " + offset;
  }
}
