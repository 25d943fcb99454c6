package io.playline.core.query;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The newest entries one read of a user's HBase history (live cells and chunks) kept. Immutable.
 *
 * @param entries newest first, at most {@code query.hbase.max.items}
 * @param boundary null when the read covered the history to its end; else how far it covered: every
 *     matching record down to this position is in {@code entries} (or was dropped by a rule), and
 *     the history may go on after it
 */
record HBaseSlice(List<TimelineEntry> entries, @Nullable TimelinePosition boundary) {
  static final HBaseSlice EMPTY = new HBaseSlice(List.of(), null);

  HBaseSlice {
    entries = List.copyOf(entries);
  }

  /** True when older matching records may exist past {@link #boundary()}. */
  boolean truncated() {
    return boundary != null;
  }
}
