package io.playline.roles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.playline.core.config.ConfigSource;
import io.playline.core.store.HistoryRowKeys;
import io.playline.core.store.RedisConnections;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryChangeBatch;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The job role's Redis commands may take as long as {@code job.redis.timeout}, which bounds the
 * job's waits, not {@code redis.timeout}: a Redis slower than the latter but faster than the former
 * delays a poll without failing it.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class JobRoleRedisTimeoutTest {
  private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(1);
  /** Longer than redis.timeout, shorter than job.redis.timeout. */
  private static final Duration PAUSE = Duration.ofSeconds(4);

  @Test
  void aPollWhoseRedisReadBackOutlastsRedisTimeoutIsPersistedWithoutARetry(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) throws Exception {
    ConfigSource config = RolesTest.config(redis, kafka, hbase, "job-1").with(Map.of("job.poll.timeout", "100ms",
        "redis.timeout", REDIS_TIMEOUT.toMillis() + "ms", "job.redis.timeout", "10s"));
    long uid = 9_001;
    try (JobRole job = JobRole.start(config, RoleBackends.resolve(config, "job", JobRole.NEEDS, null), Time.SYSTEM);
        RedisConnections pauser = RedisConnections.connect(redis.redisUri(), false, Duration.ofSeconds(5));
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.producerProperties())) {
      await("the job consumes its partitions").atMost(Duration.ofSeconds(60))
          .until(() -> job.job().readiness() && gauge(job, "playline.job.partitions.assigned") > 0);

      pauser.shared().clientPause(PAUSE.toMillis()).get(5, TimeUnit.SECONDS);
      long paused = System.nanoTime();
      producer.send(new ProducerRecord<>(kafka.topic("history"), Long.toString(uid).getBytes(StandardCharsets.US_ASCII),
          batch(uid).toByteArray())).get(10, TimeUnit.SECONDS);
      // Polled early enough in the pause that its read-back waits longer than redis.timeout.
      Duration early = PAUSE.minus(REDIS_TIMEOUT);
      await("the job polled the batch").atMost(early).until(() -> counter(job, "playline.job.records") >= 1);
      assertThat(Duration.ofNanos(System.nanoTime() - paused)).as("polled early in the pause").isLessThan(early);

      await("persisted to HBase").atMost(Duration.ofSeconds(60)).until(() -> {
        try (Table table = hbase.connection().getTable(hbase.table("history"))) {
          return !table.get(new Get(HistoryRowKeys.row(uid))).isEmpty();
        }
      });
      assertThat(counter(job, "playline.job.retries")).as("polls retried").isZero();
    }
  }

  private static HistoryChangeBatch batch(long uid) {
    long now = System.currentTimeMillis();
    HistoryRecord record = HistoryRecord.newBuilder().setUid(uid).setBusiness(Business.VIDEO).setOid(1)
        .setProgressMs(1_000).setDurationMs(600_000).setViewTimeMs(now).setDeviceId("phone").setPlatform("web").build();
    return HistoryChangeBatch.newBuilder().setFlushedAtMs(now).setNodeId("test-node")
        .addChanges(HistoryChange.newBuilder().setUid(uid).addUpserts(record)).build();
  }

  private static double counter(JobRole job, String name) {
    return job.registry().find(name).counters().stream().mapToDouble(Counter::count).sum();
  }

  private static double gauge(JobRole job, String name) {
    Gauge g = job.registry().find(name).gauge();
    return g == null ? 0 : g.value();
  }
}
