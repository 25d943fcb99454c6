package io.playline.core.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ClusterTopologyConfig;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.ClusterConnections;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.embedded.EmbeddedRedisCluster;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.RealRedisClusterExtension;
import io.playline.testing.RedisClusterNamespace;
import io.playline.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The write path's scripts on a real Redis Cluster: every multi-key call stays in one slot. */
@ExtendWith(RealRedisClusterExtension.class)
class RedisClusterWriteTest {
  private static final int USERS = 120;

  private RedisConnections redis;
  private RedisHistoryWriter writer;
  private CoreConfig config;
  private RedisKeys keys;
  private final long now = System.currentTimeMillis();

  @BeforeEach
  void setUp(RedisClusterNamespace ns) {
    // Several users per call: a call may only group users of one slot, or Redis refuses it (CROSSSLOT).
    config = ClusterConnections.config(ns, Map.of("redis.write.users.per.script", "8", "recovery.shards", "16"));
    keys = new RedisKeys(config.redisKeyPrefix());
    redis = ClusterConnections.connect(ns, Duration.ofSeconds(10), ClusterTopologyConfig.defaults());
    writer = new RedisHistoryWriter(config, redis, WriteBackSink.NONE,
        new WriteMetrics(new SimpleMeterRegistry(), Time.SYSTEM));
  }

  @AfterEach
  void tearDown() {
    writer.close();
    redis.close();
  }

  @Test
  void batchOfUsersOnEverySlotOwnerIsWrittenAndCheckedInOneRoundTrip(RedisClusterNamespace ns) throws Exception {
    List<UserWrite> writes = new ArrayList<>();
    List<Long> firstToday = new ArrayList<>();
    Set<EmbeddedRedisCluster.Node> owners = new HashSet<>();
    for (long uid : usersOnManySlotsAndThreeSharingOne()) {
      writes.add(new UserWrite(uid, List.of(RedisHistoryWriterTest.record(uid, 10, uid, now),
          RedisHistoryWriterTest.record(uid, 11, uid, now + 1))));
      firstToday.add(uid);
      owners.add(ns.cluster().masterOfKey(new String(keys.timeline(uid), StandardCharsets.US_ASCII)));
    }
    assertThat(owners).as("users on every master").hasSize(3);
    assertThat(RedisHistoryWriter.plan(writes, config.usersPerScript(), uid -> SlotHash.getSlot(keys.timeline(uid))))
        .as("one write_history call carries the three users of one slot").anyMatch(call -> call.length == 3);

    // Two uids past first.today.bitmap.max.uid: counted in their shard's set, in the outbox's slot too.
    firstToday.add(Long.MAX_VALUE);
    firstToday.add(4_000_000_000_123L);

    BatchOutcome outcome = write(writes, firstToday);

    for (int w = 0; w < writes.size(); w++) {
      assertThat(outcome.writes().get(w).codes()).containsExactly(WriteOutcome.CREATED, WriteOutcome.CREATED);
    }
    for (int f = 0; f < firstToday.size(); f++) {
      assertThat(outcome.firstToday()[f]).as("first today of uid %s", firstToday.get(f)).isTrue();
    }
    for (long uid : usersOnManySlotsAndThreeSharingOne()) {
      byte[] stored = redis.shared().hget(keys.records(uid), RedisKeys.member(Business.VIDEO, 11)).get(5, TimeUnit.SECONDS);
      assertThat(HistoryRecord.parseFrom(stored).getProgressMs()).isEqualTo(uid);
      assertThat(redis.shared().pttl(keys.timeline(uid)).get(5, TimeUnit.SECONDS)).isPositive();
    }
    // Each first check left its event in the outbox sharing its bitmap's slot (else: CROSSSLOT).
    for (long uid : firstToday) {
      byte[] outbox = keys.firstTodayOutbox(RedisKeys.firstTodayOutboxShard(uid, config.firstTodayShards(),
          config.firstTodayOutbox().shards()));
      byte[] event = FirstTodayCheck.of(uid).event("2026-11-21", now).toByteArray();
      assertThat(SlotHash.getSlot(outbox)).isEqualTo(SlotHash.getSlot(
          keys.firstTodaySpot("20261121", uid, config.firstTodayShards(), config.firstTodayOutbox().shards(),
              config.firstTodayBitmapMaxUid()).key()));
      assertThat(redis.shared().zscore(outbox, event).get(5, TimeUnit.SECONDS)).as("outbox entry of %s", uid).isNotNull();
    }
    // The second check of the day answers "not first" from every shard.
    BatchOutcome again = write(List.of(), firstToday);
    for (boolean first : again.firstToday()) {
      assertThat(first).isFalse();
    }
  }

