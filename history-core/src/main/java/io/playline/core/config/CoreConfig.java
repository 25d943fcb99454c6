package io.playline.core.config;

import java.time.Duration;
import java.time.ZoneId;

/**
 * history-core settings: the Redis layout, event time clamping, the first-today calendar, the
 * write-back to Kafka, the HBase layout readers share with the job, the query paths, and the
 * process's Redis and Kafka clients. Every field names its config key, whose default and range are
 * in docs/configuration.md (generated from the {@code *Settings} catalogues); validated here.
 *
 * @param redisKeyPrefix prefix of every Redis key ({@code redis.key.prefix})
 * @param maxItemsPerUser newest items kept per user in Redis ({@code history.redis.max.items})
 * @param redisHistoryTtl idle time after which a user's Redis history expires ({@code history.redis.ttl})
 * @param clampPast oldest accepted event time before now; older is clamped ({@code event.clamp.past})
 * @param clampFuture newest accepted event time after now; newer is clamped ({@code event.clamp.future})
 * @param tombstoneTtl how long delete/clear tombstones live in Redis ({@code history.tombstone.ttl})
 * @param maxTombstonesPerUser item delete tombstones kept per user in Redis ({@code
 *     history.tombstones.max.per.user}): past it the oldest are evicted once older than
 *     tombstoneEvictionAge, else the delete is refused
 * @param tombstoneEvictionAge the age past which an item tombstone may be evicted for a user over the
 *     cap ({@code history.tombstone.eviction.age}; by default the tombstone TTL, so never: nothing
 *     confirms yet that an evicted delete reached HBase)
 * @param zone the zone whose calendar day the first-today flag counts ({@code flag.zone})
 * @param firstTodayShards first-today bitmap keys per day ({@code first.today.shards})
 * @param firstTodayBitmapMaxUid largest uid counted in a first-today bitmap ({@code
 *     first.today.bitmap.max.uid}): up to it each shard's bitmap is split into chunks of
 *     2^16 bits (8 KiB), so a lone uid costs one chunk; above it uids go to a set per shard (about 60
 *     bytes each), so memory follows the users counted, never the largest uid
 * @param recoveryShards recovery shards: each a recovery log of write calls and the marks of deletes and
 *     clears ({@code recovery.shards})
 * @param usersPerScript users whose events one {@code write_history} call applies ({@code
 *     redis.write.users.per.script}): fewer calls cost Redis and the client less per event, more
 *     users per call hold other Redis clients back longer (about 25 us per user); in Redis Cluster a
 *     call only carries users of one hash slot
 * @param kafkaTopics the write-back and first-today topics, as created or checked at start-up ({@code
 *     kafka.topic.*}, {@code kafka.admin.timeout}); see {@link #historyTopic()}, {@link #firstTodayTopic()}
 * @param kafkaClients Kafka client properties passed through to every Kafka client ({@code
 *     kafka.common.*}, {@code kafka.producer.*}, {@code kafka.consumer.*}, {@code kafka.admin.*})
 * @param flushInterval write-back flush period ({@code writeback.flush.interval})
 * @param maxPendingItems changed items held before an early flush ({@code writeback.max.pending})
 * @param maxRecordBytes largest write-back Kafka record ({@code writeback.max.record.bytes})
 * @param maxPendingHardItems pending upserts above which the oldest are dropped while Kafka is down
 *     ({@code writeback.max.pending.hard}); dropped items are persisted
 *     from their Redis recovery-log entries
 * @param maxPendingTombstones pending deletes and clears above which new ones are refused
 *     ({@code writeback.max.pending.tombstones}); they are never dropped
 * @param flushRetryBackoffMax longest pause between write-back send retries ({@code writeback.retry.backoff.max})
 * @param flushCloseTimeout how long closing waits for the last write-back flush, and for the first-today
 *     queue to drain ({@code writeback.close.timeout})
 * @param firstTodayQueueCapacity first-today events waiting in memory for the node's Kafka send
 *     ({@code first.today.queue.capacity}); past it an event waits in its outbox for the sweep
 * @param firstTodayOutbox the Redis outbox that keeps first-today events until Kafka acked them
 *     ({@code first.today.outbox.*})
 * @param hbase the HBase table, family and (per-business) retention ({@code hbase.table}, {@code
 *     hbase.family}, {@code history.retention}, {@code history.retention.<business>})
 * @param query the read and user-control settings ({@code query.*})
 * @param redisTimeout command timeout of the process's Redis client ({@code redis.timeout}); the
 *     job's own client uses {@code job.redis.timeout} instead
 * @param redisCluster whether the Redis URI is one seed node of a Redis Cluster ({@code redis.cluster})
 * @param redisTopology how a Redis Cluster client follows the cluster ({@code redis.cluster.refresh.*})
 * @param kafkaProducer the process's Kafka producer ({@code kafka.client.id}, {@code kafka.producer.*})
 */
