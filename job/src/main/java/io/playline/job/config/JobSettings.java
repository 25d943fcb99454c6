package io.playline.job.config;

import static io.playline.core.config.Setting.derived;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import io.playline.core.config.WriteBackSettings;
import java.time.Duration;
import java.util.List;

/** The job's keys: how it consumes the write-back topic, writes HBase, retries, and sweeps what a crash left. */
public final class JobSettings {
  private static final Duration DAY = Duration.ofDays(1);

  public static final Setting<String> GROUP_ID = Setting.string("job.group.id", "playline-job",
      "the Kafka consumer group every job instance joins (they split the partitions)");
  public static final Setting<String> INSTANCE_ID = Setting.string("job.instance.id", derived("host name + pid"),
      "a job process's name in its leases and in the live-instance set");
  public static final Setting<Integer> MAX_POLL_RECORDS = Setting.intValue("job.max.poll.records", 500, 1, 100_000,
      "Kafka records per poll, and so per HBase commit");
  public static final Setting<Duration> POLL_TIMEOUT = Setting.duration("job.poll.timeout", Duration.ofSeconds(1),
      Duration.ofMillis(10), Duration.ofMinutes(1), "longest wait of one poll");
  public static final Setting<Duration> RETRY_BACKOFF_BASE = Setting.duration("job.retry.backoff.base",
      Duration.ofMillis(200), Duration.ofMillis(1), Duration.ofMinutes(1), "first pause of the exponential back-off "
          + "with jitter between retries of a failed poll, and between Kafka consumers when one fails");
  public static final Setting<Duration> RETRY_BACKOFF_CAP = Setting.duration("job.retry.backoff.cap",
      Duration.ofSeconds(30), Duration.ofMillis(1), Duration.ofMinutes(10), "longest pause of that back-off")
      .rangeNote("≥ `job.retry.backoff.base`");
  public static final Setting<Duration> REDIS_TIMEOUT = Setting.duration("job.redis.timeout", Duration.ofSeconds(10),
      Duration.ofMillis(100), Duration.ofMinutes(5), "the job's Redis commands (read-back, recovery marks, leases): "
          + "the command timeout of the job's own Redis client, in the job role and in standalone (`redis.timeout` "
          + "is the other processes')");
  public static final Setting<Duration> SHUTDOWN_TIMEOUT = Setting.duration("job.shutdown.timeout",
      Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofMinutes(10), "how long a stopping job waits for its "
          + "in-flight poll to finish (it is committed) before abandoning it uncommitted (redelivered)");
  public static final Setting<Integer> HBASE_TABLE_REGIONS = Setting.intValue("hbase.table.regions", 16, 1, 256,
      "regions a new table is pre-split into");
  public static final Setting<Integer> HBASE_BATCH_SIZE = Setting.intValue("hbase.batch.size", 1000, 1, 100_000,
      "mutations per HBase batch call");
  public static final Setting<Integer> HBASE_CLEAR_PAGE_SIZE = Setting.intValue("hbase.clear.page.size", 1000, 1,
      100_000, "cells scanned per page when a clear of some businesses walks a heavy row");
  public static final Setting<Duration> HBASE_OPERATION_TIMEOUT = Setting.duration("hbase.operation.timeout",
      Duration.ofSeconds(30), Duration.ofMillis(100), Duration.ofMinutes(30), "bound of one HBase call by the job, "
          + "its retries included (a longer outage is retried with back-off)");
  /** Defined in history-core, which derives the tombstone eviction age from it. */
  public static final Setting<Duration> RECOVERY_INTERVAL = WriteBackSettings.RECOVERY_INTERVAL;
  /** Defined in history-core, which derives the tombstone eviction age from it. */
  public static final Setting<Duration> RECOVERY_AGE = WriteBackSettings.RECOVERY_AGE;
  public static final Setting<Integer> RECOVERY_BATCH_SIZE = Setting.intValue("recovery.batch.size", 1000, 1, 100_000,
      "items (recovery-log entries' items, or marks) the sweep reads back and persists per page");
  public static final Setting<Duration> RECOVERY_LEASE_TTL = Setting.duration("recovery.lease.ttl",
      derived("3 × `recovery.interval`"), Duration.ofMillis(200), DAY.multipliedBy(3), "job instances split the "
          + "recovery shards with leases in Redis: a dead instance's shards are taken over after this")
      .rangeNote("> `recovery.interval`");

