package io.playline.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ClusterTopologyConfig;
import io.playline.core.config.CoreConfig;
import io.playline.core.write.BatchOutcome;
import io.playline.core.write.FirstTodayCheck;
import io.playline.core.write.RedisHistoryWriter;
import io.playline.core.write.UserWrite;
import io.playline.core.write.WriteBackSink;
import io.playline.core.write.WriteBatch;
import io.playline.core.write.WriteMetrics;
import io.playline.core.write.WriteOutcome;
import io.playline.embedded.EmbeddedRedisCluster;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.RealRedisClusterExtension;
import io.playline.testing.RedisClusterNamespace;
import io.playline.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Topology changes under a running client, on the shared real cluster: kill -9 of the master that
 * owns a user's slot (restored before the test ends), and a slot moved to another master with its
 * keys (resharding). The same {@link RedisConnections} follows both, pipelines included.
 */
@ExtendWith(RealRedisClusterExtension.class)
class RedisClusterFailoverTest {
  /** Longer than any wait below, so a stranded command shows as a failed bound, not as a timeout. */
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration FAILOVER_BOUND = Duration.ofSeconds(60);

  private RedisKeys keys;
  private RedisConnections redis;
  private RedisHistoryWriter writer;

  /** A client on the cluster with no periodic refresh: only adaptive triggers and redirects make it follow. */
  @BeforeEach
  void connect(RedisClusterNamespace ns) {
    CoreConfig config = ClusterConnections.config(ns, Map.of());
    keys = new RedisKeys(config.redisKeyPrefix());
    redis = ClusterConnections.connect(ns, COMMAND_TIMEOUT,
        new ClusterTopologyConfig(Duration.ofHours(1), Duration.ofSeconds(2)));
    writer = new RedisHistoryWriter(config, redis, WriteBackSink.NONE,
        new WriteMetrics(new SimpleMeterRegistry(), Time.SYSTEM));
  }

  @AfterEach
  void close() {
    writer.close();
    redis.close();
  }

  @Test
  void writesAndReadsSucceedAgainOnTheSameClientOnceTheReplicaIsPromoted(RedisClusterNamespace ns) throws Exception {
    EmbeddedRedisCluster cluster = ns.cluster();
    long uid = 42;
    long now = System.currentTimeMillis();
    EmbeddedRedisCluster.Node victim = cluster.masterOfKey(text(keys.timeline(uid)));
    EmbeddedRedisCluster.Node heir = cluster.replicasOf(victim).get(0);
    boolean killed = false;
    try {
      assertThat(write(writer, uid, 10, now).writes().get(0).codes()).containsExactly(WriteOutcome.CREATED);
      cluster.awaitReplicated(victim, Duration.ofSeconds(20));

      cluster.killMaster(victim);
      killed = true;

      // Reads through the shared connection: rejected while the slot's master is gone, then
      // answered by the promoted replica, with the write from before the kill.
      await("read after failover").atMost(FAILOVER_BOUND).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
          .until(() -> record(redis, keys, uid, 10), r -> r != null && r.getProgressMs() == 10);
      assertThat(cluster.masterOfKey(text(keys.timeline(uid)))).isEqualTo(heir);

      // The first pipelined write after the client saw the promotion goes to a node connection
      // the pipeline has not opened yet: it must complete without another flush from its owner.
      BatchOutcome after = writer.write(batch(uid, 11, now + 1)).toCompletableFuture().get(15, TimeUnit.SECONDS);
      assertThat(after.writes().get(0).codes()).containsExactly(WriteOutcome.CREATED);
      assertThat(after.firstToday()).containsExactly(true);
      assertThat(record(redis, keys, uid, 11).getProgressMs()).isEqualTo(11);
      assertThat(write(writer, uid, 10, now + 2).writes().get(0).codes()).containsExactly(WriteOutcome.UPDATED);
    } finally {
      if (killed) {
        // Back as a replica of its heir, so the shared cluster has every node for later tests.
        cluster.restart(victim, FAILOVER_BOUND);
      }
    }
  }

  @Test
  void aSlotMovedToAnotherMasterWithItsKeysIsFollowedWithoutARestart(RedisClusterNamespace ns) throws Exception {
    EmbeddedRedisCluster cluster = ns.cluster();
    long uid = 4343;
    long now = System.currentTimeMillis();
    assertThat(write(writer, uid, 20, now).writes().get(0).codes()).containsExactly(WriteOutcome.CREATED);
    int slot = cluster.slotOf(text(keys.timeline(uid)));
    EmbeddedRedisCluster.Node from = cluster.masterOf(slot);
    EmbeddedRedisCluster.Node to = null;
    for (int probe = 0; probe < 16384 && to == null; probe += 1000) {
      EmbeddedRedisCluster.Node m = cluster.masterOf(probe);
      to = m.equals(from) ? null : m;
    }
    assertThat(to).as("another master").isNotNull();

    Resharding.moveSlot(slot, from, to, cluster);
    assertThat(cluster.masterOf(slot)).isEqualTo(to);

    // The shared connection and the pipelined writer were told nothing: MOVED leads them there.
    await("read after the slot moved").atMost(FAILOVER_BOUND).pollInterval(Duration.ofMillis(200))
        .ignoreExceptions().until(() -> record(redis, keys, uid, 20), r -> r != null && r.getProgressMs() == 20);
    assertThat(write(writer, uid, 21, now + 1).writes().get(0).codes()).containsExactly(WriteOutcome.CREATED);
    assertThat(write(writer, uid, 20, now + 2).writes().get(0).codes()).containsExactly(WriteOutcome.UPDATED);
    assertThat(record(redis, keys, uid, 21).getProgressMs()).isEqualTo(21);
  }

  private static BatchOutcome write(RedisHistoryWriter writer, long uid, long oid, long viewTime) throws Exception {
    return writer.write(batch(uid, oid, viewTime)).toCompletableFuture().get(15, TimeUnit.SECONDS);
  }

  private static WriteBatch batch(long uid, long oid, long viewTime) {
    HistoryRecord record = HistoryRecord.newBuilder().setUid(uid).setBusiness(Business.VIDEO).setOid(oid)
        .setProgressMs(oid).setDurationMs(100_000).setViewTimeMs(viewTime).build();
    // A first-today check on a key of another slot rides along in the same pipeline.
    return new WriteBatch(viewTime, "2026112" + (oid % 10), 172_800_000L, List.of(new UserWrite(uid, List.of(record))),
        List.of(FirstTodayCheck.of(uid)));
  }

  private static HistoryRecord record(RedisConnections redis, RedisKeys keys, long uid, long oid) throws Exception {
    byte[] bytes = redis.shared().hget(keys.records(uid), RedisKeys.member(Business.VIDEO, oid)).get(5, TimeUnit.SECONDS);
    return bytes == null ? null : HistoryRecord.parseFrom(bytes);
  }

  private static String text(byte[] key) {
    return new String(key, StandardCharsets.US_ASCII);
  }
}
