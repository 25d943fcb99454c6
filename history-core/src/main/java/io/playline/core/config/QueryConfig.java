package io.playline.core.config;

import java.time.Duration;

/**
 * Settings of the read and user-control paths. Every field names its config key, whose default and
 * range are in docs/configuration.md (generated from {@link QuerySettings}); validated in the
 * compact constructor against those ranges. Immutable and thread-safe.
 *
 * @param maxItems most items one progress query or delete may name, and most businesses one list or
 *     clear may name ({@code query.max.items})
 * @param batchMaxRequests most progress requests one batch may carry ({@code query.batch.max.requests})
 * @param batchMaxItems most items the requests of one batch may name together ({@code query.batch.max.items})
 * @param listDefaultLimit page size of a list whose limit is 0 ({@code query.list.default.limit})
 * @param listMaxLimit largest page size a list may ask for ({@code query.list.max.limit})
 * @param progressHBaseFallback whether a progress miss in Redis is looked up in HBase ({@code
 *     query.progress.hbase.fallback}; without it a miss is "no record", misses being the common case)
 * @param hbaseMaxItems newest cells of a user's HBase row one read keeps ({@code query.hbase.max.items});
 *     the row is streamed in pages, so memory and each RPC stay bounded for heavy users
 * @param hbaseTimeout bound of one HBase read, retries included ({@code query.hbase.timeout})
 * @param itemStatsCacheTtl how long an item's counters are cached in Redis ({@code
 *     item.stats.cache.ttl}; 0 = not cached)
 */
public record QueryConfig(
    int maxItems,
    int batchMaxRequests,
    int batchMaxItems,
    int listDefaultLimit,
    int listMaxLimit,
    boolean progressHBaseFallback,
    int hbaseMaxItems,
    Duration hbaseTimeout,
    Duration itemStatsCacheTtl) {

  public QueryConfig {
    QuerySettings.MAX_ITEMS.check(maxItems);
    QuerySettings.BATCH_MAX_REQUESTS.check(batchMaxRequests);
    QuerySettings.BATCH_MAX_ITEMS.check(batchMaxItems);
    QuerySettings.LIST_MAX_LIMIT.check(listMaxLimit);
    QuerySettings.LIST_DEFAULT_LIMIT.check(listDefaultLimit);
    ConfigException.check(listDefaultLimit <= listMaxLimit, QuerySettings.LIST_DEFAULT_LIMIT.key(), listDefaultLimit,
        "at most query.list.max.limit " + listMaxLimit);
    QuerySettings.HBASE_MAX_ITEMS.check(hbaseMaxItems);
    QuerySettings.HBASE_TIMEOUT.check(hbaseTimeout);
    QuerySettings.ITEM_STATS_CACHE_TTL.check(itemStatsCacheTtl);
  }

  /**
   * Reads the settings from {@code c}.
   *
   * @throws ConfigException naming the key when a value is malformed or out of range
   */
  public static QueryConfig from(ConfigSource c) {
    return new QueryConfig(
        QuerySettings.MAX_ITEMS.read(c),
        QuerySettings.BATCH_MAX_REQUESTS.read(c),
        QuerySettings.BATCH_MAX_ITEMS.read(c),
        QuerySettings.LIST_DEFAULT_LIMIT.read(c),
        QuerySettings.LIST_MAX_LIMIT.read(c),
        QuerySettings.PROGRESS_HBASE_FALLBACK.read(c),
        QuerySettings.HBASE_MAX_ITEMS.read(c),
        QuerySettings.HBASE_TIMEOUT.read(c),
        QuerySettings.ITEM_STATS_CACHE_TTL.read(c));
  }
}
