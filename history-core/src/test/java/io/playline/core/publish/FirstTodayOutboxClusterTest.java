package io.playline.core.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ClusterTopologyConfig;
import io.playline.core.config.KafkaProducerConfig;
import io.playline.core.store.ClusterConnections;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.embedded.EmbeddedRedisCluster;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisClusterExtension;
import io.playline.testing.RedisClusterNamespace;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The first-today outboxes on a real Redis Cluster: bit and event in one slot, swept from every master. */
@ExtendWith({RealRedisClusterExtension.class, RealKafkaExtension.class})
class FirstTodayOutboxClusterTest {
  private static final int USERS = 60;

  @Test
  void eventsOfUsersOnEveryMasterAreKeptWithTheirBitAndSwept(RedisClusterNamespace ns, KafkaNamespace kafka)
      throws Exception {
    String topic = kafka.topic("first-today");
    FirstTodayMetrics metrics = new FirstTodayMetrics(new SimpleMeterRegistry());
    try (RedisConnections redis = ClusterConnections.connect(ns, Duration.ofSeconds(10), ClusterTopologyConfig.defaults());
        KafkaProducer<byte[], byte[]> producer = KafkaProducers.create(kafka.bootstrapServers(),
            KafkaProducerConfig.defaults());
        FirstTodayFixture f = new FirstTodayFixture(redis, ns.keyPrefix(), topic, Map.of(
            "first.today.outbox.age", "1s", "first.today.outbox.sweep.interval", "200ms"))) {
      Set<EmbeddedRedisCluster.Node> owners = new HashSet<>();
      for (long uid = 1; uid <= USERS; uid++) {
        // Refused with CROSSSLOT if the outbox were not in its bitmap's slot.
        assertThat(f.check(uid, "phone", List.of()).firstToday()).containsExactly(true);
        int shard = RedisKeys.firstTodayOutboxShard(uid, f.config.firstTodayShards(), f.config.firstTodayOutbox().shards());
        owners.add(ns.cluster().masterOfKey(new String(f.keys.firstTodayOutbox(shard), StandardCharsets.UTF_8)));
      }
      assertThat(owners).as("outboxes on every master").hasSize(3);
      assertThat(f.outboxSize()).isEqualTo(USERS);

      // No node was told: the sweep claims them on every master and delivers each.
      FirstTodayPublisher publisher = f.publisher(producer, metrics);
      try (publisher; TopicReader reader = new TopicReader(kafka, topic)) {
        List<ConsumerRecord<byte[], byte[]>> records = reader.readUntil(r -> r.stream()
            .map(c -> FirstTodayPublisherTest.parse(c.value()).getUid()).distinct().count() == USERS);
        assertThat(records.stream().map(c -> FirstTodayPublisherTest.parse(c.value()).getUid()).distinct())
            .hasSize(USERS);
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> f.outboxSize() == 0);
      }
    }
  }
}
