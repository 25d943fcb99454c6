package io.playline.job.config;

import io.playline.core.compact.CompactionConfig;
import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.config.HBaseLayout;
import io.playline.proto.v1.Business;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;

/**
 * Settings of the job role: how it consumes the write-back topic, where and how long it keeps
 * history in HBase, how it retries, and how it recovers what a crash left unflushed. Every field
 * names its config key; defaults and ranges are in docs/configuration.md (generated from {@link
 * JobSettings}, which the compact constructor checks each field against). Immutable and
 * thread-safe. The HBase table, family and retention are history-core's {@link HBaseLayout}
 * (readers need them too); see {@link #layout()}.
 *
 * @param groupId Kafka consumer group of every job process ({@code job.group.id})
 * @param maxPollRecords Kafka records handled per poll, and so per HBase commit ({@code job.max.poll.records})
 * @param pollTimeout longest wait of one Kafka poll ({@code job.poll.timeout})
 * @param table HBase table ({@code hbase.table})
 * @param family the table's one column family ({@code hbase.family})
 * @param tableRegions regions a created table is pre-split into ({@code hbase.table.regions})
 * @param hbaseBatchSize mutations per HBase batch call ({@code hbase.batch.size})
 * @param hbaseOperationTimeout bound of one HBase call, retries included ({@code hbase.operation.timeout})
 * @param clearPageSize cells scanned per page when clearing some businesses of a heavy row ({@code hbase.clear.page.size})
 * @param retention how long history is kept ({@code history.retention})
 * @param retentionOverrides per-business retention ({@code history.retention.<business>}, e.g. {@code
 *     history.retention.live=7d}); readers apply it, the HBase family TTL is the longest retention
 * @param redisTimeout bound of one Redis round trip of the job, and the command timeout of its Redis
 *     client ({@code job.redis.timeout}; {@code PlaylineJob.connectRedis})
 * @param retryBackoffBase first delay before retrying a failed poll ({@code job.retry.backoff.base})
 * @param retryBackoffCap longest delay between retries ({@code job.retry.backoff.cap})
 * @param recoveryInterval period of the recovery sweep ({@code recovery.interval})
 * @param recoveryAge recovery marks older than this are swept ({@code recovery.age}; at least
 *     writeback.flush.interval)
 * @param recoveryBatchSize marks read per Redis page of the sweep ({@code recovery.batch.size})
 * @param recoveryLeaseTtl how long a job instance's lease on a recovery shard lasts unless renewed, and
 *     how long an instance counts as live after its last sweep tick ({@code recovery.lease.ttl}; must
 *     exceed recovery.interval): the longest a dead instance's shards go unswept; a lease is renewed
 *     every tick and before every page of its shard
 * @param instanceId names this process among the job instances sharing the sweep ({@code
 *     job.instance.id}); each sweeper adds a random suffix, so equal ids cannot share a lease
 * @param shutdownTimeout bound of {@code close()} ({@code job.shutdown.timeout})
 * @param itemStats whether the consumer keeps the per-item counters ({@code item.stats.enabled})
 * @param itemStatsFinishPercent share of a known duration from which a record counts as finished
 *     ({@code item.stats.finish.percent})
 * @param itemStatsLastViewGranularity how far an item's last view time moves before a poll that adds
 *     nobody writes it ({@code item.stats.last.view.granularity})
 * @param compaction whether and how heavy users are rolled up into chunks ({@code history.compact.*})
 */
