package io.playline.node.write;

import io.playline.core.write.EventRules;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.PlayEvent;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Turns reported play events into the records the write path stores: validated, with the view
 * time clamped around server time (an event time of 0 means "now"). Shared by player heartbeats
 * and the internal {@code Report} call. Stateless.
 */
public final class EventRecords {
  private EventRecords() {}

  /** Null when every event is acceptable and there are at most {@code max}, else a client-safe reason. */
  public static @Nullable String problem(List<PlayEvent> events, int max) {
    if (events.size() > max) {
      return "events: " + events.size() + " (expected: at most " + max + ")";
    }
    for (int i = 0; i < events.size(); i++) {
      String problem = EventRules.problem(events.get(i));
      if (problem != null) {
        return "events[" + i + "]." + problem;
      }
    }
    return null;
  }

  public static List<HistoryRecord> build(long uid, String deviceId, String platform, List<PlayEvent> events,
      long nowMs, EventRules rules) {
    List<HistoryRecord> records = new ArrayList<>(events.size());
    for (PlayEvent e : events) {
      long eventTime = e.getEventTimeMs() == 0 ? nowMs : e.getEventTimeMs();
      records.add(HistoryRecord.newBuilder()
          .setUid(uid)
          .setBusiness(e.getBusiness())
          .setOid(e.getOid())
          .setSubId(e.getSubId())
          .setProgressMs(e.getProgressMs())
          .setDurationMs(e.getDurationMs())
          .setViewTimeMs(rules.clamp(eventTime, nowMs))
          .setDeviceId(deviceId)
          .setPlatform(platform)
          .build());
    }
    return records;
  }
}
