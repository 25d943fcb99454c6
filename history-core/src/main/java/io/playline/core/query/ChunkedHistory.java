package io.playline.core.query;

import io.playline.core.config.HBaseLayout;
import io.playline.core.store.CompactedIndex;
import io.playline.core.store.HistoryChunks;
import io.playline.core.store.HistoryRowKeys;
import io.playline.proto.v1.ChunkRef;
import io.playline.proto.v1.ItemKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.AdvancedScanResultConsumer;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.Get;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges a user's compacted chunks ({@link HistoryChunks}) into a read of the live cells, so a page
 * past Redis reads only the chunks it needs, in one parallel multi-get, whatever the history's size:
 *
 * <ul>
 *   <li>chunks are picked from the index, newest first: only those with records after the cursor,
 *       viewed within retention, and newer than the live read's boundary, until their records can
 *       fill a read ({@code query.hbase.max.items}); the oldest position of the last chunk read
 *       bounds the read when more chunks follow;
 *   <li>a chunked record is dropped when a tombstone of the index row covers it (a delete or clear
 *       the next roll-up has not folded yet) or when the item has a live cell at least as new (a
 *       newer write, or a roll-up that stopped before deleting the live cells it moved);
 *   <li>a chunk the index names but HBase lacks (a roll-up replaced the version between the index
 *       read and the chunk read) makes the read start over with the new index.
 * </ul>
 *
 * <p>Thread-safe; never blocks; stages complete on HBase's RPC threads.
 */
final class ChunkedHistory {
  private static final Logger log = LoggerFactory.getLogger(ChunkedHistory.class);

  /** A live read and the index row read beside it, for one user after one position. */
  record Read(long uid, @Nullable TimelinePosition after, Set<Integer> businesses, long oldestMs, HBaseSlice live,
      CompactedIndex index) {}

  /** How a merge goes on when it cannot finish from what it read. */
  interface Continuation {
    /** Reads the index and the live cells again. */
    CompletionStage<HBaseSlice> reread();

    /** Reads on after {@code position}, everything before it having been read and dropped. */
    CompletionStage<HBaseSlice> after(TimelinePosition position);
  }

  private final HBaseLayout layout;
  private final byte[] family;
  private final AsyncTable<AdvancedScanResultConsumer> live;
  private final AsyncTable<AdvancedScanResultConsumer> chunks;
  private final QueryMetrics metrics;
  private final LongSupplier clock;

