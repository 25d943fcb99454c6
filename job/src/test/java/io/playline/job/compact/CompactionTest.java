package io.playline.job.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.compact.HistoryCompactor;
import io.playline.core.query.TieredHistoryService;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryClear;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemDelete;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RedisNamespace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Compaction of heavy users on real Redis and HBase: the job's sink writes (upserts, deletes,
 * clears as the consumer persists them), {@link HistoryCompactor} rolls users up, and history-core's
 * {@link TieredHistoryService} pages through Redis, live cells and chunks as the API does.
 */
class CompactionTest extends AbstractCompactionTest {
  @Test
  void aHeavyUserPagesToTheEndThroughChunksWhileWritesDeletesAndRollUpsArrive(RedisNamespace redis,
      HBaseNamespace hbase) throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "2000", "history.compact.keep", "500",
        "history.compact.chunk.bytes", "8192", "history.redis.max.items", "100", "query.hbase.max.items", "200"));
    long uid = 7001;
    int items = 20_000;
    // One item every 6 minutes over the last ~83 days, alternating video and article.
    Map<String, HistoryRecord> written = new LinkedHashMap<>();
    List<HistoryRecord> batch = new ArrayList<>();
    for (int i = 0; i < items; i++) {
      HistoryRecord r = record(uid, i % 2 == 0 ? Business.VIDEO : Business.ARTICLE, 1 + i, now - (i + 1) * 360_000L);
      written.put(member(r), r);
      batch.add(r);
    }
    upsert(uid, batch);
    HistoryCompactor.Result first = compactor.compact(uid, false);
    assertThat(first.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(first.moved()).isEqualTo(items - 500);
    assertThat(first.chunks()).isGreaterThan(50);
    assertThat(liveCells(uid)).isEqualTo(500);

    Set<String> seen = new HashSet<>();
    List<HistoryRecord> listed = new ArrayList<>();
    Set<String> deleted = new HashSet<>();
    Set<String> movedToTop = new HashSet<>();
    Map<String, Long> lateWrites = new HashMap<>();
    Cursor after = null;
    int pages = 0;
    double readsBefore = counter("playline.query.hbase.reads");
    double chunksBefore = counter("playline.query.hbase.chunks");
    while (true) {
      HistoryPage page = join(service.list(uid, List.of(), after, 100));
      pages++;
      assertThat(pages).as("pages").isLessThanOrEqualTo(400);
      listed.addAll(page.getRecordsList());
      page.getRecordsList().forEach(r -> assertThat(seen.add(member(r))).as("listed twice: %s", member(r)).isTrue());
      if (pages == 20) {
        // Deep items not listed yet: a late write a minute newer (listed once, at its new time), a delete
        // (never listed), a heartbeat now (jumps ahead of the cursor, so not listed again), then a second roll-up.
        List<HistoryRecord> late = new ArrayList<>();
        List<ItemKey> deletes = new ArrayList<>();
        List<HistoryRecord> fresh = new ArrayList<>();
        for (int i = 10_000; i < 10_050; i++) {
          HistoryRecord r = written.get(member(i));
          late.add(r.toBuilder().setViewTimeMs(r.getViewTimeMs() + 60_000).setProgressMs(5).build());
          lateWrites.put(member(r), r.getViewTimeMs() + 60_000);
          deletes.add(key(written.get(member(i + 100))));
          deleted.add(member(i + 100));
          fresh.add(written.get(member(i + 200)).toBuilder().setViewTimeMs(now + 1000 + i).build());
          movedToTop.add(member(i + 200));
        }
        upsert(uid, late);
        upsert(uid, fresh);
        sink.write(List.of(HistoryChange.newBuilder().setUid(uid).addAllDeletes(deletes.stream()
            .map(k -> ItemDelete.newBuilder().setItem(k).setDeleteTimeMs(now + 500).build()).toList()).build()));
        assertThat(compactor.compact(uid, true).outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
      }
      if (!page.getHasMore()) {
        break;
      }
      after = page.getNext();
    }
    for (int i = 1; i < listed.size(); i++) {
      HistoryRecord a = listed.get(i - 1);
      HistoryRecord b = listed.get(i);
      assertThat(a.getViewTimeMs()).as("newest first at %d", i).isGreaterThanOrEqualTo(b.getViewTimeMs());
    }
    Set<String> expected = new HashSet<>(written.keySet());
    expected.removeAll(deleted);
    expected.removeAll(movedToTop);
    assertThat(seen).as("every record once, no gap").isEqualTo(expected);
    for (HistoryRecord r : listed) {
      Long late = lateWrites.get(member(r));
      assertThat(r.getViewTimeMs()).isEqualTo(late != null ? late : written.get(member(r)).getViewTimeMs());
      assertThat(r.getUid()).isEqualTo(uid);
    }
    // A page reads the chunks it needs, not the whole history (~240 chunks).
    double hbaseReads = counter("playline.query.hbase.reads") - readsBefore;
    double chunkReads = counter("playline.query.hbase.chunks") - chunksBefore;
    assertThat(chunkReads / hbaseReads).as("chunks per HBase read").isLessThan(6);
  }

  @Test
  void deletesAndClearsHideChunkedRecordsAtOnceAndTheNextRollUpFoldsThem(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "40", "history.compact.keep", "10",
        "history.compact.chunk.bytes", "1024"));
    long uid = 7002;
    List<HistoryRecord> records = history(uid, 60, i -> i % 3 == 0 ? Business.ARTICLE : Business.VIDEO, DAY / 2);
    assertThat(compactor.compact(uid, false).outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(listAll(uid)).hasSize(60);

    HistoryRecord chunkedVideo = records.get(40);
    sink.write(List.of(HistoryChange.newBuilder().setUid(uid)
        .addDeletes(ItemDelete.newBuilder().setItem(key(chunkedVideo)).setDeleteTimeMs(now))
        .addClears(HistoryClear.newBuilder().addBusinesses(Business.ARTICLE).setClearTimeMs(now))
        .build()));
    List<String> afterDelete = members(listAll(uid));
    assertThat(afterDelete).doesNotContain(member(chunkedVideo)).hasSize(60 - 20 - 1)
        .allMatch(m -> m.startsWith(Business.VIDEO_VALUE + ":"));
    assertThat(index(uid).tombstones()).containsKeys(member(chunkedVideo), "b" + Business.ARTICLE_VALUE);

    HistoryCompactor.Result folded = compactor.compact(uid, true);
    assertThat(folded.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(folded.dropped()).isGreaterThanOrEqualTo(1 + 16);
    assertThat(index(uid).tombstones()).as("folded tombstones removed").isEmpty();
    assertThat(members(listAll(uid))).isEqualTo(afterDelete);

    // A newer write of the deleted item brings it back, once.
    HistoryRecord again = chunkedVideo.toBuilder().setViewTimeMs(now + 10).build();
    upsert(uid, List.of(again));
    List<HistoryRecord> all = listAll(uid);
    assertThat(members(all)).containsOnlyOnce(member(again)).hasSize(afterDelete.size() + 1);
    assertThat(all.get(0)).isEqualTo(again.toBuilder().build());
  }

  @Test
  void lastWriteWinsAcrossALiveCellAndAChunkedRecord(RedisNamespace redis, HBaseNamespace hbase) throws Exception {
    // Small Redis and HBase reads, so both copies meet in one HBase read rather than in a warm-up.
    setUp(redis, hbase, Map.of("history.compact.threshold", "20", "history.compact.keep", "5",
        "history.redis.max.items", "3", "query.hbase.max.items", "8"));
    long uid = 7003;
    List<HistoryRecord> records = history(uid, 30, i -> Business.VIDEO, DAY);
    assertThat(compactor.compact(uid, false).outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    HistoryRecord chunked = records.get(20);

    // An older replay of a chunked item stays hidden (the roll-up left a delete marker up to the moved time).
    upsert(uid, List.of(chunked.toBuilder().setViewTimeMs(chunked.getViewTimeMs() - 1000).setProgressMs(1).build()));
    assertThat(listAll(uid)).containsOnlyOnce(chunked).hasSize(30);

    // A newer write of it, still older than its neighbours, is listed at its new time only.
    HistoryRecord newer = chunked.toBuilder().setViewTimeMs(chunked.getViewTimeMs() + 1000).setProgressMs(2).build();
    upsert(uid, List.of(newer));
    List<HistoryRecord> all = listAll(uid);
    assertThat(all).containsOnlyOnce(newer).doesNotContain(chunked).hasSize(30);

    // The next roll-up keeps the newer one and drops the older copy.
    HistoryCompactor.Result again = compactor.compact(uid, true);
    assertThat(again.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(again.dropped()).isEqualTo(1);
    assertThat(listAll(uid)).isEqualTo(all);
  }

  @Test
  void retentionDropsExpiredRecordsFromChunksOnReadAndAtRollUp(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "20", "history.compact.keep", "5",
        "history.retention.live", "7d"));
    long uid = 7004;
    List<HistoryRecord> records = history(uid, 30, i -> i % 2 == 0 ? Business.LIVE : Business.VIDEO, DAY / 2);
    long keptLive = records.stream().filter(r -> r.getBusiness() != Business.LIVE
        || r.getViewTimeMs() >= now - 7 * DAY).count();
    // Before any roll-up the reader hides the expired live records; the roll-up drops them for good.
    assertThat(listAll(uid)).hasSize((int) keptLive);
    HistoryCompactor.Result r = compactor.compact(uid, false);
    assertThat(r.dropped()).isEqualTo(30 - (int) keptLive);
    assertThat(r.chunked() + liveCells(uid)).isEqualTo((int) keptLive);
    assertThat(listAll(uid)).hasSize((int) keptLive)
        .allMatch(x -> x.getBusiness() != Business.LIVE || x.getViewTimeMs() >= now - 7 * DAY);
  }
}
