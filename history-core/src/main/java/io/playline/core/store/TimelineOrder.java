package io.playline.core.store;

import io.playline.proto.v1.HistoryRecord;
import java.util.Comparator;

/**
 * The one order of a user's timeline in every tier (Redis, live HBase cells, chunks): newest first
 * by view time, equal times by the Redis member ({@code business:oid}) in descending byte order,
 * which is the order Redis's ZREVRANGEBYSCORE returns. Stateless.
 */
public final class TimelineOrder {
  /** Records in the timeline order. */
  public static final Comparator<HistoryRecord> NEWEST_FIRST = (a, b) -> compare(a.getViewTimeMs(),
      member(a.getBusinessValue(), a.getOid()), b.getViewTimeMs(), member(b.getBusinessValue(), b.getOid()));

  private TimelineOrder() {}

  /** Negative when {@code a} comes before {@code b} (is newer), positive when after, 0 when equal. */
  public static int compare(long aTimeMs, String aMember, long bTimeMs, String bMember) {
    int byTime = Long.compare(bTimeMs, aTimeMs);
    // Members are ASCII, so String order is byte order.
    return byTime != 0 ? byTime : bMember.compareTo(aMember);
  }

  /** The Redis member of an item: {@code business:oid}. */
  public static String member(int business, long oid) {
    return business + ":" + oid;
  }
}
