package io.playline.job.consume;

import static io.playline.job.JobTestEnv.batch;
import static io.playline.job.JobTestEnv.partitionOf;
import static io.playline.job.JobTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.playline.core.store.RedisKeys;
import io.playline.job.JobTestEnv;
import io.playline.job.PlaylineJob;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryChangeBatch;
import io.playline.proto.v1.HistoryClear;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemDelete;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.hadoop.hbase.Cell;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class HistoryConsumerLoopTest {
  private static final long UID = 1001;
  private JobTestEnv env;
  private PlaylineJob job;
  private long base;

  @BeforeEach
  void setUp(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    env = JobTestEnv.create(redis, kafka, hbase);
    base = env.base;
    job = env.newJob();
    job.start();
    await().atMost(Duration.ofSeconds(60)).until(job::readiness);
  }

  @AfterEach
  void tearDown() {
    job.close();
    env.close();
  }

  private static HistoryChange.Builder change(long uid) {
    return HistoryChange.newBuilder().setUid(uid);
  }

  private static ItemKey item(Business business, long oid) {
    return ItemKey.newBuilder().setBusiness(business).setOid(oid).build();
  }

  @Test
  void producedBatchEndsAsACellWithTheRecordAndViewTimeAsTimestamp() {
    HistoryRecord r = record(UID, Business.VIDEO, 12345, 42_000, base + 100);
    env.produce(batch(base + 200, change(UID).addUpserts(r).build()));

    await().atMost(Duration.ofSeconds(60)).until(() -> env.cell(UID, Business.VIDEO, 12345) != null);
    Cell cell = env.cell(UID, Business.VIDEO, 12345);
    assertThat(cell.getTimestamp()).isEqualTo(base + 100);
    assertThat(env.stored(UID, Business.VIDEO, 12345)).isEqualTo(r);
    assertThat(env.counter("playline.job.upserts.snapshot.used")).isEqualTo(1);
  }

  @Test
  void persistedBatchesCountTheirItemsOncePerUserEvenWhenProducedTwice() {
    long other = UID + 1;
    HistoryChangeBatch first = batch(base + 300, change(UID).addUpserts(record(UID, Business.VIDEO, 88, -1, base + 100)).build(),
        change(other).addUpserts(record(other, Business.VIDEO, 88, 5_000, base + 150)).build());
    env.produce(first);
    env.produce(first); // a producer retry: the same value at new offsets
    env.produce(batch(base + 400, change(other).addUpserts(record(other, Business.VIDEO, 88, 9_000, base + 250)).build()));

    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(env.itemStats(Business.VIDEO, 88).getLastViewTimeMs())
        .isEqualTo(base + 250));
    assertThat(env.itemStats(Business.VIDEO, 88).getViewers()).isEqualTo(2);
    assertThat(env.itemStats(Business.VIDEO, 88).getFinishes()).isEqualTo(1);
    assertThat(env.counter("playline.job.item.stats.counted")).isEqualTo(3);
  }

  @Test
  void olderSnapshotAfterANewerOneDoesNotChangeWhatHBaseReturns() {
    HistoryRecord newer = record(UID, Business.VIDEO, 1, 9_000, base + 2_000);
    env.produce(batch(base + 2_100, change(UID).addUpserts(newer).build()));
    env.produce(batch(base + 2_200, change(UID).addUpserts(record(UID, Business.VIDEO, 1, 1_000, base + 1_000)).build()));

    env.awaitCommitted(UID, 2);
    assertThat(env.stored(UID, Business.VIDEO, 1)).isEqualTo(newer);
  }

  @Test
  void newerRecordInRedisWinsOverTheSnapshotAndAnOlderOneLoses() {
    HistoryRecord redisNewer = record(UID, Business.VIDEO, 1, 30_000, base + 3_000);
    HistoryRecord redisOlder = record(UID, Business.VIDEO, 2, 10_000, base + 500);
    env.putRedisRecord(redisNewer);
    env.putRedisRecord(redisOlder);
    HistoryRecord snapshot2 = record(UID, Business.VIDEO, 2, 20_000, base + 1_000);

    env.produce(batch(base + 1_100, change(UID)
        .addUpserts(record(UID, Business.VIDEO, 1, 20_000, base + 1_000)).addUpserts(snapshot2).build()));

    env.awaitCommitted(UID, 1);
    assertThat(env.stored(UID, Business.VIDEO, 1)).isEqualTo(redisNewer);
    assertThat(env.cell(UID, Business.VIDEO, 1).getTimestamp()).isEqualTo(base + 3_000);
    assertThat(env.stored(UID, Business.VIDEO, 2)).isEqualTo(snapshot2);
  }

  @Test
  void userWhoseRedisRecordsKeyIsBrokenFallsBackToTheSnapshotWithoutStallingOthers() {
    long broken = UID + 4; // same partition as UID
    env.redis.shared().set(env.keys.records(broken), new byte[] {1}).toCompletableFuture().join();
    HistoryRecord snapshot = record(broken, Business.VIDEO, 1, 5, base + 1_000);
    HistoryRecord other = record(UID, Business.VIDEO, 1, 5, base + 1_000);
    env.produce(batch(base + 1_100, change(broken).addUpserts(snapshot).build(), change(UID).addUpserts(other).build()));

    env.awaitCommitted(UID, 1);
    assertThat(env.stored(broken, Business.VIDEO, 1)).isEqualTo(snapshot);
    assertThat(env.stored(UID, Business.VIDEO, 1)).isEqualTo(other);
  }

  /** What the control path writes to Redis before a delete or clear reaches Kafka. */
  private void tombstone(String field, long timeMs) {
    env.redis.shared().hset(env.keys.tombstones(UID), field.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
        Long.toString(timeMs).getBytes(java.nio.charset.StandardCharsets.US_ASCII)).toCompletableFuture().join();
  }

  @Test
  void deletesAndClearsStickAgainstOlderUpserts() {
    tombstone(new String(io.playline.core.store.RedisKeys.member(item(Business.VIDEO, 1)),
        java.nio.charset.StandardCharsets.US_ASCII), base + 2_000);
    tombstone("b" + Business.ARTICLE.getNumber(), base + 2_000);
    env.produce(batch(base + 1_100, change(UID)
        .addUpserts(record(UID, Business.VIDEO, 1, 5, base + 1_000))
        .addUpserts(record(UID, Business.ARTICLE, 2, 5, base + 1_000))
        .addUpserts(record(UID, Business.VIDEO, 3, 5, base + 1_000)).build()));
    env.produce(batch(base + 2_100, change(UID)
        .addDeletes(ItemDelete.newBuilder().setItem(item(Business.VIDEO, 1)).setDeleteTimeMs(base + 2_000))
        .addClears(HistoryClear.newBuilder().addBusinesses(Business.ARTICLE).setClearTimeMs(base + 2_000))
        // Same change: an upsert not after the delete is dropped.
        .addUpserts(record(UID, Business.VIDEO, 4, 5, base + 1_900))
        .addDeletes(ItemDelete.newBuilder().setItem(item(Business.VIDEO, 4)).setDeleteTimeMs(base + 2_000)).build()));
    env.produce(batch(base + 2_600, change(UID)
        .addUpserts(record(UID, Business.VIDEO, 1, 7, base + 1_500))
        .addUpserts(record(UID, Business.ARTICLE, 2, 7, base + 1_500))
        .addUpserts(record(UID, Business.VIDEO, 3, 7, base + 2_500)).build()));
    env.awaitCommitted(UID, 3);

    assertThat(env.stored(UID, Business.VIDEO, 1)).isNull();
    assertThat(env.stored(UID, Business.ARTICLE, 2)).isNull();
    assertThat(env.stored(UID, Business.VIDEO, 4)).isNull();
    assertThat(env.stored(UID, Business.VIDEO, 3).getProgressMs()).isEqualTo(7);

    tombstone("*", base + 3_000);
    env.produce(batch(base + 3_100, change(UID)
        .addClears(HistoryClear.newBuilder().setClearTimeMs(base + 3_000)).build()));
    env.produce(batch(base + 3_600, change(UID).addUpserts(record(UID, Business.VIDEO, 5, 1, base + 3_500)).build()));
    env.awaitCommitted(UID, 5);
    assertThat(env.stored(UID, Business.VIDEO, 3)).isNull();
    assertThat(env.stored(UID, Business.VIDEO, 5)).isNotNull();
  }

  @Test
  void itemWithoutARedisRecordIsNotPersistedAtOrBeforeTheEvictionFloor() {
    // delete_history.lua evicted item tombstones up to base + 2_000: their items' deletes left only the floor.
    tombstone("~e", base + 2_000);
    HistoryRecord inRedis = record(UID, Business.VIDEO, 3, 5, base + 1_000);
    env.putRedisRecord(inRedis);
    env.produce(batch(base + 2_600, change(UID)
        .addUpserts(record(UID, Business.VIDEO, 1, 5, base + 2_000))
        .addUpserts(record(UID, Business.VIDEO, 2, 5, base + 2_500))
        .addUpserts(inRedis).build()));
    env.awaitCommitted(UID, 1);

    assertThat(env.stored(UID, Business.VIDEO, 1)).isNull();
    assertThat(env.stored(UID, Business.VIDEO, 2)).isNotNull();
    assertThat(env.stored(UID, Business.VIDEO, 3)).isEqualTo(inRedis);
  }

  @Test
  void garbageRecordIsCountedAndSkippedAndTheLoopKeepsGoing() {
    env.produceRaw(partitionOf(UID), new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x01, 0x02});
    env.produce(batch(base + 200, change(UID).addUpserts(record(UID, Business.COMIC, 9, 1, base + 100)).build()));

    env.awaitCommitted(UID, 2);
    assertThat(env.stored(UID, Business.COMIC, 9)).isNotNull();
    assertThat(env.counter("playline.job.parse.failures")).isEqualTo(1);
    assertThat(job.readiness()).isTrue();
  }

  @Test
  void persistedBatchClearsItsRecoveryMarksUpToItsStampButNotNewerOnes() {
    env.mark(UID, Business.VIDEO, 1, base + 150);
    env.mark(UID, Business.VIDEO, 2, base + 250);
    env.mark(UID, Business.VIDEO, 3, base + 100); // not in the batch: stays whatever its score
    // flushed_at_ms (the node's clock) is far ahead: only the change's mark stamp decides.
    env.produce(batch(base + 60_000, change(UID)
        .setUpsertsMarkStampUs(TimeUnit.MILLISECONDS.toMicros(base + 200))
        .addUpserts(record(UID, Business.VIDEO, 1, 1, base + 100))
        .addUpserts(record(UID, Business.VIDEO, 2, 1, base + 100)).build()));

    env.awaitCommitted(UID, 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> env.markScore(UID, Business.VIDEO, 1) == null);
    assertThat(env.markScore(UID, Business.VIDEO, 2)).isEqualTo((double) TimeUnit.MILLISECONDS.toMicros(base + 250));
    assertThat(env.markScore(UID, Business.VIDEO, 3)).isNotNull();
  }

  @Test
  void persistedDeleteRemovesItsOwnControlMarkOnly() {
    byte[] carried = RedisKeys.controlMark(UID, 0xabc);
    byte[] other = RedisKeys.controlMark(UID, 0xdef);
    env.markRaw(UID, carried, base + 100);
    env.markRaw(UID, other, base + 50);
    env.mark(UID, Business.VIDEO, 4, base + 50);
    env.produce(batch(base + 200, change(UID)
        .addDeletes(ItemDelete.newBuilder().setItem(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(4))
            .setDeleteTimeMs(base + 150))
        .addControlMarks(ByteString.copyFrom(carried)).build()));

    env.awaitCommitted(UID, 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> env.markScoreRaw(UID, carried) == null);
    assertThat(env.markScoreRaw(UID, other)).isNotNull();
    // A delete carries no upsert stamp: the item's write-through mark is the write-back's to clear.
    assertThat(env.markScore(UID, Business.VIDEO, 4)).isNotNull();
  }

  @Test
  void persistedBatchIsNotRedeliveredToTheGroupAfterClose() {
    long[] uids = {UID, UID + 1, UID + 2, UID + 3};
    for (long uid : uids) {
      env.produce(batch(base + 200, change(uid).addUpserts(record(uid, Business.VIDEO, 1, 1, base + 100)).build()));
    }
    for (long uid : uids) {
      env.awaitCommitted(uid, 1);
    }
    job.close();

    Properties props = env.kafka.consumerProperties("job");
    props.put("group.id", env.config.groupId());
    List<ConsumerRecord<byte[], byte[]>> redelivered = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> again = new KafkaConsumer<>(props)) {
      again.subscribe(List.of(env.topic));
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        again.poll(Duration.ofMillis(100)).forEach(redelivered::add);
        return again.assignment().size() == KafkaNamespace.PARTITIONS;
      });
      Set<TopicPartition> all = again.assignment();
      Map<TopicPartition, Long> ends = again.endOffsets(all);
      Map<TopicPartition, Long> positions = all.stream().collect(Collectors.toMap(tp -> tp, again::position));
      assertThat(positions).isEqualTo(ends);
      again.poll(Duration.ofMillis(200)).forEach(redelivered::add);
    }
    assertThat(redelivered).isEmpty();
  }
}