  ChunkedHistory(HBaseLayout layout, AsyncTable<AdvancedScanResultConsumer> live,
      AsyncTable<AdvancedScanResultConsumer> chunks, QueryMetrics metrics, LongSupplier clock) {
    this.layout = layout;
    this.family = layout.familyBytes();
    this.live = live;
    this.chunks = chunks;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** The user's index row; {@link CompactedIndex#NONE} when there is none (or no chunks table yet). */
  CompletionStage<CompactedIndex> index(long uid) {
    return chunks.get(new Get(HistoryRowKeys.row(uid)).addFamily(family))
        .handle((row, error) -> {
          if (error == null) {
            for (Cell cell : row.rawCells()) {
              metrics.hbaseBytes(QueryMetrics.bytes(cell));
            }
            return CompactedIndex.parse(row);
          }
          Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
          if (cause instanceof TableNotFoundException) {
            // No job has created the chunks table yet, so no user has chunks.
            return CompactedIndex.NONE;
          }
          throw error instanceof CompletionException c ? c : new CompletionException(error);
        });
  }

  /** {@code read}'s live cells merged with the chunks it needs, at most {@code maxItems} entries. */
  CompletionStage<HBaseSlice> merge(Read read, int maxItems, boolean mayReread, Continuation next) {
    List<ChunkRef> refs = read.index().chunks();
    if (refs.isEmpty()) {
      return CompletableFuture.completedFuture(read.live());
    }
    TimelinePosition liveBoundary = read.live().boundary();
    List<TimelineEntry> liveEntries = read.live().entries();
    // A chunk wholly after the last of a full live read cannot make the cut either.
    TimelinePosition liveEnd = liveBoundary != null || liveEntries.size() < maxItems ? liveBoundary
        : liveEntries.get(liveEntries.size() - 1).position();
    int mask = 0;
    for (int business : read.businesses()) {
      mask |= HistoryChunks.businessBit(business);
    }
    List<Integer> picked = new ArrayList<>();
    boolean moreChunks = false;
    int records = 0;
    for (int i = 0; i < refs.size(); i++) {
      ChunkRef ref = refs.get(i);
      if (!HistoryChunks.mayHold(ref, mask)) {
        continue; // none of the requested businesses in it
      }
      if (read.after() != null && !read.after().precedes(ref.getOldestTimeMs(), member(ref.getOldestItem()))) {
        continue; // every record of it is at or before the cursor
      }
      if (ref.getNewestTimeMs() < read.oldestMs()
          || (liveEnd != null && liveEnd.precedes(ref.getNewestTimeMs(), member(ref.getNewestItem())))) {
        break; // this chunk and every older one are past retention, or past what the live read covered
      }
      if (records >= maxItems) {
        moreChunks = true;
        break;
      }
      picked.add(i);
      records += countAfter(ref, read.after());
    }
    if (picked.isEmpty()) {
      return CompletableFuture.completedFuture(read.live());
    }
    List<Get> gets = new ArrayList<>(picked.size());
    long rollupId = read.index().index().getRollupId();
    for (int i : picked) {
      gets.add(new Get(HistoryChunks.chunkRow(read.uid(), refs.get(i))).addColumn(family, HistoryChunks.CHUNK));
    }
    metrics.chunksRead(gets.size());
    ChunkRef last = refs.get(picked.get(picked.size() - 1));
    TimelinePosition chunkBoundary = moreChunks
        ? new TimelinePosition(last.getOldestTimeMs(), member(last.getOldestItem()))
        : null;
    return chunks.getAll(gets).thenCompose(results -> {
      List<TimelineEntry> fromChunks = new ArrayList<>();
      for (int n = 0; n < results.size(); n++) {
        byte[] cell = results.get(n).getValue(family, HistoryChunks.CHUNK);
        ChunkRef ref = refs.get(picked.get(n));
        if (cell == null) {
          if (ref.getNewestTimeMs() < clock.getAsLong() - layout.maxRetention().toMillis()) {
            continue; // expired by the TTL
          }
          if (mayReread) {
            return next.reread();
          }
          metrics.chunkMissing();
          log.error("Chunk {} of version {} of uid {} is missing; its {} records are skipped", picked.get(n),
              read.index().index().getVersion(), read.uid(), ref.getCount());
          continue;
        }
        metrics.hbaseBytes(cell.length);
        collect(read, HistoryChunks.records(cell), maxItems + 1, fromChunks);
      }
      return withoutLiveCopies(read, fromChunks, earlier(liveBoundary, chunkBoundary), maxItems, mayReread, rollupId,
          next);
    });
  }

  /**
   * About how many of the chunk's records come after {@code after}: all of them unless the cursor
   * falls inside the chunk, then the share of its view-time span past the cursor (the records are
   * not read yet). Counting such a chunk whole would end the page at the chunk's end, perhaps a
   * record or two after the cursor. The estimate assumes the records spread over the span: a burst
   * of them just before the cursor makes it too high and the page shorter (never a gap); too low
   * only reads one chunk more.
   */
  private static int countAfter(ChunkRef ref, @Nullable TimelinePosition after) {
    if (after == null || after.precedes(ref.getNewestTimeMs(), member(ref.getNewestItem()))) {
      return ref.getCount();
    }
    long span = ref.getNewestTimeMs() - ref.getOldestTimeMs();
    if (span <= 0) {
      return ref.getCount();
    }
    double share = (double) (after.viewTimeMs() - ref.getOldestTimeMs()) / span;
    return (int) Math.max(0, Math.min(ref.getCount(), Math.floor(ref.getCount() * share)));
  }

  /**
   * The newest {@code max} of the chunk's records that the read may see, as entries (one more than
   * a read keeps, so a chunk cut short here always moves the read's end up to what was kept). Records
   * newer than the cursor and those after the {@code max} are skipped unparsed.
   */
  private static void collect(Read read, HistoryChunks.Records records, int max, List<TimelineEntry> into) {
    TimelinePosition after = read.after();
    int taken = 0;
    while (taken < max && records.next()) {
      int business = records.business();
      long oid = records.oid();
      long timeMs = records.viewTimeMs();
      if (after != null && timeMs > after.viewTimeMs()) {
        continue; // newer than the cursor: listed on an earlier page
      }
      if (!TimelinePosition.known(business) || oid <= 0 || timeMs < read.oldestMs()
          || (!read.businesses().isEmpty() && !read.businesses().contains(business))
          || read.index().covers(business, oid, timeMs)) {
        continue;
      }
      String member = TimelinePosition.member(business, oid);
      if (after == null || after.precedes(timeMs, member)) {
        into.add(new TimelineEntry(member, timeMs, records.bytes()));
        taken++;
      }
    }
  }

  /**
   * Live and chunked entries merged down to {@code boundary} and cut at {@code maxItems}, less the
   * chunked records whose item has a live cell at least as new: in the live read, or in one get of
   * those cells. A roll-up may delete live cells it moved right after the live read; the get then
   * misses them, so the index is read once more after it: unchanged, no roll-up reached its live
   * deletes before the get; changed, the read starts over.
   */
  private CompletionStage<HBaseSlice> withoutLiveCopies(Read read, List<TimelineEntry> fromChunks,
      @Nullable TimelinePosition boundary, int maxItems, boolean mayReread, long rollupId, Continuation next) {
    List<TimelineEntry> merged = new ArrayList<>(read.live().entries().size() + fromChunks.size());
    merged.addAll(read.live().entries());
    Set<TimelineEntry> chunked = Collections.newSetFromMap(new IdentityHashMap<>());
    chunked.addAll(fromChunks);
    merged.addAll(fromChunks);
    merged.sort(TimelineEntry.NEWEST_FIRST);
    int covered = 0;
    while (covered < merged.size() && covered < maxItems
        && (boundary == null || !merged.get(covered).after(boundary))) {
      covered++;
    }
    TimelinePosition end = boundary;
    if (covered < merged.size() && covered == maxItems) {
      end = merged.get(covered - 1).position();
    }
    List<TimelineEntry> kept = merged.subList(0, covered);
    Map<String, TimelineEntry> toCheck = new HashMap<>();
    for (TimelineEntry e : kept) {
      if (chunked.contains(e)) {
        toCheck.put(e.member(), e);
      }
    }
    TimelinePosition finalEnd = end;
    if (toCheck.isEmpty()) {
      return finish(kept, finalEnd, next);
    }
    Get get = new Get(HistoryRowKeys.row(read.uid()));
    for (String member : toCheck.keySet()) {
      get.addColumn(family, HistoryRowKeys.qualifier(TimelinePosition.business(member), TimelinePosition.oid(member)));
    }
    Map<String, Long> liveTimes = new HashMap<>();
    read.live().entries().forEach(e -> liveTimes.put(e.member(), e.viewTimeMs()));
    return live.get(get).thenCompose(row -> index(read.uid()).thenCompose(now -> {
      if (now.index() == null || now.index().getRollupId() != rollupId) {
        if (mayReread) {
          return next.reread();
        }
        metrics.chunkMissing();
        log.warn("The chunks of uid {} changed during a read {} times in a row; serving what was read", read.uid(),
            HBaseTimeline.CHUNK_RETRIES + 1);
      }
      Set<TimelineEntry> shadowed = Collections.newSetFromMap(new IdentityHashMap<>());
      for (TimelineEntry e : toCheck.values()) {
        Long t = liveTimes.get(e.member());
        if (t != null && t >= e.viewTimeMs()) {
          shadowed.add(e);
        }
      }
      if (!row.isEmpty()) {
        for (Cell cell : row.rawCells()) {
          metrics.hbaseBytes(QueryMetrics.bytes(cell));
          String member = NewestCells.member(cell);
          TimelineEntry chunkedEntry = member == null ? null : toCheck.get(member);
          if (chunkedEntry != null && cell.getTimestamp() >= chunkedEntry.viewTimeMs()) {
            shadowed.add(chunkedEntry);
          }
        }
      }
      List<TimelineEntry> result = new ArrayList<>(kept.size());
      for (TimelineEntry e : kept) {
        if (!shadowed.contains(e)) {
          result.add(e);
        }
      }
      return finish(result, finalEnd, next);
    }));
  }

  private static CompletionStage<HBaseSlice> finish(List<TimelineEntry> entries, @Nullable TimelinePosition end,
      Continuation next) {
    if (entries.isEmpty() && end != null) {
      return next.after(end);
    }
    return CompletableFuture.completedFuture(new HBaseSlice(entries, end));
  }

  /** The boundary that comes first in the timeline (the newer one); null when both are. */
  private static @Nullable TimelinePosition earlier(@Nullable TimelinePosition a, @Nullable TimelinePosition b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return a.precedes(b.viewTimeMs(), b.member()) ? a : b;
  }

  private static String member(ItemKey item) {
    return TimelinePosition.member(item.getBusinessValue(), item.getOid());
  }
}
