package io.playline.core.publish;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.awaitility.Awaitility.await;

import io.playline.testing.KafkaNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads every partition of one test topic from the beginning, for assertions. Confined to the test
 * thread; every wait is bounded.
 */
public final class TopicReader implements AutoCloseable {
  /** Key of the marker records {@link #readUpToSentinels} writes. */
  public static final String SENTINEL = "sentinel";
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final KafkaNamespace kafka;
  private final String topic;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();

  public TopicReader(KafkaNamespace kafka, String topic) {
    this.kafka = kafka;
    this.topic = topic;
    this.consumer = new KafkaConsumer<>(kafka.consumerProperties("reader-" + topic));
    List<TopicPartition> partitions = new ArrayList<>();
    consumer.partitionsFor(topic, WAIT).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** Polls until {@code done} accepts everything read so far (at most 30 s); returns it all. */
  public List<ConsumerRecord<byte[], byte[]>> readUntil(Predicate<List<ConsumerRecord<byte[], byte[]>>> done) {
    await().atMost(WAIT).pollInSameThread().pollInterval(Duration.ofMillis(10)).until(() -> {
      consumer.poll(Duration.ofMillis(100)).forEach(records::add);
      return done.test(records);
    });
    return List.copyOf(records);
  }

  /** Polls until at least {@code count} records were read; returns them all. */
  public List<ConsumerRecord<byte[], byte[]>> readAtLeast(int count) {
    return readUntil(r -> r.size() >= count);
  }

  /**
   * Writes a sentinel record to every partition and reads until all of them arrived, so the answer
   * holds everything written to the topic before this call (records of one partition arrive in
   * order). The sentinels are left out.
   */
  public List<ConsumerRecord<byte[], byte[]>> readUpToSentinels() throws Exception {
    int partitions = consumer.assignment().size();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProperties())) {
      for (int p = 0; p < partitions; p++) {
        producer.send(new ProducerRecord<>(topic, p, SENTINEL.getBytes(US_ASCII), new byte[0])).get();
      }
    }
    readUntil(r -> {
      Set<Integer> seen = new HashSet<>();
      r.stream().filter(TopicReader::isSentinel).forEach(s -> seen.add(s.partition()));
      return seen.size() == partitions;
    });
    return records.stream().filter(r -> !isSentinel(r)).toList();
  }

  private static boolean isSentinel(ConsumerRecord<byte[], byte[]> r) {
    return r.key() != null && SENTINEL.equals(new String(r.key(), US_ASCII));
  }

  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
  }
}
