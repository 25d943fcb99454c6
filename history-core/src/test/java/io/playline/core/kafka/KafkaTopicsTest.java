package io.playline.core.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.KafkaClientConfig;
import io.playline.core.config.KafkaTopicConfig;
import io.playline.core.store.RetriableStoreException;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealKafkaExtension;
import io.playline.time.Time;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Topic set-up against the test JVM's real single-broker Kafka; every test uses topics of its own. */
@ExtendWith(RealKafkaExtension.class)
class KafkaTopicsTest {

  private static KafkaTopicConfig config(Map<String, String> settings) {
    return KafkaTopicConfig.from(ConfigSource.empty().with(settings));
  }

  private static String freshName(String base) {
    return base + "-" + UUID.randomUUID();
  }

  private static Map<String, String> ensure(KafkaNamespace kafka, KafkaTopicConfig config) {
    return KafkaTopics.ensure(kafka.bootstrapServers(), KafkaClientConfig.none(), config, config.all(),
        Time.SYSTEM);
  }

  private static TopicDescription describe(KafkaNamespace kafka, String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    }
  }

  @Test
  void missingTopicsAreCreatedWithTheConfiguredPartitions(KafkaNamespace kafka) throws Exception {
    String history = freshName("history");
    String firstToday = freshName("first-today");
    KafkaTopicConfig config = config(Map.of("kafka.topic.history", history, "kafka.topic.first-today", firstToday,
        "kafka.topic.partitions", "3", "kafka.topic.first.today.partitions", "2"));

    Map<String, String> ids = ensure(kafka, config);

    assertThat(describe(kafka, history).partitions()).hasSize(3);
    assertThat(describe(kafka, firstToday).partitions()).hasSize(2);
    // Each topic's id, as Kafka has it, whether created now or found (the item counters name streams by it).
    assertThat(ids).containsEntry(history, describe(kafka, history).topicId().toString())
        .containsEntry(firstToday, describe(kafka, firstToday).topicId().toString());
    assertThat(ensure(kafka, config)).isEqualTo(ids);
    ensure(kafka, config); // present and as configured: accepted as is
    assertThat(describe(kafka, history).partitions()).hasSize(3);
  }

  @Test
  void defaultsAreTwelvePartitionsAndTheBrokersReplicationFactor() {
    KafkaTopicConfig config = KafkaTopicConfig.from(ConfigSource.empty());

    assertThat(config.history().name()).isEqualTo("playline.history.v1");
    assertThat(config.history().partitions()).isEqualTo(12);
    assertThat(config.history().keyOrdered()).isTrue();
    assertThat(config.firstToday().name()).isEqualTo("playline.first-today.v1");
    assertThat(config.firstToday().keyOrdered()).isFalse();
    assertThat(config.history().replicationFactor()).isEmpty();
    assertThat(config.adminTimeout()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void historyTopicWithAnotherPartitionCountIsRefusedWithTheSafeProcedure(KafkaNamespace kafka) throws Exception {
    String existing = kafka.topic("history"); // KafkaNamespace.PARTITIONS (4) partitions
    KafkaTopicConfig config = config(Map.of("kafka.topic.history", existing,
        "kafka.topic.first.today", freshName("first-today"), "kafka.topic.partitions", "6"));

    assertThatThrownBy(() -> ensure(kafka, config))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.topic.history.partitions: 6")
        .hasMessageContaining("topic " + existing)
        .hasMessageContaining("has " + KafkaNamespace.PARTITIONS + " partitions")
        .hasMessageContaining("stop the gateways, let the jobs drain the topic");
    assertThat(describe(kafka, existing).partitions()).hasSize(KafkaNamespace.PARTITIONS);
  }

  @Test
  void firstTodayTopicWithAnotherPartitionCountIsUsedAsItIs(KafkaNamespace kafka) throws Exception {
    String existing = kafka.topic("first-today");
    KafkaTopicConfig config = config(Map.of("kafka.topic.history", freshName("history"),
        "kafka.topic.first.today", existing, "kafka.topic.partitions", "6"));

    ensure(kafka, config);

    assertThat(describe(kafka, existing).partitions()).hasSize(KafkaNamespace.PARTITIONS);
    assertThat(describe(kafka, config.history().name()).partitions()).hasSize(6);
  }

  @Test
  void concurrentEnsuresOfTheSameMissingTopicsBothSucceed(KafkaNamespace kafka) throws Exception {
    for (int round = 0; round < 4; round++) {
      KafkaTopicConfig config = config(Map.of("kafka.topic.history", freshName("history"),
          "kafka.topic.first.today", freshName("first-today"), "kafka.topic.partitions", "5"));
      CyclicBarrier start = new CyclicBarrier(2);
      List<CompletableFuture<Void>> racers = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        racers.add(CompletableFuture.runAsync(() -> {
          await(start);
          ensure(kafka, config);
        }));
      }

      CompletableFuture.allOf(racers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

      assertThat(describe(kafka, config.history().name()).partitions()).hasSize(5);
      assertThat(describe(kafka, config.firstToday().name()).partitions()).hasSize(5);
    }
  }

  @Test
  void replicationFactorAboveTheBrokerCountIsAClearError(KafkaNamespace kafka) {
    String history = freshName("history");
    KafkaTopicConfig config = config(Map.of("kafka.topic.history", history,
        "kafka.topic.first.today", freshName("first-today"), "kafka.topic.replication.factor", "3"));

    assertThatThrownBy(() -> ensure(kafka, config))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.topic.replication.factor: 3")
        .hasMessageContaining("at most the number of brokers")
        .hasMessageContaining("topic " + history);
  }

  @Test
  void unreachableBrokersFailRetriablyWithinTheTimeout() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    Map<String, String> settings = new HashMap<>();
    settings.put("kafka.topic.history", freshName("history"));
    settings.put("kafka.admin.timeout", "1s");
    KafkaTopicConfig config = config(settings);
    long start = System.nanoTime();

    assertThatThrownBy(() -> KafkaTopics.ensure("127.0.0.1:" + closedPort, KafkaClientConfig.none(), config,
        config.all(), Time.SYSTEM))
        .isInstanceOf(RetriableStoreException.class)
        .hasMessageContaining("127.0.0.1:" + closedPort)
        .hasMessageContaining("did not answer within 1000 ms (kafka.admin.timeout)")
        .hasMessageContaining(config.history().name());
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
  }

  @Test
  void adminPassThroughReachesTheRealClient(KafkaNamespace kafka) {
    // The test broker speaks PLAINTEXT: an admin client told to use TLS cannot talk to it.
    KafkaClientConfig tls = KafkaClientConfig.from(ConfigSource.empty().with(Map.of(
        "kafka.common.security.protocol", "SSL")));
    KafkaTopicConfig config = config(Map.of("kafka.topic.history", freshName("history"),
        "kafka.topic.first.today", freshName("first-today"), "kafka.admin.timeout", "2s"));

    assertThatThrownBy(() -> KafkaTopics.ensure(kafka.bootstrapServers(), tls, config, config.all(), Time.SYSTEM))
        .isInstanceOf(RetriableStoreException.class);
    KafkaTopics.ensure(kafka.bootstrapServers(), KafkaClientConfig.none(), config, config.all(), Time.SYSTEM);
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
