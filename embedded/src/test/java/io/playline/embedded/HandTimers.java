package io.playline.embedded;

import io.playline.time.Time;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Time} whose timers fire only when a test says ({@link #fireAll}), so a backoff never
 * passes on its own: this module's tests cannot use the testing module's manual time (that module
 * depends on this one). Its clocks are the machine's; nothing here reads a deadline off them.
 * Thread-safe.
 */
final class HandTimers implements Time {
  private final List<Timer> waiting = new ArrayList<>();

  @Override
  public long nanoTime() {
    return Time.SYSTEM.nanoTime();
  }

  @Override
  public long millis() {
    return Time.SYSTEM.millis();
  }

  @Override
  public Clock clock() {
    return Time.SYSTEM.clock();
  }

  @Override
  public synchronized ScheduledFuture<?> schedule(ScheduledExecutorService executor, Runnable task, long delay,
      TimeUnit unit) {
    Timer t = new Timer(executor, task, unit.toMillis(delay));
    waiting.add(t);
    return t;
  }

  @Override
  public boolean tryAcquire(Semaphore permits, long timeout, TimeUnit unit) {
    throw new UnsupportedOperationException("no code under test here waits on a permit");
  }

  /** The delays, in ms, of the timers set and neither fired nor cancelled. */
  synchronized List<Long> waitingDelaysMs() {
    return waiting.stream().map(t -> t.delayMs).toList();
  }

  /** Hands every waiting timer's task to its executor, as if its delay had passed. */
  void fireAll() {
    List<Timer> due;
    synchronized (this) {
      due = List.copyOf(waiting);
      waiting.clear();
    }
    for (Timer t : due) {
      t.executor.execute(t.task);
    }
  }

  /** A timer set and not yet fired; cancelling it takes it off the list. */
  private final class Timer implements ScheduledFuture<Object> {
    final ScheduledExecutorService executor;
    final Runnable task;
    final long delayMs;
    private volatile boolean cancelled;

    Timer(ScheduledExecutorService executor, Runnable task, long delayMs) {
      this.executor = executor;
      this.task = task;
      this.delayMs = delayMs;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      synchronized (HandTimers.this) {
        cancelled = waiting.remove(this);
        return cancelled;
      }
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      synchronized (HandTimers.this) {
        return !waiting.contains(this);
      }
    }

    @Override
    public Object get() {
      throw new UnsupportedOperationException("a hand timer's task has no result");
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      throw new UnsupportedOperationException("a hand timer's task has no result");
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }
  }
}
