package io.playline.core.config;

import static io.playline.core.config.Setting.derived;

import java.time.Duration;
import java.util.List;

/** history-core's keys of Redis and the write path: where history lives in Redis and which event times it takes. */
public final class CoreSettings {
  public static final Setting<String> REDIS_KEY_PREFIX = Setting.string("redis.key.prefix", "pl:",
      "prefix of every Redis key").rangeNote("no braces");
  public static final Setting<Duration> REDIS_TIMEOUT = Setting.duration("redis.timeout", Duration.ofSeconds(5),
      Duration.ofMillis(100), Duration.ofMinutes(1),
      "every Redis command of a gateway or API process (the write path, queries, first-today outboxes)");
  public static final Setting<Boolean> REDIS_CLUSTER = Setting.bool("redis.cluster", false,
      "the Redis URI is one seed node of a Redis Cluster");
  public static final Setting<Duration> REDIS_CLUSTER_REFRESH_PERIOD = Setting.duration("redis.cluster.refresh.period",
      Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofHours(1), "periodic re-read of the cluster topology");
  public static final Setting<Duration> REDIS_CLUSTER_REFRESH_ADAPTIVE_TIMEOUT = Setting.duration(
      "redis.cluster.refresh.adaptive.timeout", Duration.ofSeconds(2), Duration.ofMillis(100), Duration.ofMinutes(5),
      "least time between topology refreshes triggered by `MOVED`/`ASK`, a node refusing reconnects, an uncovered "
          + "slot or an unknown node. A killed master's replica is followed within seconds of its promotion, and a "
          + "slot moved to another master (resharding) through its `MOVED` redirects, on the same connections, "
          + "pipelines included (`RedisClusterFailoverTest`)");
  public static final Setting<Integer> HISTORY_REDIS_MAX_ITEMS = Setting.intValue("history.redis.max.items", 1000, 1,
      100_000, "newest items per user kept in Redis");
  public static final Setting<Duration> HISTORY_REDIS_TTL = Setting.duration("history.redis.ttl", Duration.ofDays(30),
      Duration.ofMinutes(1), Duration.ofDays(365), "idle expiry of a user's Redis history");
  public static final Setting<Integer> USERS_PER_SCRIPT = Setting.intValue("redis.write.users.per.script", 64, 1, 1000,
      "users whose heartbeats one `write_history` call applies (each user atomically); more users per call cost "
          + "Redis and the gateway less per heartbeat (+18 % peak throughput at 64 vs 1) but hold other Redis clients "
          + "back longer (~25 µs per user); in Redis Cluster a call only carries users of one hash slot");
  public static final Setting<Duration> EVENT_CLAMP_PAST = Setting.duration("event.clamp.past", Duration.ofDays(3),
      Duration.ofMinutes(1), Duration.ofDays(90),
      "client event times are clamped into [now − past, now + future]: the oldest accepted event time");
  public static final Setting<Duration> EVENT_CLAMP_FUTURE = Setting.duration("event.clamp.future",
      Duration.ofSeconds(60), Duration.ZERO, Duration.ofDays(1), "the newest accepted event time after now");
  public static final Setting<Duration> HISTORY_TOMBSTONE_TTL = Setting.duration("history.tombstone.ttl",
      derived("`event.clamp.past` + 1d"), Duration.ofMinutes(2), Duration.ofDays(366),
      "how long delete and clear tombstones live in Redis; shorter would let old events resurrect deleted items")
      .rangeNote("> `event.clamp.past`");
  public static final Setting<Integer> HISTORY_TOMBSTONES_MAX_PER_USER = Setting.intValue(
      "history.tombstones.max.per.user", 1000, 16, 1_000_000,
      "item delete tombstones kept per user in Redis, so deleting never-played items cannot grow a user's hash, or "
          + "the Redis time of a read that returns it, without bound. A delete past it evicts the oldest only once "
          + "older than `history.tombstone.eviction.age` (`playline.query.tombstones.evicted`), else it is refused "
          + "`RATE_LIMITED` with `retry_after_ms`, nothing applied; a delete naming more items is `INVALID_ARGUMENT`. "
          + "Evictions raise a per-user floor that refuses events not after it for items with no record in Redis; "
          + "clears are never evicted");
  public static final Setting<Duration> HISTORY_TOMBSTONE_EVICTION_AGE = Setting.duration(
      "history.tombstone.eviction.age", derived("`history.tombstone.ttl` (never evicted: past the cap, deletes wait "
          + "for the oldest to expire)"), Duration.ofMinutes(1), Duration.ofDays(366),
      "age past which a user over `history.tombstones.max.per.user` may lose an item tombstone to a new delete. "
          + "Nothing confirms yet that the evicted delete reached HBase: set it below the tombstone TTL only above "
          + "the longest time a delete can take to get there (`writeback.flush.interval` + `recovery.age` + "
          + "`recovery.interval` + the job's worst lag or outage), or an acked delete can be lost or show again "
          + "from HBase");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Redis and the write path", List.of(
      REDIS_KEY_PREFIX, REDIS_TIMEOUT, REDIS_CLUSTER, REDIS_CLUSTER_REFRESH_PERIOD,
      REDIS_CLUSTER_REFRESH_ADAPTIVE_TIMEOUT, HISTORY_REDIS_MAX_ITEMS, HISTORY_REDIS_TTL, USERS_PER_SCRIPT,
      EVENT_CLAMP_PAST, EVENT_CLAMP_FUTURE, HISTORY_TOMBSTONE_TTL, HISTORY_TOMBSTONES_MAX_PER_USER,
      HISTORY_TOMBSTONE_EVICTION_AGE));

  private CoreSettings() {}
}
