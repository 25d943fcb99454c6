package io.playline.core.store;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.proto.v1.ChunkIndex;
import io.playline.proto.v1.ChunkRef;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Result;
import org.jspecify.annotations.Nullable;

/**
 * One read of a user's index row in the chunks table ({@link HistoryChunks}): the current {@link
 * ChunkIndex} (none before the first roll-up) and the tombstones not yet folded into it. One
 * HBase get reads both atomically, so a reader applies exactly the tombstones its version needs.
 * Immutable.
 *
 * @param index the version readers use; null when the user has no chunks
 * @param indexCell the index cell's stored bytes, for the next roll-up's check-and-mutate; null with no index
 * @param indexTimeMs the index cell's timestamp; -1 with no index
 * @param tombstones Redis-style field ({@code *}, {@code b<business>}, {@code <business>:<oid>}) → delete time
 */
public record CompactedIndex(@Nullable ChunkIndex index, byte @Nullable [] indexCell, long indexTimeMs,
    Map<String, Long> tombstones) {
  public static final CompactedIndex NONE = new CompactedIndex(null, null, -1, Map.of());

  public CompactedIndex {
    tombstones = Map.copyOf(tombstones);
  }

  /**
   * Parses an index row (an empty result = {@link #NONE}).
   *
   * @throws IllegalStateException when the index cell is not a {@link ChunkIndex}: the row was not
   *     written by this layout, and guessing would lose or repeat history
   */
  public static CompactedIndex parse(Result row) {
    if (row == null || row.isEmpty()) {
      return NONE;
    }
    ChunkIndex index = null;
    byte[] indexCell = null;
    long indexTimeMs = -1;
    Map<String, Long> tombstones = new HashMap<>();
    for (Cell cell : row.rawCells()) {
      byte[] q = CellUtil.cloneQualifier(cell);
      if (q.length == 1 && q[0] == HistoryChunks.INDEX[0]) {
        indexCell = CellUtil.cloneValue(cell);
        indexTimeMs = cell.getTimestamp();
        try {
          index = ChunkIndex.parseFrom(indexCell);
        } catch (InvalidProtocolBufferException e) {
          throw new IllegalStateException("unreadable chunk index in row "
              + new String(row.getRow(), StandardCharsets.US_ASCII), e);
        }
      } else if (q.length > 1 && q[0] == HistoryChunks.TOMBSTONE) {
        tombstones.merge(new String(q, 1, q.length - 1, StandardCharsets.US_ASCII), cell.getTimestamp(), Math::max);
      }
    }
    return new CompactedIndex(index, indexCell, indexTimeMs, tombstones);
  }

  /** The current version's chunks, newest first; empty without an index. */
  public List<ChunkRef> chunks() {
    return index == null ? List.of() : index.getChunksList();
  }

  /** True when a delete or clear at or after {@code viewTimeMs} covers the item. */
  public boolean covers(int business, long oid, long viewTimeMs) {
    if (tombstones.isEmpty()) {
      return false;
    }
    return viewTimeMs <= tombstones.getOrDefault("*", -1L)
        || viewTimeMs <= tombstones.getOrDefault("b" + business, -1L)
        || viewTimeMs <= tombstones.getOrDefault(TimelineOrder.member(business, oid), -1L);
  }
}
