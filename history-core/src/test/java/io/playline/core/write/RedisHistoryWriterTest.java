package io.playline.core.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RedisScript;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealRedisExtension.class)
class RedisHistoryWriterTest {
  private RedisConnections redis;
  private RedisHistoryWriter writer;
  private SimpleMeterRegistry registry;
  private CoreConfig config;
  private RedisKeys keys;
  private final List<AppliedRecord> sunk = new ArrayList<>();
  private final long now = System.currentTimeMillis();

  @BeforeEach
  void setUp(RedisNamespace ns) {
    // Two users per write_history call, so that batches of a few users already span several calls.
    config = CoreConfig.from(ConfigSource.empty().with(Map.of(
        "redis.key.prefix", ns.keyPrefix(), "history.redis.max.items", "3", "redis.write.users.per.script", "2")));
    keys = new RedisKeys(config.redisKeyPrefix());
    redis = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5));
    registry = new SimpleMeterRegistry();
    writer = new RedisHistoryWriter(config, redis, new WriteBackSink() {
      @Override
      public void batchStarted() {}

      @Override
      public synchronized void batchFinished(List<AppliedRecord> applied) {
        sunk.addAll(applied);
      }
    }, new WriteMetrics(registry, Time.SYSTEM));
  }

  @AfterEach
  void tearDown() {
    writer.close();
    redis.close();
  }

  static HistoryRecord record(long uid, long oid, long progress, long viewTime) {
    return HistoryRecord.newBuilder().setUid(uid).setBusiness(Business.VIDEO).setOid(oid)
        .setProgressMs(progress).setDurationMs(100_000).setViewTimeMs(viewTime).setDeviceId("d1").build();
  }

  private BatchOutcome write(List<UserWrite> writes, List<Long> firstToday) {
    return writer.write(new WriteBatch(now, "20261121", 172_800_000L, writes,
            firstToday.stream().map(FirstTodayCheck::of).toList()))
        .toCompletableFuture().join();
  }

  private HistoryRecord stored(long uid, long oid) throws Exception {
    byte[] bytes = redis.shared().hget(keys.records(uid), RedisKeys.member(Business.VIDEO, oid)).get();
    return bytes == null ? null : HistoryRecord.parseFrom(bytes);
  }

  @Test
  void firstRecordOfAnItemIsAFirstViewAndLaterOnesAreNot() {
    BatchOutcome first = write(List.of(new UserWrite(1, List.of(record(1, 10, 5, now), record(1, 10, 6, now + 1)))), List.of());
    assertThat(first.writes().get(0).firstView(0)).isTrue();
    assertThat(first.writes().get(0).firstView(1)).isFalse();
    assertThat(first.writes().get(0).applied(1)).isTrue();
    BatchOutcome second = write(List.of(new UserWrite(1, List.of(record(1, 10, 7, now + 2)))), List.of());
    assertThat(second.writes().get(0).codes()).containsExactly(WriteOutcome.UPDATED);
  }

  @Test
  void anEventAsNewAsTheStoredOneReplacesItAndANewItemOfAKnownUserIsAFirstView() throws Exception {
    write(List.of(new UserWrite(11, List.of(record(11, 10, 5, now)))), List.of());
    // A tie in view time (a resent heartbeat, or two in the same millisecond) replaces the record.
    BatchOutcome tie = write(List.of(new UserWrite(11, List.of(record(11, 10, 6, now), record(11, 12, 1, now)))),
        List.of());
    assertThat(tie.writes().get(0).codes()).containsExactly(WriteOutcome.UPDATED, WriteOutcome.CREATED);
    assertThat(stored(11, 10).getProgressMs()).isEqualTo(6);
    assertThat(stored(11, 12).getProgressMs()).isEqualTo(1);
    assertThat(redis.shared().zcard(keys.timeline(11)).get()).isEqualTo(2);
  }

  @Test
  void olderEventNeverRegressesProgress() throws Exception {
    write(List.of(new UserWrite(2, List.of(record(2, 10, 9_000, now)))), List.of());
    BatchOutcome late = write(List.of(new UserWrite(2, List.of(record(2, 10, 1_000, now - 5_000)))), List.of());
    assertThat(late.writes().get(0).codes()).containsExactly(WriteOutcome.LOST);
    assertThat(stored(2, 10).getProgressMs()).isEqualTo(9_000);
    double score = redis.shared().zscore(keys.timeline(2), RedisKeys.member(Business.VIDEO, 10)).get();
    assertThat((long) score).isEqualTo(now);
  }

  @Test
  void pausedUserIsAnsweredButNotRecorded() throws Exception {
    redis.shared().set(keys.paused(3), "1".getBytes()).get();
    BatchOutcome outcome = write(List.of(new UserWrite(3, List.of(record(3, 10, 5, now)))), List.of());
    assertThat(outcome.writes().get(0).paused()).isTrue();
    assertThat(stored(3, 10)).isNull();
  }

  @Test
  void eventNotAfterATombstoneIsDropped() throws Exception {
    redis.shared().hset(keys.tombstones(4), RedisKeys.member(Business.VIDEO, 10), Long.toString(now).getBytes()).get();
    redis.shared().hset(keys.tombstones(4), "b2".getBytes(), Long.toString(now).getBytes()).get();
    BatchOutcome outcome = write(List.of(new UserWrite(4, List.of(
        record(4, 10, 5, now - 1), record(4, 10, 6, now), record(4, 11, 7, now - 10), record(4, 10, 8, now + 1)))), List.of());
    assertThat(outcome.writes().get(0).codes())
        .containsExactly(WriteOutcome.LOST, WriteOutcome.LOST, WriteOutcome.CREATED, WriteOutcome.CREATED);
    assertThat(stored(4, 10).getProgressMs()).isEqualTo(8);
  }

  @Test
  void timelineIsTrimmedToTheNewestItemsWithTheirRecords() throws Exception {
    List<HistoryRecord> five = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      five.add(record(5, i, i, now + i));
    }
    write(List.of(new UserWrite(5, five)), List.of());
    assertThat(redis.shared().zcard(keys.timeline(5)).get()).isEqualTo(3);
    assertThat(redis.shared().hlen(keys.records(5)).get()).isEqualTo(3);
    assertThat(stored(5, 1)).isNull();
    assertThat(stored(5, 5)).isNotNull();
    assertThat(redis.shared().pttl(keys.timeline(5)).get()).isPositive();
  }

  @Test
  void updatesPushTheTtlForwardOnlyOnceATenthOfItHasPassed() throws Exception {
    long ttl = config.redisHistoryTtl().toMillis();
    write(List.of(new UserWrite(9, List.of(record(9, 10, 1, now)))), List.of());
    // A TTL a little under the full one is fresh enough: an update leaves it alone.
    long fresh = ttl - ttl / 20;
    redis.shared().pexpire(keys.timeline(9), fresh).get();
    redis.shared().pexpire(keys.records(9), fresh).get();
    write(List.of(new UserWrite(9, List.of(record(9, 10, 2, now + 1)))), List.of());
    assertThat(redis.shared().pttl(keys.records(9)).get()).isBetween(fresh - 60_000, fresh);
    // Older than a tenth of the TTL: both keys get the full TTL again.
    redis.shared().pexpire(keys.timeline(9), ttl / 2).get();
    redis.shared().pexpire(keys.records(9), ttl / 2).get();
    write(List.of(new UserWrite(9, List.of(record(9, 10, 3, now + 2)))), List.of());
    assertThat(redis.shared().pttl(keys.records(9)).get()).isGreaterThan(fresh);
    assertThat(redis.shared().pttl(keys.timeline(9)).get()).isGreaterThan(fresh);
  }

  @Test
  void aRecordsHashWithoutTtlGetsOneOnTheNextUpdate() throws Exception {
    write(List.of(new UserWrite(10, List.of(record(10, 10, 1, now)))), List.of());
    // e.g. a clear left the timeline (its marker has a TTL) and the next write created the hash
    redis.shared().persist(keys.records(10)).get();
    write(List.of(new UserWrite(10, List.of(record(10, 10, 2, now + 1)))), List.of());
    assertThat(redis.shared().pttl(keys.records(10)).get()).isPositive();
  }

  @Test
  void writesCompleteOnTheRedisIoLoop() throws Exception {
    // Written from the loop itself, so the answer cannot arrive before the callback is attached.
    Boolean onLoop = writer.eventLoop().submit(() -> writer.write(new WriteBatch(now, "20261121", 172_800_000L,
            List.of(new UserWrite(11, List.of(record(11, 10, 1, now)))), List.of()))
        .thenApply(outcome -> writer.eventLoop().inEventLoop()).toCompletableFuture()).get().join();
    assertThat(onLoop).isTrue();
  }

  @Test
  void firstTodayIsTrueOnceAcrossChecks() {
    BatchOutcome a = write(List.of(), List.of(6L, 6L, 7_000_000L));
    assertThat(a.firstToday()).containsExactly(true, false, true);
    BatchOutcome b = write(List.of(), List.of(6L, 7_000_000L));
    assertThat(b.firstToday()).containsExactly(false, false);
  }

  @Test
  void anyUidIsCountedOnceAndMemoryFollowsTheUsersCountedNotTheLargestUid() throws Exception {
    // uid 1 and the largest uid share a batch with users the bitmap holds and users past
    // first.today.bitmap.max.uid (2^32 - 1): all are acked, each counted once.
    List<Long> uids = List.of(1L, Long.MAX_VALUE, 4_000_000_000_000L, 4_294_967_295L, 4_294_967_296L, 123_456_789L);
    BatchOutcome a = write(List.of(new UserWrite(1, List.of(record(1, 10, 5, now)))), uids);
    assertThat(a.writes().get(0).codes()).containsExactly(WriteOutcome.CREATED);
    assertThat(a.firstToday()).containsOnly(true).hasSize(uids.size());
    assertThat(write(List.of(), uids).firstToday()).containsOnly(false);

    // A bitmap user costs at most one 8 KiB chunk; a uid past the bitmap's range is a set member.
    for (long uid : uids) {
      RedisKeys.FirstTodaySpot spot = keys.firstTodaySpot("20261121", uid, config.firstTodayShards(),
          config.firstTodayOutbox().shards(), config.firstTodayBitmapMaxUid());
      if (uid > config.firstTodayBitmapMaxUid()) {
        assertThat(redis.shared().type(spot.key()).get(5, TimeUnit.SECONDS)).as("key of uid %s", uid).isEqualTo("set");
      } else {
        assertThat(redis.shared().strlen(spot.key()).get(5, TimeUnit.SECONDS)).as("bitmap chunk of uid %s", uid)
            .isPositive().isLessThanOrEqualTo(RedisKeys.FIRST_TODAY_CHUNK_BITS / 8);
      }
    }
    // 200 users with random 64-bit uids (as snowflake ids are), on a day of their own: Redis memory
    // grows by bytes per user counted, whatever the uids.
    List<Long> sparse = new java.util.Random(7).longs(200, 1L << 33, Long.MAX_VALUE).boxed().toList();
    assertThat(writer.write(new WriteBatch(now, "20261122", 172_800_000L, List.of(),
        sparse.stream().map(FirstTodayCheck::of).toList())).toCompletableFuture().join().firstToday()).containsOnly(true);
    long bytes = 0;
    for (byte[] key : redis.shared().keys((config.redisKeyPrefix() + "ft:*20261122*")
        .getBytes(StandardCharsets.US_ASCII)).get(5, TimeUnit.SECONDS)) {
      bytes += redis.shared().memoryUsage(key).get(5, TimeUnit.SECONDS);
    }
    assertThat(bytes).as("Redis memory of the first-today keys of %s users", sparse.size())
        .isPositive().isLessThan(250L * sparse.size());
  }

  @Test
  void appliedRecordsReachTheWriteBackSinkWithTheStampsOfTheirRecoveryMarks() throws Exception {
    int shard = RedisKeys.recoveryShard(8, config.recoveryShards());
    long before = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
    write(List.of(new UserWrite(8, List.of(record(8, 10, 5, now), record(8, 11, 5, now)))), List.of());
    write(List.of(new UserWrite(8, List.of(record(8, 10, 1, now - 100)))), List.of());
    assertThat(sunk).extracting(a -> a.record().getOid()).containsExactly(10L, 11L);
    long stamp = sunk.get(0).markStampUs();
    assertThat(sunk.get(1).markStampUs()).isEqualTo(stamp);
    // Stamped by Redis's clock in microseconds (same machine: within a minute of ours).
    assertThat(stamp).isBetween(before - 60_000_000L, before + 60_000_000L);
    // The second write (lost to the newer record) still rescored the mark with a higher stamp.
    assertThat(markScore(shard, 11)).isEqualTo((double) stamp);
    assertThat(markScore(shard, 10)).isGreaterThan((double) stamp);
  }

  @Test
  void markStampsKeepRisingWhenRedisClockIsBehindTheLastStamp() throws Exception {
    int shard = RedisKeys.recoveryShard(8, config.recoveryShards());
    long ahead = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()) + TimeUnit.HOURS.toMicros(1);
    redis.shared().set(keys.recoveryClock(shard), Long.toString(ahead).getBytes(StandardCharsets.US_ASCII)).get();
    write(List.of(new UserWrite(8, List.of(record(8, 10, 5, now)))), List.of());
    write(List.of(new UserWrite(8, List.of(record(8, 10, 6, now + 1)))), List.of());
    assertThat(sunk).extracting(AppliedRecord::markStampUs).containsExactly(ahead + 1, ahead + 2);
    assertThat(markScore(shard, 10)).isEqualTo((double) (ahead + 2));
  }

  @Test
  void aBatchOverSeveralShardsMarksEachWithItsOwnRisingStamp() throws Exception {
    // Users 8.. in three different recovery shards; the first one's shard clock is an hour ahead.
    List<Long> uids = new ArrayList<>();
    java.util.Set<Integer> shards = new java.util.LinkedHashSet<>();
    for (long uid = 8; shards.size() < 3; uid++) {
      if (shards.add(RedisKeys.recoveryShard(uid, config.recoveryShards()))) {
        uids.add(uid);
      }
    }
    int aheadShard = RedisKeys.recoveryShard(uids.get(0), config.recoveryShards());
    long ahead = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()) + TimeUnit.HOURS.toMicros(1);
    redis.shared().set(keys.recoveryClock(aheadShard), Long.toString(ahead).getBytes(StandardCharsets.US_ASCII)).get();
    double commandsBefore = registry.get("playline.redis.commands").counter().count();

    write(uids.stream().map(uid -> new UserWrite(uid, List.of(record(uid, 10, 5, now)))).toList(), List.of());

    // write_history calls for the three users (users.per.script each), each stamping its users' shards.
    int writeCalls = (3 + config.usersPerScript() - 1) / config.usersPerScript();
    assertThat(registry.get("playline.redis.commands").counter().count() - commandsBefore).isEqualTo(writeCalls);
    assertThat(sunk).hasSize(3);
    long nowUs = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
    for (AppliedRecord a : sunk) {
      long uid = a.record().getUid();
      int shard = RedisKeys.recoveryShard(uid, config.recoveryShards());
      Double score = redis.shared().zscore(keys.recovery(shard),
          RedisKeys.recoveryMember(uid, RedisKeys.member(Business.VIDEO, 10))).get();
      assertThat(score).as("uid %s marked with its shard's stamp", uid).isEqualTo((double) a.markStampUs());
      assertThat(new String(redis.shared().get(keys.recoveryClock(shard)).get(), StandardCharsets.US_ASCII))
          .isEqualTo(Long.toString(a.markStampUs()));
      if (shard == aheadShard) {
        assertThat(a.markStampUs()).isEqualTo(ahead + 1);
      } else {
        // Redis's clock, in µs, against ours in ms (same machine): within a minute, far from the hour ahead.
        assertThat(a.markStampUs()).isBetween(nowUs - 60_000_000L, nowUs + 60_000_000L);
      }
    }
  }

  private @Nullable Double markScore(int shard, long oid) throws Exception {
    return markScore(shard, 8, oid);
  }

  private @Nullable Double markScore(int shard, long uid, long oid) throws Exception {
    return redis.shared().zscore(keys.recovery(shard), RedisKeys.recoveryMember(uid, RedisKeys.member(Business.VIDEO, oid)))
        .get();
  }

  @Test
  void lostScriptCacheFallsBackToEval() throws Exception {
    redis.shared().scriptFlush().get();
    BatchOutcome outcome = write(List.of(new UserWrite(9, List.of(record(9, 10, 5, now)))), List.of(9L));
    assertThat(outcome.writes().get(0).firstView(0)).isTrue();
    assertThat(outcome.firstToday()).containsExactly(true);
  }

  /**
   * Runs {@code body} with every Redis command in SLOWLOG; returns the arguments of the commands naming
   * a key of this test, oldest first (Redis 7 also lists the commands a script ran, before the script).
   */
  private List<List<?>> ownCommandsOf(ThrowingRunnable body) throws Exception {
    String slower = redis.shared().configGet("slowlog-log-slower-than").get().get("slowlog-log-slower-than");
    String length = redis.shared().configGet("slowlog-max-len").get().get("slowlog-max-len");
    redis.shared().configSet("slowlog-max-len", "10000").get();
    redis.shared().configSet("slowlog-log-slower-than", "0").get();
    List<Object> log;
    try {
      redis.shared().slowlogReset().get();
      body.run();
      log = redis.shared().slowlogGet(10000).get();
    } finally {
      redis.shared().configSet("slowlog-log-slower-than", slower).get();
      redis.shared().configSet("slowlog-max-len", length).get();
    }
    // SLOWLOG (every command, as slower than 0 µs) lists the newest first: [id, time, µs, [args], ...].
    List<List<?>> own = new ArrayList<>();
    for (Object o : log) {
      List<?> args = (List<?>) ((List<?>) o).get(3);
      if (args.stream().anyMatch(a -> new String((byte[]) a, StandardCharsets.ISO_8859_1)
          .startsWith(config.redisKeyPrefix()))) {
        own.add(0, args);
      }
    }
    return own;
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static List<String> texts(List<?> args) {
    return args.stream().map(a -> new String((byte[]) a, StandardCharsets.ISO_8859_1)).toList();
  }

  private static List<List<String>> scriptCalls(List<List<?>> commands) {
    return commands.stream().map(RedisHistoryWriterTest::texts)
        .filter(c -> c.get(0).equalsIgnoreCase("EVAL") || c.get(0).equalsIgnoreCase("EVALSHA")).toList();
  }

  private static int indexOf(List<List<?>> commands, String command, String key) {
    for (int i = 0; i < commands.size(); i++) {
      List<String> c = texts(commands.get(i));
      if (c.get(0).equalsIgnoreCase(command) && c.get(1).equals(key)) {
        return i;
      }
    }
    return -1;
  }

  private static String key(byte[] key) {
    return new String(key, StandardCharsets.ISO_8859_1);
  }

  @Test
  void aBatchOnOneServerIsOneScriptCallThatWritesAndMarks() throws Exception {
    // Two users (users.per.script) in two recovery shards.
    long second = 41;
    while (RedisKeys.recoveryShard(second, config.recoveryShards()) == RedisKeys.recoveryShard(40, config.recoveryShards())) {
      second++;
    }
    long other = second;
    double commandsBefore = registry.get("playline.redis.commands").counter().count();

    List<List<?>> calls = ownCommandsOf(() -> write(List.of(new UserWrite(40, List.of(record(40, 10, 5, now))),
        new UserWrite(other, List.of(record(other, 10, 6, now), record(other, 11, 7, now)))), List.of()));

    assertThat(scriptCalls(calls)).as("script calls naming this test's keys").hasSize(1);
    List<String> call = scriptCalls(calls).get(0);
    assertThat(call.get(0)).isEqualToIgnoringCase("EVALSHA");
    assertThat(call.get(1)).isEqualTo(RedisScript.WRITE_HISTORY.sha());
    assertThat(call).contains(key(keys.timeline(40)), key(keys.timeline(other)));
    assertThat(registry.get("playline.redis.commands").counter().count() - commandsBefore).isEqualTo(1);
    assertThat(sunk).hasSize(3);
    for (AppliedRecord a : sunk) {
      long uid = a.record().getUid();
      int shard = RedisKeys.recoveryShard(uid, config.recoveryShards());
      assertThat(call).as("the call stamps uid %s's shard", uid)
          .contains(key(keys.recovery(shard)), key(keys.recoveryClock(shard)));
      assertThat(markScore(shard, uid, a.record().getOid())).isEqualTo((double) a.markStampUs());
    }
  }

  @Test
  void aWriteSentAgainAfterNoscriptIsMarkedInItsOwnCallNoEarlierThanItRan() throws Exception {
    // A flushed script cache (a restarted Redis): write_history meets NOSCRIPT and runs again with
    // its body, which carries its own marks.
    redis.shared().scriptFlush().get();
    List<byte[]> time = redis.shared().time().get();
    long before = Long.parseLong(new String(time.get(0), StandardCharsets.US_ASCII)) * 1_000_000L
        + Long.parseLong(new String(time.get(1), StandardCharsets.US_ASCII));
    int shard = RedisKeys.recoveryShard(31, config.recoveryShards());

    List<List<?>> calls = ownCommandsOf(() -> write(List.of(new UserWrite(31, List.of(record(31, 10, 5, now)))), List.of()));

    assertThat(scriptCalls(calls)).extracting(c -> c.get(0).toUpperCase(java.util.Locale.ROOT))
        .as("the refused EVALSHA, then the write with its body").containsExactly("EVALSHA", "EVAL");
    // The call that wrote the item also stamped its mark, after writing it.
    assertThat(scriptCalls(calls).get(1)).contains(key(keys.timeline(31)), key(keys.recovery(shard)));
    int written = indexOf(calls, "HSET", key(keys.records(31)));
    assertThat(written).as("the write").isNotNegative();
    assertThat(indexOf(calls, "ZADD", key(keys.recovery(shard)))).as("the mark").isGreaterThan(written);
    assertThat(stored(31, 10).getProgressMs()).isEqualTo(5);
    assertThat(sunk).hasSize(1);
    assertThat(sunk.get(0).markStampUs()).isGreaterThanOrEqualTo(before);
    assertThat(markScore(shard, 31, 10)).as("the write-back holds the mark's stamp")
        .isEqualTo((double) sunk.get(0).markStampUs());
  }

  @Test
  void usersSharingScriptCallsEachGetTheirOwnAnswer() throws Exception {
    redis.shared().set(keys.paused(21), "1".getBytes()).get();
    redis.shared().hset(keys.tombstones(22), RedisKeys.member(Business.VIDEO, 10), Long.toString(now).getBytes()).get();
    write(List.of(new UserWrite(23, List.of(record(23, 10, 500, now)))), List.of());
    double commandsBefore = registry.get("playline.redis.commands").counter().count();

    BatchOutcome outcome = write(List.of(
        new UserWrite(20, List.of(record(20, 10, 1, now))),
        new UserWrite(21, List.of(record(21, 10, 2, now), record(21, 11, 3, now))),
        new UserWrite(22, List.of(record(22, 10, 4, now - 1), record(22, 11, 5, now))),
        new UserWrite(23, List.of(record(23, 10, 6, now - 1), record(23, 10, 7, now + 1), record(23, 12, 8, now))),
        new UserWrite(24, List.of(record(24, 10, 9, now)))), List.of());

    // 5 users, 2 per call: 3 write_history calls, each marking its own users' shards (one server).
    assertThat(java.util.stream.LongStream.of(20, 21, 22, 23, 24)
        .map(uid -> RedisKeys.recoveryShard(uid, config.recoveryShards())).distinct().count()).isGreaterThan(1);
    assertThat(registry.get("playline.redis.commands").counter().count() - commandsBefore).isEqualTo(3);
    List<WriteOutcome> w = outcome.writes();
    assertThat(w).hasSize(5);
    assertThat(w.get(0).paused()).isFalse();
    assertThat(w.get(0).codes()).containsExactly(WriteOutcome.CREATED);
    assertThat(w.get(1).paused()).isTrue();
    assertThat(w.get(1).codes()).containsExactly(WriteOutcome.LOST, WriteOutcome.LOST);
    assertThat(w.get(2).codes()).containsExactly(WriteOutcome.LOST, WriteOutcome.CREATED);
    assertThat(w.get(3).codes()).containsExactly(WriteOutcome.LOST, WriteOutcome.UPDATED, WriteOutcome.CREATED);
    assertThat(w.get(4).codes()).containsExactly(WriteOutcome.CREATED);
    assertThat(stored(20, 10).getProgressMs()).isEqualTo(1);
    assertThat(stored(21, 10)).isNull();
    assertThat(stored(22, 10)).isNull();
    assertThat(stored(22, 11).getProgressMs()).isEqualTo(5);
    assertThat(stored(23, 10).getProgressMs()).isEqualTo(7);
    assertThat(stored(23, 12).getProgressMs()).isEqualTo(8);
    assertThat(stored(24, 10).getProgressMs()).isEqualTo(9);
    assertThat(sunk).extracting(a -> a.record().getUid(), a -> a.record().getProgressMs()).contains(
        org.assertj.core.groups.Tuple.tuple(20L, 1L), org.assertj.core.groups.Tuple.tuple(22L, 5L),
        org.assertj.core.groups.Tuple.tuple(23L, 7L), org.assertj.core.groups.Tuple.tuple(24L, 9L))
        .doesNotContain(org.assertj.core.groups.Tuple.tuple(21L, 2L), org.assertj.core.groups.Tuple.tuple(22L, 4L),
            org.assertj.core.groups.Tuple.tuple(23L, 6L));
  }

  @Test
  void aMalformedScriptCallIsRefusedAndWritesNothing() throws Exception {
    byte[][] userKeys = {keys.timeline(30), keys.records(30), keys.tombstones(30), keys.paused(30),
        keys.timeline(31), keys.records(31), keys.tombstones(31), keys.paused(31)};
    byte[] member = RedisKeys.member(Business.VIDEO, 10);
    byte[] rec = record(30, 10, 1, now).toByteArray();
    // The second user claims two events but carries one.
    var call = redis.shared().evalsha(io.playline.core.store.RedisScript.WRITE_HISTORY.sha(),
        io.lettuce.core.ScriptOutputType.MULTI, userKeys, "1000".getBytes(), "60000".getBytes(), "0".getBytes(),
        "1".getBytes(), "0".getBytes(), "30".getBytes(), member, Long.toString(now).getBytes(), rec,
        "2".getBytes(), "0".getBytes(), "31".getBytes(), member, Long.toString(now).getBytes(), rec).toCompletableFuture();
    org.assertj.core.api.Assertions.assertThatThrownBy(call::join).hasMessageContaining("do not match");
    assertThat(stored(30, 10)).isNull();
    assertThat(redis.shared().exists(keys.timeline(30)).get()).isZero();
  }

  @Test
  void aBatchIsSplitIntoCallsInOrderAndInClusterModeByHashSlot() {
    List<UserWrite> five = new ArrayList<>();
    for (long uid = 1; uid <= 5; uid++) {
      five.add(new UserWrite(uid, List.of(record(uid, 1, 1, now))));
    }
    assertThat(RedisHistoryWriter.plan(five, 2, null))
        .containsExactly(new int[] {0, 1}, new int[] {2, 3}, new int[] {4});
    assertThat(RedisHistoryWriter.plan(five, 64, null)).containsExactly(new int[] {0, 1, 2, 3, 4});
    // Slots by uid parity: users 1, 3, 5 share one, 2 and 4 the other.
    assertThat(RedisHistoryWriter.plan(five, 2, uid -> (int) (uid % 2)))
        .containsExactly(new int[] {0, 2}, new int[] {4}, new int[] {1, 3});
    assertThat(RedisHistoryWriter.plan(List.of(), 2, null)).isEmpty();
    // The real slots of Playline keys: every call's keys share one hash slot.
    RedisKeys k = new RedisKeys("pl:");
    List<UserWrite> many = new ArrayList<>();
    for (long uid = 1; uid <= 200; uid++) {
      many.add(new UserWrite(uid, List.of(record(uid, 1, 1, now))));
    }
    for (int[] call : RedisHistoryWriter.plan(many, 8,
        uid -> io.lettuce.core.cluster.SlotHash.getSlot(k.timeline(uid)))) {
      int slot = io.lettuce.core.cluster.SlotHash.getSlot(k.timeline(many.get(call[0]).uid()));
      for (int w : call) {
        long uid = many.get(w).uid();
        for (byte[] key : List.of(k.timeline(uid), k.records(uid), k.tombstones(uid), k.paused(uid))) {
          assertThat(io.lettuce.core.cluster.SlotHash.getSlot(key)).isEqualTo(slot);
        }
      }
    }
  }
}
