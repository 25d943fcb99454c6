package io.playline.core.query;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What one read of a user's Redis timeline found (see {@code read_timeline.lua}). Immutable.
 *
 * @param state {@link #ABSENT}, {@link #UNMARKED}, {@link #WARM} or {@link #COMPLETE}
 * @param size entries of the timeline, marker included
 * @param exhausted true when no entry follows the last one examined
 * @param lastExamined the last entry examined, matching or not; null when none was
 * @param tombstones the user's tombstones when the read may continue in HBase, else none
 * @param entries matching entries after the cursor, newest first, at most the limit asked for
 */
record RedisSlice(int state, long size, boolean exhausted, @Nullable TimelinePosition lastExamined,
    Tombstones tombstones, List<TimelineEntry> entries) {
  /** No timeline: a cold (new, evicted or expired) user. */
  static final int ABSENT = 0;
  /** A timeline written by heartbeats only: nothing says it holds the newest of HBase. */
  static final int UNMARKED = 1;
  /** Warmed: every item newer than its oldest entry is in it; older ones may be in HBase. */
  static final int WARM = 2;
  /** Warmed from the whole HBase row: HBase holds nothing more unless the timeline filled up. */
  static final int COMPLETE = 3;

  RedisSlice {
    entries = List.copyOf(entries);
  }

  boolean warm() {
    return state >= WARM;
  }

  /**
   * True when the timeline is the user's whole history: marked complete and never full since (a
   * full timeline may have been trimmed into HBase; a delete from one clears the mark).
   */
  boolean complete(int maxItems) {
    return state == COMPLETE && size < maxItems;
  }
}
