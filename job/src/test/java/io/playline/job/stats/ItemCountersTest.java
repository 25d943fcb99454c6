package io.playline.job.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.config.ConfigSource;
import io.playline.core.config.HBaseLayout;
import io.playline.core.stats.ItemStatsLayout;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ItemStats;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The item counters on a real HBase: once per user, whatever replays, duplicates, reorders and crashes do. */
@ExtendWith(RealHBaseExtension.class)
class ItemCountersTest {
  private static final ItemKey ITEM = ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(777).build();
  private static final ItemKey OTHER = ItemKey.newBuilder().setBusiness(Business.ARTICLE).setOid(777).build();
  private final long base = System.currentTimeMillis() - 3_600_000;
  private final AtomicLong clock = new AtomicLong(System.currentTimeMillis());
  private HBaseNamespace ns;
  private HBaseLayout layout;
  private ItemCounters counters;

  @BeforeEach
  void setUp(HBaseNamespace ns) throws IOException {
    this.ns = ns;
    layout = HBaseLayout.from(ConfigSource.empty().with(Map.of("hbase.table", ns.table("history").getNameAsString(),
        "history.retention", "30d", "history.retention.live", "7d")));
    counters = new ItemCounters(ns.connection(), layout, 95, Duration.ofSeconds(30), clock::get);
    counters.prepare();
    counters.prepare(); // a second job process preparing is harmless
  }

