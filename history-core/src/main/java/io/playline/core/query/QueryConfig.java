package io.playline.core.query;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.QuerySettings;
import java.time.Duration;

/**
 * Settings of the read and user-control paths. Every field names its config key; validated in the
 * compact constructor. Immutable and thread-safe.
 *
 * @param maxItems most items one progress query or delete may name, and most businesses one list or
 *     clear may name ({@code query.max.items}, 100)
 * @param listDefaultLimit page size of a list whose limit is 0 ({@code query.list.default.limit}, 20)
 * @param listMaxLimit largest page size a list may ask for ({@code query.list.max.limit}, 100)
 * @param progressHBaseFallback whether a progress miss in Redis is looked up in HBase ({@code
 *     query.progress.hbase.fallback}, false: a miss is "no record", misses being the common case)
 * @param hbaseMaxItems newest cells of a user's HBase row one read keeps ({@code query.hbase.max.items},
 *     1000); the row is streamed in pages, so memory and each RPC stay bounded for heavy users
 * @param hbaseTimeout bound of one HBase read, retries included ({@code query.hbase.timeout}, 5s)
 * @param itemStatsCacheTtl how long an item's counters are cached in Redis ({@code
 *     item.stats.cache.ttl}, 30s; 0 = not cached)
 */
public record QueryConfig(
    int maxItems,
    int listDefaultLimit,
    int listMaxLimit,
    boolean progressHBaseFallback,
    int hbaseMaxItems,
    Duration hbaseTimeout,
    Duration itemStatsCacheTtl) {

  public QueryConfig {
    check(maxItems > 0, "query.max.items", maxItems, "> 0");
    check(listMaxLimit > 0, "query.list.max.limit", listMaxLimit, "> 0");
    check(listDefaultLimit > 0 && listDefaultLimit <= listMaxLimit, "query.list.default.limit", listDefaultLimit,
        "1..query.list.max.limit " + listMaxLimit);
    check(hbaseMaxItems > 0, "query.hbase.max.items", hbaseMaxItems, "> 0");
    check(!hbaseTimeout.isNegative() && !hbaseTimeout.isZero(), "query.hbase.timeout", hbaseTimeout, "> 0");
  }

  /**
   * Reads the settings from {@code c}.
   *
   * @throws ConfigException naming the key when a value is malformed or out of range
   */
  public static QueryConfig from(ConfigSource c) {
    return new QueryConfig(
        QuerySettings.MAX_ITEMS.read(c),
        QuerySettings.LIST_DEFAULT_LIMIT.read(c),
        QuerySettings.LIST_MAX_LIMIT.read(c),
        QuerySettings.PROGRESS_HBASE_FALLBACK.read(c),
        QuerySettings.HBASE_MAX_ITEMS.read(c),
        QuerySettings.HBASE_TIMEOUT.read(c),
        QuerySettings.ITEM_STATS_CACHE_TTL.read(c));
  }

  private static void check(boolean ok, String key, Object value, String expected) {
    if (!ok) {
      throw new ConfigException(key + ": " + value + " (expected: " + expected + ")");
    }
  }
}
