package io.playline.core.config;

import io.playline.proto.v1.Business;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.hadoop.hbase.TableName;

/**
 * Where and how long history lives in HBase (docs/architecture.md, "Heavy users"), shared by the job that writes it and the
 * readers of history-core: the table, its one column family, and the retention, which may be
 * overridden per business. Row keys and qualifiers are {@code io.playline.core.store.HistoryRowKeys}. Validated in the
 * compact constructor against the ranges of {@link QuerySettings}; defaults and ranges are in
 * docs/configuration.md. Immutable and thread-safe.
 *
 * @param table HBase table ({@code hbase.table})
 * @param family the table's one column family ({@code hbase.family})
 * @param retention how long history is kept ({@code history.retention})
 * @param retentionOverrides per-business retention ({@code history.retention.<business>}, e.g. {@code
 *     history.retention.live=7d}); readers apply it, the HBase family TTL is the longest retention
 */
public record HBaseLayout(TableName table, String family, Duration retention, Map<Business, Duration> retentionOverrides) {
  /** {@code history.retention.}: the template's key without a business. */
  private static final String RETENTION_PREFIX = QuerySettings.HISTORY_RETENTION_BUSINESS.named("").key();

  public HBaseLayout {
    Objects.requireNonNull(table, "table");
    ConfigException.check(!family.isEmpty() && family.indexOf(':') < 0, QuerySettings.HBASE_FAMILY.key(), family,
        "a non-empty name without ':'");
    // The range is shorter than HBase's TTLs can be (int seconds, 68 years).
    QuerySettings.HISTORY_RETENTION.check(retention);
    retentionOverrides = Map.copyOf(retentionOverrides);
    for (Map.Entry<Business, Duration> e : retentionOverrides.entrySet()) {
      ConfigException.check(e.getKey() != Business.BUSINESS_UNSPECIFIED && e.getKey() != Business.UNRECOGNIZED,
          QuerySettings.HISTORY_RETENTION_BUSINESS.key(), e.getKey(), "a known business");
      retentionSetting(e.getKey()).check(e.getValue());
    }
  }

  /**
   * Reads the layout from {@code c}.
   *
   * @throws ConfigException naming the key when a value is malformed or out of range, or when a
   *     {@code history.retention.<business>} key names no known business
   */
  public static HBaseLayout from(ConfigSource c) {
    return new HBaseLayout(
        tableName(QuerySettings.HBASE_TABLE.read(c)),
        QuerySettings.HBASE_FAMILY.read(c),
        QuerySettings.HISTORY_RETENTION.read(c),
        overrides(c));
  }

  /** Defaults, for tests and tools. */
  public static HBaseLayout defaults() {
    return from(ConfigSource.empty());
  }

  /** The family name as bytes, as the HBase client takes it. */
  public byte[] familyBytes() {
    return family.getBytes(StandardCharsets.US_ASCII);
  }

  /** How long records of {@code business} are kept: its override, else {@link #retention()}. */
  public Duration retention(Business business) {
    return retentionOverrides.getOrDefault(business, retention);
  }

  /**
   * The oldest view time of {@code business} still kept at {@code nowMs}: a record viewed before it
   * is past retention and no reader returns it.
   */
  public long oldestKeptMs(Business business, long nowMs) {
    return nowMs - retention(business).toMillis();
  }

  /** The longest retention of any business: the HBase family TTL, since a family has one TTL. */
  public Duration maxRetention() {
    Duration max = retention;
    for (Duration d : retentionOverrides.values()) {
      if (d.compareTo(max) > 0) {
        max = d;
      }
    }
    return max;
  }

  /** The config key of {@code business}'s retention override, e.g. {@code history.retention.live}. */
  public static String retentionKey(Business business) {
    return retentionSetting(business).key();
  }

  private static Setting<Duration> retentionSetting(Business business) {
    return QuerySettings.HISTORY_RETENTION_BUSINESS.named(business.name().toLowerCase(Locale.ROOT));
  }

  private static Map<Business, Duration> overrides(ConfigSource c) {
    Map<Business, Duration> overrides = new EnumMap<>(Business.class);
    Set<String> known = new HashSet<>();
    for (Business b : Business.values()) {
      if (b != Business.BUSINESS_UNSPECIFIED && b != Business.UNRECOGNIZED) {
        known.add(retentionKey(b));
        retentionSetting(b).readIfSet(c).ifPresent(d -> overrides.put(b, d));
      }
    }
    // A typo such as history.retention.vidoe would otherwise be ignored silently.
    for (String key : c.describe().keySet()) {
      if (key.startsWith(RETENTION_PREFIX) && !known.contains(key)) {
        throw new ConfigException(key + ": unknown business (expected: one of " + RETENTION_PREFIX
            + "{video,article,comic,live,audio,episode})");
      }
    }
    return overrides;
  }

  private static TableName tableName(String name) {
    try {
      return TableName.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("hbase.table: '" + name + "' (expected: namespace:table, " + e.getMessage() + ")");
    }
  }
}
