package io.playline.core.write;

import static org.assertj.core.api.Assertions.assertThat;


import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A {@link RedisHistoryWriter} on the test JVM's real Redis, in a key namespace of each test's own,
 * with two users per {@code write_history} call (so batches of a few users already span several
 * calls) and at most three items a user; what it hands the write-back is kept in {@link #sunk}.
 */
@ExtendWith(RealRedisExtension.class)
abstract class AbstractRedisHistoryWriterTest {
  RedisConnections redis;
  RedisHistoryWriter writer;
  SimpleMeterRegistry registry;
  CoreConfig config;
  RedisKeys keys;
  final List<AppliedRecord> sunk = new ArrayList<>();
  final long now = System.currentTimeMillis();

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

  BatchOutcome write(List<UserWrite> writes, List<Long> firstToday) {
    return writer.write(new WriteBatch(now, "20261121", 172_800_000L, writes,
            firstToday.stream().map(FirstTodayCheck::of).toList()))
        .toCompletableFuture().join();
  }

  HistoryRecord stored(long uid, long oid) throws Exception {
    byte[] bytes = redis.shared().hget(keys.records(uid), RedisKeys.member(Business.VIDEO, oid)).get();
    return bytes == null ? null : HistoryRecord.parseFrom(bytes);
  }

  /** The entries of {@code shard}'s recovery log, oldest first: id and the items listed ({@code uid:business:oid}). */
  Map<String, List<String>> logEntries(int shard) throws Exception {
    Map<String, List<String>> entries = new java.util.LinkedHashMap<>();
    for (var m : redis.shared().xrange(keys.recoveryLog(shard), io.lettuce.core.Range.create("-", "+")).get()) {
      assertThat(m.getBody()).hasSize(1);
      byte[] items = m.getBody().values().iterator().next();
      entries.put(m.getId(), List.of(new String(items, java.nio.charset.StandardCharsets.US_ASCII).split(" ")));
    }
    return entries;
  }

  /** The entries of every log shard, by shard (shards without entries left out). */
  Map<Integer, Map<String, List<String>>> allLogEntries() throws Exception {
    Map<Integer, Map<String, List<String>>> all = new java.util.TreeMap<>();
    for (int shard = 0; shard < config.recoveryShards(); shard++) {
      Map<String, List<String>> entries = logEntries(shard);
      if (!entries.isEmpty()) {
        all.put(shard, entries);
      }
    }
    return all;
  }
}
