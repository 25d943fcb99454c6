package io.playline.job;

import io.playline.core.CoreConfig;
import io.playline.core.compact.CompactionConfig;
import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.store.HBaseLayout;
import io.playline.proto.v1.Business;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;

/**
 * Settings of the job role: how it consumes the write-back topic, where and how long it keeps
 * history in HBase, how it retries, and how it recovers what a crash left unflushed. Every field
 * names its config key; validated in the compact constructor. Immutable and thread-safe. The HBase
 * table, family and retention are history-core's {@link HBaseLayout} (readers need them too); see
 * {@link #layout()}.
 *
 * @param groupId Kafka consumer group of every job process ({@code job.group.id}, playline-job)
 * @param maxPollRecords Kafka records handled per poll, and so per HBase commit ({@code job.max.poll.records}, 500)
 * @param pollTimeout longest wait of one Kafka poll ({@code job.poll.timeout}, 1s)
 * @param table HBase table ({@code hbase.table}, playline:history)
 * @param family the table's one column family ({@code hbase.family}, h)
 * @param tableRegions regions a created table is pre-split into ({@code hbase.table.regions}, 16)
 * @param hbaseBatchSize mutations per HBase batch call ({@code hbase.batch.size}, 1000)
 * @param hbaseOperationTimeout bound of one HBase call, retries included ({@code hbase.operation.timeout}, 30s)
 * @param clearPageSize cells scanned per page when clearing some businesses of a heavy row ({@code hbase.clear.page.size}, 1000)
 * @param retention how long history is kept ({@code history.retention}, 90d)
 * @param retentionOverrides per-business retention ({@code history.retention.<business>}, e.g. {@code
 *     history.retention.live=7d}); readers apply it, the HBase family TTL is the longest retention
 * @param redisTimeout bound of one Redis round trip of the job ({@code job.redis.timeout}, 10s)
 * @param retryBackoffBase first delay before retrying a failed poll ({@code job.retry.backoff.base}, 200ms)
 * @param retryBackoffCap longest delay between retries ({@code job.retry.backoff.cap}, 30s)
 * @param recoveryInterval period of the recovery sweep ({@code recovery.interval}, 30s)
 * @param recoveryAge recovery marks older than this are swept ({@code recovery.age}, 3 x writeback.flush.interval)
 * @param recoveryBatchSize marks read per Redis page of the sweep ({@code recovery.batch.size}, 1000)
 * @param recoveryLeaseTtl how long a job instance's lease on a recovery shard lasts unless renewed, and
 *     how long an instance counts as live after its last sweep tick ({@code recovery.lease.ttl}, 3 x
 *     recovery.interval; must exceed recovery.interval): the longest a dead instance's shards go
 *     unswept; a lease is renewed every tick and before every page of its shard
 * @param instanceId names this process among the job instances sharing the sweep ({@code
 *     job.instance.id}, host-pid); each sweeper adds a random suffix, so equal ids cannot share a lease
 * @param shutdownTimeout bound of {@code close()} ({@code job.shutdown.timeout}, 30s)
 * @param itemStats whether the consumer keeps the per-item counters ({@code item.stats.enabled}, true)
 * @param itemStatsFinishPercent share of a known duration from which a record counts as finished
 *     ({@code item.stats.finish.percent}, 95)
 * @param itemStatsLastViewGranularity how far an item's last view time moves before a poll that adds
 *     nobody writes it ({@code item.stats.last.view.granularity}, 5 min)
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
    check(!groupId.isBlank(), "job.group.id", groupId, "a non-empty group id");
    check(maxPollRecords > 0, "job.max.poll.records", maxPollRecords, "> 0");
    check(tableRegions >= 1 && tableRegions <= 256, "hbase.table.regions", tableRegions, "1..256");
    check(hbaseBatchSize > 0, "hbase.batch.size", hbaseBatchSize, "> 0");
    check(clearPageSize > 0, "hbase.clear.page.size", clearPageSize, "> 0");
    check(recoveryBatchSize > 0, "recovery.batch.size", recoveryBatchSize, "> 0");
    check(positive(pollTimeout), "job.poll.timeout", pollTimeout, "> 0");
    check(positive(hbaseOperationTimeout) && hbaseOperationTimeout.toMillis() <= Integer.MAX_VALUE,
        "hbase.operation.timeout", hbaseOperationTimeout, "> 0 and < 24d");
    check(positive(redisTimeout), "job.redis.timeout", redisTimeout, "> 0");
    check(positive(retryBackoffBase), "job.retry.backoff.base", retryBackoffBase, "> 0");
    check(retryBackoffCap.compareTo(retryBackoffBase) >= 0, "job.retry.backoff.cap", retryBackoffCap,
        "at least job.retry.backoff.base " + retryBackoffBase);
    check(positive(recoveryInterval), "recovery.interval", recoveryInterval, "> 0");
    check(positive(recoveryAge), "recovery.age", recoveryAge, "> 0");
    check(recoveryLeaseTtl.compareTo(recoveryInterval) > 0, "recovery.lease.ttl", recoveryLeaseTtl,
        "longer than recovery.interval " + recoveryInterval + ", or every lease would lapse between ticks");
    check(!instanceId.isBlank(), "job.instance.id", instanceId, "a non-empty id");
    check(positive(shutdownTimeout), "job.shutdown.timeout", shutdownTimeout, "> 0");
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

  private static boolean positive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }

  private static void check(boolean ok, String key, Object value, String expected) {
    if (!ok) {
      throw new ConfigException(key + ": " + value + " (expected: " + expected + ")");
    }
  }
}
