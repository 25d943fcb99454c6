package io.playline.node.write;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Where submissions enter the write path: a bounded queue that every connection offers to, and
 * the one wake-up per burst that makes the batcher's loop drain it. While a batch waits for
 * company ({@link #waiting}), a submission wakes the loop only once the queue holds company enough.
 *
 * <p>{@link #submit} and {@link #wake} are thread-safe and never block; polling happens on the
 * batcher's loop only.
 */
final class WriteIntake {
  private final Queue<PendingWrite> queue;
  private final EventExecutor loop;
  private final Runnable drain;
  private final BatchMetrics metrics;
  private final int enoughHeartbeats;
  private final int maxEvents;
  private final AtomicBoolean drainPending = new AtomicBoolean();
  /** Events of the queued heartbeats: a waiting batch leaves once they fill a batch. */
  private final AtomicInteger queuedEvents = new AtomicInteger();
  private volatile boolean running = true;
  /** A batch waits for company ({@link BatcherConfig#ackBudget()}); written on the loop, read by submitters. */
  private volatile boolean waiting;

  WriteIntake(BatcherConfig config, EventExecutor loop, Runnable drain, BatchMetrics metrics,
      MeterRegistry registry) {
    this.queue = PlatformDependent.newFixedMpscQueue(config.queueCapacity());
    this.loop = loop;
    this.drain = drain;
    this.metrics = metrics;
    this.enoughHeartbeats = config.enoughHeartbeats();
    this.maxEvents = config.maxEvents();
    metrics.bindQueue(registry, queue);
  }

  /** Queues a heartbeat; false when the queue is full or the batcher closed. */
  boolean submit(PendingWrite heartbeat) {
    if (!running || !queue.offer(heartbeat)) {
      metrics.refused.increment();
      return false;
    }
    int events = queuedEvents.addAndGet(heartbeat.records().size());
    if (waiting && !companyEnough(events)) {
      return true; // the waiting batch's timer (or the heartbeat that fills it) drains the queue
    }
    if (wake()) {
      metrics.wakeups.increment();
    }
    return true;
  }

  /**
   * Makes the loop drain the queue soon (once, however many heartbeats arrive meanwhile); true when
   * this call scheduled the drain.
   */
  boolean wake() {
    if (drainPending.compareAndSet(false, true)) {
      try {
        loop.execute(drain);
        return true;
      } catch (RejectedExecutionException e) {
        drainPending.set(false); // the loop is gone: close() fails what is left
      }
    }
    return false;
  }

  /** On the loop, as a drain starts: a heartbeat submitted from now on wakes the loop again. */
  void draining() {
    drainPending.set(false);
  }

  /** Whether the queue holds company enough for a batch to leave: enough heartbeats or a batch's worth of events. */
  boolean companyEnough() {
    return companyEnough(queuedEvents.get());
  }

  private boolean companyEnough(int events) {
    return queue.size() >= enoughHeartbeats || events >= maxEvents;
  }

  @Nullable PendingWrite peek() {
    return queue.peek();
  }

  @Nullable PendingWrite poll() {
    return queue.poll();
  }

  /** On the loop, once per drain (not per heartbeat): {@code events} left the queue. */
  void polled(int events) {
    queuedEvents.addAndGet(-events);
  }

  boolean isEmpty() {
    return queue.isEmpty();
  }

  boolean running() {
    return running;
  }

  /** Refuses every submission from now on. */
  void stop() {
    running = false;
  }

  boolean waiting() {
    return waiting;
  }

  void waiting(boolean waiting) {
    this.waiting = waiting;
  }
}