public record JobConfig(
    String groupId,
    int maxPollRecords,
    Duration pollTimeout,
    TableName table,
    String family,
    int tableRegions,
    int hbaseBatchSize,
    Duration hbaseOperationTimeout,
    int clearPageSize,
    Duration retention,
    Map<Business, Duration> retentionOverrides,
    Duration redisTimeout,
    Duration retryBackoffBase,
    Duration retryBackoffCap,
    Duration recoveryInterval,
    Duration recoveryAge,
    int recoveryBatchSize,
    Duration recoveryLeaseTtl,
    String instanceId,
    Duration shutdownTimeout,
    boolean itemStats,
    int itemStatsFinishPercent,
    Duration itemStatsLastViewGranularity,
    Compaction compaction) {

  /**
   * The roll-up of heavy users (keys {@code history.compact.*}).
   *
   * @param enabled whether the job rolls users up
   * @param rollup how one roll-up is done
   * @param checkEvery records persisted for one user between two checks
   * @param trackedUsers users counted at once
   * @param queue users waiting for a check
   */
  public record Compaction(boolean enabled, CompactionConfig rollup, int checkEvery, int trackedUsers, int queue) {}

  public JobConfig {
    // Validates table, family and retention the way readers see them.
    retentionOverrides = new HBaseLayout(table, family, retention, retentionOverrides).retentionOverrides();
    ConfigException.check(!groupId.isBlank(), JobSettings.GROUP_ID.key(), groupId, "a non-empty group id");
    JobSettings.MAX_POLL_RECORDS.check(maxPollRecords);
    JobSettings.POLL_TIMEOUT.check(pollTimeout);
    JobSettings.HBASE_TABLE_REGIONS.check(tableRegions);
    JobSettings.HBASE_BATCH_SIZE.check(hbaseBatchSize);
    JobSettings.HBASE_OPERATION_TIMEOUT.check(hbaseOperationTimeout);
    JobSettings.HBASE_CLEAR_PAGE_SIZE.check(clearPageSize);
    JobSettings.REDIS_TIMEOUT.check(redisTimeout);
    JobSettings.RETRY_BACKOFF_BASE.check(retryBackoffBase);
    JobSettings.RETRY_BACKOFF_CAP.check(retryBackoffCap);
    ConfigException.check(retryBackoffCap.compareTo(retryBackoffBase) >= 0, JobSettings.RETRY_BACKOFF_CAP.key(),
        retryBackoffCap, "at least job.retry.backoff.base " + retryBackoffBase);
    JobSettings.RECOVERY_INTERVAL.check(recoveryInterval);
    JobSettings.RECOVERY_AGE.check(recoveryAge);
    JobSettings.RECOVERY_BATCH_SIZE.check(recoveryBatchSize);
    JobSettings.RECOVERY_LEASE_TTL.check(recoveryLeaseTtl);
    ConfigException.check(recoveryLeaseTtl.compareTo(recoveryInterval) > 0, JobSettings.RECOVERY_LEASE_TTL.key(),
        recoveryLeaseTtl, "longer than recovery.interval " + recoveryInterval + ", or every lease would lapse "
            + "between ticks");
    ConfigException.check(!instanceId.isBlank(), JobSettings.INSTANCE_ID.key(), instanceId, "a non-empty id");
    JobSettings.SHUTDOWN_TIMEOUT.check(shutdownTimeout);
    JobSettings.ITEM_STATS_FINISH_PERCENT.check(itemStatsFinishPercent);
    JobSettings.ITEM_STATS_LAST_VIEW_GRANULARITY.check(itemStatsLastViewGranularity);
  }

  /**
   * Reads the job settings from {@code c}; {@code core} gives the defaults that depend on the
   * write-back ({@code recovery.age} must be at least {@code writeback.flush.interval}, or the
   * sweep would race every regular flush).
   *
   * @throws ConfigException naming the key when a value is malformed or out of range
   */
  public static JobConfig from(ConfigSource c, CoreConfig core) {
    HBaseLayout layout = HBaseLayout.from(c);
    Duration recoveryAge = JobSettings.RECOVERY_AGE.read(c, core.flushInterval().multipliedBy(3));
    if (recoveryAge.compareTo(core.flushInterval()) < 0) {
      throw new ConfigException("recovery.age: " + recoveryAge + " (expected: at least writeback.flush.interval "
          + core.flushInterval() + ", or the sweep would persist what the next flush is about to)");
    }
    Duration recoveryInterval = JobSettings.RECOVERY_INTERVAL.read(c);
    return new JobConfig(
        JobSettings.GROUP_ID.read(c),
        JobSettings.MAX_POLL_RECORDS.read(c),
        JobSettings.POLL_TIMEOUT.read(c),
        layout.table(),
        layout.family(),
        JobSettings.HBASE_TABLE_REGIONS.read(c),
        JobSettings.HBASE_BATCH_SIZE.read(c),
        JobSettings.HBASE_OPERATION_TIMEOUT.read(c),
        JobSettings.HBASE_CLEAR_PAGE_SIZE.read(c),
        layout.retention(),
        layout.retentionOverrides(),
        JobSettings.REDIS_TIMEOUT.read(c),
        JobSettings.RETRY_BACKOFF_BASE.read(c),
        JobSettings.RETRY_BACKOFF_CAP.read(c),
        recoveryInterval,
        recoveryAge,
        JobSettings.RECOVERY_BATCH_SIZE.read(c),
        JobSettings.RECOVERY_LEASE_TTL.read(c, recoveryInterval.multipliedBy(3)),
        JobSettings.INSTANCE_ID.read(c, defaultInstanceId()),
        JobSettings.SHUTDOWN_TIMEOUT.read(c),
        JobSettings.ITEM_STATS_ENABLED.read(c),
        JobSettings.ITEM_STATS_FINISH_PERCENT.read(c),
        JobSettings.ITEM_STATS_LAST_VIEW_GRANULARITY.read(c),
        compaction(c));
  }

  private static Compaction compaction(ConfigSource c) {
    int threshold = JobSettings.COMPACT_THRESHOLD.read(c);
    int keep = JobSettings.COMPACT_KEEP.read(c, threshold / 2);
    if (keep >= threshold) {
      throw new ConfigException("history.compact.keep: " + keep + " (expected: < history.compact.threshold "
          + threshold + ")");
    }
    return new Compaction(JobSettings.COMPACT_ENABLED.read(c),
        new CompactionConfig(threshold, keep, JobSettings.COMPACT_CHUNK_BYTES.read(c),
            JobSettings.HBASE_BATCH_SIZE.read(c), JobSettings.HBASE_OPERATION_TIMEOUT.read(c),
            JobSettings.COMPACT_MAX_RECORDS.read(c), JobSettings.COMPACT_AGE.read(c)),
        JobSettings.COMPACT_CHECK_EVERY.read(c), JobSettings.COMPACT_TRACKED_USERS.read(c),
        JobSettings.COMPACT_QUEUE.read(c));
  }

  private static String defaultInstanceId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "job";
    }
    return host + "-" + ProcessHandle.current().pid();
  }

  /** Defaults, for tests and tools. */
  public static JobConfig defaults() {
    return from(ConfigSource.empty(), CoreConfig.defaults());
  }

  /** The table, family and retention of this config, as history-core's readers see them. */
  public HBaseLayout layout() {
    return new HBaseLayout(table, family, retention, retentionOverrides);
  }

  /** How long records of {@code business} are kept: its override, else {@link #retention()}. */
  public Duration retention(Business business) {
    return layout().retention(business);
  }

  /** The longest retention of any business: the HBase family TTL, since a family has one TTL. */
  public Duration maxRetention() {
    return layout().maxRetention();
  }

  /** The config key of {@code business}'s retention override, e.g. {@code history.retention.live}. */
  public static String retentionKey(Business business) {
    return HBaseLayout.retentionKey(business);
  }

}
