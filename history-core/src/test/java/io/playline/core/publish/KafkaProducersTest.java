package io.playline.core.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.KafkaProducerConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

class KafkaProducersTest {

  @Test
  void defaultsAreIdempotentAllAcksLz4WithLingerAndLargeBatches() {
    Properties p = KafkaProducers.properties("127.0.0.1:9092", KafkaProducerConfig.defaults());

    assertThat(p)
        .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true")
        .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
        .containsEntry(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4")
        .containsEntry(ProducerConfig.LINGER_MS_CONFIG, "10")
        .containsEntry(ProducerConfig.BATCH_SIZE_CONFIG, "262144")
        .containsEntry(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000")
        .containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000")
        .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "playline");
  }

  @Test
  void settingsComeFromTheirKeys() {
    KafkaProducerConfig s = KafkaProducerConfig.from(ConfigSource.empty().with(Map.of(
        "kafka.client.id", "core-7", "kafka.producer.max.block", "500ms", "kafka.producer.linger", "2ms")));

    assertThat(s.clientId()).isEqualTo("core-7");
    assertThat(s.maxBlock()).isEqualTo(Duration.ofMillis(500));
    assertThat(KafkaProducers.properties("h:1", s)).containsEntry(ProducerConfig.LINGER_MS_CONFIG, "2");
  }

  @Test
  void rejectsADeliveryTimeoutShorterThanLingerPlusRequestTimeout() {
    ConfigSource c = ConfigSource.empty().with(Map.of(
        "kafka.producer.request.timeout", "30s", "kafka.producer.delivery.timeout", "20s"));

    assertThatThrownBy(() -> KafkaProducerConfig.from(c))
        .isInstanceOf(ConfigException.class).hasMessageContaining("kafka.producer.delivery.timeout");
  }

  @Test
  void rejectsAnUnboundedMaxBlock() {
    ConfigSource c = ConfigSource.empty().with(Map.of("kafka.producer.max.block", "1h"));

    assertThatThrownBy(() -> KafkaProducerConfig.from(c))
        .isInstanceOf(ConfigException.class).hasMessageContaining("kafka.producer.max.block");
  }
}
