package io.playline.core.config;

import static io.playline.core.config.Setting.derived;

import java.time.Duration;
import java.util.List;

/** history-core's keys of the read paths and of the HBase layout readers share with the job. */
public final class QuerySettings {
  private static final Duration MAX_RETENTION = Duration.ofDays(3650);

  public static final Setting<String> HBASE_TABLE = Setting.string("hbase.table", "playline:history",
      "the history table (created by the job, pre-split, when missing)").rangeNote("`namespace:table`");
  public static final Setting<String> HBASE_FAMILY = Setting.string("hbase.family", "h",
      "the history table's column family").rangeNote("a name without `:`");
  public static final Setting<Duration> HISTORY_RETENTION = Setting.duration("history.retention", Duration.ofDays(90),
      Duration.ofHours(1), MAX_RETENTION, "how long history is kept; the HBase family TTL is the longest retention");
  public static final Setting<Duration> HISTORY_RETENTION_BUSINESS = Setting.duration("history.retention.<business>",
      derived("`history.retention`"), Duration.ofHours(1), MAX_RETENTION, "retention of one business (`video`, "
          + "`article`, `comic`, `live`, `audio`, `episode`; e.g. `history.retention.live=7d`), a read filter; "
          + "another name is refused");
  public static final Setting<Integer> LIST_DEFAULT_LIMIT = Setting.intValue("query.list.default.limit", 20, 1, 1000,
      "page size of `ListHistory` and `HistoryQuery` when the request asks for none")
      .rangeNote("≤ `query.list.max.limit`");
  public static final Setting<Integer> LIST_MAX_LIMIT = Setting.intValue("query.list.max.limit", 100, 1, 1000,
      "largest page size a `ListHistory` or `HistoryQuery` may ask for");
  public static final Setting<Integer> MAX_ITEMS = Setting.intValue("query.max.items", 100, 1, 10_000,
      "items in one progress query or delete, and businesses in one list or clear");
  public static final Setting<Integer> BATCH_MAX_REQUESTS = Setting.intValue("query.batch.max.requests", 100, 1, 10_000,
      "`GetProgress` requests in one `BatchGetProgress` (each one under `query.max.items`); more is "
          + "`INVALID_ARGUMENT`, nothing read");
  public static final Setting<Integer> BATCH_MAX_ITEMS = Setting.intValue("query.batch.max.items", 1000, 1, 100_000,
      "items in all the requests of one `BatchGetProgress` together; more is `INVALID_ARGUMENT`, nothing read. "
          + "With the default `query.batch.max.requests` and `frame.max.bytes`, the largest batch as compact "
          + "Connect JSON (at most ~51 bytes an item and ~41 a request: ~55 KB) fits the body limit, so a batch "
          + "gRPC takes, Connect JSON takes too");
  public static final Setting<Boolean> PROGRESS_HBASE_FALLBACK = Setting.bool("query.progress.hbase.fallback", false,
      "read Redis misses of point progress from HBase");
  public static final Setting<Integer> HBASE_MAX_ITEMS = Setting.intValue("query.hbase.max.items", 1000, 1, 100_000,
      "newest cells read from HBase for a cold user or a page past Redis");
  public static final Setting<Duration> HBASE_TIMEOUT = Setting.duration("query.hbase.timeout", Duration.ofSeconds(5),
      Duration.ofMillis(100), Duration.ofMinutes(5),
      "bound of one HBase read, retries included; x 6 bounds opening the HBase client on first need");

  public static final Setting<Duration> ITEM_STATS_CACHE_TTL = Setting.duration("item.stats.cache.ttl",
      Duration.ofSeconds(30), Duration.ZERO, Duration.ofHours(1), "how long `GetItemStats` keeps an item's counters "
          + "in Redis, zeros of unknown items too (0 = read HBase on every call)");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Reads and the HBase layout", List.of(
      HBASE_TABLE, HBASE_FAMILY, HISTORY_RETENTION, HISTORY_RETENTION_BUSINESS, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT,
      MAX_ITEMS, BATCH_MAX_REQUESTS, BATCH_MAX_ITEMS, PROGRESS_HBASE_FALLBACK, HBASE_MAX_ITEMS, HBASE_TIMEOUT,
      ITEM_STATS_CACHE_TTL));

  private QuerySettings() {}
}
