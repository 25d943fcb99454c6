package io.playline.topology;

import io.playline.proto.v1.FirstTodayEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the first-today topic from its beginning, as a downstream consumer would: every partition
 * assigned (no group), each call reading on from where the last stopped. Not thread-safe.
 */
final class FirstTodayReader implements AutoCloseable {
  static final String TOPIC = "playline.first-today.v1";
  private final KafkaConsumer<byte[], byte[]> consumer;
  private boolean assigned;

  FirstTodayReader(String bootstrapServers) {
    consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** Adds the events read since the last call to {@code eventsByUid} (counting each uid's events). */
  void readInto(Map<Long, Integer> eventsByUid) throws Exception {
    if (!assigned) {
      List<TopicPartition> partitions = consumer.partitionsFor(TOPIC, Duration.ofSeconds(10)).stream()
          .map(p -> new TopicPartition(TOPIC, p.partition())).toList();
      if (partitions.isEmpty()) {
        throw new IllegalStateException("topic " + TOPIC + " not there yet");
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      assigned = true;
    }
    while (true) {
      ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofSeconds(1));
      if (records.isEmpty()) {
        return;
      }
      for (ConsumerRecord<byte[], byte[]> r : records) {
        eventsByUid.merge(FirstTodayEvent.parseFrom(r.value()).getUid(), 1, Integer::sum);
      }
    }
  }

  @Override
  public void close() {
    consumer.close();
  }
}
