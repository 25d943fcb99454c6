package io.playline.node.write;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import java.time.Duration;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link BatchClock} that moves only when the test advances it: tasks that fall due run on the
 * batcher's loop, in order, each at its own time and each (with what it handed on to the loop)
 * finished before the next. Advanced from the test thread; read from any.
 */
final class ManualClock implements BatchClock {
  private record Due(long atNanos, long seq, Runnable task) {
  }

  private final SingleThreadEventExecutor loop;
  private final PriorityQueue<Due> due =
      new PriorityQueue<>(Comparator.comparingLong(Due::atNanos).thenComparingLong(Due::seq));
  private long seq;
  /** Far from zero: nothing may assume the clock starts there. */
  private volatile long nowNanos = 1_000_000_000_000L;

  ManualClock(EventExecutor loop) {
    this.loop = (SingleThreadEventExecutor) loop;
  }

  @Override
  public long nanoTime() {
    return nowNanos;
  }

  @Override
  public synchronized void schedule(Runnable task, long delayNanos) {
    if (delayNanos <= 0) {
      loop.execute(task);
      return;
    }
    due.add(new Due(nowNanos + delayNanos, seq++, task));
  }

  /** Moves the clock by {@code by}, running each task that falls due meanwhile at its time. */
  void advance(Duration by) {
    long target = nowNanos + by.toNanos();
    while (true) {
      Due next;
      synchronized (this) {
        next = due.peek();
        if (next == null || next.atNanos() - target > 0) {
          nowNanos = target;
          break;
        }
        due.poll();
        nowNanos = next.atNanos();
      }
      loop.execute(next.task());
      settle();
    }
    settle();
  }

  /** Waits until the loop has run everything handed to it so far, and everything that handed on. */
  void settle() {
    try {
      // Asked on the loop: from the test thread, a task just taken off the queue would look done.
      boolean idle;
      do {
        idle = loop.submit(() -> loop.pendingTasks() == 0).get(10, TimeUnit.SECONDS);
      } while (!idle);
    } catch (Exception e) {
      throw new AssertionError("the batcher's loop did not settle", e);
    }
  }
}
