package io.playline.time;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A task that runs on an executor every {@code delay} by a {@link Time}, each run {@code delay}
 * after the previous one ended: {@link ScheduledExecutorService#scheduleWithFixedDelay} as a chain
 * of {@link Time#schedule} calls, so a test moves a manual time instead of waiting. As there, a run
 * that throws ends the chain, and so does the executor's shutdown. Thread-safe; {@link #cancel}
 * from any thread.
 */
public final class FixedDelay {
  private final Time time;
  private final ScheduledExecutorService executor;
  private final Runnable task;
  private final long delay;
  private final TimeUnit unit;
  private @Nullable ScheduledFuture<?> next;
  private boolean cancelled;

  private FixedDelay(Time time, ScheduledExecutorService executor, Runnable task, long delay, TimeUnit unit) {
    this.time = time;
    this.executor = executor;
    this.task = task;
    this.delay = delay;
    this.unit = unit;
  }

  /** Runs {@code task} on {@code executor} first {@code initialDelay} from now, then {@code delay} after each run. */
  public static FixedDelay start(Time time, ScheduledExecutorService executor, Runnable task, long initialDelay,
      long delay, TimeUnit unit) {
    if (delay <= 0) {
      throw new IllegalArgumentException("delay: " + delay + " (expected: > 0)");
    }
    FixedDelay d = new FixedDelay(time, executor, task, delay, unit);
    d.scheduleIn(initialDelay);
    return d;
  }

  private synchronized void scheduleIn(long wait) {
    if (cancelled) {
      return;
    }
    try {
      next = time.schedule(executor, this::run, wait, unit);
    } catch (RejectedExecutionException e) {
      cancelled = true; // the executor shut down: the chain ends with it, as the executor's own would
    }
  }

  private void run() {
    synchronized (this) {
      if (cancelled) {
        return;
      }
    }
    task.run();
    scheduleIn(delay);
  }

  /** No run starts after this returns (one under way finishes). Idempotent. */
  public synchronized void cancel() {
    cancelled = true;
    if (next != null) {
      next.cancel(false);
      next = null;
    }
  }
}
