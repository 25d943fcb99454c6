package io.playline.core.publish;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * A real producer that a test can take "down" (partition lookups throw and sends fail, as when the
 * brokers are unreachable) or make block in {@code send} (as when metadata does not come).
 * Thread-safe; blocked sends give up after 30 s.
 */
public final class FlakyProducer implements Producer<byte[], byte[]> {
  private final Producer<byte[], byte[]> delegate;
  private final AtomicInteger blockedSends = new AtomicInteger();
  private volatile boolean down;
  private volatile int failingPartition = -1;
  private volatile CountDownLatch unblock = new CountDownLatch(0);

  public FlakyProducer(Producer<byte[], byte[]> delegate) {
    this.delegate = delegate;
  }

  /** While down, partition lookups throw and sends fail with a Kafka timeout. */
  public void down(boolean down) {
    this.down = down;
  }

  /** Sends to {@code partition} fail with a Kafka timeout (-1: none), as when only its leader is unreachable. */
  public void failPartition(int partition) {
    this.failingPartition = partition;
  }

  /** While blocking, sends wait (at most 30 s) until {@link #unblockSends}. */
  public void blockSends() {
    unblock = new CountDownLatch(1);
  }

  public void unblockSends() {
    unblock.countDown();
  }

  /** Sends currently waiting in {@link #blockSends} mode. */
  public int blockedSends() {
    return blockedSends.get();
  }

  @Override
  public List<PartitionInfo> partitionsFor(String topic) {
    if (down) {
      throw new TimeoutException("test: Kafka is down");
    }
    return delegate.partitionsFor(topic);
  }

  @Override
  public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
    return send(record, null);
  }

  @Override
  public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
    blockedSends.incrementAndGet();
    try {
      if (!unblock.await(30, TimeUnit.SECONDS)) {
        throw new TimeoutException("test: send stayed blocked");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new org.apache.kafka.common.errors.InterruptException(e);
    } finally {
      blockedSends.decrementAndGet();
    }
    Integer partition = record.partition();
    if (down || (partition != null && partition == failingPartition)) {
      TimeoutException error = new TimeoutException("test: Kafka is down");
      if (callback != null) {
        callback.onCompletion(null, error);
      }
      return CompletableFuture.failedFuture(error);
    }
    return delegate.send(record, callback);
  }

  @Override
  public void flush() {
    delegate.flush();
  }

  @Override
  public Map<MetricName, ? extends Metric> metrics() {
    return delegate.metrics();
  }

  @Override
  public Uuid clientInstanceId(Duration timeout) {
    return delegate.clientInstanceId(timeout);
  }

  @Override
  public void registerMetricForSubscription(KafkaMetric metric) {
    delegate.registerMetricForSubscription(metric);
  }

  @Override
  public void unregisterMetricFromSubscription(KafkaMetric metric) {
    delegate.unregisterMetricFromSubscription(metric);
  }

  @Override
  public void initTransactions() {
    throw new UnsupportedOperationException();
  }

  @Override
  public void beginTransaction() {
    throw new UnsupportedOperationException();
  }

  @Override
  public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets,
      ConsumerGroupMetadata groupMetadata) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void commitTransaction() {
    throw new UnsupportedOperationException();
  }

  @Override
  public void abortTransaction() {
    throw new UnsupportedOperationException();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public void close(Duration timeout) {
    delegate.close(timeout);
  }
}
