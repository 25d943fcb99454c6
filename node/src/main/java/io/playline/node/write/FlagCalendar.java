package io.playline.node.write;

import io.playline.time.Time;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The first-today calendar: which day a server time belongs to in the configured zone, as the
 * wire's ISO {@code YYYY-MM-DD} and as the Redis key's {@code yyyymmdd}, and how long that day's
 * bitmap should live. Caches the current day so the hot path compares two longs. Thread-safe.
 */
public final class FlagCalendar {
  /** One day, computed once. */
  public record Day(String iso, String compact, long startMs, long endMs) {
    public boolean contains(long ms) {
      return ms >= startMs && ms < endMs;
    }

    /** The day's bitmap lives through the day and one more, so late heartbeats still find it. */
    public long bitmapExpiryMs(long nowMs) {
      return Math.max(1, endMs - nowMs) + 86_400_000L;
    }
  }

  private final ZoneId zone;
  private volatile Day current;

  /** Starts with the day {@code time}'s wall clock is in. */
  public FlagCalendar(ZoneId zone, Time time) {
    this.zone = zone;
    this.current = compute(time.millis());
  }

  public ZoneId zone() {
    return zone;
  }

  public Day dayOf(long nowMs) {
    Day d = current;
    if (d.contains(nowMs)) {
      return d;
    }
    Day computed = compute(nowMs);
    if (computed.startMs() > d.startMs()) {
      current = computed;
    }
    return computed;
  }

  private Day compute(long nowMs) {
    LocalDate date = Instant.ofEpochMilli(nowMs).atZone(zone).toLocalDate();
    ZonedDateTime start = date.atStartOfDay(zone);
    ZonedDateTime end = date.plusDays(1).atStartOfDay(zone);
    return new Day(date.toString(), date.format(DateTimeFormatter.BASIC_ISO_DATE),
        start.toInstant().toEpochMilli(), end.toInstant().toEpochMilli());
  }
}
