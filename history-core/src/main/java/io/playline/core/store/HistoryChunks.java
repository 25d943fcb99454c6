package io.playline.core.store;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.proto.v1.ChunkIndex;
import io.playline.proto.v1.ChunkRef;
import io.playline.proto.v1.HistoryChunk;
import io.playline.proto.v1.HistoryRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Put;

/**
 * The HBase layout of compacted history (Netflix-style "compressed viewing history"): a heavy
 * user's older records are rolled up from the live cells of {@code playline:history} into
 * zstd-compressed chunks in the table {@code <history>_chunks} (same family, TTL = the longest
 * retention):
 *
 * <ul>
 *   <li><b>index row</b> = the user's history row key ({@link HistoryRowKeys#row}): the cell
 *       {@code i} holds the {@link ChunkIndex} of the one version readers use, and one cell per
 *       delete or clear the job persisted, qualifier {@code t} + the Redis tombstone field
 *       ({@code t*} clear-all, {@code tb<business>} business clear, {@code t<business>:<oid>} item
 *       delete), cell timestamp and value (ASCII decimal) = the delete time. Those tombstones hide
 *       chunked records at once; a roll-up folds them into its new version and then removes them.
 *   <li><b>chunk rows</b> = the row key + {@code /} + 16 hex digits of the version's random roll-up
 *       id + {@code /} + the chunk's number: one cell {@code c}, a zstd frame of a {@link
 *       HistoryChunk}, cell timestamp = the chunk's newest view time, so the family TTL drops a
 *       chunk once all its records are past retention.
 * </ul>
 *
 * Stateless and thread-safe.
 */
public final class HistoryChunks {
  /** Qualifier of the index cell in a user's index row. */
  public static final byte[] INDEX = {'i'};
  /** Qualifier of the one cell of a chunk row. */
  public static final byte[] CHUNK = {'c'};
  /** First byte of a tombstone cell's qualifier. */
  public static final byte TOMBSTONE = 't';
  /** The largest uncompressed chunk a reader accepts: a corrupt frame header cannot make it allocate more. */
  public static final int MAX_RAW_BYTES = 64 << 20;
  private static final int ZSTD_LEVEL = 3;

  private HistoryChunks() {}

  /** The chunks table beside {@code history}: same namespace, {@code <qualifier>_chunks}. */
  public static TableName table(TableName history) {
    return TableName.valueOf(history.getNamespaceAsString(), history.getQualifierAsString() + "_chunks");
  }

  /** The row of a chunk: {@code <history row>/<rollup id, 16 hex>/<number>}. */
  public static byte[] chunkRow(long uid, long rollupId, int number) {
    return (new String(HistoryRowKeys.row(uid), StandardCharsets.US_ASCII) + "/"
        + String.format("%016x", rollupId) + "/" + number).getBytes(StandardCharsets.US_ASCII);
  }

  /** The row of the chunk {@code ref} names. */
  public static byte[] chunkRow(long uid, ChunkRef ref) {
    return chunkRow(uid, ref.getRollupId(), ref.getNumber());
  }

  /** The business bit of {@link ChunkRef#getBusinesses()}; 0 for a number outside 1..31. */
  public static int businessBit(int business) {
    return business >= 1 && business <= 31 ? 1 << business : 0;
  }

  /** True when {@code ref} may hold records of a business in {@code mask} (0 = any). */
  public static boolean mayHold(ChunkRef ref, int mask) {
    return mask == 0 || ref.getBusinesses() == 0 || (ref.getBusinesses() & mask) != 0;
  }

