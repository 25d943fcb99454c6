package io.playline.core.compact;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.core.store.CompactedIndex;
import io.playline.core.store.HBaseLayout;
import io.playline.core.store.HistoryChunks;
import io.playline.core.store.HistoryRowKeys;
import io.playline.core.store.TimelineOrder;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ChunkIndex;
import io.playline.proto.v1.ChunkRef;
import io.playline.proto.v1.HistoryChunk;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rolls one user's older history up into compressed chunks ({@link HistoryChunks}), Netflix-style:
 * the user's live cells and current chunks are merged (last write wins by view time), records a
 * tombstone of the index row covers or that are past their business's retention are dropped, the
 * newest {@code keep} live records stay live, and every other record goes, sorted newest first,
 * into chunks of at most {@code chunkBytes} under a new version.
 *
 * <p><b>Order of writes</b>, so that a crash at any step leaves a readable history with nothing
 * lost or shown twice:
 *
 * <ol>
 *   <li>the new version's chunk rows (named by a fresh random roll-up id: unreferenced until step
 *       2, and left to the TTL if the roll-up dies here);
 *   <li>the index, by a check-and-mutate on the index cell this roll-up read, so of two racing
 *       roll-ups one wins and the other removes its chunk rows; from here readers use the new
 *       version, and an item that is still live as well is served from its live cell (readers drop
 *       a chunked record whose item has a live cell at least as new);
 *   <li>delete markers on the moved live cells, each up to the moved view time, so a newer write
 *       that arrived meanwhile stays and a replay of an older one stays hidden;
 *   <li>the tombstones the new version folded in (exactly the versions read: a newer delete stays);
 *   <li>the version before the one replaced: its chunk rows are deleted now, one roll-up late,
 *       because a reader that read the replaced index a moment ago may still fetch its chunks.
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
    CONFLICT
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
   */
  public record Result(Outcome outcome, int live, int moved, int dropped, long version, int chunks, int chunked,
      long rawBytes, long storedBytes) {}

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
   * Rolls {@code uid}'s history up when its live cells exceed the threshold ({@code force}: whenever
   * a record would move or be dropped).
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
      if (!force && live.size() <= config.threshold()) {
        return notNeeded(live.size(), index);
      }
      List<HistoryRecord> chunked = readChunks(chunks, uid, index, nowMs);

      // Last write wins per item across both; ties keep the chunked copy (same record, nothing to move).
      Map<String, Candidate> byItem = new HashMap<>();
      for (HistoryRecord r : chunked) {
        byItem.merge(member(r), new Candidate(r, null), Candidate::newer);
      }
      List<LiveCell> staleLive = new ArrayList<>();
      for (LiveCell cell : live) {
        Candidate mine = new Candidate(cell.record(), cell);
        Candidate kept = byItem.merge(member(cell.record()), mine, Candidate::newer);
        if (kept != mine) {
          staleLive.add(cell);
        }
      }
      List<Candidate> survivors = new ArrayList<>(byItem.size());
      int dropped = chunked.size() + live.size() - byItem.size();
      List<LiveCell> droppedLive = new ArrayList<>();
      for (Candidate c : byItem.values()) {
        HistoryRecord r = c.record();
        if (index.covers(r.getBusinessValue(), r.getOid(), r.getViewTimeMs()) || expired(r, nowMs)) {
          dropped++;
          if (c.live() != null) {
            droppedLive.add(c.live());
          }
        } else {
          survivors.add(c);
        }
      }
      survivors.sort((a, b) -> TimelineOrder.NEWEST_FIRST.compare(a.record(), b.record()));

      List<HistoryRecord> toChunks = new ArrayList<>();
      List<LiveCell> moved = new ArrayList<>();
      for (int i = 0; i < survivors.size(); i++) {
        Candidate c = survivors.get(i);
        if (c.live() == null) {
          toChunks.add(c.record());
        } else if (i >= config.keep()) {
          toChunks.add(c.record());
          moved.add(c.live());
        }
      }
      if (moved.isEmpty() && dropped == 0 && toChunks.size() == chunked.size()) {
        return notNeeded(live.size(), index);
      }

      long rollupId = ThreadLocalRandom.current().nextLong() | 1L;
      List<Put> chunkPuts = new ArrayList<>();
      ChunkIndex.Builder next = ChunkIndex.newBuilder()
          .setVersion(version + 1)
          .setRollupId(rollupId)
          .setCreatedTimeMs(nowMs);
      if (index.index() != null) {
        next.setPreviousRollupId(index.index().getRollupId()).setPreviousChunks(index.index().getChunksCount());
      }
      long raw = 0;
      long stored = 0;
      for (List<HistoryRecord> part : split(toChunks)) {
        HistoryChunk message = HistoryChunks.raw(part);
        byte[] cell = HistoryChunks.encode(part);
        HistoryRecord newest = part.get(0);
        HistoryRecord oldest = part.get(part.size() - 1);
        next.addChunks(ChunkRef.newBuilder()
            .setCount(part.size())
            .setNewestTimeMs(newest.getViewTimeMs()).setNewestItem(item(newest))
            .setOldestTimeMs(oldest.getViewTimeMs()).setOldestItem(item(oldest))
            .setStoredBytes(cell.length)
            .setRawBytes(message.getSerializedSize()));
        chunkPuts.add(new Put(HistoryChunks.chunkRow(uid, rollupId, chunkPuts.size()))
            .addColumn(family, HistoryChunks.CHUNK, newest.getViewTimeMs(), cell));
        raw += message.getSerializedSize();
        stored += cell.length;
      }
      // 1. The new version's chunks.
      batch(chunks, chunkPuts);
      hooks.afterChunks(uid);

      // 2. The index, only over the one this roll-up read.
      long indexTime = Math.max(nowMs, index.indexTimeMs() + 1);
      Put indexPut = new Put(row).addColumn(family, HistoryChunks.INDEX, indexTime, next.build().toByteArray());
      CheckAndMutate.Builder check = CheckAndMutate.newBuilder(row);
      CheckAndMutate cas = index.indexCell() == null
          ? check.ifNotExists(family, HistoryChunks.INDEX).build(indexPut)
          : check.ifEquals(family, HistoryChunks.INDEX, index.indexCell()).build(indexPut);
      if (!chunks.checkAndMutate(cas).isSuccess()) {
        List<Delete> mine = new ArrayList<>();
        for (Put p : chunkPuts) {
          mine.add(new Delete(p.getRow()));
        }
        batch(chunks, mine);
        log.info("Roll-up of uid {} lost to a concurrent one; its {} chunks removed", uid, mine.size());
        return new Result(Outcome.CONFLICT, live.size(), 0, 0, version, 0, 0, 0, 0);
      }
      hooks.afterIndex(uid);

      // 3. The live cells now in chunks (and those that lost to a newer chunked copy or were dropped).
      List<LiveCell> gone = new ArrayList<>(moved);
      gone.addAll(staleLive);
      gone.addAll(droppedLive);
      deleteLive(history, row, gone);
      hooks.afterLiveDeletes(uid);

      // 4. The tombstones the new version folded in, exactly the versions read.
      if (!index.tombstones().isEmpty()) {
        Delete folded = new Delete(row);
        index.tombstones().forEach((field, time) ->
            folded.addColumn(family, HistoryChunks.tombstoneQualifier(field), time));
        chunks.delete(folded);
      }
      // 5. The chunks of the version before the replaced one.
      if (index.index() != null && index.index().getPreviousRollupId() != 0) {
        List<Delete> old = new ArrayList<>();
        for (int i = 0; i < index.index().getPreviousChunks(); i++) {
          old.add(new Delete(HistoryChunks.chunkRow(uid, index.index().getPreviousRollupId(), i)));
        }
        batch(chunks, old);
      }
      Result result = new Result(Outcome.ROLLED_UP, live.size(), moved.size(), dropped, version + 1,
          chunkPuts.size(), toChunks.size(), raw, stored);
      log.debug("Rolled up uid {}: {}", uid, result);
      return result;
    }
  }

  private Result notNeeded(int live, CompactedIndex index) {
    ChunkIndex i = index.index();
    if (i == null) {
      return new Result(Outcome.NOT_NEEDED, live, 0, 0, 0, 0, 0, 0, 0);
    }
    long raw = 0;
    long stored = 0;
    int records = 0;
    for (ChunkRef c : i.getChunksList()) {
      raw += c.getRawBytes();
      stored += c.getStoredBytes();
      records += c.getCount();
    }
    return new Result(Outcome.NOT_NEEDED, live, 0, 0, i.getVersion(), i.getChunksCount(), records, raw, stored);
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

  /** The records of the current version's chunks; a chunk past retention may be gone (TTL) and is skipped. */
  private List<HistoryRecord> readChunks(Table chunks, long uid, CompactedIndex index, long nowMs)
      throws IOException {
    ChunkIndex i = index.index();
    List<HistoryRecord> records = new ArrayList<>();
    if (i == null) {
      return records;
    }
    List<Get> gets = new ArrayList<>();
    for (int n = 0; n < i.getChunksCount(); n++) {
      gets.add(new Get(HistoryChunks.chunkRow(uid, i.getRollupId(), n)).addColumn(family, HistoryChunks.CHUNK));
    }
    org.apache.hadoop.hbase.client.Result[] results = chunks.get(gets);
    long oldestKept = nowMs - layout.maxRetention().toMillis();
    for (int n = 0; n < results.length; n++) {
      byte[] cell = results[n].getValue(family, HistoryChunks.CHUNK);
      if (cell == null) {
        if (i.getChunks(n).getNewestTimeMs() < oldestKept) {
          continue;
        }
        throw new IllegalStateException("chunk " + n + " of version " + i.getVersion() + " of uid " + uid
            + " is missing; not rolling up over it");
      }
      records.addAll(HistoryChunks.decode(cell));
    }
    return records;
  }

  /** Newest first, cut where the next record would take a chunk past {@code chunkBytes}. */
  private List<List<HistoryRecord>> split(List<HistoryRecord> newestFirst) {
    List<List<HistoryRecord>> parts = new ArrayList<>();
    List<HistoryRecord> part = new ArrayList<>();
    long bytes = 0;
    for (HistoryRecord r : newestFirst) {
      // A repeated field's element costs its size, a length varint and a tag byte.
      long size = r.getSerializedSize() + 6L;
      if (!part.isEmpty() && bytes + size > config.chunkBytes()) {
        parts.add(part);
        part = new ArrayList<>();
        bytes = 0;
      }
      part.add(r);
      bytes += size;
    }
    if (!part.isEmpty()) {
      parts.add(part);
    }
    return parts;
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

  private boolean expired(HistoryRecord r, long nowMs) {
    Business b = Business.forNumber(r.getBusinessValue());
    Duration retention = b == null ? layout.retention() : layout.retention(b);
    return r.getViewTimeMs() < nowMs - retention.toMillis();
  }

  private Table table(TableName name) throws IOException {
    int timeoutMs = (int) config.timeout().toMillis();
    return connection.getTableBuilder(name, null).setOperationTimeout(timeoutMs).setRpcTimeout(timeoutMs).build();
  }

  private static String member(HistoryRecord r) {
    return TimelineOrder.member(r.getBusinessValue(), r.getOid());
  }

  private static ItemKey item(HistoryRecord r) {
    return ItemKey.newBuilder().setBusinessValue(r.getBusinessValue()).setOid(r.getOid()).build();
  }

  /** One item's record and, when it came from a live cell, that cell. */
  private record Candidate(HistoryRecord record, @Nullable LiveCell live) {
    static Candidate newer(Candidate a, Candidate b) {
      return b.record.getViewTimeMs() > a.record.getViewTimeMs() ? b : a;
    }
  }

  /** A live cell: its qualifier, timestamp (the view time) and record. */
  private record LiveCell(byte[] qualifier, long timeMs, HistoryRecord record) {
    /** Null for a cell that is not a readable record of a known item: such a cell is left alone. */
    static @Nullable LiveCell of(Cell cell) {
      byte[] qualifier = CellUtil.cloneQualifier(cell);
      try {
        ItemKey item = HistoryRowKeys.item(qualifier);
        HistoryRecord r = HistoryRecord.parseFrom(CellUtil.cloneValue(cell));
        if (item.getBusinessValue() <= 0 || item.getOid() <= 0) {
          return null;
        }
        // The cell's key and time are what readers use: keep the record consistent with them.
        return new LiveCell(qualifier, cell.getTimestamp(), r.toBuilder().clearUid()
            .setBusinessValue(item.getBusinessValue()).setOid(item.getOid()).setViewTimeMs(cell.getTimestamp())
            .build());
      } catch (IllegalArgumentException | InvalidProtocolBufferException e) {
        return null;
      }
    }
  }
}
