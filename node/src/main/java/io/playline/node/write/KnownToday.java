package io.playline.node.write;

import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Users this node already knows were counted today, so clients that never echo the flag do not
 * send a user to Redis twice in a day. A compressed bitmap of uids for the current day, reset
 * when the day changes. Thread-safe (short synchronized sections; contention is one batcher
 * thread against Lettuce completion threads).
 */
final class KnownToday {
  private String day = "";
  private Roaring64Bitmap uids = new Roaring64Bitmap();

  synchronized boolean contains(String day, long uid) {
    return day.equals(this.day) && uids.contains(uid);
  }

  synchronized void add(String day, long uid) {
    if (!day.equals(this.day)) {
      if (day.compareTo(this.day) < 0) {
        return; // a late answer for a day already over
      }
      this.day = day;
      uids = new Roaring64Bitmap();
    }
    uids.addLong(uid);
  }

  synchronized long size() {
    return uids.getLongCardinality();
  }
}