  /** The qualifier of the tombstone of a Redis tombstone field ({@code *}, {@code b1}, {@code 1:42}). */
  public static byte[] tombstoneQualifier(String field) {
    return ("t" + field).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * A put of tombstones into {@code uid}'s index row: field → delete time. A later delete of the
   * same field replaces an earlier one (the family keeps one version, the newest timestamp).
   */
  public static Put tombstones(long uid, byte[] family, Map<String, Long> fieldTimes) {
    Put put = new Put(HistoryRowKeys.row(uid));
    fieldTimes.forEach((field, timeMs) -> put.addColumn(family, tombstoneQualifier(field), timeMs,
        Long.toString(timeMs).getBytes(StandardCharsets.US_ASCII)));
    return put;
  }

  /** The cell value of a chunk of {@code newestFirst} (uid cleared: the row names the user). */
  public static byte[] encode(List<HistoryRecord> newestFirst) {
    return Zstd.compress(raw(newestFirst).toByteArray(), ZSTD_LEVEL);
  }

  /** The uncompressed chunk message of {@code newestFirst}, uid cleared. */
  public static HistoryChunk raw(List<HistoryRecord> newestFirst) {
    HistoryChunk.Builder chunk = HistoryChunk.newBuilder();
    for (HistoryRecord r : newestFirst) {
      chunk.addRecords(r.getUid() == 0 ? r : r.toBuilder().clearUid().build());
    }
    return chunk.build();
  }

  /**
   * The records of a chunk cell, newest first.
   *
   * @throws IllegalArgumentException when the bytes are not a chunk this layout wrote
   */
  public static List<HistoryRecord> decode(byte[] cell) {
    try {
      return HistoryChunk.parseFrom(decompress(cell)).getRecordsList();
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("not a history chunk: " + e.getMessage(), e);
    }
  }

  /**
   * A chunk cell's records one at a time, newest first, each looked at (item, view time) before it
   * is parsed whole: a page that needs a few records after a cursor skips the rest unparsed.
   *
   * @throws IllegalArgumentException when the bytes are not a zstd frame this layout wrote
   */
  public static Records records(byte[] cell) {
    return new Records(decompress(cell));
  }

  /** Decompression contexts kept for reuse (a native context per chunk cost ~3 % of a deep page's read). */
  private static final int POOLED_DECOMPRESSORS = 8;
  private static final ConcurrentLinkedQueue<ZstdDecompressCtx> DECOMPRESSORS = new ConcurrentLinkedQueue<>();

  private static byte[] decompress(byte[] cell) {
    if (cell.length == 0) {
      throw new IllegalArgumentException("not a history chunk (empty cell)");
    }
    long size = Zstd.getFrameContentSize(cell);
    if (size < 0 || size > MAX_RAW_BYTES) {
      throw new IllegalArgumentException("not a history chunk (zstd frame content size " + size + ")");
    }
    // A few contexts shared by the reading threads (not one per thread: a thread that ends would
    // leave its native context behind, zstd-jni frees them only on close).
    ZstdDecompressCtx ctx = DECOMPRESSORS.poll();
    if (ctx == null) {
      ctx = new ZstdDecompressCtx();
    }
    boolean reusable = false;
    try {
      byte[] raw = ctx.decompress(cell, (int) size);
      reusable = true;
      return raw;
    } catch (ZstdException e) {
      throw new IllegalArgumentException("not a history chunk: " + e.getMessage(), e);
    } finally {
      if (reusable && DECOMPRESSORS.size() < POOLED_DECOMPRESSORS) {
        DECOMPRESSORS.offer(ctx);
      } else {
        ctx.close();
      }
    }
  }

  /**
   * Reads an uncompressed {@link HistoryChunk} record by record. {@link #next} reads a record's
   * business, oid and view time only; {@link #record} parses the current one whole. Not thread-safe.
   */
  public static final class Records {
    /** Field number and wire type of {@code records}, as protobuf encodes a tag. */
    private static final int RECORDS_TAG = HistoryChunk.RECORDS_FIELD_NUMBER << 3
        | WireFormat.WIRETYPE_LENGTH_DELIMITED;
    private final byte[] raw;
    private final CodedInputStream in;
    private int start = -1;
    private int length;
    private int business;
    private long oid;
    private long viewTimeMs;

    private Records(byte[] raw) {
      this.raw = raw;
      this.in = CodedInputStream.newInstance(raw);
    }

    /**
     * Moves to the next record; false at the end.
     *
     * @throws IllegalArgumentException when the bytes are not a chunk
     */
    public boolean next() {
      try {
        while (true) {
          int tag = in.readTag();
          if (tag == 0) {
            return false;
          }
          if (tag != RECORDS_TAG) {
            in.skipField(tag);
            continue;
          }
          length = in.readRawVarint32();
          start = in.getTotalBytesRead();
          in.skipRawBytes(length);
          readKey();
          return true;
        }
      } catch (IOException e) {
        throw new IllegalArgumentException("not a history chunk: " + e.getMessage(), e);
      }
    }

    private void readKey() throws IOException {
      business = 0;
      oid = 0;
      viewTimeMs = 0;
      CodedInputStream r = CodedInputStream.newInstance(raw, start, length);
      for (int tag = r.readTag(); tag != 0; tag = r.readTag()) {
        // As protobuf's own parser: a known field number with another wire type is skipped as unknown.
        int field = WireFormat.getTagFieldNumber(tag);
        if (WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_VARINT) {
          r.skipField(tag);
        } else if (field == HistoryRecord.BUSINESS_FIELD_NUMBER) {
          business = r.readEnum();
        } else if (field == HistoryRecord.OID_FIELD_NUMBER) {
          oid = r.readInt64();
        } else if (field == HistoryRecord.VIEW_TIME_MS_FIELD_NUMBER) {
          viewTimeMs = r.readInt64();
        } else {
          r.skipField(tag);
        }
      }
    }

    public int business() {
      return business;
    }

    public long oid() {
      return oid;
    }

    public long viewTimeMs() {
      return viewTimeMs;
    }

    /** The current record's serialized bytes (as in the chunk: no uid). */
    public byte[] bytes() {
      if (start < 0) {
        throw new IllegalStateException("next() first");
      }
      return java.util.Arrays.copyOfRange(raw, start, start + length);
    }

    /** The current record, parsed whole. */
    public HistoryRecord record() {
      if (start < 0) {
        throw new IllegalStateException("next() first");
      }
      try {
        return HistoryRecord.parser().parseFrom(raw, start, length);
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalArgumentException("not a history chunk: " + e.getMessage(), e);
      }
    }
  }
}
