package io.playline.core.aggregate;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import io.playline.time.Time;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends write-back records to their explicit partitions (key = the partition number as decimal
 * text) and waits for every ack. Confined to the aggregator's flush thread; blocks.
 */
final class WriteBackSender {
  private static final Logger log = LoggerFactory.getLogger(WriteBackSender.class);

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final WriteBackMetrics metrics;
  private final Time time;
  private int lastPartitionCount;

  WriteBackSender(Producer<byte[], byte[]> producer, String topic, WriteBackMetrics metrics, Time time) {
    this.producer = producer;
    this.topic = topic;
    this.metrics = metrics;
    this.time = time;
  }

  /**
   * The topic's partition count, from the producer's metadata cache (which the producer refreshes
   * on its own); blocks up to max.block.ms when the topic's metadata is not known yet.
   *
   * @throws KafkaException when Kafka does not answer in time
   */
  int partitionCount() {
    int count = producer.partitionsFor(topic).size();
    if (count == 0) {
      throw new KafkaException("topic " + topic + " has no partitions in the producer's metadata");
    }
    if (count != lastPartitionCount) {
      log.info("Write-back topic {} has {} partitions (was {})", topic, count, lastPartitionCount);
      lastPartitionCount = count;
    }
    return count;
  }

  /**
   * Sends every record, in order, and waits for the acks until {@code deadlineNanos} ({@link
   * Time#nanoTime()}); returns the partitions that have a record Kafka did not ack.
   */
  Set<Integer> send(List<PartitionRecord> records, long deadlineNanos) throws InterruptedException {
    List<@Nullable Future<RecordMetadata>> futures = new ArrayList<>(records.size());
    int[] bytes = new int[records.size()];
    @Nullable Throwable firstError = null;
    Set<Integer> failed = new TreeSet<>();
    for (int i = 0; i < records.size(); i++) {
      PartitionRecord r = records.get(i);
      byte[] value = r.batch().toByteArray();
      bytes[i] = value.length;
      try {
        byte[] key = Integer.toString(r.partition()).getBytes(US_ASCII);
        futures.add(producer.send(new ProducerRecord<>(topic, r.partition(), key, value)));
      } catch (KafkaException e) {
        // Thrown instead of a failed future when metadata or buffer space did not come in max.block.ms.
        futures.add(null);
        failed.add(r.partition());
        firstError = firstError == null ? e : firstError;
      }
    }
    for (int i = 0; i < records.size(); i++) {
      Future<RecordMetadata> f = futures.get(i);
      PartitionRecord r = records.get(i);
      if (f == null) {
        metrics.sendFailed();
        continue;
      }
      try {
        f.get(Math.max(0, deadlineNanos - time.nanoTime()), TimeUnit.NANOSECONDS);
        metrics.recordSent(r.batch().getChangesCount(), bytes[i]);
      } catch (ExecutionException | TimeoutException e) {
        metrics.sendFailed();
        failed.add(r.partition());
        firstError = firstError == null ? (e instanceof ExecutionException ? e.getCause() : e) : firstError;
      }
    }
    if (firstError != null) {
      log.warn("Write-back: {} of {} partitions not acked by Kafka, first error: {}", failed.size(),
          records.stream().map(PartitionRecord::partition).distinct().count(), String.valueOf(firstError));
    }
    return failed;
  }
}
