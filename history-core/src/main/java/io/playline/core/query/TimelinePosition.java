package io.playline.core.query;

import io.playline.core.store.TimelineOrder;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.ItemKey;

/**
 * A position in a user's timeline: a view time and the item's Redis member ({@code business:oid}).
 * The timeline order is newest first by view time, equal times by member in descending byte
 * order, which is the order Redis's ZREVRANGEBYSCORE returns, so Redis and HBase entries interleave
 * by one rule. A {@link Cursor} is a position. Immutable.
 */
record TimelinePosition(long viewTimeMs, String member) {

  /** Negative when {@code a} comes before {@code b} (is newer), positive when after, 0 when equal. */
  static int compare(long aTimeMs, String aMember, long bTimeMs, String bMember) {
    return TimelineOrder.compare(aTimeMs, aMember, bTimeMs, bMember);
  }

  /** True when an entry at ({@code timeMs}, {@code member}) comes strictly after this position. */
  boolean precedes(long timeMs, String member) {
    return compare(viewTimeMs, this.member, timeMs, member) < 0;
  }

  static TimelinePosition of(Cursor cursor) {
    return new TimelinePosition(cursor.getViewTimeMs(), member(cursor.getItem().getBusinessValue(),
        cursor.getItem().getOid()));
  }

  static String member(int business, long oid) {
    return TimelineOrder.member(business, oid);
  }

  /** True for the number of a business this version knows (not 0, not unrecognized). */
  static boolean known(int business) {
    return business != 0 && Business.forNumber(business) != null;
  }

  /** The business number of a member; -1 when it is not {@code business:oid}. */
  static int business(String member) {
    int colon = member.indexOf(':');
    try {
      return colon <= 0 ? -1 : Integer.parseInt(member, 0, colon, 10);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The oid of a {@code business:oid} member. */
  static long oid(String member) {
    return Long.parseLong(member, member.indexOf(':') + 1, member.length(), 10);
  }

  /** The cursor a client passes back to continue after this position. */
  Cursor toCursor() {
    int colon = member.indexOf(':');
    ItemKey item = ItemKey.newBuilder()
        .setBusiness(Business.forNumber(Integer.parseInt(member, 0, colon, 10)))
        .setOid(oid(member))
        .build();
    return Cursor.newBuilder().setViewTimeMs(viewTimeMs).setItem(item).build();
  }
}
