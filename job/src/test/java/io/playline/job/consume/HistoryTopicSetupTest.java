package io.playline.job.consume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.job.JobTestEnv;
import io.playline.job.PlaylineJob;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HBaseHistorySink;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The job creates or checks the history topic in its background start-up, and its consumer gets the pass-through. */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class HistoryTopicSetupTest {

  @Test
  void aMissingHistoryTopicIsCreatedWithTheConfiguredPartitionsBeforeConsuming(RedisNamespace redis,
      KafkaNamespace kafka, HBaseNamespace hbase) throws Exception {
    String topic = "history-" + UUID.randomUUID();
    try (JobTestEnv env = JobTestEnv.create(redis, kafka, hbase,
        Map.of("kafka.topic.history", topic, "kafka.topic.history.partitions", "3"));
        PlaylineJob job = env.newJob()) {
      job.start();
      await().atMost(Duration.ofSeconds(60)).until(job::readiness);

      try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
        assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
            .partitions()).hasSize(3);
      }
    }
  }

  @Test
  void aHistoryTopicWithAnotherPartitionCountStopsTheLoop(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) {
    // The env's topic has KafkaNamespace.PARTITIONS (4) partitions.
    try (JobTestEnv env = JobTestEnv.create(redis, kafka, hbase, Map.of("kafka.topic.history.partitions", "6"))) {
      JobMetrics metrics = new JobMetrics(env.registry, Time.SYSTEM);
      try (HBaseHistorySink sink = new HBaseHistorySink(hbase.connection(), env.config, metrics, Time.SYSTEM);
          HistoryConsumerLoop loop =
              new HistoryConsumerLoop(env.config, env.core, kafka.bootstrapServers(), sink, env.redis, metrics,
                  Time.SYSTEM)) {
        loop.start();

        await().atMost(Duration.ofSeconds(60)).until(loop::failed);
        assertThat(loop.prepared()).isFalse();
        assertThat(env.counter("playline.job.failures.fatal")).isEqualTo(1.0);
      }
    }
  }

  @Test
  void theConsumerGetsThePassThroughAndKeepsWhatTheJobReliesOn() {
    ConfigSource source = ConfigSource.empty().with(Map.of("kafka.common.security.protocol", "SSL",
        "kafka.consumer.fetch.max.wait.ms", "50", "job.group.id", "g-7"));
    CoreConfig core = CoreConfig.from(source);

    Map<String, Object> p = ConsumerStartup.consumerProperties(JobConfig.from(source, core), core, "h:1");

    assertThat(p).containsEntry("security.protocol", "SSL").containsEntry("fetch.max.wait.ms", "50")
        .containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "g-7")
        .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
        .containsEntry(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "h:1");
    assertThatThrownBy(() -> CoreConfig.from(ConfigSource.empty().with(Map.of("kafka.consumer.group.id", "x"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.consumer.group.id")
        .hasMessageContaining("set by job.group.id");
  }
}
