package io.playline.core.stats;

import io.playline.core.config.HBaseLayout;
import io.playline.core.store.HistoryRowKeys;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ItemStats;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Where the item counters live in HBase, beside the history table (same namespace):
 *
 * <ul>
 *   <li>{@code <history>_item_stats}: one row per item, key = two hex digits of md5 of the item's
 *       history qualifier ({@code oid_business}) then the qualifier, so items spread over 256 key
 *       ranges. Family {@code c}; per stream {@code s} (a partition of one incarnation of the history
 *       topic, {@link #stream}) the cells {@code v:s} (viewers), {@code f:s} (finishes), {@code t:s}
 *       (newest view time) and {@code o:s} (the highest offset applied), 8-byte longs. A user's
 *       changes all travel in one partition, so each stream's cells have one writer, guarded by
 *       {@code o:s}; readers sum the streams (and take the newest time).
 *   <li>{@code <history>_item_marks}: per user (the history row key) and item one cell per flag
 *       the job has counted for that user, {@link #VIEWED} ({@code oid_business:v}) and {@link
 *       #FINISHED} ({@code oid_business:f}), kept for the item's business's retention. Flags are
 *       only ever added (a cell per flag, never a rewritten set), so a late or stale writer cannot
 *       take one away.
 * </ul>
 *
 * Immutable and thread-safe.
 *
 * @param stats the counters table
 * @param marks the per-user flags table
 */
public record ItemStatsLayout(TableName stats, TableName marks) {
  /** The counters' column family. */
  public static final byte[] STATS_FAMILY = {'c'};
  /** The flags' column family. */
  public static final byte[] MARKS_FAMILY = {'m'};
  /** Flag: the user was counted as a viewer of the item. */
  public static final int VIEWED = 1;
  /** Flag: the user was counted as having finished the item. */
  public static final int FINISHED = 2;

  private static final HexFormat HEX = HexFormat.of();
  private static final byte[] VIEWED_SUFFIX = {':', 'v'};
  private static final byte[] FINISHED_SUFFIX = {':', 'f'};

  /** The tables beside {@code history}'s table. */
  public static ItemStatsLayout of(HBaseLayout history) {
    TableName t = history.table();
    return new ItemStatsLayout(TableName.valueOf(t.getNamespaceAsString(), t.getQualifierAsString() + "_item_stats"),
        TableName.valueOf(t.getNamespaceAsString(), t.getQualifierAsString() + "_item_marks"));
  }

  /** The counters row of {@code item}. */
  public static byte[] row(ItemKey item) {
    byte[] qualifier = HistoryRowKeys.qualifier(item);
    try {
      byte[] md5 = MessageDigest.getInstance("MD5").digest(qualifier);
      return Bytes.add(HEX.toHexDigits(md5[0]).getBytes(StandardCharsets.US_ASCII), qualifier);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 unavailable", e);
    }
  }

  /** The flags table's qualifier of {@code flag} ({@link #VIEWED} or {@link #FINISHED}) of {@code item}. */
  public static byte[] flag(ItemKey item, int flag) {
    return Bytes.add(HistoryRowKeys.qualifier(item), flag == VIEWED ? VIEWED_SUFFIX : FINISHED_SUFFIX);
  }

  /** The flag a {@link #flag} qualifier names ({@link #VIEWED} or {@link #FINISHED}), 0 when none. */
  public static int flagOf(byte[] qualifier) {
    if (Bytes.equals(Bytes.tail(qualifier, 2), VIEWED_SUFFIX)) {
      return VIEWED;
    }
    return Bytes.equals(Bytes.tail(qualifier, 2), FINISHED_SUFFIX) ? FINISHED : 0;
  }

  /** The item a {@link #flag} qualifier belongs to. */
  public static ItemKey flagItem(byte[] qualifier) {
    return HistoryRowKeys.item(Bytes.head(qualifier, qualifier.length - 2));
  }

  /**
   * The qualifier of one counter of one stream: {@code kind} is {@code v}, {@code f}, {@code t} or
   * {@code o}; {@code stream} names a partition of one incarnation of the history topic ({@link
   * #stream}).
   */
  public static byte[] counter(char kind, String stream) {
    return (kind + ":" + stream).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * The stream of partition {@code partition} of the history topic whose Kafka topic id is {@code
   * topicId}: a recreated topic (new id, offsets from 0) gets cells of its own, next to the old ones.
   */
  public static String stream(String topicId, int partition) {
    return topicId + "-" + partition;
  }

  /** The item's counters summed over the partitions of {@code row} (an empty result: zeros). */
  public static ItemStats sum(ItemKey item, Result row) {
    long viewers = 0;
    long finishes = 0;
    long last = 0;
    if (!row.isEmpty()) {
      for (Cell cell : row.rawCells()) {
        byte[] q = CellUtil.cloneQualifier(cell);
        if (q.length < 3 || q[1] != ':' || cell.getValueLength() != Bytes.SIZEOF_LONG) {
          continue;
        }
        long value = Bytes.toLong(cell.getValueArray(), cell.getValueOffset());
        switch (q[0]) {
          case 'v' -> viewers += value;
          case 'f' -> finishes += value;
          case 't' -> last = Math.max(last, value);
          default -> { }
        }
      }
    }
    return ItemStats.newBuilder().setItem(item).setViewers(viewers).setFinishes(finishes)
        .setLastViewTimeMs(last).build();
  }
}
