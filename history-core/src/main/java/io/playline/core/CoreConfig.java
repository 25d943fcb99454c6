package io.playline.core;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.kafka.KafkaClientProperties;
import io.playline.core.kafka.KafkaTopicConfig;
import io.playline.core.query.QueryConfig;
import io.playline.core.store.HBaseLayout;
import io.playline.core.write.FirstTodayOutboxConfig;
import java.time.Duration;
import java.time.ZoneId;

/**
 * history-core settings: the Redis layout, event time clamping, the first-today calendar, the
 * write-back to Kafka, the HBase layout readers share with the job, and the query paths. Every
 * field names its config key; validated here.
 *
 * @param redisKeyPrefix prefix of every Redis key ({@code redis.key.prefix}, "pl:")
 * @param maxItemsPerUser newest items kept per user in Redis ({@code history.redis.max.items}, 1000)
 * @param redisHistoryTtl idle time after which a user's Redis history expires ({@code history.redis.ttl}, 30d)
 * @param clampPast oldest accepted event time before now; older is clamped ({@code event.clamp.past}, 3d)
 * @param clampFuture newest accepted event time after now; newer is clamped ({@code event.clamp.future}, 60s)
 * @param tombstoneTtl how long delete/clear tombstones live in Redis ({@code history.tombstone.ttl}, clampPast + 1d)
 * @param zone the zone whose calendar day the first-today flag counts ({@code flag.zone}, UTC)
 * @param firstTodayShards first-today bitmap keys per day ({@code first.today.shards}, 1000)
 * @param firstTodayBitmapMaxUid largest uid counted in a first-today bitmap ({@code
 *     first.today.bitmap.max.uid}, 2^32 - 1): up to it each shard's bitmap is split into chunks of
 *     2^16 bits (8 KiB), so a lone uid costs one chunk; above it uids go to a set per shard (about 60
 *     bytes each), so memory follows the users counted, never the largest uid
 * @param recoveryShards Redis keys that hold write-back recovery marks ({@code recovery.shards}, 16)
 * @param usersPerScript users whose events one {@code write_history} call applies ({@code
 *     redis.write.users.per.script}, 64): fewer calls cost Redis and the client less per event, more
 *     users per call hold other Redis clients back longer (about 25 us per user); in Redis Cluster a
 *     call only carries users of one hash slot
 * @param kafkaTopics the write-back and first-today topics, as created or checked at start-up ({@code
 *     kafka.topic.*}, {@code kafka.admin.timeout}); see {@link #historyTopic()}, {@link #firstTodayTopic()}
 * @param kafkaClients Kafka client properties passed through to every Kafka client ({@code
 *     kafka.common.*}, {@code kafka.producer.*}, {@code kafka.consumer.*}, {@code kafka.admin.*})
 * @param flushInterval write-back flush period ({@code writeback.flush.interval}, 60s)
 * @param maxPendingItems changed items held before an early flush ({@code writeback.max.pending}, 200000)
 * @param maxRecordBytes largest write-back Kafka record ({@code writeback.max.record.bytes}, 512 KiB)
 * @param maxPendingHardItems pending upserts above which the oldest are dropped while Kafka is down
 *     ({@code writeback.max.pending.hard}, 4 x writeback.max.pending); dropped items are persisted
 *     from their Redis recovery marks
 * @param maxPendingTombstones pending deletes and clears above which new ones are refused
 *     ({@code writeback.max.pending.tombstones}, 100000); they are never dropped
 * @param flushRetryBackoffMax longest pause between write-back send retries ({@code writeback.retry.backoff.max}, 10s)
 * @param flushCloseTimeout how long closing waits for the last write-back flush, and for the first-today
 *     queue to drain ({@code writeback.close.timeout}, 30s)
 * @param firstTodayQueueCapacity first-today events waiting in memory for the node's Kafka send
 *     ({@code first.today.queue.capacity}, 10000); past it an event waits in its outbox for the sweep
 * @param firstTodayOutbox the Redis outbox that keeps first-today events until Kafka acked them
 *     ({@code first.today.outbox.*})
 * @param hbase the HBase table, family and (per-business) retention ({@code hbase.table}, {@code
 *     hbase.family}, {@code history.retention}, {@code history.retention.<business>})
 * @param query the read and user-control settings ({@code query.*})
 */
