package io.playline.core.query;

import io.playline.core.store.HistoryRowKeys;
import io.playline.proto.v1.ItemKey;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.AdvancedScanResultConsumer;
import org.apache.hadoop.hbase.client.Result;
import org.jspecify.annotations.Nullable;

/**
 * Consumes the scan of one user's HBase row, keeping only the {@code max} newest cells (by the
 * timeline order, cell timestamp = view time) that come after a position, so memory stays bounded
 * however wide the row is. Cells whose qualifier names no known item are skipped.
 *
 * <p>HBase calls it on its RPC threads, one call at a time; {@link #result} completes there.
 */
final class NewestCells implements AdvancedScanResultConsumer {
  final CompletableFuture<HBaseSlice> result = new CompletableFuture<>();

  private final int max;
  private final @Nullable TimelinePosition after;
  // Head = the oldest kept entry, the first to give way to a newer one.
  private final PriorityQueue<TimelineEntry> heap = new PriorityQueue<>(TimelineEntry.NEWEST_FIRST.reversed());
  private boolean truncated;
  private final QueryMetrics metrics;

  NewestCells(int max, @Nullable TimelinePosition after, QueryMetrics metrics) {
    this.metrics = metrics;
    this.max = max;
    this.after = after;
  }

  @Override
  public void onNext(Result[] results, ScanController controller) {
    long bytes = 0;
    for (Result r : results) {
      if (r.isEmpty()) {
        continue;
      }
      for (Cell cell : r.rawCells()) {
        bytes += QueryMetrics.bytes(cell);
        offer(cell);
      }
    }
    metrics.hbaseBytes(bytes);
  }

  private void offer(Cell cell) {
    String member = member(cell);
    long timeMs = cell.getTimestamp();
    if (member == null || (after != null && !after.precedes(timeMs, member))) {
      return;
    }
    if (heap.size() >= max) {
      truncated = true;
      TimelineEntry oldest = heap.peek();
      if (TimelinePosition.compare(timeMs, member, oldest.viewTimeMs(), oldest.member()) >= 0) {
        return;
      }
      heap.poll();
    }
    heap.add(new TimelineEntry(member, timeMs, CellUtil.cloneValue(cell)));
  }

  /** The Redis member of a cell's item; null when the qualifier is not an item of a known business. */
  static @Nullable String member(Cell cell) {
    try {
      ItemKey item = HistoryRowKeys.item(CellUtil.cloneQualifier(cell));
      return TimelinePosition.known(item.getBusinessValue()) && item.getOid() > 0
          ? TimelinePosition.member(item.getBusinessValue(), item.getOid())
          : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  @Override
  public void onError(Throwable error) {
    result.completeExceptionally(error);
  }

  @Override
  public void onComplete() {
    List<TimelineEntry> newestFirst = new ArrayList<>(heap);
    newestFirst.sort(TimelineEntry.NEWEST_FIRST);
    result.complete(new HBaseSlice(newestFirst,
        truncated ? newestFirst.get(newestFirst.size() - 1).position() : null));
  }
}
