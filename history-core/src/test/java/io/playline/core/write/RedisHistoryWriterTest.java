package io.playline.core.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.store.RedisKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the writer stores for a user's items: first views, newer-wins, pauses, tombstones, the trimmed timeline, TTLs. */
class RedisHistoryWriterTest extends AbstractRedisHistoryWriterTest {
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
}
