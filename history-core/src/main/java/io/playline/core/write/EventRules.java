package io.playline.core.write;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.PlayEvent;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Validates play events and clamps their client-supplied times to a window around server time
 * ({@code event.clamp.past} before, {@code event.clamp.future} after). Immutable.
 */
public final class EventRules {
  private final long pastMs;
  private final long futureMs;

  public EventRules(Duration clampPast, Duration clampFuture) {
    this.pastMs = clampPast.toMillis();
    this.futureMs = clampFuture.toMillis();
  }

  /** Null when the event is acceptable, else a client-safe reason naming the field. */
  public static @Nullable String problem(PlayEvent e) {
    if (e.getBusiness() == Business.BUSINESS_UNSPECIFIED || e.getBusiness() == Business.UNRECOGNIZED) {
      return "business: " + e.getBusinessValue() + " (expected: a known business)";
    }
    if (e.getOid() <= 0) {
      return "oid: " + e.getOid() + " (expected: > 0)";
    }
    if (e.getSubId() < 0) {
      return "sub_id: " + e.getSubId() + " (expected: >= 0)";
    }
    if (e.getProgressMs() < -1) {
      return "progress_ms: " + e.getProgressMs() + " (expected: >= -1; -1 = finished)";
    }
    if (e.getDurationMs() < 0) {
      return "duration_ms: " + e.getDurationMs() + " (expected: >= 0)";
    }
    return null;
  }

  /** The view time recorded for an event reported at {@code eventTimeMs} and received at {@code nowMs}. */
  public long clamp(long eventTimeMs, long nowMs) {
    if (eventTimeMs < nowMs - pastMs) {
      return nowMs - pastMs;
    }
    if (eventTimeMs > nowMs + futureMs) {
      return nowMs + futureMs;
    }
    return eventTimeMs;
  }
}
