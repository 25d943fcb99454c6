package io.playline.core.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.store.RedisKeys;
import io.playline.proto.v1.Business;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The recovery marks the writer leaves beside what it applies, and the stamps the write-back gets. */
class RecoveryMarkStampTest extends AbstractRedisHistoryWriterTest {
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
}
