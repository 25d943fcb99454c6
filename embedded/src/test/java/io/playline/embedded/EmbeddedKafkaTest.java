package io.playline.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaTest {

  @TempDir Path workDir;

  @Test
  void producedRecordIsConsumed() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start(new EmbeddedKafka.Options(workDir, 0))) {
      assertThat(kafka.bootstrapServers()).startsWith("127.0.0.1:");
      RecordMetadata sent = produce(kafka, "round-trip", "player-1", "heartbeat");
      assertThat(sent.offset()).isZero();

      List<ConsumerRecord<String, String>> records = consumeAll(kafka, "round-trip", 1);
      assertThat(records).singleElement().satisfies(record -> {
        assertThat(record.key()).isEqualTo("player-1");
        assertThat(record.value()).isEqualTo("heartbeat");
      });
    }
  }

  @Test
  void restartOnSameWorkDirAndAnotherPortKeepsRecords() throws Exception {
    String firstBootstrap;
    try (EmbeddedKafka kafka = EmbeddedKafka.start(new EmbeddedKafka.Options(workDir, 0))) {
      firstBootstrap = kafka.bootstrapServers();
      produce(kafka, "durable", "player-2", "before-restart");
    }
    try (EmbeddedKafka kafka = EmbeddedKafka.start(new EmbeddedKafka.Options(workDir, 0))) {
      assertThat(kafka.bootstrapServers()).isNotEqualTo(firstBootstrap);
      produce(kafka, "durable", "player-2", "after-restart");

      List<ConsumerRecord<String, String>> records = consumeAll(kafka, "durable", 2);
      assertThat(records).extracting(ConsumerRecord::value)
          .containsExactly("before-restart", "after-restart");
    }
  }

  @Test
  void closeIsIdempotent() throws IOException {
    EmbeddedKafka kafka = EmbeddedKafka.start(new EmbeddedKafka.Options(workDir, 0));
    kafka.close();
    kafka.close();
  }

  private static RecordMetadata produce(EmbeddedKafka kafka, String topic, String key, String value)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<String, Object> config = Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      return producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
    }
  }

  /** Reads {@code topic} from the beginning with a fresh group until {@code expected} records arrived. */
  private static List<ConsumerRecord<String, String>> consumeAll(EmbeddedKafka kafka, String topic, int expected) {
    Map<String, Object> config = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.GROUP_ID_CONFIG, "smoke-" + System.nanoTime(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      await().atMost(Duration.ofSeconds(30)).pollInSameThread().until(() -> {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        return records.size() >= expected;
      });
    }
    return records;
  }
}
