package io.playline.roles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

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

  /**
   * Stopping the node interrupts a probe in flight: that says nothing of the backend, so no warning
   * (the distribution's smoke test fails on any Playline WARN while a node stops).
   */
  @Test
  void closingDuringAProbeWarnsOfNoBackend() throws Exception {
    Path dir = Files.createTempDirectory("backend-health-close");
    EmbeddedRedis redisServer = EmbeddedRedis.start(new EmbeddedRedis.Options(dir, 0, false));
    Logger logger = (Logger) LoggerFactory.getLogger(BackendHealth.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch probing = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    // The first probe (at start, on this thread) answers; the next one blocks until interrupted.
    BackendHealth.Probe slow = () -> {
      if (calls.incrementAndGet() == 1) {
        return BackendHealth.Answer.of(true);
      }
      probing.countDown();
      never.await();
      return BackendHealth.Answer.of(true);
    };
    try (RedisConnections redis = RedisConnections.connect(redisServer.redisUri(), false, Duration.ofSeconds(2))) {
      BackendHealth health = new BackendHealth(redis.shared(), "127.0.0.1:1", KafkaClientConfig.none(), slow,
          new Readiness(), Time.SYSTEM);
      health.start(Duration.ofMillis(20));
      await().atMost(WAIT).until(() -> probing.getCount() == 0);
      health.close();
      assertThat(lines.list.stream().filter(e -> e.getLevel() == Level.WARN)
          .map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains("hbase")))
          .as("the interrupted probe").isEmpty();
    } finally {
      logger.detachAppender(lines);
      redisServer.close();
    }
  }
}
