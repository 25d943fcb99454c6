package io.playline.core.publish;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.playline.core.CoreConfig;
import io.playline.core.write.FirstTodayListener;
import io.playline.proto.v1.FirstTodayEvent;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes each {@link FirstTodayEvent} to the first-today topic keyed by the decimal uid, without
 * ever blocking the caller: {@link #publish} only offers to a bounded queue, and one dedicated thread
 * calls {@link Producer#send} (which may block on metadata). A full queue drops the event, counts it
 * and logs a throttled warning; delivery is otherwise at-least-once (the producer retries).
 *
 * <p>Thread-safe: {@link #publish} may be called from any thread, including event loops and Lettuce
 * threads. The producer is shared and owned by the caller, who closes it after this publisher.
 */
public final class FirstTodayPublisher implements FirstTodayListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FirstTodayPublisher.class);
  private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final long POLL_MS = 100;

  private final String topic;
  private final Producer<byte[], byte[]> producer;
  private final FirstTodayMetrics metrics;
  private final Duration closeTimeout;
  private final BlockingQueue<FirstTodayEvent> queue;
  private final Thread thread;
  private final AtomicLong lastWarnNanos = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);
  private volatile boolean closed;

  /** Starts the publisher thread; events go to {@link CoreConfig#firstTodayTopic()}. */
  public FirstTodayPublisher(CoreConfig config, Producer<byte[], byte[]> producer, FirstTodayMetrics metrics) {
    this.topic = config.firstTodayTopic();
    this.producer = producer;
    this.metrics = metrics;
    this.closeTimeout = config.flushCloseTimeout();
    this.queue = new ArrayBlockingQueue<>(config.firstTodayQueueCapacity());
    metrics.queue(queue);
    this.thread = new Thread(this::drain, "playline-first-today-publisher");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void firstToday(long uid, String day, String deviceId, String platform, long timeMs) {
    publish(uid, day, deviceId, platform, timeMs);
  }

  /**
   * Queues the event for publishing and returns at once; never blocks. Returns false when it was
   * dropped (queue full or publisher closed), which is counted and logged. Any thread.
   */
  public boolean publish(long uid, String day, String deviceId, String platform, long timeMs) {
    if (uid <= 0) {
      throw new IllegalArgumentException("uid: " + uid + " (expected: > 0)");
    }
    FirstTodayEvent event = FirstTodayEvent.newBuilder().setUid(uid).setDay(day).setDeviceId(deviceId)
        .setPlatform(platform).setTimeMs(timeMs).build();
    if (!closed && queue.offer(event)) {
      return true;
    }
    metrics.dropped.increment();
    warnThrottled("First-today publisher dropped uid {} day {}: {} ({} dropped so far)", uid, day,
        closed ? "closed" : "queue full", (long) metrics.dropped());
    return false;
  }

  private void drain() {
    try {
      while (true) {
        FirstTodayEvent event = queue.poll(POLL_MS, TimeUnit.MILLISECONDS);
        if (event != null) {
          send(event);
        } else if (closed) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void send(FirstTodayEvent event) {
    byte[] key = Long.toString(event.getUid()).getBytes(US_ASCII);
    try {
      producer.send(new ProducerRecord<>(topic, key, event.toByteArray()), (metadata, error) -> {
        if (error == null) {
          metrics.published.increment();
        } else {
          failed(event, error);
        }
      });
    } catch (RuntimeException e) {
      // send throws instead of calling back when metadata or buffer space did not come in max.block.ms.
      failed(event, e);
    }
  }

  private void failed(FirstTodayEvent event, Throwable error) {
    metrics.failed.increment();
    warnThrottled("First-today event for uid {} day {} not published: {} ({} failed so far)", event.getUid(),
        event.getDay(), error.toString(), (long) metrics.failed());
  }

  private void warnThrottled(String format, @Nullable Object... args) {
    long now = System.nanoTime();
    long last = lastWarnNanos.get();
    if (now - last >= WARN_EVERY_NANOS && lastWarnNanos.compareAndSet(last, now)) {
      log.warn(format, args);
    }
  }

  /**
   * Stops taking events, hands what is queued to the producer (bounded by {@code
   * writeback.close.timeout}) and stops the thread; what is left is counted as dropped. Does not
   * close the shared producer. Idempotent; any thread but the publisher's.
   */
  @Override
  public void close() {
    closed = true;
    try {
      thread.join(closeTimeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      thread.interrupt();
    }
    int left = queue.size();
    queue.clear();
    if (left > 0) {
      metrics.dropped.increment(left);
      log.warn("First-today publisher closed with {} events unsent after {}", left, closeTimeout);
    }
  }
}