  @Test
  void eachUserCountsOnceAsViewerAndOnceAsFinisher() throws IOException {
    List<ItemCounters.Input> poll = List.of(
        in(0, 10, 1, ITEM, 5_000, 100_000, base + 1),
        in(0, 10, 2, ITEM, -1, 100_000, base + 2),        // finished: progress -1
        in(0, 11, 3, ITEM, 95_000, 100_000, base + 3),    // finished: 95 % of the duration
        in(0, 11, 4, ITEM, 94_999, 100_000, base + 4),    // not quite
        in(0, 12, 5, ITEM, 50_000, 0, base + 5),          // unknown duration: never finished by share
        in(0, 12, 1, OTHER, 1_000, 2_000, base + 6));
    ItemCounters.Applied applied = counters.apply(poll);
    assertThat(applied.viewers()).isEqualTo(6);
    assertThat(applied.finishes()).isEqualTo(2);
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 5, 2, base + 5));
    assertThat(stats(OTHER)).isEqualTo(stats(OTHER, 1, 0, base + 6));

    // The same users again, later: user 4 now finishes, user 1 watches more; nobody new.
    counters.apply(List.of(
        in(0, 13, 4, ITEM, -1, 100_000, base + 10),
        in(0, 13, 1, ITEM, 80_000, 100_000, base + 11),
        in(0, 14, 2, ITEM, -1, 100_000, base + 12)));     // finished again: already counted
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 5, 3, base + 12));
  }

  @Test
  void replayedDuplicatedAndReorderedRecordsNeverCountTwice() throws IOException {
    List<ItemCounters.Input> poll = new ArrayList<>();
    for (int u = 1; u <= 40; u++) {
      poll.add(in(u % 3, 100 + u, u, ITEM, u % 4 == 0 ? -1 : 1_000, 100_000, base + u));
      poll.add(in(u % 3, 100 + u, u, ITEM, 2_000, 100_000, base + u - 1)); // the same user again, older
    }
    counters.apply(poll);
    ItemStats once = stats(ITEM);
    assertThat(once).isEqualTo(stats(ITEM, 40, 10, base + 40));

    // Replays: the whole poll (handed over in another order), a part of it, with and without the flags written.
    Collections.shuffle(poll, new Random(7));
    assertThat(counters.apply(poll).viewers()).isZero();
    assertThat(counters.apply(poll.subList(0, 17)).viewers()).isZero();
    deleteFlags(); // as if the job died after the counters and before the flags
    counters.apply(poll);
    assertThat(stats(ITEM)).isEqualTo(once);

    // New offsets for new users still count, in the same call as replayed ones.
    List<ItemCounters.Input> next = new ArrayList<>(poll);
    next.add(in(1, 500, 41, ITEM, -1, 100_000, base + 100));
    deleteFlags();
    counters.apply(next);
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 41, 11, base + 100));
  }

  @Test
  void aCrashBetweenTheCountersAndTheFlagsCountsTheReplayOnce() throws IOException {
    List<ItemCounters.Input> poll = List.of(in(2, 7, 9, ITEM, -1, 100_000, base + 1), in(2, 8, 10, ITEM, 10, 100, base + 2));
    counters.hooks(() -> { }, () -> {
      throw new IllegalStateException("killed before the flags");
    });
    assertThatThrownBy(() -> counters.apply(poll)).hasMessage("killed before the flags");
    counters.hooks(() -> { }, () -> { });
    assertThat(counters.apply(poll).viewers()).isZero();
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 2, 1, base + 2));
    // The flags were written by the replay: later records of the same users count nothing.
    assertThat(counters.apply(List.of(in(2, 9, 9, ITEM, -1, 100_000, base + 3))).finishes()).isZero();
  }

  @Test
  void aWriterThatReadStaleFlagsCannotTakeAFinishAway() throws IOException {
    // X (which lost the partition) read U's flags before Y counted U's view and finish, then writes its own.
    ItemCounters y = new ItemCounters(ns.connection(), layout, 95, Duration.ofSeconds(30), clock::get);
    List<ItemCounters.Input> both = List.of(in(0, 11, 1, ITEM, 10, 100_000, base + 1), in(0, 15, 1, ITEM, -1, 100_000, base + 2));
    counters.hooks(() -> y.apply(both), () -> { });
    counters.apply(List.of(in(0, 11, 1, ITEM, 10, 100_000, base + 1)));
    counters.hooks(() -> { }, () -> { });
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 1, 1, base + 2));

    // U finishes again later: already counted.
    counters.apply(List.of(in(0, 20, 1, ITEM, -1, 100_000, base + 3)));
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 1, 1, base + 3));
  }

  @Test
  void aRecreatedTopicsOffsetsStartOverInCellsOfTheirOwn() throws IOException {
    counters.apply(List.of(in(0, 500, 1, ITEM, -1, 100, base), in(0, 501, 2, ITEM, 10, 100, base + 1)));
    // The topic was recreated (a new id): offsets from 0 again, for users old and new.
    ItemCounters.Applied applied = counters.apply(List.of(
        new ItemCounters.Input(ItemStatsLayout.stream("topic2", 0), 3, 3, record(3, ITEM, -1, base + 2)),
        new ItemCounters.Input(ItemStatsLayout.stream("topic2", 0), 4, 1, record(1, ITEM, -1, base + 3))));
    assertThat(applied.viewers()).isEqualTo(1);
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 3, 2, base + 3));
  }

  @Test
  void recordsTheHistoryRefusesAreNotCounted() throws IOException {
    ItemKey unknown = ItemKey.newBuilder().setBusinessValue(99).setOid(3).build();
    ItemCounters.Applied applied = counters.apply(List.of(in(0, 1, 0, ITEM, 10, 100, base), in(0, 2, 1, unknown, 10, 100, base),
        in(0, 3, 1, ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(0).build(), 10, 100, base)));
    assertThat(applied.viewers()).isZero();
    assertThat(stats(ITEM).getViewers()).isZero();
  }

  @Test
  void twoWritersOfOnePartitionCountEachRecordOnce() throws Exception {
    // A consumer that lost the partition in a rebalance still finishing its poll beside the new owner
    // (whether the two interleave is up to the scheduler; the stale-flags test above forces it).
    ItemCounters other = new ItemCounters(ns.connection(), layout, 95, Duration.ofSeconds(30), clock::get);
    List<ItemCounters.Input> poll = new ArrayList<>();
    for (int u = 1; u <= 200; u++) {
      poll.add(in(0, u, u, ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1000 + u % 7).build(),
          u % 2 == 0 ? -1 : 10, 100, base + u));
    }
    CompletableFuture<ItemCounters.Applied> a = CompletableFuture.supplyAsync(() -> counters.apply(poll));
    CompletableFuture<ItemCounters.Applied> b = CompletableFuture.supplyAsync(() -> other.apply(poll));
    long viewers = a.get(60, TimeUnit.SECONDS).viewers() + b.get(60, TimeUnit.SECONDS).viewers();
    assertThat(viewers).isEqualTo(200);
    long total = 0;
    long finishes = 0;
    for (int oid = 1000; oid < 1007; oid++) {
      ItemStats s = stats(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(oid).build());
      total += s.getViewers();
      finishes += s.getFinishes();
    }
    assertThat(total).isEqualTo(200);
    assertThat(finishes).isEqualTo(100);
  }

  @Test
  void aUserCountsAgainOnceTheFlagOutlivedItsBusinessRetention() throws IOException {
    ItemKey live = ItemKey.newBuilder().setBusiness(Business.LIVE).setOid(5).build();
    long now = clock.get();
    // Flags written 8 days ago: live keeps history (and flags) 7 days, video 30.
    clock.set(now - 8 * 86_400_000L);
    counters.apply(List.of(in(0, 1, 1, live, 10, 0, base), in(0, 1, 1, ITEM, 10, 0, base)));
    clock.set(now);
    counters.apply(List.of(in(0, 2, 1, live, 20, 0, base + 1), in(0, 2, 1, ITEM, 20, 0, base + 1)));
    assertThat(stats(live).getViewers()).as("the live flag expired: counted again").isEqualTo(2);
    assertThat(stats(ITEM).getViewers()).as("the video flag is kept 30 days").isEqualTo(1);
  }

  @Test
  void flagsOfUsersWhoKeepWatchingAreRefreshedNotRewrittenEveryTime() throws IOException {
    long now = clock.get();
    counters.apply(List.of(in(0, 1, 1, ITEM, 10, 0, base)));
    assertThat(flagWrittenAt(1)).isEqualTo(now);
    clock.set(now + 3_600_000); // an hour later: well inside a tenth of 30 days
    counters.apply(List.of(in(0, 2, 1, ITEM, 20, 0, base + 1)));
    assertThat(flagWrittenAt(1)).isEqualTo(now);
    clock.set(now + 4 * 86_400_000L); // past a tenth: written again, so it lives 30 days from here
    counters.apply(List.of(in(0, 3, 1, ITEM, 30, 0, base + 2)));
    assertThat(flagWrittenAt(1)).isEqualTo(now + 4 * 86_400_000L);
    assertThat(stats(ITEM).getViewers()).isEqualTo(1);
  }

  private long flagWrittenAt(long uid) throws IOException {
    try (Table marks = ns.connection().getTable(ItemStatsLayout.of(layout).marks())) {
      return marks.get(new Get(io.playline.core.store.HistoryRowKeys.row(uid)).addColumn(ItemStatsLayout.MARKS_FAMILY,
          ItemStatsLayout.flag(ITEM, ItemStatsLayout.VIEWED))).rawCells()[0].getTimestamp();
    }
  }

  @Test
  void pollsThatAddNobodyWriteOnlyWhenTheLastViewMovesByTheGranularity() throws IOException {
    counters.lastViewGranularity(Duration.ofMinutes(5));
    long minute = Duration.ofMinutes(1).toMillis();
    ItemCounters.Applied first = counters.apply(List.of(in(0, 1, 1, ITEM, 1_000, 100_000, base)));
    assertThat(first.skipped()).isZero();
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 1, 0, base));

    // The same viewer a minute later, twice: nobody new, the last view moved less than 5 min: not written.
    assertThat(counters.apply(List.of(in(0, 2, 1, ITEM, 2_000, 100_000, base + minute))).skipped()).isEqualTo(1);
    assertThat(counters.apply(List.of(in(0, 3, 1, ITEM, 3_000, 100_000, base + 2 * minute))).skipped()).isEqualTo(1);
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 1, 0, base));
    // A new viewer is written at once, with the newest view.
    assertThat(counters.apply(List.of(in(0, 4, 2, ITEM, 1_000, 100_000, base + 3 * minute))).skipped()).isZero();
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 2, 0, base + 3 * minute));
    // A finisher too; and the last view once it moved 5 min past what is stored.
    assertThat(counters.apply(List.of(in(0, 5, 1, ITEM, -1, 100_000, base + 4 * minute))).skipped()).isZero();
    assertThat(counters.apply(List.of(in(0, 6, 2, ITEM, 5_000, 100_000, base + 8 * minute))).skipped()).isEqualTo(1);
    assertThat(counters.apply(List.of(in(0, 7, 2, ITEM, 6_000, 100_000, base + 9 * minute))).skipped()).isZero();
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 2, 1, base + 9 * minute));
    // Replays of the skipped records, flags gone or not, count nobody twice.
    deleteFlags();
    counters.apply(List.of(in(0, 2, 1, ITEM, 2_000, 100_000, base + minute),
        in(0, 6, 2, ITEM, 5_000, 100_000, base + 8 * minute)));
    assertThat(stats(ITEM)).isEqualTo(stats(ITEM, 2, 1, base + 9 * minute));
  }

  private void deleteFlags() throws IOException {
    try (Table marks = ns.connection().getTable(ItemStatsLayout.of(layout).marks())) {
      List<Delete> deletes = new ArrayList<>();
      for (long uid = 1; uid <= 41; uid++) {
        deletes.add(new Delete(io.playline.core.store.HistoryRowKeys.row(uid)));
      }
      marks.delete(deletes);
    }
  }

  private ItemStats stats(ItemKey item) throws IOException {
    try (Table table = ns.connection().getTable(ItemStatsLayout.of(layout).stats())) {
      return ItemStatsLayout.sum(item, table.get(new Get(ItemStatsLayout.row(item))));
    }
  }

  private static ItemStats stats(ItemKey item, long viewers, long finishes, long last) {
    return ItemStats.newBuilder().setItem(item).setViewers(viewers).setFinishes(finishes).setLastViewTimeMs(last)
        .build();
  }

  private static HistoryRecord record(long uid, ItemKey item, long progress, long viewTime) {
    return HistoryRecord.newBuilder().setUid(uid).setBusinessValue(item.getBusinessValue()).setOid(item.getOid())
        .setProgressMs(progress).setDurationMs(100).setViewTimeMs(viewTime).build();
  }

  private static ItemCounters.Input in(int partition, long offset, long uid, ItemKey item, long progress,
      long duration, long viewTime) {
    return new ItemCounters.Input(ItemStatsLayout.stream("topic1", partition), offset, uid, HistoryRecord.newBuilder().setUid(uid)
        .setBusinessValue(item.getBusinessValue()).setOid(item.getOid()).setProgressMs(progress).setDurationMs(duration)
        .setViewTimeMs(viewTime).build());
  }
}
