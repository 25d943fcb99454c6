package io.playline.job.consume;

import static io.playline.job.JobTestEnv.batch;
import static io.playline.job.JobTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.job.metrics.JobMetrics;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryClear;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemDelete;
import io.playline.proto.v1.ItemKey;
import io.playline.time.Time;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChangeResolverTest {
  private static final long UID = 7;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ChangeResolver resolver = new ChangeResolver(new JobMetrics(registry, Time.SYSTEM));

  private static ItemKey item(Business business, long oid) {
    return ItemKey.newBuilder().setBusiness(business).setOid(oid).build();
  }

  private static HistoryChange.Builder change() {
    return HistoryChange.newBuilder().setUid(UID);
  }

  @Test
  void upsertNotAfterADeleteOfItsItemIsDropped() {
    resolver.add(batch(100, change()
        .addUpserts(record(UID, Business.VIDEO, 1, 5, 1_000))
        .addUpserts(record(UID, Business.VIDEO, 2, 5, 1_000))
        .addUpserts(record(UID, Business.VIDEO, 3, 5, 2_001))
        .addDeletes(ItemDelete.newBuilder().setItem(item(Business.VIDEO, 1)).setDeleteTimeMs(1_000))
        .addDeletes(ItemDelete.newBuilder().setItem(item(Business.VIDEO, 3)).setDeleteTimeMs(2_000))
        .build()));

    // Covered items are read back too: Redis may hold a write of them after the delete.
    assertThat(resolver.itemsToRead()).isEqualTo(Map.of(UID,
        List.of(item(Business.VIDEO, 1), item(Business.VIDEO, 2), item(Business.VIDEO, 3))));
    HistoryChange out = resolver.resolve(Map.of()).get(0);
    assertThat(out.getUpsertsList()).extracting(HistoryRecord::getOid).containsExactly(2L, 3L);
    assertThat(out.getDeletesCount()).isEqualTo(2);
    assertThat(registry.get("playline.job.upserts.dropped").counter().count()).isEqualTo(1);
  }

  @Test
  void redisRecordAfterTheDeleteIsWrittenWhenTheSnapshotIsCovered() {
    resolver.add(batch(100, change()
        .addUpserts(record(UID, Business.VIDEO, 1, 5, 1_000))
        .addDeletes(ItemDelete.newBuilder().setItem(item(Business.VIDEO, 1)).setDeleteTimeMs(1_500))
        .build()));
    HistoryRecord later = record(UID, Business.VIDEO, 1, 9, 2_000);

    HistoryChange out = resolver.resolve(Map.of(UID, Map.of(item(Business.VIDEO, 1), later))).get(0);
    assertThat(out.getUpsertsList()).containsExactly(later);
    assertThat(out.getDeletesCount()).isEqualTo(1);
  }

  @Test
  void upsertNotAfterARedisTombstoneIsDroppedEvenWithoutADeleteInThePoll() {
    resolver.add(batch(100, change()
        .addUpserts(record(UID, Business.ARTICLE, 2, 5, 1_500))
        .addUpserts(record(UID, Business.VIDEO, 3, 5, 1_500)).build()));

    HistoryChange out = resolver.resolve(Map.of(), Map.of(UID, Map.of(item(Business.ARTICLE, 2), 2_000L)), Map.of()).get(0);
    assertThat(out.getUpsertsList()).extracting(HistoryRecord::getOid).containsExactly(3L);
  }

  @Test
  void clearInALaterBatchOfThePollCoversEarlierUpsertsOfItsBusinesses() {
    resolver.add(batch(100, change()
        .addUpserts(record(UID, Business.VIDEO, 1, 5, 1_000))
        .addUpserts(record(UID, Business.ARTICLE, 2, 5, 1_000)).build()));
    resolver.add(batch(200, change()
        .addClears(HistoryClear.newBuilder().addBusinesses(Business.ARTICLE).setClearTimeMs(1_500)).build()));

    HistoryChange out = resolver.resolve(Map.of()).get(0);
    assertThat(out.getUpsertsList()).extracting(HistoryRecord::getBusiness).containsExactly(Business.VIDEO);
    assertThat(out.getClearsCount()).isEqualTo(1);
  }

  @Test
  void newerOfRedisAndTheSnapshotWins() {
    HistoryRecord snapshot1 = record(UID, Business.VIDEO, 1, 5, 1_000);
    HistoryRecord snapshot2 = record(UID, Business.VIDEO, 2, 5, 3_000);
    HistoryRecord snapshot3 = record(UID, Business.VIDEO, 3, 5, 1_000);
    resolver.add(batch(100, change().addUpserts(snapshot1).addUpserts(snapshot2).addUpserts(snapshot3).build()));
    HistoryRecord redis1 = record(UID, Business.VIDEO, 1, 9, 2_000);
    HistoryRecord redis2 = record(UID, Business.VIDEO, 2, 9, 2_000);

    HistoryChange out = resolver.resolve(Map.of(UID, Map.of(item(Business.VIDEO, 1), redis1,
        item(Business.VIDEO, 2), redis2))).get(0);
    assertThat(out.getUpsertsList()).containsExactly(redis1, snapshot2, snapshot3);
    assertThat(registry.get("playline.job.upserts.redis.newer").counter().count()).isEqualTo(1);
    assertThat(registry.get("playline.job.upserts.snapshot.used").counter().count()).isEqualTo(1);
  }

  @Test
  void latestSnapshotOfAnItemAcrossBatchesIsKept() {
    resolver.add(batch(100, change().addUpserts(record(UID, Business.VIDEO, 1, 5, 2_000)).build()));
    resolver.add(batch(200, change().addUpserts(record(UID, Business.VIDEO, 1, 3, 1_000)).build()));
    assertThat(resolver.resolve(Map.of()).get(0).getUpsertsList()).extracting(HistoryRecord::getProgressMs)
        .containsExactly(5L);
  }

  @Test
  void malformedEntriesAreSkippedAndAClearOfOnlyUnknownBusinessesIsNotWidened() {
    resolver.add(batch(100,
        HistoryChange.newBuilder().setUid(0).addUpserts(record(0, Business.VIDEO, 1, 5, 1_000)).build(),
        change()
            .addUpserts(record(UID, Business.BUSINESS_UNSPECIFIED, 1, 5, 1_000))
            .addUpserts(record(UID, Business.VIDEO, 0, 5, 1_000))
            .addUpserts(record(UID + 1, Business.VIDEO, 5, 5, 1_000))
            .addUpserts(record(UID, Business.VIDEO, 6, 5, -5))
            .addDeletes(ItemDelete.newBuilder().setItem(item(Business.VIDEO, 6)).setDeleteTimeMs(Long.MAX_VALUE))
            .addClears(HistoryClear.newBuilder().addBusinessesValue(99).setClearTimeMs(5_000))
            .build()));

    assertThat(resolver.resolve(Map.of())).isEmpty();
    assertThat(registry.get("playline.job.invalid.entries").counter().count()).isEqualTo(7);
  }
}