  public static final Setting<Boolean> ITEM_STATS_ENABLED = Setting.bool("item.stats.enabled", true,
      "the consumer keeps the per-item counters `GetItemStats` answers (tables `<hbase.table>_item_stats` and "
          + "`_item_marks`)");
  public static final Setting<Integer> ITEM_STATS_FINISH_PERCENT = Setting.intValue("item.stats.finish.percent", 95, 1,
      100, "a record at or past this share of its known `duration_ms` counts its user as a finisher (progress -1 "
          + "always does)");

  public static final Setting<Duration> ITEM_STATS_LAST_VIEW_GRANULARITY = Setting.duration(
      "item.stats.last.view.granularity", Duration.ofMinutes(5), Duration.ZERO, DAY, "an item's counters are "
          + "written when a viewer or finisher is added, or when its `last_view_time_ms` moves by at least this: "
          + "`last_view_time_ms` may lag by this much (plus the write-back interval), and the job saves one "
          + "conditional HBase write per item and poll that adds nobody (0 = every poll writes)");
  public static final Setting<Boolean> COMPACT_ENABLED = Setting.bool("history.compact.enabled", true,
      "the job rolls heavy users' older records up into compressed chunks (table `<hbase.table>_chunks`), so a "
          + "read past Redis stays bounded however long a history grows");
  public static final Setting<Integer> COMPACT_THRESHOLD = Setting.intValue("history.compact.threshold", 2000, 2,
      10_000_000, "a user whose live HBase cells exceed this is rolled up");
  public static final Setting<Integer> COMPACT_KEEP = Setting.intValue("history.compact.keep",
      derived("half of `history.compact.threshold`"), 0, 10_000_000,
      "the newest records a roll-up leaves as live cells (the rest go into chunks)")
      .rangeNote("< `history.compact.threshold`");
  public static final Setting<Integer> COMPACT_CHUNK_BYTES = Setting.intValue("history.compact.chunk.bytes", 65_536,
      1024, 16 << 20, "the most uncompressed record bytes in one chunk (a page deep in a history reads one or two)");
  public static final Setting<Duration> COMPACT_AGE = Setting.duration("history.compact.age", Duration.ZERO,
      Duration.ZERO, Duration.ofDays(3650), "a checked user with more than `history.compact.keep` live cells whose "
          + "oldest is older than this is rolled up below the threshold too (0 = by the threshold only)");
  public static final Setting<Integer> COMPACT_MAX_RECORDS = Setting.intValue("history.compact.max.records",
      2_000_000, 1, 100_000_000, "a user with more records than this (live and chunked) is not rolled up, since a "
          + "roll-up holds them all in the job's memory; it is logged and counted instead");
  public static final Setting<Integer> COMPACT_CHECK_EVERY = Setting.intValue("history.compact.check.every", 500, 1,
      10_000_000, "records this job instance persists for one user between two checks of that user's live cells "
          + "(a check reads the row; it rolls up when past the threshold)");
  public static final Setting<Integer> COMPACT_TRACKED_USERS = Setting.intValue("history.compact.tracked.users",
      200_000, 100, 100_000_000, "users whose persisted records the job counts towards that check; when full, "
          + "the users with fewer than the average count are forgotten");
  public static final Setting<Integer> COMPACT_QUEUE = Setting.intValue("history.compact.queue", 10_000, 1,
      10_000_000, "users waiting for a check or roll-up (one background thread); when full, a user is checked "
          + "after its next `history.compact.check.every` records");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Job", List.of(
      GROUP_ID, INSTANCE_ID, MAX_POLL_RECORDS, POLL_TIMEOUT, RETRY_BACKOFF_BASE, RETRY_BACKOFF_CAP, REDIS_TIMEOUT,
      SHUTDOWN_TIMEOUT, HBASE_TABLE_REGIONS, HBASE_BATCH_SIZE, HBASE_CLEAR_PAGE_SIZE, HBASE_OPERATION_TIMEOUT,
      RECOVERY_INTERVAL, RECOVERY_AGE, RECOVERY_BATCH_SIZE, RECOVERY_LEASE_TTL, ITEM_STATS_ENABLED,
      ITEM_STATS_FINISH_PERCENT, ITEM_STATS_LAST_VIEW_GRANULARITY, COMPACT_ENABLED, COMPACT_THRESHOLD, COMPACT_KEEP, COMPACT_CHUNK_BYTES,
      COMPACT_AGE, COMPACT_MAX_RECORDS, COMPACT_CHECK_EVERY, COMPACT_TRACKED_USERS, COMPACT_QUEUE));

  private JobSettings() {}
}
