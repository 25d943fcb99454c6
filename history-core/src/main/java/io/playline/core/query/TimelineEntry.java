package io.playline.core.query;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.proto.v1.HistoryRecord;
import java.util.Comparator;
import org.jspecify.annotations.Nullable;

/**
 * One item of a user's timeline as a tier holds it: its member ({@code business:oid}), its view
 * time (Redis score or HBase cell timestamp) and the serialized {@link HistoryRecord}, parsed only
 * when the entry makes it into a page. Immutable (the value array is never modified).
 */
record TimelineEntry(String member, long viewTimeMs, byte[] value) {

  /** The timeline order: newest first, see {@link TimelinePosition}. */
  static final Comparator<TimelineEntry> NEWEST_FIRST =
      (a, b) -> TimelinePosition.compare(a.viewTimeMs, a.member, b.viewTimeMs, b.member);

  int business() {
    return TimelinePosition.business(member);
  }

  TimelinePosition position() {
    return new TimelinePosition(viewTimeMs, member);
  }

  /** True when this entry comes strictly after {@code position} (null = before everything). */
  boolean after(@Nullable TimelinePosition position) {
    return position == null || position.precedes(viewTimeMs, member);
  }

  /** The record with {@code uid} set; null when the stored bytes are not a record. */
  @Nullable HistoryRecord record(long uid) {
    try {
      HistoryRecord r = HistoryRecord.parseFrom(value);
      return r.getUid() == uid ? r : r.toBuilder().setUid(uid).build();
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
  }
}
