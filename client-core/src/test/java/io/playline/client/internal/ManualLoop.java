package io.playline.client.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A {@link Loop} whose time moves only when the test says so: tasks run in due order on the
 * test's thread during {@link #runDue()} and {@link #advance}. Makes timing assertions exact.
 */
final class ManualLoop implements Loop {
  private static final class Task implements Scheduled {
    final long dueMs;
    final long order;
    final Runnable body;
    boolean cancelled;

    Task(long dueMs, long order, Runnable body) {
      this.dueMs = dueMs;
      this.order = order;
      this.body = body;
    }

    @Override
    public void cancel() {
      cancelled = true;
    }
  }

  private final PriorityQueue<Task> tasks = new PriorityQueue<>((a, b) ->
      a.dueMs != b.dueMs ? Long.compare(a.dueMs, b.dueMs) : Long.compare(a.order, b.order));
  private long now = 1_000_000;
  private long order;

  @Override
  public boolean inLoop() {
    return true;
  }

  @Override
  public synchronized void execute(Runnable task) {
    tasks.add(new Task(now, order++, task));
  }

  @Override
  public synchronized Scheduled schedule(Runnable task, long delayMs) {
    Task t = new Task(now + Math.max(0, delayMs), order++, task);
    tasks.add(t);
    return t;
  }

  @Override
  public synchronized long nowMs() {
    return now;
  }

  /** Runs every task due now, including those they schedule for now. */
  void runDue() {
    advance(0);
  }

  /** Moves time forward by {@code ms}, running every task that falls due on the way, in order. */
  void advance(long ms) {
    long target;
    synchronized (this) {
      target = now + ms;
    }
    while (true) {
      Task next;
      synchronized (this) {
        next = tasks.peek();
        if (next == null || next.dueMs > target) {
          now = target;
          return;
        }
        tasks.poll();
        now = next.dueMs;
      }
      if (!next.cancelled) {
        next.body.run();
      }
    }
  }

  /** Delays (from now) of the live scheduled tasks, for assertions. */
  synchronized List<Long> pendingDelays() {
    List<Long> delays = new ArrayList<>();
    for (Task t : tasks) {
      if (!t.cancelled) {
        delays.add(t.dueMs - now);
      }
    }
    delays.sort(null);
    return delays;
  }
}