  /**
   * In a cluster the log shard has a slot of its own: once the writes answered, one entry lists what
   * the whole batch applied, and the records carry it; acknowledged, it is deleted through the cluster.
   */
  @Test
  void aBatchIsLoggedInOneEntryAfterItsWritesAndDeletedOnceAcked(RedisClusterNamespace ns) throws Exception {
    List<AppliedRecord> sunk = new java.util.concurrent.CopyOnWriteArrayList<>();
    RedisHistoryWriter logging = new RedisHistoryWriter(config, redis, collecting(sunk), new WriteMetrics(new SimpleMeterRegistry(), Time.SYSTEM));
    try {
      List<UserWrite> writes = new ArrayList<>();
      for (long uid = 1; uid <= 40; uid++) {
        writes.add(new UserWrite(uid, List.of(RedisHistoryWriterTest.record(uid, 10, 1, now))));
      }
      logging.write(new WriteBatch(now, "20261121", 172_800_000L, writes, List.of())).toCompletableFuture()
          .get(30, TimeUnit.SECONDS);

      assertThat(sunk).hasSize(40);
      RecoveryEntry entry = sunk.get(0).entry();
      assertThat(entry).isNotNull();
      assertThat(sunk).extracting(AppliedRecord::entry).containsOnly(entry);
      var stored = redis.shared().xrange(keys.recoveryLog(entry.shard()), io.lettuce.core.Range.create("-", "+"))
          .get(5, TimeUnit.SECONDS);
      assertThat(stored).singleElement().satisfies(m -> {
        assertThat(m.getId()).isEqualTo(entry.id());
        String items = new String(m.getBody().values().iterator().next(), StandardCharsets.US_ASCII);
        assertThat(items.split(" ")).hasSize(40).contains("1:1:10", "40:1:10");
      });

      RecoveryLog log = new RecoveryLog(redis.shared(), keys, new SimpleMeterRegistry(), Time.SYSTEM);
      log.acked(List.of(entry));
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> log.deleted() == 1);
      assertThat(redis.shared().xlen(keys.recoveryLog(entry.shard())).get(5, TimeUnit.SECONDS)).isZero();
    } finally {
      logging.close();
    }
  }

  /**
   * The entry follows the writes whatever the first-today checks answer: a check that fails (here its
   * bitmap key holds a hash) fails the batch, yet what the batch applied is listed in the log, so the
   * recovery sweep persists it; the log's XADD is counted among the write path's commands.
   */
  @Test
  void aBatchWhoseFirstTodayCheckFailsIsStillLoggedAndItsXaddCounted(RedisClusterNamespace ns) throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    List<AppliedRecord> sunk = new java.util.concurrent.CopyOnWriteArrayList<>();
    RedisHistoryWriter logging = new RedisHistoryWriter(config, redis, collecting(sunk), new WriteMetrics(meters, Time.SYSTEM));
    try {
      long broken = 5_000_017L;
      byte[] bitmap = keys.firstTodaySpot("20261121", broken, config.firstTodayShards(),
          config.firstTodayOutbox().shards(), config.firstTodayBitmapMaxUid()).key();
      redis.shared().hset(bitmap, RedisKeys.bytes("not"), RedisKeys.bytes("a bitmap")).get(5, TimeUnit.SECONDS);
      List<UserWrite> writes = new ArrayList<>();
      for (long uid = 5_000_001L; uid <= 5_000_010L; uid++) {
        writes.add(new UserWrite(uid, List.of(RedisHistoryWriterTest.record(uid, 12, 1, now))));
      }
      var answer = logging.write(new WriteBatch(now, "20261121", 172_800_000L, writes,
          List.of(FirstTodayCheck.of(broken)))).toCompletableFuture();
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> answer.get(30, TimeUnit.SECONDS))
          .as("the failed check fails the batch").isInstanceOf(java.util.concurrent.ExecutionException.class);
      assertThat(sunk).as("nothing handed to write-back from a failed batch").isEmpty();

      List<String> logged = new ArrayList<>();
      for (int shard = 0; shard < config.recoveryShards(); shard++) {
        for (var m : redis.shared().xrange(keys.recoveryLog(shard), io.lettuce.core.Range.create("-", "+"))
            .get(5, TimeUnit.SECONDS)) {
          String items = new String(m.getBody().values().iterator().next(), StandardCharsets.US_ASCII);
          for (String item : items.split(" ")) {
            if (item.startsWith("50000") && item.endsWith(":1:12")) {
              logged.add(item);
            }
          }
        }
      }
      assertThat(logged).as("every applied item listed in the log").hasSize(10).contains("5000001:1:12", "5000010:1:12");
      // 10 users' writes in calls of at most 8 users of one slot each, 1 check, 1 XADD.
      int calls = RedisHistoryWriter.plan(writes, config.usersPerScript(), uid -> SlotHash.getSlot(keys.timeline(uid)))
          .size();
      assertThat(meters.get("playline.redis.commands").counter().count()).isEqualTo(calls + 1 + 1);
    } finally {
      logging.close();
    }
  }

  /** A write-back sink that collects what each batch applied into {@code sunk}. */
  private static WriteBackSink collecting(List<AppliedRecord> sunk) {
    return new WriteBackSink() {
      @Override
      public void batchStarted() {}

      @Override
      public void batchFinished(List<AppliedRecord> applied) {
        sunk.addAll(applied);
      }
    };
  }

  /** Users 1..120, then the first three users above them whose keys share a hash slot. */
  private List<Long> usersOnManySlotsAndThreeSharingOne() {
    List<Long> uids = new ArrayList<>();
    for (long uid = 1; uid <= USERS; uid++) {
      uids.add(uid);
    }
    Map<Integer, List<Long>> bySlot = new java.util.HashMap<>();
    for (long uid = USERS + 1; ; uid++) {
      List<Long> same = bySlot.computeIfAbsent(SlotHash.getSlot(keys.timeline(uid)), s -> new ArrayList<>());
      same.add(uid);
      if (same.size() == 3) {
        uids.addAll(same);
        return uids;
      }
    }
  }

  private BatchOutcome write(List<UserWrite> writes, List<Long> firstToday) throws Exception {
    return writer.write(new WriteBatch(now, "20261121", 172_800_000L, writes,
            firstToday.stream().map(FirstTodayCheck::of).toList()))
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
