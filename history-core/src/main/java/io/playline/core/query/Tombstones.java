package io.playline.core.query;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one user's delete/clear tombstones from Redis (see {@link
 * io.playline.core.store.RedisKeys}): {@code *} clear-all time, {@code b<business>} business clear
 * time, {@code business:oid} item delete time. Redis tombstones are authoritative for readers until
 * the job has applied the same deletes to HBase, so every HBase entry is checked against them.
 * Immutable.
 */
final class Tombstones {
  static final Tombstones NONE = new Tombstones(Map.of());

  private final Map<String, Long> times;

  private Tombstones(Map<String, Long> times) {
    this.times = times;
  }

  /** From an HGETALL reply: field, value, field, value... as byte arrays. */
  static Tombstones fromFlat(List<?> fieldsAndValues) {
    Map<String, Long> times = new HashMap<>();
    for (int i = 0; i + 1 < fieldsAndValues.size(); i += 2) {
      put(times, fieldsAndValues.get(i), fieldsAndValues.get(i + 1));
    }
    return new Tombstones(times);
  }

  /** From an HGETALL reply as a map. */
  static Tombstones fromHash(Map<byte[], byte[]> hash) {
    Map<String, Long> times = new HashMap<>();
    hash.forEach((field, value) -> put(times, field, value));
    return new Tombstones(times);
  }

  /** From fields and the values an HMGET of them returned (null = absent). */
  static Tombstones fromFields(List<String> fields, List<byte @Nullable []> values) {
    Map<String, Long> times = new HashMap<>();
    for (int i = 0; i < fields.size(); i++) {
      put(times, fields.get(i).getBytes(StandardCharsets.US_ASCII), values.get(i));
    }
    return new Tombstones(times);
  }

  private static void put(Map<String, Long> times, @Nullable Object field, @Nullable Object value) {
    if (field instanceof byte[] f && value instanceof byte[] v) {
      try {
        times.put(new String(f, StandardCharsets.US_ASCII), Long.parseLong(new String(v, StandardCharsets.US_ASCII)));
      } catch (NumberFormatException e) {
        // Not a tombstone this version wrote; ignore it rather than fail every read of the user.
      }
    }
  }

  /** The tombstone fields that can cover {@code member}, for an HMGET. */
  static List<String> fieldsFor(String member) {
    return List.of("*", "b" + TimelinePosition.business(member), member);
  }

  /** True when a delete or clear not before {@code viewTimeMs} covers the entry. */
  boolean covers(String member, long viewTimeMs) {
    return viewTimeMs <= time("*") || viewTimeMs <= time("b" + TimelinePosition.business(member))
        || viewTimeMs <= time(member);
  }

  boolean covers(TimelineEntry e) {
    return covers(e.member(), e.viewTimeMs());
  }

  private long time(String field) {
    return times.getOrDefault(field, -1L);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Tombstones t && times.equals(t.times);
  }

  @Override
  public int hashCode() {
    return times.hashCode();
  }

  @Override
  public String toString() {
    return "Tombstones" + times;
  }
}
