package io.playline.time;

import java.time.Clock;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** {@link Time#SYSTEM}: the machine's clocks and the executor's own timer. */
final class SystemTime implements Time {
  private final Clock clock = Clock.systemUTC();

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public long millis() {
    return System.currentTimeMillis();
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public ScheduledFuture<?> schedule(ScheduledExecutorService executor, Runnable task, long delay, TimeUnit unit) {
    return executor.schedule(task, delay, unit);
  }

  @Override
  public boolean tryAcquire(Semaphore permits, long timeout, TimeUnit unit) throws InterruptedException {
    return permits.tryAcquire(timeout, unit);
  }

  @Override
  public String toString() {
    return "Time.SYSTEM";
  }
}