public record CoreConfig(
    String redisKeyPrefix,
    int maxItemsPerUser,
    Duration redisHistoryTtl,
    Duration clampPast,
    Duration clampFuture,
    Duration tombstoneTtl,
    ZoneId zone,
    int firstTodayShards,
    long firstTodayBitmapMaxUid,
    int recoveryShards,
    int usersPerScript,
    KafkaTopicConfig kafkaTopics,
    KafkaClientProperties kafkaClients,
    Duration flushInterval,
    int maxPendingItems,
    int maxRecordBytes,
    int maxPendingHardItems,
    int maxPendingTombstones,
    Duration flushRetryBackoffMax,
    Duration flushCloseTimeout,
    int firstTodayQueueCapacity,
    FirstTodayOutboxConfig firstTodayOutbox,
    HBaseLayout hbase,
    QueryConfig query) {

  public CoreConfig {
    if (tombstoneTtl.compareTo(clampPast) <= 0) {
      throw new ConfigException("history.tombstone.ttl: " + tombstoneTtl
          + " (expected: longer than event.clamp.past " + clampPast + ", or old events could resurrect deleted items)");
    }
    if (redisKeyPrefix.contains("{") || redisKeyPrefix.contains("}")) {
      throw new ConfigException("redis.key.prefix: '" + redisKeyPrefix + "' (expected: no braces; keys add their own hash tags)");
    }
    if (maxPendingHardItems < maxPendingItems) {
      throw new ConfigException("writeback.max.pending.hard: " + maxPendingHardItems
          + " (expected: >= writeback.max.pending " + maxPendingItems + ")");
    }
    if (firstTodayOutbox.shards() > firstTodayShards) {
      throw new ConfigException("first.today.outbox.shards: " + firstTodayOutbox.shards()
          + " (expected: at most first.today.shards " + firstTodayShards + ")");
    }
  }

  public static CoreConfig from(ConfigSource c) {
    Duration past = c.duration("event.clamp.past", Duration.ofDays(3), Duration.ofMinutes(1), Duration.ofDays(90));
    int maxPending = c.intValue("writeback.max.pending", 200_000, 1, 50_000_000);
    int firstTodayShards = c.intValue("first.today.shards", 1000, 1, 100_000);
    return new CoreConfig(
        c.string("redis.key.prefix", "pl:"),
        c.intValue("history.redis.max.items", 1000, 1, 100_000),
        c.duration("history.redis.ttl", Duration.ofDays(30), Duration.ofMinutes(1), Duration.ofDays(365)),
        past,
        c.duration("event.clamp.future", Duration.ofSeconds(60), Duration.ZERO, Duration.ofDays(1)),
        c.duration("history.tombstone.ttl", past.plusDays(1), Duration.ofMinutes(2), Duration.ofDays(366)),
        c.zone("flag.zone", ZoneId.of("UTC")),
        firstTodayShards,
        c.longValue("first.today.bitmap.max.uid", 0xFFFF_FFFFL, 0, Long.MAX_VALUE),
        c.intValue("recovery.shards", 16, 1, 4096),
        c.intValue("redis.write.users.per.script", 64, 1, 1000),
        KafkaTopicConfig.from(c),
        KafkaClientProperties.from(c),
        c.duration("writeback.flush.interval", Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofHours(1)),
        maxPending,
        c.intValue("writeback.max.record.bytes", 512 * 1024, 1024, 8 * 1024 * 1024),
        c.intValue("writeback.max.pending.hard", 4 * maxPending, 1, 200_000_000),
        c.intValue("writeback.max.pending.tombstones", 100_000, 1, 10_000_000),
        c.duration("writeback.retry.backoff.max", Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofMinutes(5)),
        c.duration("writeback.close.timeout", Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofMinutes(10)),
        c.intValue("first.today.queue.capacity", 10_000, 1, 10_000_000),
        FirstTodayOutboxConfig.from(c, firstTodayShards),
        HBaseLayout.from(c),
        QueryConfig.from(c));
  }

  /** The write-back topic's name ({@code kafka.topic.history}, playline.history.v1). */
  public String historyTopic() {
    return kafkaTopics.history().name();
  }

  /** The first-today topic's name ({@code kafka.topic.first.today}, playline.first-today.v1). */
  public String firstTodayTopic() {
    return kafkaTopics.firstToday().name();
  }

  /** Defaults, for tests and tools. */
  public static CoreConfig defaults() {
    return from(ConfigSource.empty());
  }
}
