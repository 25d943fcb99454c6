package io.playline.roles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.core.config.KafkaClientConfig;
import io.playline.core.store.RedisConnections;
import io.playline.embedded.EmbeddedRedis;
import io.playline.node.admin.Readiness;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.time.Time;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Readiness as a load balancer sees it: Kafka and HBase outages are reported but keep the node in
 * rotation (heartbeats need only Redis); a Redis outage takes it out.
 */
@ExtendWith(RealHBaseExtension.class)
class BackendHealthTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void onlyRedisGatesReadinessWhileKafkaAndAWatchedJobAreReported(HBaseNamespace hbase) throws Exception {
    Path dir = Files.createTempDirectory("backend-health");
    EmbeddedRedis redisServer = EmbeddedRedis.start(new EmbeddedRedis.Options(dir, 0, false));
    Readiness readiness = new Readiness();
    try (RedisConnections redis = RedisConnections.connect(redisServer.redisUri(), false, Duration.ofSeconds(2));
        // Nothing listens on port 1: Kafka is down for the whole test.
        BackendHealth health = new BackendHealth(redis.shared(), "127.0.0.1:1", KafkaClientConfig.none(),
            BackendHealth.hbase(hbase.connection()), readiness, Time.SYSTEM)) {
      health.watch("job", () -> false, false);
      health.start(Duration.ofMillis(200));
      await().atMost(WAIT).until(() -> readiness.snapshot().get("redis").ready()
          && readiness.snapshot().get("hbase").ready());
      assertThat(readiness.snapshot().get("kafka")).isEqualTo(new Readiness.Component(false, false));
      assertThat(readiness.snapshot().get("job")).isEqualTo(new Readiness.Component(false, false));
      assertThat(readiness.isReady()).as("Kafka down and the job not running keep the node in rotation").isTrue();
      assertThat(readiness.allReady()).isFalse();

      redisServer.close();
      await().atMost(WAIT).until(() -> !readiness.isReady());
      assertThat(readiness.snapshot().get("redis").ready()).isFalse();
    } finally {
      redisServer.close();
    }
  }
}
