package io.playline.core.compact;

import io.playline.core.config.HBaseLayout;
import io.playline.core.store.CompactedIndex;
import io.playline.core.store.HistoryChunks;
import io.playline.core.store.HistoryRowKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ChunkIndex;
import io.playline.proto.v1.ChunkRef;
import io.playline.proto.v1.HistoryChunk;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rolls one user's older history up into compressed chunks ({@link HistoryChunks}), Netflix-style:
 * the user's live cells and current chunks are merged (last write wins by view time), records a
 * tombstone of the index row covers or that are past their business's retention are dropped, the
 * newest {@code keep} live records stay live, and every other record goes, sorted newest first,
 * into chunks of at most {@code chunkBytes} under a new version. A chunk that lost no record and
 * into whose range no record moved is kept as it is (its row too); only the records between kept
 * chunks are written anew, so a roll-up writes what changed, though it reads the whole history.
 * This class reads (the index row, the live cells, the current chunks) and writes; what changes is
 * decided in between by {@link RollupPlan}, which touches no store.
 *
 * <p><b>Order of writes</b>, so that a crash at any step leaves a readable history with nothing
 * lost or shown twice:
 *
 * <ol>
 *   <li>the new version's new chunk rows (named by a fresh random roll-up id: unreferenced until
 *       step 2, and left to the TTL if the roll-up dies here);
 *   <li>the index, by a check-and-mutate on the index cell this roll-up read, so of two racing
 *       roll-ups one wins and the other removes its new chunk rows (a failed check is read back: a
 *       retried check-and-mutate fails against its own first attempt); from here readers use the new
 *       version, and an item that is still live as well is served from its live cell (readers drop
 *       a chunked record whose item has a live cell at least as new);
 *   <li>delete markers on the moved live cells, each up to the moved view time, so a newer write
 *       that arrived meanwhile stays and a replay of an older one stays hidden;
 *   <li>the tombstones the new version folded in (exactly the versions read: a newer delete stays);
 *   <li>the chunks the replaced version had retired: deleted now, one roll-up late, because a
 *       reader that read the replaced index a moment ago may still fetch them.
 * </ol>
 *
 * <p>Thread-safe (no state besides the connection); blocks on HBase, each call bounded by the
 * configured timeout. Run it off any event loop.
 */
public final class HistoryCompactor {
  private static final Logger log = LoggerFactory.getLogger(HistoryCompactor.class);
  private static final int SCAN_BATCH = 1000;

  /** What a roll-up did. */
  public enum Outcome {
    /** The user's live cells are within the threshold (or nothing would change). */
    NOT_NEEDED,
    /** A new version was written. */
    ROLLED_UP,
    /** Another roll-up of the same user wrote its version first; this one removed its chunks. */
    CONFLICT,
    /** The user has more records than a roll-up may hold ({@code history.compact.max.records}): left as it is. */
    TOO_LARGE
  }

  /**
   * The result of one {@link #compact}.
   *
   * @param live live cells found
   * @param moved live records moved into chunks
   * @param dropped records dropped (covered by a tombstone, past retention, or an older copy of an item)
   * @param version the version written (or the current one when nothing was written)
   * @param chunks chunks in that version
   * @param chunked records in those chunks
   * @param rawBytes their uncompressed bytes
   * @param storedBytes their compressed bytes
   * @param chunksWritten chunks this roll-up wrote (the others it kept as they were)
   * @param bytesWritten their compressed bytes
   */
  public record Result(Outcome outcome, int live, int moved, int dropped, long version, int chunks, int chunked,
      long rawBytes, long storedBytes, int chunksWritten, long bytesWritten) {}

  /** Test seams: called between the steps of a roll-up; an exception thrown stops it there, as a crash would. */
  public interface Hooks {
    Hooks NONE = new Hooks() {};

    default void afterChunks(long uid) {}

    default void afterIndex(long uid) {}

    default void afterLiveDeletes(long uid) {}
  }

  private final Connection connection;
  private final HBaseLayout layout;
  private final TableName chunksTable;
  private final CompactionConfig config;
  private final LongSupplier clock;
  private final byte[] family;
  private volatile Hooks hooks = Hooks.NONE;

  /** Does not own {@code connection}. */
  public HistoryCompactor(Connection connection, HBaseLayout layout, CompactionConfig config, LongSupplier clock) {
    this.connection = connection;
    this.layout = layout;
    this.chunksTable = HistoryChunks.table(layout.table());
    this.config = config;
    this.clock = clock;
    this.family = layout.familyBytes();
  }

  /** Test seam: steps of every later roll-up call {@code hooks}. */
  public void hooks(Hooks hooks) {
    this.hooks = hooks;
  }

  public CompactionConfig config() {
    return config;
  }

