package io.playline.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.publish.KafkaProducers;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealKafkaExtension;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealKafkaExtension.class)
class KafkaClientConfigTest {

  private static KafkaClientConfig from(Map<String, String> settings) {
    return KafkaClientConfig.from(ConfigSource.empty().with(settings));
  }

  @Test
  void commonReachesEveryClientThatKnowsItAndTheSpecificKeyWins() {
    KafkaClientConfig p = from(Map.of(
        "kafka.common.security.protocol", "SASL_SSL",
        "kafka.common.sasl.mechanism", "PLAIN",
        "kafka.common.compression.type", "gzip", // a producer property: the consumer and admin do not get it
        "kafka.admin.sasl.mechanism", "SCRAM-SHA-512",
        "kafka.producer.compression.type", "zstd"));

    assertThat(p.passThrough(KafkaClient.PRODUCER)).containsOnly(Map.entry("security.protocol", "SASL_SSL"),
        Map.entry("sasl.mechanism", "PLAIN"), Map.entry("compression.type", "zstd"));
    assertThat(p.passThrough(KafkaClient.CONSUMER)).containsOnly(Map.entry("security.protocol", "SASL_SSL"),
        Map.entry("sasl.mechanism", "PLAIN"));
    assertThat(p.passThrough(KafkaClient.ADMIN)).containsEntry("sasl.mechanism", "SCRAM-SHA-512");
    assertThat(KafkaProducers.properties("h:1", KafkaProducerConfig.defaults(), p))
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd")
        .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
        .containsEntry(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "h:1");
  }

  @Test
  void environmentVariablesArePassedThroughToo() {
    ConfigSource source = ConfigSource.load(null, Map.of("PLAYLINE_KAFKA_COMMON_SECURITY_PROTOCOL", "SSL",
        "PLAYLINE_KAFKA_CONSUMER_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM", ""), new Properties(), Map.of());

    assertThat(KafkaClientConfig.from(source).passThrough(KafkaClient.CONSUMER))
        .containsOnly(Map.entry("security.protocol", "SSL"));
  }

  @Test
  void playlinesOwnKeysUnderThePrefixesKeepTheirMeaning() {
    ConfigSource source = ConfigSource.empty().with(Map.of("kafka.producer.linger", "3ms",
        "kafka.producer.max.request.bytes", "2000000", "kafka.admin.timeout", "5s"));

    KafkaClientConfig p = KafkaClientConfig.from(source);

    assertThat(p.producer()).isEmpty();
    assertThat(p.admin()).isEmpty();
    assertThat(KafkaProducers.properties("h:1", KafkaProducerConfig.from(source), p))
        .containsEntry(ProducerConfig.LINGER_MS_CONFIG, "3")
        .containsEntry(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "2000000");
  }

  @Test
  void aTypoIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> from(Map.of("kafka.producer.lingr.ms", "5")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.producer.lingr.ms: '5'")
        .hasMessageContaining("neither (a typo?)")
        .hasMessageContaining("PLAYLINE_KAFKA_PRODUCER_LINGR_MS");
    assertThatThrownBy(() -> from(Map.of("kafka.common.security.protocl", "SSL")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.common.security.protocl");
    // A producer-only property is not a consumer's.
    assertThatThrownBy(() -> from(Map.of("kafka.consumer.compression.type", "zstd")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.consumer.compression.type")
        .hasMessageContaining("Kafka consumer client");
  }

  @Test
  void propertiesPlaylineSetsForCorrectnessAreRefusedWithTheReason() {
    assertThatThrownBy(() -> from(Map.of("kafka.producer.acks", "1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.producer.acks: '1'")
        .hasMessageContaining("Playline sets acks for the producer itself")
        .hasMessageContaining("in order");
    assertThatThrownBy(() -> from(Map.of("kafka.consumer.enable.auto.commit", "true")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.consumer.enable.auto.commit")
        .hasMessageContaining("only after HBase holds it");
    assertThatThrownBy(() -> from(Map.of("kafka.common.bootstrap.servers", "other:9092")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.common.bootstrap.servers")
        .hasMessageContaining("set by kafka.bootstrap.servers");
    assertThatThrownBy(() -> from(Map.of("kafka.producer.linger.ms", "1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("set by kafka.producer.linger");
    // The producer's request timeout has its own key: common may not set it, the other clients may.
    assertThatThrownBy(() -> from(Map.of("kafka.common.request.timeout.ms", "9000")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("{producer=set by kafka.producer.request.timeout}");
    assertThat(from(Map.of("kafka.consumer.request.timeout.ms", "9000")).consumer())
        .containsEntry("request.timeout.ms", "9000");
  }

  @Test
  void aValueOfTheWrongTypeIsRefusedAtStartUpAndSecretsAreNotEchoed() {
    assertThatThrownBy(() -> from(Map.of("kafka.consumer.session.timeout.ms", "soon")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.consumer.session.timeout.ms: 'soon'");
    assertThatThrownBy(() -> from(Map.of("kafka.common.security.protocol", "TLS")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.common.security.protocol: 'TLS'");
    assertThatThrownBy(() -> from(Map.of("kafka.common.sasl.jaas.confg", "x password=\"hunter2\";")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.common.sasl.jaas.confg: '[hidden]'")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void producerPassThroughReachesTheRealProducer(KafkaNamespace kafka) {
    KafkaClientConfig p = from(Map.of("kafka.producer.buffer.memory", "1234567"));

    try (KafkaProducer<byte[], byte[]> producer =
        KafkaProducers.create(kafka.bootstrapServers(), KafkaProducerConfig.defaults(), p)) {
      assertThat(metric(producer.metrics(), "buffer-total-bytes")).isEqualTo(1234567.0);
    }
  }

  @Test
  void consumerPassThroughReachesTheRealConsumer(KafkaNamespace kafka) {
    KafkaClientConfig p = from(Map.of("kafka.consumer.client.id", "pass-through-consumer"));
    Map<String, Object> properties = p.build(KafkaClient.CONSUMER, kafka.bootstrapServers(),
        Map.of(ConsumerConfig.GROUP_ID_CONFIG, "g"));

    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      assertThat(consumer.metrics().keySet()).anyMatch(m -> "pass-through-consumer".equals(m.tags().get("client-id")));
    }
  }

  private static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
    return metrics.entrySet().stream().filter(e -> e.getKey().name().equals(name)).findFirst()
        .map(e -> ((Number) e.getValue().metricValue()).doubleValue()).orElseThrow();
  }
}
