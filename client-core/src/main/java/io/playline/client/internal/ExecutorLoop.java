package io.playline.client.internal;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@link Loop} on a one-thread {@link ScheduledThreadPoolExecutor} of its own (a daemon thread
 * named {@code playline-client}), for transports that bring no event loop, such as OkHttp's: their
 * callbacks hop onto it. Cancelled timers are removed at once, so a busy session leaves no garbage
 * queued. Thread-safe; {@link #execute} throws {@link java.util.concurrent.RejectedExecutionException}
 * once {@link #shutdown} ran, as a Netty loop does.
 */
public final class ExecutorLoop implements Loop {
  private final ScheduledThreadPoolExecutor executor;
  private volatile @Nullable Thread thread;

  public ExecutorLoop() {
    executor = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "playline-client");
      t.setDaemon(true);
      thread = t;
      return t;
    });
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  @Override
  public boolean inLoop() {
    return Thread.currentThread() == thread;
  }

  @Override
  public void execute(Runnable task) {
    executor.execute(task);
  }

  @Override
  public Scheduled schedule(Runnable task, long delayMs) {
    ScheduledFuture<?> future = executor.schedule(task, Math.max(0, delayMs), TimeUnit.MILLISECONDS);
    return () -> future.cancel(false);
  }

  @Override
  public long nowMs() {
    return SystemClock.nowMs();
  }

  /** Stops taking tasks, lets the queued ones run, and waits at most {@code timeoutMs} for the thread to end. */
  public void shutdown(long timeoutMs) {
    executor.shutdown();
    if (timeoutMs <= 0) {
      return;
    }
    try {
      executor.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
