package io.playline.core.query;

import static io.playline.core.query.QueryTestEnv.item;
import static io.playline.core.query.QueryTestEnv.join;
import static io.playline.core.query.QueryTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Paging past what Redis holds into HBase, and cold users served from HBase then warmed. */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class})
class TierBoundaryTest {
  private static final long UID = 2002;
  private QueryTestEnv env;

  @AfterEach
  void tearDown() {
    if (env != null) {
      env.close();
    }
  }

  private long base() {
    return env.now - 2 * QueryTestEnv.DAY;
  }

  /** Twenty VIDEO items, oid 1 oldest; written through Redis (which keeps the newest 5) and to HBase. */
  private List<String> twentyItemsInBothTiers() {
    List<String> newestFirst = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      HistoryRecord r = record(UID, Business.VIDEO, i + 1, i, base() + i * 1000L);
      env.heartbeat(r);
      env.persist(r);
      newestFirst.add(0, "VIDEO:" + (i + 1));
    }
    return newestFirst;
  }

  @Test
  void pagingReachesTheWholeHistoryPastTheNewestFiveInRedis(RedisNamespace redis, HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of("history.redis.max.items", "5"));
    List<String> expected = twentyItemsInBothTiers();
    assertThat(env.timeline(UID)).hasSize(5);

    for (int limit : new int[] {3, 7, 20, 100}) {
      assertThat(env.listAll(UID, List.of(), limit)).extracting(r -> r.getBusiness() + ":" + r.getOid())
          .as("limit %s", limit).containsExactlyElementsOf(expected);
    }
    assertThat(env.counter("playline.query.tier", "kind", "list", "tier", "hbase")).isPositive();
    assertThat(env.timeline(UID)).hasSize(5).first().isEqualTo("~w");
  }

  @Test
  void truncatedHBaseReadsStillPageWithoutGapsOrDuplicates(RedisNamespace redis, HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of("history.redis.max.items", "5", "query.hbase.max.items", "4"));
    List<String> expected = twentyItemsInBothTiers();

    // Pages smaller and larger than one HBase read: a page ends where the read's coverage ends.
    for (int limit : new int[] {3, 5, 9}) {
      assertThat(env.listAll(UID, List.of(), limit)).extracting(r -> r.getBusiness() + ":" + r.getOid())
          .as("limit %s", limit).containsExactlyElementsOf(expected);
    }
  }

  @Test
  void itemInRedisIsServedOnlyAtItsRedisPositionAndTombstonedOrExpiredHBaseItemsAreSkipped(
      RedisNamespace redis, HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of("history.redis.max.items", "5", "history.retention.live", "7d"));
    List<String> expected = twentyItemsInBothTiers();
    // Item 2 was watched again: Redis has the new version on top, HBase (job behind) still the old one.
    env.heartbeat(record(UID, Business.VIDEO, 2, 77, env.now));
    expected.remove("VIDEO:2");
    expected.add(0, "VIDEO:2");
    // Item 3 deleted: the Redis tombstone hides HBase's cell before the job deletes it.
    join(env.service.delete(UID, List.of(item(Business.VIDEO, 3))));
    expected.remove("VIDEO:3");
    // A LIVE item past its 7-day retention, only in HBase.
    env.persist(record(UID, Business.LIVE, 9, 1, env.now - 8 * QueryTestEnv.DAY));

    List<HistoryRecord> all = env.listAll(UID, List.of(), 4);

    assertThat(all).extracting(r -> r.getBusiness() + ":" + r.getOid()).containsExactlyElementsOf(expected);
    assertThat(all.get(0).getProgressMs()).isEqualTo(77);
  }

  @Test
  void coldUserIsServedFromHBaseThenWarmSoTheSecondReadHitsRedisOnly(RedisNamespace redis, HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of());
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      env.persist(record(UID, i % 2 == 0 ? Business.VIDEO : Business.ARTICLE, i + 1, i, base() + i));
      expected.add(0, (i % 2 == 0 ? "VIDEO" : "ARTICLE") + ":" + (i + 1));
    }
    assertThat(env.timeline(UID)).isEmpty();

    HistoryPage first = env.page(UID, List.of(), null, 5);
    assertThat(first.getRecordsList()).extracting(r -> r.getBusiness() + ":" + r.getOid())
        .containsExactlyElementsOf(expected.subList(0, 5));
    assertThat(env.counter("playline.query.warmups")).isEqualTo(1);
    assertThat(env.timeline(UID)).hasSize(13).first().isEqualTo("~c");
    double hbaseReads = env.counter("playline.query.hbase.reads");

    assertThat(env.listAll(UID, List.of(), 5)).extracting(r -> r.getBusiness() + ":" + r.getOid())
        .containsExactlyElementsOf(expected);
    assertThat(env.listAll(UID, List.of(Business.ARTICLE), 5)).hasSize(6);
    assertThat(env.counter("playline.query.hbase.reads")).isEqualTo(hbaseReads);
    // Warming is no write: no recovery log entries or marks, nothing for the write-back.
    for (int shard = 0; shard < env.config.recoveryShards(); shard++) {
      assertThat(join(env.redis.shared().exists(env.keys.recovery(shard), env.keys.recoveryLog(shard)))).isZero();
    }
    assertThat(env.sink.ops()).isEmpty();
  }

  @Test
  void aColdUserWithMoreThanRedisKeepsIsWarmedWithTheNewestOnlyAndPagesOnIntoHBase(RedisNamespace redis,
      HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of("history.redis.max.items", "5"));
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      env.persist(record(UID, Business.VIDEO, i + 1, i, base() + i * 1000L));
      expected.add(0, "VIDEO:" + (i + 1));
    }

    HistoryPage first = env.page(UID, List.of(), null, 3);

    assertThat(first.getRecordsList()).extracting(r -> r.getBusiness() + ":" + r.getOid())
        .containsExactlyElementsOf(expected.subList(0, 3));
    // Five members: the warm marker (not complete, HBase holds more) and the newest four; their records only.
    assertThat(env.timeline(UID)).containsExactly("~w", "1:12", "1:11", "1:10", "1:9");
    assertThat(join(env.redis.shared().hlen(env.keys.records(UID)))).isEqualTo(4);
    assertThat(env.listAll(UID, List.of(), 4)).extracting(r -> r.getBusiness() + ":" + r.getOid())
        .containsExactlyElementsOf(expected);
  }

  @Test
  void warmingKeepsTheNewestCopyOfAnItemGivenTwiceInOrOutOfAnEmptyTimeline(RedisNamespace redis,
      HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of());
    RedisTimeline timeline = new RedisTimeline(env.config, env.redis, new QueryMetrics(env.registry));
    HistoryRecord older = record(UID, Business.VIDEO, 1, 10, base());
    HistoryRecord newer = record(UID, Business.VIDEO, 1, 20, base() + 5);
    HistoryRecord other = record(UID, Business.VIDEO, 2, 30, base() + 1);
    List<TimelineEntry> entries = List.of(entry(newer), entry(other), entry(older));

    // Nothing in Redis yet (the batched path), then again over what is there (the per-record path).
    assertThat(join(timeline.warm(UID, entries, true))).isEqualTo(2);
    assertThat(join(timeline.warm(UID, List.of(entry(older)), true))).isZero();

    assertThat(env.timeline(UID)).containsExactly("~c", "1:1", "1:2");
    assertThat(join(env.service.progress(UID, List.of(item(Business.VIDEO, 1))))).singleElement()
        .extracting(HistoryRecord::getProgressMs).isEqualTo(20L);
  }

  private static TimelineEntry entry(HistoryRecord r) {
    return new TimelineEntry(TimelinePosition.member(r.getBusinessValue(), r.getOid()), r.getViewTimeMs(),
        r.toByteArray());
  }

  @Test
  void warmUpNeverOverwritesANewerHeartbeatNorRevivesADeletedItem(RedisNamespace redis, HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of());
    env.persist(record(UID, Business.VIDEO, 1, 10, base()), record(UID, Business.VIDEO, 2, 10, base() + 1),
        record(UID, Business.VIDEO, 3, 10, base() + 2));
    // Before the user's first list: a newer heartbeat of item 1 and a delete of item 2.
    env.heartbeat(record(UID, Business.VIDEO, 1, 20, base() + 100));
    join(env.service.delete(UID, List.of(item(Business.VIDEO, 2))));

    List<HistoryRecord> all = env.listAll(UID, List.of(), 10);

    assertThat(all).extracting(r -> r.getOid() + "@" + r.getProgressMs()).containsExactly("1@20", "3@10");
    assertThat(env.timeline(UID)).containsExactly("~c", "1:1", "1:3");
    assertThat(join(env.service.progress(UID, List.of(item(Business.VIDEO, 1))))).singleElement()
        .extracting(HistoryRecord::getProgressMs).isEqualTo(20L);
  }

  @Test
  void newUserWithNoHistoryAnywhereIsMarkedCompleteAndListsFromRedisAfterwards(RedisNamespace redis,
      HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of());
    assertThat(env.page(UID, List.of(), null, 10).getRecordsCount()).isZero();
    double hbaseReads = env.counter("playline.query.hbase.reads");

    env.heartbeat(record(UID, Business.EPISODE, 5, 1, env.now));
    HistoryPage page = env.page(UID, List.of(), null, 10);

    assertThat(page.getRecordsList()).extracting(HistoryRecord::getOid).containsExactly(5L);
    assertThat(page.getHasMore()).isFalse();
    assertThat(env.counter("playline.query.hbase.reads")).isEqualTo(hbaseReads);
  }
}
