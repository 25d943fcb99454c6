package io.playline.core.query;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Meters of the read and user-control paths: queries by kind and outcome with latency, which tier
 * answered, warm-ups and the records they applied, HBase reads, deleted items and clears.
 * Thread-safe.
 */
final class QueryMetrics {
  static final String REDIS = "redis";
  static final String HBASE = "hbase";

  private final MeterRegistry registry;
  private final Counter warmups;
  private final DistributionSummary warmedRecords;
  private final Counter hbaseReads;
  private final Counter deletedItems;
  private final Counter tombstonesEvicted;
  private final Counter deletesRefused;
  private final Counter clearsAll;
  private final Counter clearsBusinesses;
  private final Counter plainPageReads;
  private final Counter scriptPageReads;
  private final Counter chunkReads;
  private final Counter hbaseBytes;
  private final Counter missingChunks;
  // Meters by tag value, registered on first use: looked up per query without building a meter id.
  private final Map<String, Map<String, Counter>> requests = new ConcurrentHashMap<>();
  private final Map<String, Timer> latency = new ConcurrentHashMap<>();
  private final Map<String, Map<String, Counter>> tiers = new ConcurrentHashMap<>();

  QueryMetrics(MeterRegistry registry) {
    this.registry = registry;
    warmups = Counter.builder("playline.query.warmups")
        .description("Users whose Redis timeline was warmed from HBase").register(registry);
    warmedRecords = DistributionSummary.builder("playline.query.warmup.records")
        .description("Records a warm-up applied to Redis (newer writes and tombstones win)").register(registry);
    hbaseReads = Counter.builder("playline.query.hbase.reads")
        .description("HBase reads of the query path (row scans and point gets)").register(registry);
    deletedItems = Counter.builder("playline.query.deleted.items")
        .description("Items named by applied deletes").register(registry);
    tombstonesEvicted = Counter.builder("playline.query.tombstones.evicted")
        .description("Item delete tombstones evicted from Redis by history.tombstones.max.per.user (oldest first)")
        .register(registry);
    deletesRefused = Counter.builder("playline.query.deletes.refused")
        .description("Deletes refused RATE_LIMITED: past history.tombstones.max.per.user with too few tombstones old "
            + "enough to evict")
        .register(registry);
    clearsAll = Counter.builder("playline.query.clears").tag("scope", "all")
        .description("Applied clears of a whole history").register(registry);
    clearsBusinesses = Counter.builder("playline.query.clears").tag("scope", "businesses")
        .description("Applied clears of some businesses").register(registry);
    String pageReads = "Timeline page reads from Redis by plain pipelined commands, or by read_timeline.lua "
        + "(sparse filters, ties at a cursor, records gone mid-read)";
    plainPageReads = Counter.builder("playline.query.redis.page.reads").tag("path", "plain")
        .description(pageReads).register(registry);
    scriptPageReads = Counter.builder("playline.query.redis.page.reads").tag("path", "script")
        .description(pageReads).register(registry);
    hbaseBytes = Counter.builder("playline.query.hbase.bytes")
        .description("Bytes of HBase cells history reads received (row key, qualifier, value and timestamp of "
            + "each live cell scanned or got, and each compressed chunk)").register(registry);
    chunkReads = Counter.builder("playline.query.hbase.chunks")
        .description("Compacted history chunks read (and decompressed) by history reads").register(registry);
    missingChunks = Counter.builder("playline.query.hbase.chunks.missing")
        .description("Chunks an index named but HBase did not have although their records were within retention "
            + "(after re-reading the index): those records were skipped").register(registry);
  }

  /** A timeline page was read from Redis by plain commands ({@code plain}) or by the script. */
  void pageRead(boolean plain) {
    (plain ? plainPageReads : scriptPageReads).increment();
  }

  /**
   * One finished query of {@code kind} (progress, progress_batch, list, delete, clear, set_paused,
   * paused, item_stats) that took {@code nanos}.
   */
  void finished(String kind, String outcome, long nanos) {
    counter(requests, kind, outcome, () -> Counter.builder("playline.query.requests").tag("kind", kind)
        .tag("outcome", outcome).description("History queries and controls by kind and outcome")).increment();
    Timer timer = latency.get(kind);
    if (timer == null) {
      timer = latency.computeIfAbsent(kind, k -> Timer.builder("playline.query.latency").tag("kind", k)
          .description("From call to completion of a history query or control").register(registry));
    }
    timer.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** A {@code kind} query was answered with help of {@code tier} (redis alone, or hbase too). */
  void tier(String kind, String tier) {
    counter(tiers, kind, tier, () -> Counter.builder("playline.query.tier").tag("kind", kind).tag("tier", tier)
        .description("Queries (and each user's lookup of a batch) answered from Redis alone, or with an HBase read"))
        .increment();
  }

  /** The counter of tag values {@code a} and {@code b} in {@code cache}, registered from {@code builder} on first use. */
  private Counter counter(Map<String, Map<String, Counter>> cache, String a, String b,
      Supplier<Counter.Builder> builder) {
    Map<String, Counter> byB = cache.get(a);
    Counter counter = byB == null ? null : byB.get(b);
    return counter != null ? counter
        : cache.computeIfAbsent(a, k -> new ConcurrentHashMap<>()).computeIfAbsent(b, k -> builder.get().register(registry));
  }

  void hbaseBytes(long n) {
    hbaseBytes.increment(n);
  }

  /** Bytes of a cell as received: row, family, qualifier, timestamp and value. */
  static long bytes(org.apache.hadoop.hbase.Cell cell) {
    return cell.getRowLength() + cell.getFamilyLength() + cell.getQualifierLength() + Long.BYTES
        + cell.getValueLength();
  }

  void chunksRead(int n) {
    chunkReads.increment(n);
  }

  void chunkMissing() {
    missingChunks.increment();
  }

  void hbaseRead() {
    hbaseReads.increment();
  }

  void warmedUp(long applied) {
    warmups.increment();
    warmedRecords.record(applied);
  }

  void deleted(int items) {
    deletedItems.increment(items);
  }

  void tombstonesEvicted(long evicted) {
    if (evicted > 0) {
      tombstonesEvicted.increment(evicted);
    }
  }

  void deletesRefused() {
    deletesRefused.increment();
  }

  void cleared(boolean everything) {
    (everything ? clearsAll : clearsBusinesses).increment();
  }
}