public record CoreConfig(
    String redisKeyPrefix,
    int maxItemsPerUser,
    Duration redisHistoryTtl,
    Duration clampPast,
    Duration clampFuture,
    Duration tombstoneTtl,
    int maxTombstonesPerUser,
    Duration tombstoneEvictionAge,
    ZoneId zone,
    int firstTodayShards,
    long firstTodayBitmapMaxUid,
    int recoveryShards,
    int usersPerScript,
    KafkaTopicConfig kafkaTopics,
    KafkaClientConfig kafkaClients,
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
    QueryConfig query,
    Duration redisTimeout,
    boolean redisCluster,
    ClusterTopologyConfig redisTopology,
    KafkaProducerConfig kafkaProducer) {

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
    Duration past = CoreSettings.EVENT_CLAMP_PAST.read(c);
    Duration tombstoneTtl = CoreSettings.HISTORY_TOMBSTONE_TTL.read(c, past.plusDays(1));
    int maxPending = WriteBackSettings.MAX_PENDING.read(c);
    int firstTodayShards = FirstTodaySettings.SHARDS.read(c);
    return new CoreConfig(
        CoreSettings.REDIS_KEY_PREFIX.read(c),
        CoreSettings.HISTORY_REDIS_MAX_ITEMS.read(c),
        CoreSettings.HISTORY_REDIS_TTL.read(c),
        past,
        CoreSettings.EVENT_CLAMP_FUTURE.read(c),
        tombstoneTtl,
        CoreSettings.HISTORY_TOMBSTONES_MAX_PER_USER.read(c),
        CoreSettings.HISTORY_TOMBSTONE_EVICTION_AGE.read(c, tombstoneTtl),
        FirstTodaySettings.FLAG_ZONE.read(c),
        firstTodayShards,
        FirstTodaySettings.BITMAP_MAX_UID.read(c),
        WriteBackSettings.RECOVERY_SHARDS.read(c),
        CoreSettings.USERS_PER_SCRIPT.read(c),
        KafkaTopicConfig.from(c),
        KafkaClientConfig.from(c),
        WriteBackSettings.FLUSH_INTERVAL.read(c),
        maxPending,
        WriteBackSettings.MAX_RECORD_BYTES.read(c),
        WriteBackSettings.MAX_PENDING_HARD.read(c, 4 * maxPending),
        WriteBackSettings.MAX_PENDING_TOMBSTONES.read(c),
        WriteBackSettings.RETRY_BACKOFF_MAX.read(c),
        WriteBackSettings.CLOSE_TIMEOUT.read(c),
        FirstTodaySettings.QUEUE_CAPACITY.read(c),
        FirstTodayOutboxConfig.from(c, firstTodayShards),
        HBaseLayout.from(c),
        QueryConfig.from(c),
        CoreSettings.REDIS_TIMEOUT.read(c),
        CoreSettings.REDIS_CLUSTER.read(c),
        ClusterTopologyConfig.from(c),
        KafkaProducerConfig.from(c));
  }

  /** The write-back topic's name ({@code kafka.topic.history}). */
  public String historyTopic() {
    return kafkaTopics.history().name();
  }

  /** The first-today topic's name ({@code kafka.topic.first.today}). */
  public String firstTodayTopic() {
    return kafkaTopics.firstToday().name();
  }

  /** Defaults, for tests and tools. */
  public static CoreConfig defaults() {
    return from(ConfigSource.empty());
  }
}
