package io.playline.job.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.compact.HistoryCompactor;
import io.playline.core.query.TieredHistoryService;
import io.playline.core.store.CompactedIndex;
import io.playline.core.store.HistoryChunks;
import io.playline.core.store.HistoryRowKeys;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HBaseHistorySink;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryClear;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemDelete;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Compaction of heavy users on real Redis and HBase: the job's sink writes (upserts, deletes,
 * clears as the consumer persists them), {@link HistoryCompactor} rolls users up, and history-core's
 * {@link TieredHistoryService} pages through Redis, live cells and chunks as the API does.
 */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class})
class CompactionTest {
  private static final long DAY = Duration.ofDays(1).toMillis();
  private final long now = System.currentTimeMillis();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private CompactionEnv env;
  private SimpleMeterRegistry registry;
  private HBaseNamespace hbase;
  private JobConfig config;
  private HBaseHistorySink sink;
  private HistoryCompactor compactor;
  private TieredHistoryService service;

  private void setUp(RedisNamespace redisNs, HBaseNamespace hbase, Map<String, String> overrides) throws Exception {
    this.hbase = hbase;
    env = new CompactionEnv(redisNs, hbase, overrides, async -> async);
    closeables.add(env);
    registry = env.registry;
    config = env.config;
    sink = env.sink;
    compactor = env.compactor;
    service = env.service;
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

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

  @Test
  void aRollUpStoppedAfterAnyStepLeavesTheSameHistoryReadable(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "100", "history.compact.keep", "20",
        "history.compact.chunk.bytes", "2048", "history.redis.max.items", "10", "query.hbase.max.items", "30"));
    String[] steps = {"afterChunks", "afterIndex", "afterLiveDeletes"};
    for (int s = 0; s < steps.length; s++) {
      long uid = 7100 + s;
      List<HistoryRecord> records = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        records.add(record(uid, Business.VIDEO, 1 + i, now - (i + 1) * 60_000L));
      }
      upsert(uid, records);
      // A first version, so the stopped roll-up replaces one.
      assertThat(compactor.compact(uid, false).outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
      List<HistoryRecord> more = new ArrayList<>();
      for (int i = 0; i < 150; i++) {
        more.add(record(uid, Business.VIDEO, 10_000 + i, now - i * 1000L));
      }
      upsert(uid, more);
      List<HistoryRecord> expected = listAll(uid);
      assertThat(expected).hasSize(450);

      String step = steps[s];
      compactor.hooks(new StopAt(step));
      assertThatThrownBy(() -> compactor.compact(uid, false)).as(step).hasMessageContaining("stopped " + step);
      compactor.hooks(HistoryCompactor.Hooks.NONE);
      assertThat(listAll(uid)).as("after a stop %s", step).isEqualTo(expected);

      HistoryCompactor.Result resumed = compactor.compact(uid, true);
      // Stopped after the live deletes, only clean-up was left: nothing to roll up again.
      assertThat(resumed.outcome()).as(step).isEqualTo(step.equals("afterLiveDeletes")
          ? HistoryCompactor.Outcome.NOT_NEEDED : HistoryCompactor.Outcome.ROLLED_UP);
      assertThat(listAll(uid)).as("after the next roll-up (%s)", step).isEqualTo(expected);
      assertThat(liveCells(uid)).isEqualTo(20);
    }
  }

  @Test
  void ofTwoRacingRollUpsOneWritesItsVersionAndTheOtherRemovesItsChunks(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "50", "history.compact.keep", "10",
        "history.compact.chunk.bytes", "1024"));
    long uid = 7200;
    List<HistoryRecord> records = history(uid, 120, i -> Business.COMIC, 60_000L);
    List<HistoryRecord> expected = listAll(uid);
    HistoryCompactor.Result[] inner = new HistoryCompactor.Result[1];
    compactor.hooks(new HistoryCompactor.Hooks() {
      @Override
      public void afterChunks(long u) {
        compactor.hooks(HistoryCompactor.Hooks.NONE);
        try {
          inner[0] = compactor.compact(u, false);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    });
    HistoryCompactor.Result outer = compactor.compact(uid, false);
    assertThat(inner[0].outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(outer.outcome()).isEqualTo(HistoryCompactor.Outcome.CONFLICT);
    assertThat(index(uid).index().getVersion()).isEqualTo(1);
    assertThat(chunkRows(uid)).as("only the winner's chunk rows remain").isEqualTo(inner[0].chunks());
    assertThat(listAll(uid)).isEqualTo(expected);
  }

  @Test
  void aLaterRollUpKeepsTheChunksThatDidNotChangeAndRewritesOnlyTheOthers(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "100", "history.compact.keep", "20",
        "history.compact.chunk.bytes", "2048", "history.redis.max.items", "10", "query.hbase.max.items", "30"));
    long uid = 7400;
    List<HistoryRecord> records = history(uid, 400, i -> Business.VIDEO, 3_600_000L);
    HistoryCompactor.Result first = compactor.compact(uid, false);
    assertThat(first.chunksWritten()).isEqualTo(first.chunks()).isGreaterThan(5);

    // 150 newer records: the next version adds chunks for the ones moved and keeps every old chunk.
    List<HistoryRecord> newer = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      newer.add(record(uid, Business.VIDEO, 10_000 + i, now + 1000 + i));
    }
    upsert(uid, newer);
    HistoryCompactor.Result second = compactor.compact(uid, false);
    assertThat(second.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(second.chunks() - second.chunksWritten()).as("chunks kept as they were").isEqualTo(first.chunks());
    assertThat(index(uid).index().getRetiredCount()).isZero();

    // A late write into the middle of an old chunk, and a delete in another: those two are rewritten.
    HistoryRecord middle = records.get(200);
    upsert(uid, List.of(middle.toBuilder().setViewTimeMs(middle.getViewTimeMs() + 1).setProgressMs(7).build()));
    sink.write(List.of(HistoryChange.newBuilder().setUid(uid).addDeletes(ItemDelete.newBuilder()
        .setItem(key(records.get(350))).setDeleteTimeMs(now)).build()));
    List<HistoryRecord> expected = listAll(uid);
    HistoryCompactor.Result third = compactor.compact(uid, true);
    assertThat(third.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(third.chunksWritten()).isBetween(1, 4);
    assertThat(index(uid).index().getRetiredCount()).isBetween(1, 3);
    assertThat(listAll(uid)).isEqualTo(expected).hasSize(400 + 150 - 1);
    // The retired chunks are deleted by the roll-up after.
    int rowsBefore = chunkRows(uid);
    upsert(uid, List.of(record(uid, Business.VIDEO, 99_999, now + 10_000)));
    compactor.compact(uid, true);
    assertThat(chunkRows(uid)).isLessThan(rowsBefore + 1);
    assertThat(listAll(uid)).hasSize(expected.size() + 1);
  }

  @Test
  void deletesOfAUserBelowTheThresholdAreFoldedAndTheirTombstonesRemoved(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "100", "history.compact.keep", "50"));
    long uid = 7500;
    List<HistoryRecord> records = history(uid, 30, i -> Business.AUDIO, DAY);
    sink.write(List.of(HistoryChange.newBuilder().setUid(uid).addDeletes(ItemDelete.newBuilder()
        .setItem(key(records.get(3))).setDeleteTimeMs(now)).build()));
    assertThat(index(uid).tombstones()).hasSize(1);
    // Never rolled up and within the threshold: the check still folds the tombstone (an empty index).
    HistoryCompactor.Result r = compactor.compact(uid, false);
    assertThat(r.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(r.chunks()).isZero();
    assertThat(index(uid).tombstones()).isEmpty();
    assertThat(members(listAll(uid))).hasSize(29).doesNotContain(member(records.get(3)));
    assertThat(compactor.compact(uid, false).outcome()).isEqualTo(HistoryCompactor.Outcome.NOT_NEEDED);
  }

  @Test
  void aUserBelowTheThresholdIsRolledUpOnceItsOldestLiveCellsPassTheAge(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "100", "history.compact.keep", "5",
        "history.compact.age", "10d"));
    long young = 7700;
    history(young, 9, i -> Business.VIDEO, DAY);
    assertThat(compactor.compact(young, false).outcome()).isEqualTo(HistoryCompactor.Outcome.NOT_NEEDED);
    long old = 7701;
    history(old, 30, i -> Business.VIDEO, DAY);
    HistoryCompactor.Result r = compactor.compact(old, false);
    assertThat(r.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(r.moved()).isEqualTo(25);
    assertThat(listAll(old)).hasSize(30);
  }

  @Test
  void aUserPastTheRecordLimitIsLeftAsItIs(RedisNamespace redis, HBaseNamespace hbase) throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "20", "history.compact.keep", "5",
        "history.compact.max.records", "50"));
    long uid = 7600;
    history(uid, 60, i -> Business.VIDEO, DAY);
    HistoryCompactor.Result r = compactor.compact(uid, false);
    assertThat(r.outcome()).isEqualTo(HistoryCompactor.Outcome.TOO_LARGE);
    assertThat(index(uid).index()).isNull();
    assertThat(liveCells(uid)).isEqualTo(60);
    assertThat(listAll(uid)).hasSize(60);
  }

  @Test
  void theJobChecksAUserAfterEnoughPersistedRecordsAndRollsItUp(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "50", "history.compact.keep", "10",
        "history.compact.check.every", "20"));
    Compactions compactions = new Compactions(compactor, config.compaction(), registry, Time.SYSTEM);
    closeables.add(compactions);
    HBaseHistorySink listening = new HBaseHistorySink(hbase.connection(), config,
        new JobMetrics(registry, Time.SYSTEM), compactions::persisted, Time.SYSTEM);
    compactions.start();
    long uid = 7300;
    AtomicLong oid = new AtomicLong();
    Runnable write30 = () -> {
      List<HistoryRecord> records = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        long n = oid.incrementAndGet();
        records.add(record(uid, Business.VIDEO, n, now - (1000 - n) * 60_000L));
      }
      listening.write(List.of(HistoryChange.newBuilder().setUid(uid).addAllUpserts(records).build()));
    };
    // 30 records: past check.every, so checked, but within the threshold.
    write30.run();
    await().atMost(Duration.ofSeconds(60)).until(() -> checks("not_needed") == 1);
    assertThat(index(uid).index()).isNull();
    // 30 more: checked again, 60 live cells, rolled up to the newest 10.
    write30.run();
    await().atMost(Duration.ofSeconds(60)).until(() -> checks("rolled_up") == 1);
    assertThat(liveCells(uid)).isEqualTo(10);
    assertThat(index(uid).index().getChunks(0).getNewestItem().getOid()).isEqualTo(50);
    assertThat(listAll(uid)).hasSize(60);
  }

  private double checks(String outcome) {
    return registry.find("playline.job.compact.checks").tag("outcome", outcome).counters().stream()
        .mapToDouble(c -> c.count()).sum();
  }

  @Test
  void countsStayBoundedAndKeepTheHeavyUsers(RedisNamespace redis, HBaseNamespace hbase) throws Exception {
    setUp(redis, hbase, Map.of("history.compact.check.every", "1000", "history.compact.tracked.users", "100"));
    Compactions compactions = new Compactions(compactor, config.compaction(), registry, Time.SYSTEM);
    compactions.persisted(1, 900);
    for (long uid = 2; uid < 1000; uid++) {
      compactions.persisted(uid, 1);
      assertThat(compactions.tracked()).isLessThanOrEqualTo(100);
    }
    // The heavy user kept its count: 100 more records reach the check (queued, not yet run: not started).
    compactions.persisted(1, 100);
    assertThat(compactions.tracked()).isLessThan(100);
    assertThat(registry.find("playline.job.compact.skipped").counter().count()).isZero();
  }

  // --- helpers ---

  private static final class StopAt implements HistoryCompactor.Hooks {
    private final String step;

    StopAt(String step) {
      this.step = step;
    }

    private void maybeStop(String at) {
      if (at.equals(step)) {
        throw new IllegalStateException("stopped " + at);
      }
    }

    @Override
    public void afterChunks(long uid) {
      maybeStop("afterChunks");
    }

    @Override
    public void afterIndex(long uid) {
      maybeStop("afterIndex");
    }

    @Override
    public void afterLiveDeletes(long uid) {
      maybeStop("afterLiveDeletes");
    }
  }

  /** Writes {@code n} records of {@code uid}: oids 1..n, the i-th viewed (i + 1) × spacing ago. */
  private List<HistoryRecord> history(long uid, int n, java.util.function.IntFunction<Business> business,
      long spacingMs) {
    List<HistoryRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      records.add(record(uid, business.apply(i), 1 + i, now - (i + 1) * spacingMs));
    }
    upsert(uid, records);
    return records;
  }

  private void upsert(long uid, List<HistoryRecord> records) {
    env.upsert(uid, records);
  }

  /** Every page of a cold user (its Redis keys removed first, so it is read from HBase and warmed). */
  private List<HistoryRecord> listAll(long uid) throws Exception {
    env.forgetRedis();
    List<HistoryRecord> all = new ArrayList<>();
    Cursor after = null;
    for (int pages = 0; pages < 2000; pages++) {
      HistoryPage page = join(service.list(uid, List.of(), after, 17));
      all.addAll(page.getRecordsList());
      if (!page.getHasMore()) {
        assertThat(members(all)).doesNotHaveDuplicates();
        return all;
      }
      after = page.getNext();
    }
    throw new AssertionError("more than 2000 pages");
  }

  private int liveCells(long uid) throws Exception {
    return countCells(config.table(), uid, false);
  }

  private int chunkRows(long uid) throws Exception {
    return countCells(HistoryChunks.table(config.table()), uid, true);
  }

  /** Cells of the user's history row, or rows of its chunks ({@code chunks}). */
  private int countCells(org.apache.hadoop.hbase.TableName table, long uid, boolean chunks) throws Exception {
    byte[] row = HistoryRowKeys.row(uid);
    byte[] start = chunks ? (new String(row, java.nio.charset.StandardCharsets.US_ASCII) + "/").getBytes() : row;
    byte[] stop = chunks ? (new String(row, java.nio.charset.StandardCharsets.US_ASCII) + "0").getBytes() : row;
    int n = 0;
    try (Table t = hbase.connection().getTable(table);
        ResultScanner scanner = t.getScanner(new Scan().withStartRow(start).withStopRow(stop, !chunks)
            .setFilter(new KeyOnlyFilter()))) {
      for (Result r = scanner.next(); r != null; r = scanner.next()) {
        n += chunks ? 1 : r.rawCells().length;
      }
    }
    return n;
  }

  private CompactedIndex index(long uid) throws Exception {
    try (Table t = hbase.connection().getTable(HistoryChunks.table(config.table()))) {
      return CompactedIndex.parse(t.get(new Get(HistoryRowKeys.row(uid))));
    }
  }

  private double counter(String name) {
    return env.counter(name);
  }

  private static HistoryRecord record(long uid, Business business, long oid, long viewTimeMs) {
    return HistoryRecord.newBuilder().setUid(uid).setBusiness(business).setOid(oid).setProgressMs(oid * 10)
        .setDurationMs(600_000).setViewTimeMs(viewTimeMs).setDeviceId("d1").setPlatform("web").build();
  }

  private static ItemKey key(HistoryRecord r) {
    return ItemKey.newBuilder().setBusiness(r.getBusiness()).setOid(r.getOid()).build();
  }

  private static String member(HistoryRecord r) {
    return r.getBusinessValue() + ":" + r.getOid();
  }

  /** The member of the i-th written item of the heavy user. */
  private static String member(int i) {
    return (i % 2 == 0 ? Business.VIDEO_VALUE : Business.ARTICLE_VALUE) + ":" + (1 + i);
  }

  private static List<String> members(List<HistoryRecord> records) {
    return records.stream().map(CompactionTest::member).toList();
  }

  private static <T> T join(java.util.concurrent.CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError(e);
    }
  }
}
