package io.playline.client;

import io.playline.client.internal.Loop;
import io.playline.testing.ManualTime;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Clients on a {@link ManualTime}, the one the test's gateway runs on: each client built through
 * {@link #on} keeps its runtime's loop for running tasks (a Netty event loop, OkHttp's {@code
 * playline-client} thread), but its session's timers fall due and its clock moves only when the
 * test {@linkplain ManualTime#advance advances} that time, and its event times are read from it. A
 * token refresh, a budget's wait, a heartbeat happen when the test moves time past them, in no
 * wall-clock time; the test then waits for their effect as for any I/O.
 */
final class ManualClientTime {
  private final ManualTime time;
  private volatile @Nullable OnManualTime loop;

  ManualClientTime(ManualTime time) {
    this.time = time;
  }

  /** {@code builder}, building its client on this time. */
  AbstractPlaylineClientBuilder<?> on(AbstractPlaylineClientBuilder<?> builder) {
    return builder.time(time.clock(), runtimeLoop -> {
      OnManualTime l = new OnManualTime(runtimeLoop, time);
      loop = l;
      return l;
    });
  }

  /**
   * Waits (real time, at most 10 s) until the loop of the client built last has run every task
   * handed to it so far: timers an advance made due, and calls such as a flush.
   */
  void drain() throws Exception {
    OnManualTime l = loop;
    if (l == null) {
      throw new IllegalStateException("no client built on this time");
    }
    CompletableFuture<Void> ran = new CompletableFuture<>();
    l.execute(() -> ran.complete(null));
    ran.get(10, TimeUnit.SECONDS);
  }

  /** A runtime's loop with its timers and clock on the manual time. */
  private static final class OnManualTime implements Loop {
    private final Loop loop;
    private final ManualTime time;
    /** What {@link ManualTime} hands due tasks to: the loop's thread. */
    private final ScheduledExecutorService onLoop;

    OnManualTime(Loop loop, ManualTime time) {
      this.loop = loop;
      this.time = time;
      this.onLoop = new LoopExecutor(loop);
    }

    @Override
    public boolean inLoop() {
      return loop.inLoop();
    }

    @Override
    public void execute(Runnable task) {
      loop.execute(task);
    }

    @Override
    public Scheduled schedule(Runnable task, long delayMs) {
      ScheduledFuture<?> future = time.schedule(onLoop, task, Math.max(0, delayMs), TimeUnit.MILLISECONDS);
      return () -> future.cancel(false);
    }

    @Override
    public long nowMs() {
      return TimeUnit.NANOSECONDS.toMillis(time.nanoTime());
    }
  }

  /** The loop as the executor {@link ManualTime#schedule} hands due tasks to; it schedules nothing itself. */
  private static final class LoopExecutor extends AbstractExecutorService implements ScheduledExecutorService {
    private final Loop loop;

    LoopExecutor(Loop loop) {
      this.loop = loop;
    }

    @Override
    public void execute(Runnable command) {
      loop.execute(command);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException("ManualTime schedules");
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException("ManualTime schedules");
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
      throw new UnsupportedOperationException("ManualTime schedules");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException("ManualTime schedules");
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return false;
    }
  }
}
