package io.playline.core.query;

import io.playline.core.config.HBaseLayout;
import io.playline.core.config.QueryConfig;
import io.playline.core.store.CompactedIndex;
import io.playline.core.store.HBaseClient;
import io.playline.core.store.HistoryChunks;
import io.playline.core.store.HistoryRowKeys;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.AdvancedScanResultConsumer;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.jspecify.annotations.Nullable;

/**
 * The HBase tier of the read path: the newest records of a user's history — live cells of the row
 * ({@link HistoryRowKeys} layout, cell timestamp = view time) merged with its compacted chunks
 * ({@link ChunkedHistory}) — and point lookups of live cells, through the non-blocking {@link AsyncTable}.
 * A row is streamed a page of cells per result, and only the newest {@code query.hbase.max.items}
 * are kept ({@link NewestCells}), so a heavy user's row never makes one RPC or the heap large.
 * The tables are built on the first read, which opens the {@link HBaseClient} if nothing has yet.
 *
 * <p>Thread-safe; never blocks; stages complete on HBase's RPC threads (the first ones on the
 * client's connect thread). Every call is bounded by {@code query.hbase.timeout}.
 */
final class HBaseTimeline {
  private static final int CELLS_PER_RESULT = 256;
  private static final int RESULTS_PER_RPC = 4;
  /** Reads again after a roll-up replaced the chunks a read was about to fetch. */
  static final int CHUNK_RETRIES = 2;
  /**
   * Reads one request may go on with after a read whose records were all dropped (a business filter
   * none of the read records matched): past that, the page ends empty at the read's end, with more.
   */
  private static final int HOPS = 8;

  private final int maxItems;
  private final byte[] family;
  private final HBaseClient.Derived<Tables> tables;
  private final QueryMetrics metrics;

  /** The live table and the chunks over it, as built from the open connection. */
  private record Tables(AsyncTable<AdvancedScanResultConsumer> live, ChunkedHistory chunks) {}

  HBaseTimeline(HBaseLayout layout, QueryConfig config, HBaseClient client, QueryMetrics metrics, LongSupplier clock) {
    this.maxItems = config.hbaseMaxItems();
    this.metrics = metrics;
    this.family = layout.familyBytes();
    long timeoutMs = config.hbaseTimeout().toMillis();
    this.tables = client.derive(connection -> {
      AsyncTable<AdvancedScanResultConsumer> live = connection.getTableBuilder(layout.table())
          .setOperationTimeout(timeoutMs, TimeUnit.MILLISECONDS)
          .setScanTimeout(timeoutMs, TimeUnit.MILLISECONDS)
          .setReadRpcTimeout(timeoutMs, TimeUnit.MILLISECONDS)
          .build();
      AsyncTable<AdvancedScanResultConsumer> chunkTable = connection.getTableBuilder(HistoryChunks.table(layout.table()))
          .setOperationTimeout(timeoutMs, TimeUnit.MILLISECONDS)
          .setReadRpcTimeout(timeoutMs, TimeUnit.MILLISECONDS)
          .build();
      return new Tables(live, new ChunkedHistory(layout, live, chunkTable, metrics, clock));
    });
  }

  /**
   * The newest records of {@code uid}'s history that come after {@code after} (null = from the
   * top), of {@code businesses} (empty = all), viewed at or after {@code oldestMs}: live cells and
   * compacted chunks merged ({@link ChunkedHistory}), at most {@code want} (and at most {@code
   * query.hbase.max.items}).
   */
  CompletionStage<HBaseSlice> newest(long uid, @Nullable TimelinePosition after, Set<Integer> businesses,
      long oldestMs, int want) {
    int bounded = Math.max(1, Math.min(want, maxItems));
    return tables.get().thenCompose(t -> newest(t, uid, after, businesses, oldestMs, bounded, CHUNK_RETRIES, HOPS));
  }

  private CompletionStage<HBaseSlice> newest(Tables t, long uid, @Nullable TimelinePosition after,
      Set<Integer> businesses, long oldestMs, int want, int retries, int hops) {
    // The index only after the live scan: a live cell a roll-up deleted is then in the index read.
    return live(t.live(), uid, after, businesses, oldestMs, want)
        .thenCompose(l -> t.chunks().index(uid).thenApply(i -> new ChunkedHistory.Read(uid, after, businesses,
            oldestMs, l, i)))
        .thenCompose(read -> t.chunks().merge(read, want, retries > 0, new ChunkedHistory.Continuation() {
          @Override
          public CompletionStage<HBaseSlice> reread() {
            // A roll-up replaced the version between the index read and the chunk reads.
            return newest(t, uid, after, businesses, oldestMs, want, retries - 1, hops);
          }

          @Override
          public CompletionStage<HBaseSlice> after(TimelinePosition position) {
            // Everything down to position was read and dropped by a rule: go on after it, a few times.
            return hops == 0
                ? CompletableFuture.completedFuture(new HBaseSlice(List.of(), position))
                : newest(t, uid, position, businesses, oldestMs, want, retries, hops - 1);
          }
        }));
  }

  /** The newest live cells of the row after {@code after}. */
  private CompletionStage<HBaseSlice> live(AsyncTable<AdvancedScanResultConsumer> table, long uid,
      @Nullable TimelinePosition after, Set<Integer> businesses, long oldestMs, int want) {
    long upperMs = after == null || after.viewTimeMs() == Long.MAX_VALUE ? Long.MAX_VALUE : after.viewTimeMs() + 1;
    if (oldestMs >= upperMs) {
      return CompletableFuture.completedFuture(HBaseSlice.EMPTY);
    }
    byte[] row = HistoryRowKeys.row(uid);
    Scan scan = new Scan()
        .withStartRow(row)
        .withStopRow(row, true)
        .addFamily(family)
        .setBatch(CELLS_PER_RESULT)
        .setCaching(RESULTS_PER_RPC);
    if (!businesses.isEmpty()) {
      scan.setFilter(new QualifierFilter(CompareOperator.EQUAL,
          new RegexStringComparator(HistoryRowKeys.qualifierPattern(businesses))));
    }
    try {
      scan.setTimeRange(Math.max(0, oldestMs), upperMs);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    NewestCells consumer = new NewestCells(want, after, metrics);
    table.scan(scan, consumer);
    return consumer.result;
  }

  /** The cells of {@code members} in {@code uid}'s row viewed at or after {@code oldestMs}, in no order. */
  CompletionStage<List<TimelineEntry>> items(long uid, List<String> members, long oldestMs) {
    Get get = new Get(HistoryRowKeys.row(uid));
    for (String member : members) {
      get.addColumn(family, HistoryRowKeys.qualifier(TimelinePosition.business(member), TimelinePosition.oid(member)));
    }
    try {
      get.readVersions(1).setTimeRange(Math.max(0, oldestMs), Long.MAX_VALUE);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    return tables.get().thenCompose(t -> t.live().get(get)).thenApply(HBaseTimeline::entries);
  }

  private static List<TimelineEntry> entries(Result result) {
    List<TimelineEntry> entries = new ArrayList<>();
    if (result.isEmpty()) {
      return entries;
    }
    for (Cell cell : result.rawCells()) {
      String member = NewestCells.member(cell);
      if (member != null) {
        entries.add(new TimelineEntry(member, cell.getTimestamp(), CellUtil.cloneValue(cell)));
      }
    }
    return entries;
  }
}
