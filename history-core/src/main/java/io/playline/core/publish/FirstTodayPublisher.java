package io.playline.core.publish;

import static java.nio.charset.StandardCharsets.US_ASCII;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.core.config.CoreConfig;
import io.playline.core.write.FirstTodayCheck;
import io.playline.core.write.FirstTodayListener;
import io.playline.proto.v1.FirstTodayEvent;
import io.playline.time.LogThrottle;
import io.playline.time.Time;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers first-today events to the first-today topic (keyed by the decimal uid) at least once.
 * The write path's {@code first_today} script already left each event in its Redis outbox ({@link
 * FirstTodayOutbox}) when it set the day's bit; this publisher sends the events its node counted
 * and removes each from the outbox once Kafka acked it. Every {@code
 * first.today.outbox.sweep.interval} it also sweeps: it claims the events that waited longer than
 * {@code first.today.outbox.age} (their node died, its send failed, Kafka was down, or its queue was
 * full) and sends and removes them the same way. So a kill -9 or a Kafka outage delays events but
 * loses none; consumers de-duplicate by (uid, day).
 *
 * <p>{@link #publish} never blocks: it offers to a bounded queue, and one dedicated thread calls
 * {@link Producer#send} (which may block on metadata) and runs the sweeps. Thread-safe: {@link
 * #publish} may be called from any thread, including event loops and Lettuce threads. The producer
 * is shared and owned by the caller, who closes it after this publisher.
 */
public final class FirstTodayPublisher implements FirstTodayListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FirstTodayPublisher.class);
  /**
   * Queued by {@link #close()} behind the events still to send: the thread waits for an event or
   * its next sweep, never polling on a short period (a quiet node's wake-ups are CPU it pays every
   * second), so a close wakes it this way.
   */
  private static final FirstTodayEvent STOP = FirstTodayEvent.newBuilder().setUid(Long.MIN_VALUE).build();

  private final String topic;
  private final Producer<byte[], byte[]> producer;
  private final FirstTodayOutbox outbox;
  private final FirstTodayMetrics metrics;
  private final Duration closeTimeout;
  private final long sweepEveryNanos;
  private final BlockingQueue<FirstTodayEvent> queue;
  private final Thread thread;
  private final Time time;
  private final LogThrottle warnings;
  private volatile boolean closed;

  /**
   * Starts the publisher thread, which sweeps at once (a restarted node sends what it left) and then
   * every {@code first.today.outbox.sweep.interval} by {@code time}; events go to {@link
   * CoreConfig#firstTodayTopic()}.
   */
  public FirstTodayPublisher(CoreConfig config, Producer<byte[], byte[]> producer, FirstTodayOutbox outbox,
      FirstTodayMetrics metrics, Time time) {
    this.time = time;
    this.warnings = new LogThrottle(time);
    this.topic = config.firstTodayTopic();
    this.producer = producer;
    this.outbox = outbox;
    this.metrics = metrics;
    this.closeTimeout = config.flushCloseTimeout();
    this.sweepEveryNanos = outbox.config().sweepInterval().toNanos();
    this.queue = new ArrayBlockingQueue<>(config.firstTodayQueueCapacity());
    metrics.queue(queue);
    this.thread = new Thread(this::run, "playline-first-today-publisher");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void firstToday(long uid, String day, String deviceId, String platform, long timeMs) {
    publish(uid, day, deviceId, platform, timeMs);
  }

  /**
   * Queues the event the write path counted for sending and returns at once; never blocks. Returns
   * false when the queue is full or the publisher closed: the event then waits in its outbox for a
   * sweep (counted as deferred, logged). Any thread.
   */
  public boolean publish(long uid, String day, String deviceId, String platform, long timeMs) {
    FirstTodayEvent event = new FirstTodayCheck(uid, deviceId, platform).event(day, timeMs);
    if (!closed && queue.offer(event)) {
      return true;
    }
    metrics.deferred.increment();
    warnThrottled("First-today event of uid {} day {} left to the outbox sweep: {} ({} so far)", uid, day,
        closed ? "publisher closed" : "queue full", (long) metrics.deferred());
    return false;
  }

  private void run() {
    long nextSweep = time.nanoTime();
    try {
      while (true) {
        long now = time.nanoTime();
        if (now - nextSweep >= 0 && !closed) {
          sweep();
          nextSweep = time.nanoTime() + sweepEveryNanos;
          continue;
        }
        // Closed, the thread sends what is queued (up to the STOP marker) and no longer sweeps.
        FirstTodayEvent event = closed ? queue.poll() : queue.poll(nextSweep - now, TimeUnit.NANOSECONDS);
        if (event == STOP || (event == null && closed)) {
          return;
        }
        if (event != null) {
          send(outbox.shardOf(event.getUid()), event.getUid(), event.toByteArray(), false);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Claims and sends every outbox's overdue events; stops early when Kafka refuses sends. */
  private void sweep() {
    long depth = 0;
    try {
      for (int shard = 0; shard < outbox.config().shards() && !closed; shard++) {
        FirstTodayOutbox.Claimed claimed = outbox.claim(shard);
        depth += claimed.depth();
        for (byte[] entry : claimed.entries()) {
          if (!sendEntry(shard, entry)) {
            return; // claimed and unsent: the next sweep after first.today.outbox.age retries them
          }
        }
      }
      metrics.depth.set(depth);
      metrics.sweeps.increment();
    } catch (RuntimeException e) {
      metrics.sweepFailures.increment();
      warnThrottled("First-today outbox sweep failed; the next one in {} retries: {}",
          outbox.config().sweepInterval(), e.toString());
    }
  }

  private boolean sendEntry(int shard, byte[] entry) {
    long uid;
    try {
      uid = FirstTodayEvent.parseFrom(entry).getUid();
    } catch (InvalidProtocolBufferException e) {
      metrics.invalid.increment();
      log.warn("Removing a first-today outbox entry that is not a FirstTodayEvent from outbox {}", shard);
      outbox.remove(shard, entry);
      return true;
    }
    return send(shard, uid, entry, true);
  }

  /** Sends one event; on Kafka's ack removes it from its outbox. False when the send threw at once. */
  private boolean send(int shard, long uid, byte[] event, boolean swept) {
    byte[] key = Long.toString(uid).getBytes(US_ASCII);
    try {
      producer.send(new ProducerRecord<>(topic, key, event), (metadata, error) -> {
        if (error != null) {
          failed(uid, error);
          return;
        }
        (swept ? metrics.swept : metrics.published).increment();
        outbox.remove(shard, event).whenComplete((removed, removeError) -> {
          if (removeError != null) {
            metrics.removeFailures.increment();
            warnThrottled("First-today event of uid {} sent but not removed from its outbox (a sweep sends it "
                + "again): {}", uid, removeError.toString());
          }
        });
      });
      return true;
    } catch (RuntimeException e) {
      // send throws instead of calling back when metadata or buffer space did not come in max.block.ms.
      failed(uid, e);
      return false;
    }
  }

  private void failed(long uid, Throwable error) {
    metrics.failed.increment();
    warnThrottled("First-today event of uid {} not published yet, left in its outbox for the sweep: {} ({} failed "
        + "so far)", uid, error.toString(), (long) metrics.failed());
  }

  private void warnThrottled(String format, @Nullable Object... args) {
    if (warnings.tryAcquire()) {
      log.warn(format, args);
    }
  }

  /**
   * Stops taking events, hands what is queued to the producer (bounded by {@code
   * writeback.close.timeout}) and stops the thread; what is left stays in the outboxes for another
   * node's sweep (or this node's next start), counted as deferred. Does not close the shared
   * producer. Idempotent; any thread but the publisher's.
   */
  @Override
  public void close() {
    closed = true;
    try {
      // Behind the queued events; the queue has room for it within the timeout unless the thread is
      // stuck in a send, which the join below bounds anyway.
      long deadline = time.nanoTime() + closeTimeout.toNanos();
      queue.offer(STOP, closeTimeout.toNanos(), TimeUnit.NANOSECONDS);
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - time.nanoTime())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      thread.interrupt();
    }
    queue.remove(STOP);
    int left = queue.size();
    queue.clear();
    if (left > 0) {
      metrics.deferred.increment(left);
      log.warn("First-today publisher closed with {} events unsent after {}; they wait in their outboxes for a sweep",
          left, closeTimeout);
    }
  }
}