  /**
   * Rolls {@code uid}'s history up when its live cells exceed the threshold, when more than {@code
   * keep} are live and the oldest is past {@code age}, or when tombstones wait to be folded ({@code
   * force}: whenever a record would move or be dropped).
   *
   * @throws IOException when HBase fails; nothing is lost, the next roll-up starts over
   * @throws IllegalStateException when a chunk the index names is missing before its records expire
   *     (a roll-up would otherwise drop them for good)
   */
  public Result compact(long uid, boolean force) throws IOException {
    byte[] row = HistoryRowKeys.row(uid);
    long nowMs = clock.getAsLong();
    try (Table history = table(layout.table()); Table chunks = table(chunksTable)) {
      CompactedIndex index = CompactedIndex.parse(chunks.get(new Get(row).addFamily(family)));
      List<LiveCell> live = scanLive(history, row);
      long version = index.index() == null ? 0 : index.index().getVersion();
      // Tombstones are folded even when nothing else would move, so they never pile up in the index row.
      if (!force && live.size() <= config.threshold() && index.tombstones().isEmpty() && !aged(live, nowMs)) {
        return notNeeded(live.size(), index);
      }
      List<ChunkRef> refs = index.chunks();
      long total = live.size();
      for (ChunkRef ref : refs) {
        total += ref.getCount();
      }
      if (total > config.maxRecords()) {
        log.warn("Not rolling up uid {}: {} records (live and chunked) is more than history.compact.max.records {}",
            uid, total, config.maxRecords());
        return new Result(Outcome.TOO_LARGE, live.size(), 0, 0, version, refs.size(), (int) (total - live.size()), 0,
            0, 0, 0);
      }
      List<List<HistoryRecord>> chunked = readChunks(chunks, uid, index, nowMs);
      RollupPlan merged = RollupPlan.merge(index, chunked, live, nowMs, config.keep(), layout);
      if (!merged.needed(index)) {
        return notNeeded(live.size(), index);
      }
      List<ChunkRef> kept = merged.kept();

      long rollupId = ThreadLocalRandom.current().nextLong() | 1L;
      RollupPlan.Layout plan = merged.layout(uid, rollupId, family, config.chunkBytes());
      ChunkIndex.Builder next = ChunkIndex.newBuilder()
          .setVersion(version + 1)
          .setRollupId(rollupId)
          .setCreatedTimeMs(nowMs)
          .addAllChunks(plan.refs());
      for (ChunkRef old : refs) {
        if (!kept.contains(old)) {
          next.addRetired(old);
        }
      }
      // 1. The new version's new chunks.
      batch(chunks, plan.puts());
      hooks.afterChunks(uid);

      // 2. The index, only over the one this roll-up read.
      long indexTime = Math.max(nowMs, index.indexTimeMs() + 1);
      Put indexPut = new Put(row).addColumn(family, HistoryChunks.INDEX, indexTime, next.build().toByteArray());
      CheckAndMutate.Builder check = CheckAndMutate.newBuilder(row);
      CheckAndMutate cas = index.indexCell() == null
          ? check.ifNotExists(family, HistoryChunks.INDEX).build(indexPut)
          : check.ifEquals(family, HistoryChunks.INDEX, index.indexCell()).build(indexPut);
      // The client retries a check-and-mutate whose reply was lost; the retry then fails against the
      // index its first attempt wrote: only another roll-up's index is a conflict.
      if (!chunks.checkAndMutate(cas).isSuccess() && !written(chunks, row, rollupId)) {
        List<Delete> mine = new ArrayList<>();
        for (Put p : plan.puts()) {
          mine.add(new Delete(p.getRow()));
        }
        batch(chunks, mine);
        log.info("Roll-up of uid {} lost to a concurrent one; its {} chunks removed", uid, mine.size());
        return new Result(Outcome.CONFLICT, live.size(), 0, 0, version, 0, 0, 0, 0, 0, 0);
      }
      hooks.afterIndex(uid);

      // 3. The live cells now in chunks (and those that lost to a newer copy or were dropped).
      deleteLive(history, row, merged.gone());
      hooks.afterLiveDeletes(uid);

      // 4. The tombstones the new version folded in, exactly the versions read.
      if (!index.tombstones().isEmpty()) {
        Delete folded = new Delete(row);
        index.tombstones().forEach((field, time) ->
            folded.addColumn(family, HistoryChunks.tombstoneQualifier(field), time));
        chunks.delete(folded);
      }
      // 5. The chunks the replaced version had retired: no reader can still need them.
      if (index.index() != null && index.index().getRetiredCount() > 0) {
        List<Delete> old = new ArrayList<>();
        for (ChunkRef r : index.index().getRetiredList()) {
          old.add(new Delete(HistoryChunks.chunkRow(uid, r)));
        }
        batch(chunks, old);
      }
      long raw = 0;
      long stored = 0;
      for (ChunkRef r : plan.refs()) {
        raw += r.getRawBytes();
        stored += r.getStoredBytes();
      }
      Result result = new Result(Outcome.ROLLED_UP, live.size(), merged.moved(), merged.dropped(), version + 1,
          plan.refs().size(), merged.toChunks(), raw, stored, plan.puts().size(), plan.writtenBytes());
      log.debug("Rolled up uid {}: {} ({} records were in chunks)", uid, result, merged.chunkedRecords());
      return result;
    }
  }

