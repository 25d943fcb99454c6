package io.playline.testing;

import io.playline.time.Time;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Time} that stands still until a test moves it ({@link #advance}), in the spirit of
 * Kafka's {@code MockTime} and grpc-java's {@code FakeClock}: a test of a deadline, an expiry or a
 * budget runs in no wall-clock time and hits the boundary exactly.
 *
 * <p>Wall-clock millis start at the machine's time when it is made (tokens and days stay
 * realistic) and move with the monotonic nanos. A task {@linkplain #schedule scheduled} on an
 * executor (a Netty event loop, say) is handed to that executor, in deadline order, by the
 * {@link #advance} that reaches its deadline, so it still runs on the thread the code expects;
 * the test then waits for its effect as for any I/O. A thread {@linkplain #tryAcquire waiting} for
 * a permit or its timeout wakes for a permit at once and for its timeout only when an {@link
 * #advance} reaches it. Thread-safe.
 */
public final class ManualTime implements Time {
  private final long startMillis;
  private final long startNanos;
  private long elapsedNanos;
  private long sequence;
  private final PriorityQueue<Task> tasks = new PriorityQueue<>(Task::compareTo);
  private final AtomicInteger ran = new AtomicInteger();
  private final Set<Waiter> waiters = new HashSet<>();
  private static final long PERMIT_POLL_MILLIS = 2;

  /** Wall-clock time starts at the machine's. */
  public ManualTime() {
    this(Instant.now());
  }

  /** Wall-clock time starts at {@code start}. */
  public ManualTime(Instant start) {
    this.startMillis = start.toEpochMilli();
    this.startNanos = 1_000_000_000_000L; // any origin: code compares readings, never reads the value
  }

  @Override
  public synchronized long nanoTime() {
    return startNanos + elapsedNanos;
  }

  @Override
  public synchronized long millis() {
    return startMillis + TimeUnit.NANOSECONDS.toMillis(elapsedNanos);
  }

  @Override
  public Clock clock() {
    return new Clock() {
      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a manual clock is UTC");
      }

      @Override
      public Instant instant() {
        return ManualTime.this.instant();
      }
    };
  }

  @Override
  public ScheduledFuture<?> schedule(ScheduledExecutorService executor, Runnable task, long delay, TimeUnit unit) {
    Task t;
    synchronized (this) {
      t = new Task(nanoTime() + Math.max(0, unit.toNanos(delay)), sequence++, executor, task);
      if (delay > 0) {
        tasks.add(t);
        return t;
      }
    }
    t.hand();
    return t;
  }

  /**
   * Waits for a permit until an {@link #advance} passes {@code timeout} from now. A released permit
   * is taken within a few real milliseconds; the timeout never passes on its own.
   */
  @Override
  public boolean tryAcquire(Semaphore permits, long timeout, TimeUnit unit) throws InterruptedException {
    if (permits.tryAcquire()) {
      return true;
    }
    Waiter w;
    synchronized (this) {
      if (timeout <= 0) {
        return false;
      }
      w = new Waiter(nanoTime() + unit.toNanos(timeout));
      waiters.add(w);
    }
    try {
      while (!w.expired) {
        if (permits.tryAcquire(PERMIT_POLL_MILLIS, TimeUnit.MILLISECONDS)) {
          return true;
        }
      }
      return false;
    } finally {
      synchronized (this) {
        waiters.remove(w);
      }
    }
  }

  /**
   * Threads in {@link #tryAcquire} whose timeout has not passed: a test waits for the code's thread
   * to be waiting before it moves time, so the wait's deadline is counted from before the move.
   */
  public synchronized int waiting() {
    return waiters.size();
  }

  /**
   * Moves time forward by {@code by} and hands every task due by then to its executor, earliest
   * first. Tasks those tasks schedule run at a later {@code advance} (or this one's end, when due).
   */
  public void advance(Duration by) {
    if (by.isNegative()) {
      throw new IllegalArgumentException("time only moves forward: " + by);
    }
    List<Task> due = new ArrayList<>();
    synchronized (this) {
      elapsedNanos += by.toNanos();
      long now = nanoTime();
      while (!tasks.isEmpty() && tasks.peek().deadlineNanos - now <= 0) {
        due.add(tasks.poll());
      }
      waiters.removeIf(w -> w.expireBy(now));
    }
    for (Task t : due) {
      t.hand();
    }
  }

  /** Tasks scheduled and not yet due (nor cancelled). */
  public synchronized int pending() {
    return tasks.size();
  }

  /** Tasks that have run to completion (on their executors). */
  public int ran() {
    return ran.get();
  }

  /** A thread in {@link #tryAcquire}: its timeout passes when an advance reaches its deadline. */
  private static final class Waiter {
    final long deadlineNanos;
    volatile boolean expired;

    Waiter(long deadlineNanos) {
      this.deadlineNanos = deadlineNanos;
    }

    boolean expireBy(long now) {
      expired = deadlineNanos - now <= 0;
      return expired;
    }
  }

  /** One scheduled task: ordered by deadline, then by when it was scheduled. */
  private final class Task implements ScheduledFuture<Object> {
    final long deadlineNanos;
    final long order;
    final ScheduledExecutorService executor;
    final Runnable task;
    private volatile boolean cancelled;
    private volatile boolean done;

    Task(long deadlineNanos, long order, ScheduledExecutorService executor, Runnable task) {
      this.deadlineNanos = deadlineNanos;
      this.order = order;
      this.executor = executor;
      this.task = task;
    }

    void hand() {
      executor.execute(() -> {
        if (cancelled) {
          return;
        }
        try {
          task.run();
        } finally {
          done = true;
          ran.incrementAndGet();
        }
      });
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (done) {
        return false;
      }
      cancelled = true;
      synchronized (ManualTime.this) {
        tasks.remove(this);
      }
      return true;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return done || cancelled;
    }

    @Override
    public Object get() {
      throw new UnsupportedOperationException("a manual timer's task has no result");
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      throw new UnsupportedOperationException("a manual timer's task has no result");
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(deadlineNanos - nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      Task o = (Task) other;
      int byDeadline = Long.compare(deadlineNanos - o.deadlineNanos, 0);
      return byDeadline != 0 ? byDeadline : Long.compare(order, o.order);
    }
  }
}
