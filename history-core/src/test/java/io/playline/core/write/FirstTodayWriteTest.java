package io.playline.core.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.store.RedisKeys;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** First-today answers of the writer's batches: once a user a day, any uid, bounded Redis memory. */
class FirstTodayWriteTest extends AbstractRedisHistoryWriterTest {
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
}
