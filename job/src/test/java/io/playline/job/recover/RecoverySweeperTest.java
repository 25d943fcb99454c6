package io.playline.job.recover;

import static io.playline.job.JobTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.Range;
import io.playline.core.store.RedisKeys;
import io.playline.job.JobTestEnv;
import io.playline.job.PlaylineJob;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HBaseHistorySink;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class RecoverySweeperTest {
  private JobTestEnv env;

  @AfterEach
  void tearDown() {
    if (env != null) {
      env.close();
    }
  }

  @Test
  void sweepPersistsItemsWhoseMarksAreOldAndClearsThoseMarksOnly(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) {
    env = JobTestEnv.create(redis, kafka, hbase, Map.of("recovery.batch.size", "2", "recovery.shards", "4"));
    long old = System.currentTimeMillis() - Duration.ofMinutes(10).toMillis();
    HistoryRecord a = record(11, Business.VIDEO, 1, 1_000, env.base + 1);
    HistoryRecord b = record(11, Business.ARTICLE, 2, 2_000, env.base + 2);
    HistoryRecord c = record(15, Business.VIDEO, 3, 3_000, env.base + 3); // same shard as 11 (mod 4)
    HistoryRecord fresh = record(12, Business.VIDEO, 4, 4_000, env.base + 4);
    for (HistoryRecord r : new HistoryRecord[] {a, b, c, fresh}) {
      env.putRedisRecord(r);
    }
    env.mark(11, Business.VIDEO, 1, old);
    env.mark(11, Business.ARTICLE, 2, old + 1);
    env.mark(15, Business.VIDEO, 3, old + 2);
    env.mark(13, Business.COMIC, 5, old); // its record is gone from Redis
    env.mark(12, Business.VIDEO, 4, System.currentTimeMillis()); // recent: the write-back still has it
    byte[] shard0 = env.keys.recovery(0);
    env.redis.shared().zadd(shard0, (double) TimeUnit.MILLISECONDS.toMicros(old),
        "garbage".getBytes(StandardCharsets.US_ASCII)).toCompletableFuture().join();

    RecoverySweeper.SweepResult result = sweepOnce(preparedSink());

    assertThat(result.recovered()).isEqualTo(3);
    assertThat(result.missing()).isEqualTo(1);
    assertThat(result.cleared()).isEqualTo(5);
    assertThat(env.stored(11, Business.VIDEO, 1)).isEqualTo(a);
    assertThat(env.stored(11, Business.ARTICLE, 2)).isEqualTo(b);
    assertThat(env.stored(15, Business.VIDEO, 3)).isEqualTo(c);
    assertThat(env.cell(11, Business.VIDEO, 1).getTimestamp()).isEqualTo(env.base + 1);
    assertThat(env.stored(12, Business.VIDEO, 4)).as("recent mark: left to the write-back").isNull();
    assertThat(env.markScore(11, Business.VIDEO, 1)).isNull();
    assertThat(env.markScore(13, Business.COMIC, 5)).isNull();
    assertThat(env.markScore(12, Business.VIDEO, 4)).isNotNull();
    for (int shard = 0; shard < 4; shard++) {
      assertThat(env.redis.shared().zcount(env.keys.recovery(shard),
          Range.create(Double.NEGATIVE_INFINITY, (double) TimeUnit.MILLISECONDS.toMicros(old + 10)))
          .toCompletableFuture().join())
          .as("old marks left in shard %s", shard).isZero();
    }
    assertThat(env.counter("playline.job.recovery.missing")).isEqualTo(1);
    assertThat(env.counter("playline.job.recovery.items")).isEqualTo(3);
    assertThat(env.counter("playline.job.recovery.sweeps")).isEqualTo(1);
  }

  /**
   * The recovery log: entries older than recovery.age (by their Redis-issued ids) are persisted a
   * page at a time and deleted; a recent entry is left to its node's write-back; a malformed one is
   * deleted and counted.
   */
  @Test
  void sweepPersistsTheItemsOfOldLogEntriesAndDeletesThoseEntriesOnly(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) {
    env = JobTestEnv.create(redis, kafka, hbase, Map.of("recovery.batch.size", "2", "recovery.shards", "4"));
    long old = System.currentTimeMillis() - Duration.ofMinutes(10).toMillis();
    HistoryRecord a = record(11, Business.VIDEO, 1, 1_000, env.base + 1);
    HistoryRecord b = record(11, Business.ARTICLE, 2, 2_000, env.base + 2);
    HistoryRecord c = record(16, Business.VIDEO, 3, 3_000, env.base + 3);
    HistoryRecord fresh = record(12, Business.VIDEO, 4, 4_000, env.base + 4);
    for (HistoryRecord r : new HistoryRecord[] {a, b, c, fresh}) {
      env.putRedisRecord(r);
    }
    // One call's entry may list several users, whatever their uid (the writer takes shards in turn).
    env.logEntry(1, old, 0, item(11, Business.VIDEO, 1), item(11, Business.ARTICLE, 2), item(16, Business.VIDEO, 3));
    env.logEntry(1, old, 1, item(13, Business.COMIC, 5)); // its record is gone from Redis
    env.logEntry(1, old + 1, 0, "garbage");
    String recent = env.logEntry(1, System.currentTimeMillis(), 0, item(12, Business.VIDEO, 4));
    env.logEntry(3, old, 0, item(11, Business.VIDEO, 1)); // a later write of the same item, in another shard

    RecoverySweeper.SweepResult result = sweepOnce(preparedSink());

    assertThat(result.recovered()).isEqualTo(4);
    assertThat(result.missing()).isEqualTo(1);
    assertThat(result.cleared()).isEqualTo(4);
    assertThat(env.stored(11, Business.VIDEO, 1)).isEqualTo(a);
    assertThat(env.stored(11, Business.ARTICLE, 2)).isEqualTo(b);
    assertThat(env.stored(16, Business.VIDEO, 3)).isEqualTo(c);
    assertThat(env.stored(12, Business.VIDEO, 4)).as("recent entry: left to the write-back").isNull();
    assertThat(env.logEntryIds()).isEqualTo(Map.of(1, List.of(recent)));
    assertThat(env.counter("playline.job.invalid.entries")).isEqualTo(1);
    assertThat(env.counter("playline.job.recovery.missing")).isEqualTo(1);
  }

  private static String item(long uid, Business business, long oid) {
    return new String(RedisKeys.recoveryMember(uid, RedisKeys.member(business, oid)), StandardCharsets.US_ASCII);
  }

  @Test
  void sweepPersistsTheTombstonesBehindOldDeleteAndClearMarks(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) {
    env = JobTestEnv.create(redis, kafka, hbase, Map.of("recovery.shards", "4"));
    HBaseHistorySink sink = preparedSink();
    // In HBase from earlier flushes: three items of user 31.
    sink.write(List.of(HistoryChange.newBuilder().setUid(31)
        .addUpserts(record(31, Business.VIDEO, 1, 1, env.base + 1))
        .addUpserts(record(31, Business.VIDEO, 2, 1, env.base + 2))
        .addUpserts(record(31, Business.COMIC, 3, 1, env.base + 3)).build()));
    // A delete and a clear Redis applied, whose write-back died with its node: only tombstones and marks.
    env.redis.shared().hset(env.keys.tombstones(31), Map.of(
        RedisKeys.member(Business.VIDEO, 1), num(env.base + 10),
        "b3".getBytes(StandardCharsets.US_ASCII), num(env.base + 10))).toCompletableFuture().join();
    long old = System.currentTimeMillis() - Duration.ofMinutes(10).toMillis();
    env.markRaw(31, RedisKeys.controlMark(31, 1), old);
    env.markRaw(31, RedisKeys.controlMark(31, 2), old);
    env.markRaw(35, RedisKeys.controlMark(35, 3), old); // its control never reached Redis: no tombstones

    RecoverySweeper.SweepResult result = sweepOnce(sink);

    assertThat(result.recovered()).as("one delete and one clear").isEqualTo(2);
    assertThat(result.cleared()).isEqualTo(3);
    assertThat(env.stored(31, Business.VIDEO, 1)).isNull();
    assertThat(env.stored(31, Business.COMIC, 3)).isNull();
    assertThat(env.stored(31, Business.VIDEO, 2)).isNotNull();
    assertThat(env.markScoreRaw(31, RedisKeys.controlMark(31, 1))).isNull();
    assertThat(env.markScoreRaw(35, RedisKeys.controlMark(35, 3))).isNull();
  }

  private HBaseHistorySink preparedSink() {
    HBaseHistorySink sink = new HBaseHistorySink(env.hbase.connection(), env.config,
        new JobMetrics(env.registry, Time.SYSTEM), Time.SYSTEM);
    sink.prepare();
    return sink;
  }

  /** One sweep by a fresh sweeper, closed afterwards. */
  private RecoverySweeper.SweepResult sweepOnce(HBaseHistorySink sink) {
    try (RecoverySweeper sweeper = new RecoverySweeper(env.config, env.core, env.redis, sink,
        new JobMetrics(env.registry, Time.SYSTEM), () -> true, Time.SYSTEM)) {
      return sweeper.sweep();
    }
  }

  private static byte[] num(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void runningJobSweepsOnItsOwnWithoutAnyKafkaRecord(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) {
    env = JobTestEnv.create(redis, kafka, hbase, Map.of("recovery.interval", "200ms"));
    HistoryRecord lost = record(21, Business.EPISODE, 8, 8_000, env.base + 8);
    env.putRedisRecord(lost);
    env.mark(21, Business.EPISODE, 8, System.currentTimeMillis() - Duration.ofMinutes(10).toMillis());

    try (PlaylineJob job = env.newJob()) {
      job.start();
      // The consumer thread creates the table in the background: until it has, the item is not there
      // yet (JobTestEnv wraps the lookup's TableNotFoundException in an UncheckedIOException).
      await().atMost(Duration.ofSeconds(60))
          .ignoreExceptionsMatching(e -> e.getCause() instanceof TableNotFoundException)
          .until(() -> env.stored(21, Business.EPISODE, 8) != null);
      await().atMost(Duration.ofSeconds(10)).until(() -> env.markScore(21, Business.EPISODE, 8) == null);
    }
    assertThat(env.stored(21, Business.EPISODE, 8)).isEqualTo(lost);
  }

  @Test
  void sweepKeepsPersistingAfterTheConsumerLoopStoppedOnAFailure(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) {
    // The env's topic has KafkaNamespace.PARTITIONS partitions: another count stops the consumer loop.
    env = JobTestEnv.create(redis, kafka, hbase, Map.of("recovery.interval", "200ms",
        "kafka.topic.history.partitions", "6"));
    HistoryRecord lost = record(22, Business.EPISODE, 9, 9_000, env.base + 9);
    env.putRedisRecord(lost);
    env.mark(22, Business.EPISODE, 9, System.currentTimeMillis() - Duration.ofMinutes(10).toMillis());

    try (PlaylineJob job = env.newJob()) {
      job.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> env.counter("playline.job.failures.fatal") == 1.0);
      assertThat(job.readiness()).isFalse();
      await().atMost(Duration.ofSeconds(60))
          .ignoreExceptionsMatching(e -> e.getCause() instanceof TableNotFoundException)
          .until(() -> env.stored(22, Business.EPISODE, 9) != null);
      await().atMost(Duration.ofSeconds(10)).until(() -> env.markScore(22, Business.EPISODE, 9) == null);
    }
    assertThat(env.stored(22, Business.EPISODE, 9)).isEqualTo(lost);
  }
}