  /** True when more than {@code keep} cells are live and the oldest is past {@code history.compact.age}. */
  private boolean aged(List<LiveCell> live, long nowMs) {
    if (config.age().isZero() || live.size() <= config.keep()) {
      return false;
    }
    long oldest = Long.MAX_VALUE;
    for (LiveCell cell : live) {
      oldest = Math.min(oldest, cell.timeMs());
    }
    return oldest < nowMs - config.age().toMillis();
  }

  /** True when the index row now names {@code rollupId}: this roll-up's index was written after all. */
  private boolean written(Table chunks, byte[] row, long rollupId) throws IOException {
    ChunkIndex now = CompactedIndex.parse(chunks.get(new Get(row).addColumn(family, HistoryChunks.INDEX))).index();
    return now != null && now.getRollupId() == rollupId;
  }

  private Result notNeeded(int live, CompactedIndex index) {
    ChunkIndex i = index.index();
    if (i == null) {
      return new Result(Outcome.NOT_NEEDED, live, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }
    long raw = 0;
    long stored = 0;
    int records = 0;
    for (ChunkRef c : i.getChunksList()) {
      raw += c.getRawBytes();
      stored += c.getStoredBytes();
      records += c.getCount();
    }
    return new Result(Outcome.NOT_NEEDED, live, 0, 0, i.getVersion(), i.getChunksCount(), records, raw, stored, 0, 0);
  }

  /** Every live cell of the row, a page of cells per RPC so a wide row never makes one call large. */
  private List<LiveCell> scanLive(Table history, byte[] row) throws IOException {
    Scan scan = new Scan().withStartRow(row).withStopRow(row, true).addFamily(family)
        .readVersions(1).setBatch(SCAN_BATCH).setCaching(1);
    List<LiveCell> cells = new ArrayList<>();
    try (ResultScanner scanner = history.getScanner(scan)) {
      for (org.apache.hadoop.hbase.client.Result page = scanner.next(); page != null; page = scanner.next()) {
        for (Cell cell : page.rawCells()) {
          LiveCell live = LiveCell.of(cell);
          if (live != null) {
            cells.add(live);
          }
        }
      }
    }
    return cells;
  }

  /**
   * The records of each of the current version's chunks, in index order; a chunk past retention may
   * be gone (TTL): it reads as empty.
   */
  private List<List<HistoryRecord>> readChunks(Table chunks, long uid, CompactedIndex index, long nowMs)
      throws IOException {
    List<ChunkRef> refs = index.chunks();
    List<List<HistoryRecord>> records = new ArrayList<>(refs.size());
    if (refs.isEmpty()) {
      return records;
    }
    List<Get> gets = new ArrayList<>();
    for (ChunkRef ref : refs) {
      gets.add(new Get(HistoryChunks.chunkRow(uid, ref)).addColumn(family, HistoryChunks.CHUNK));
    }
    org.apache.hadoop.hbase.client.Result[] results = chunks.get(gets);
    long oldestKept = nowMs - layout.maxRetention().toMillis();
    for (int n = 0; n < results.length; n++) {
      byte[] cell = results[n].getValue(family, HistoryChunks.CHUNK);
      if (cell == null) {
        if (refs.get(n).getNewestTimeMs() < oldestKept) {
          records.add(List.of());
          continue;
        }
        throw new IllegalStateException("chunk " + n + " of version " + index.index().getVersion() + " of uid "
            + uid + " is missing; not rolling up over it");
      }
      records.add(HistoryChunks.decode(cell));
    }
    return records;
  }

  private void deleteLive(Table history, byte[] row, List<LiveCell> cells) throws IOException {
    List<Delete> deletes = new ArrayList<>();
    Delete delete = new Delete(row);
    for (LiveCell cell : cells) {
      delete.addColumns(family, cell.qualifier(), cell.timeMs());
      if (delete.size() == config.batchSize()) {
        deletes.add(delete);
        delete = new Delete(row);
      }
    }
    if (!delete.isEmpty()) {
      deletes.add(delete);
    }
    batch(history, deletes);
  }

  private void batch(Table table, List<? extends Row> mutations) throws IOException {
    for (int from = 0; from < mutations.size(); from += config.batchSize()) {
      List<? extends Row> part = mutations.subList(from, Math.min(mutations.size(), from + config.batchSize()));
      try {
        table.batch(part, new Object[part.size()]);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted during a roll-up", e);
      }
    }
  }

  private Table table(TableName name) throws IOException {
    int timeoutMs = (int) config.timeout().toMillis();
    return connection.getTableBuilder(name, null).setOperationTimeout(timeoutMs).setRpcTimeout(timeoutMs).build();
  }
}
