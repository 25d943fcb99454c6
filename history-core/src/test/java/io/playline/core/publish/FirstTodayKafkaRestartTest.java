package io.playline.core.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.KafkaProducerConfig;
import io.playline.core.store.RedisConnections;
import io.playline.embedded.EmbeddedKafka;
import io.playline.embedded.FreePorts;
import io.playline.embedded.TestWorkDirs;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A real Kafka outage: the broker is stopped while users are counted, and restarted on the same
 * port and log directory. Its own broker, so stopping it disturbs no other test.
 */
@ExtendWith(RealRedisExtension.class)
class FirstTodayKafkaRestartTest {
  private static final String TOPIC = "first-today-restart";

  @Test
  void eventsCountedWhileTheBrokerIsDownArriveOnceItIsBack(RedisNamespace ns) throws Exception {
    Path workDir = TestWorkDirs.freshDir("first-today-kafka-restart");
    int port = FreePorts.pick();
    EmbeddedKafka kafka = EmbeddedKafka.start(new EmbeddedKafka.Options(workDir, port));
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get();
    }
    FirstTodayMetrics metrics = new FirstTodayMetrics(new SimpleMeterRegistry());
    KafkaProducerConfig fast = KafkaProducerConfig.from(ConfigSource.empty().with(Map.of(
        "kafka.producer.linger", "0ms", "kafka.producer.max.block", "1s", "kafka.producer.request.timeout", "1s",
        "kafka.producer.delivery.timeout", "2s")));
    try (RedisConnections redis = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5));
        KafkaProducer<byte[], byte[]> producer = KafkaProducers.create(kafka.bootstrapServers(), fast);
        FirstTodayFixture f = new FirstTodayFixture(redis, ns.keyPrefix(), TOPIC, Map.of(
            "first.today.outbox.age", "3s", "first.today.outbox.sweep.interval", "500ms"));
        FirstTodayPublisher publisher = f.publisher(producer, metrics)) {
      assertThat(f.countAndPublish(1, "phone", publisher)).isTrue();
      await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> f.outboxSize() == 0);

      kafka.close();
      for (long uid = 2; uid <= 4; uid++) {
        assertThat(f.countAndPublish(uid, "phone", publisher)).isTrue();
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> metrics.failed() >= 3);
      assertThat(f.outboxSize()).isEqualTo(3);

      kafka = EmbeddedKafka.start(new EmbeddedKafka.Options(workDir, port));
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> f.outboxSize() == 0);
      assertThat(uidsOnTheTopic(kafka.bootstrapServers())).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
    } finally {
      kafka.close();
    }
  }

  /** The distinct uids on the topic, read from the beginning until all four are there. */
  private static Set<Long> uidsOnTheTopic(String bootstrap) {
    Set<Long> uids = new HashSet<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.GROUP_ID_CONFIG, "t-" + UUID.randomUUID(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(TOPIC));
      await().atMost(Duration.ofSeconds(30)).pollInSameThread().until(() -> {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> uids.add(FirstTodayPublisherTest.parse(r.value()).getUid()));
        return uids.size() >= 4;
      });
    }
    return uids;
  }
}
