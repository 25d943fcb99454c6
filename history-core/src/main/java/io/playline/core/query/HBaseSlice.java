package io.playline.core.query;

import java.util.List;

/**
 * The newest entries one read of a user's HBase row kept. Immutable.
 *
 * @param entries newest first, at most {@code query.hbase.max.items}
 * @param truncated true when older matching cells were left out: the row goes on past the last entry
 */
record HBaseSlice(List<TimelineEntry> entries, boolean truncated) {
  static final HBaseSlice EMPTY = new HBaseSlice(List.of(), false);

  HBaseSlice {
    entries = List.copyOf(entries);
  }
}
