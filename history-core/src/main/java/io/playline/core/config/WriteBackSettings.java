package io.playline.core.config;

import static io.playline.core.config.Setting.derived;

import java.time.Duration;
import java.util.List;

/** history-core's write-back keys: how changes are folded and sent to Kafka, and the recovery log behind them. */
public final class WriteBackSettings {
  public static final Setting<Duration> FLUSH_INTERVAL = Setting.duration("writeback.flush.interval",
      Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofHours(1), "write-back to Kafka");
  public static final Setting<Integer> MAX_PENDING = Setting.intValue("writeback.max.pending", 200_000, 1, 50_000_000,
      "changed items that make the write-back flush early (while Kafka is failing: fold them into the unsent set)");
  public static final Setting<Integer> MAX_PENDING_HARD = Setting.intValue("writeback.max.pending.hard",
      derived("4 × `writeback.max.pending`"), 1, 200_000_000, "unsent upserts kept while Kafka is down: past it the "
          + "least recently written users' upserts are dropped (counted in `playline_writeback_dropped_total`, "
          + "logged) and their recovery-log entries bring them to HBase through the sweep (so do the entries it holds, "
          + "forgotten past this many). The write-back holds at most "
          + "this plus `writeback.max.pending` upserts plus `writeback.max.pending.tombstones` deletes and clears, "
          + "however long Kafka is down — also while a send to a hung Kafka blocks (then only the newest "
          + "`writeback.max.pending` new upserts wait beside the unsent ones; `WriteBackOutageTest`) "
          + "(`TopologyFaultsTest`'s outage test samples it)")
      .rangeNote("≥ `writeback.max.pending`");
  public static final Setting<Integer> MAX_PENDING_TOMBSTONES = Setting.intValue("writeback.max.pending.tombstones",
      100_000, 1, 10_000_000, "unsent deletes and clears; past it a delete or clear fails as retriable — it is "
          + "applied in Redis and its own recovery mark brings it to HBase through the sweep");
  public static final Setting<Integer> MAX_RECORD_BYTES = Setting.bytes("writeback.max.record.bytes", 512 * 1024, 1024,
      8 * 1024 * 1024, "largest write-back Kafka record (a user's changes split across records beyond it)");
  public static final Setting<Duration> RETRY_BACKOFF_MAX = Setting.duration("writeback.retry.backoff.max",
      Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofMinutes(5), "longest pause between failed sends");
  public static final Setting<Duration> CLOSE_TIMEOUT = Setting.duration("writeback.close.timeout",
      Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofMinutes(10),
      "how long a stop keeps flushing (and draining the first-today queue) before leaving the rest to the "
          + "recovery sweep");
  public static final Setting<Integer> RECOVERY_SHARDS = Setting.intValue("recovery.shards", 16, 1, 4096,
      "recovery shards, each a Redis stream of write calls' entries (`<prefix>wb:{shard}:log`, deleted once "
          + "Kafka acknowledged their items) and a sorted set of delete and clear marks (`<prefix>wb:{shard}`, "
          + "the shard's last stamp in `<prefix>wb:{shard}:c`); the same on every node");

  // The job's sweep settings (listed in its catalogue), here because CoreConfig derives the tombstone
  // eviction age from them.
  public static final Setting<Duration> RECOVERY_INTERVAL = Setting.duration("recovery.interval",
      Duration.ofSeconds(30), Duration.ofMillis(100), Duration.ofDays(1),
      "how often each job instance sweeps the recovery shards it leases");
  public static final Setting<Duration> RECOVERY_AGE = Setting.duration("recovery.age",
      derived("3 × `writeback.flush.interval`"), Duration.ofSeconds(1), Duration.ofDays(1),
      "a recovery-log entry or mark older than this by the shard's Redis clock is persisted by the job's sweep "
          + "(its write-back is taken as lost). Node clocks play no part: entries and marks are stamped and aged "
          + "by Redis").rangeNote("≥ `writeback.flush.interval`");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Write-back", List.of(
      FLUSH_INTERVAL, MAX_PENDING, MAX_PENDING_HARD, MAX_PENDING_TOMBSTONES, MAX_RECORD_BYTES, RETRY_BACKOFF_MAX,
      CLOSE_TIMEOUT, RECOVERY_SHARDS));

  private WriteBackSettings() {}
}
