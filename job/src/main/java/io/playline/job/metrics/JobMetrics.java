package io.playline.job.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.playline.time.Time;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Meters of the job role: what it consumed, what it wrote to HBase, how often it had to retry or
 * skip, and what the recovery sweep found. Names start with {@code playline.job.}. Thread-safe.
 */
public final class JobMetrics {
  private final Counter records;
  private final Counter batches;
  private final Counter parseFailures;
  private final Counter invalidEntries;
  private final Counter droppedUpserts;
  private final Counter redisNewer;
  private final Counter snapshotUsed;
  private final Counter puts;
  private final Counter deletes;
  private final Counter hbaseCalls;
  private final Counter retries;
  private final Counter fatalFailures;
  private final Counter consumerRestarts;
  private final Counter commitFailures;
  private final Timer commitLatency;
  private final Timer hbaseLatency;
  private final Counter loopMarksCleared;
  private final Counter markClearFailures;
  private final Counter sweeps;
  private final Counter sweepFailures;
  private final Counter recoveredItems;
  private final Counter missingRecords;
  private final Counter sweptMarksCleared;
  private final AtomicInteger shardsOwned = new AtomicInteger();
  private final AtomicInteger partitionsAssigned = new AtomicInteger();
  private final AtomicInteger liveInstances = new AtomicInteger();
  private final AtomicLong lagRecords = new AtomicLong();
  private final AtomicLong unpersistedSinceMs = new AtomicLong(Long.MAX_VALUE);
  private final Counter leasesAcquired;
  private final Counter leasesRenewed;
  private final Counter leasesLost;
  private final Counter leasesReleased;
  private final DistributionSummary sweptShards;
  private final Counter statsItems;
  private final Counter statsViewers;
  private final Counter statsFinishes;
  private final Counter statsConflicts;
  private final Counter statsSkipped;

  /** Meters on {@code registry}; the lag's age is read by {@code time}. */
  public JobMetrics(MeterRegistry registry, Time time) {
    records = counter(registry, "playline.job.records", "Kafka records consumed from the write-back topic");
    statsItems = counter(registry, "playline.job.item.stats.items", "Items whose counters a persisted poll touched");
    statsSkipped = counter(registry, "playline.job.item.stats.skipped", "Item streams a poll did not write: it added "
        + "nobody and moved the last view less than item.stats.last.view.granularity");
    statsViewers = Counter.builder("playline.job.item.stats.counted").tag("counter", "viewers")
        .description("Viewers and finishes added to the item counters").register(registry);
    statsFinishes = Counter.builder("playline.job.item.stats.counted").tag("counter", "finishes")
        .description("Viewers and finishes added to the item counters").register(registry);
    statsConflicts = counter(registry, "playline.job.item.stats.conflicts",
        "Item counter writes lost to another writer of the same partition and redone");
    batches = counter(registry, "playline.job.batches", "HistoryChangeBatch values parsed");
    parseFailures = counter(registry, "playline.job.parse.failures", "Kafka records skipped: not a HistoryChangeBatch");
    invalidEntries = counter(registry, "playline.job.invalid.entries",
        "Changes, upserts, deletes or clears skipped: bad uid, business or oid");
    droppedUpserts = counter(registry, "playline.job.upserts.dropped", "Upserts not after a delete or clear of their item");
    redisNewer = counter(registry, "playline.job.upserts.redis.newer", "Upserts written from Redis's newer record");
    snapshotUsed = counter(registry, "playline.job.upserts.snapshot.used", "Upserts written from the snapshot: Redis lost the record");
    puts = Counter.builder("playline.job.hbase.mutations").tag("op", "put")
        .description("HBase cells written").register(registry);
    deletes = Counter.builder("playline.job.hbase.mutations").tag("op", "delete")
        .description("HBase delete markers written").register(registry);
    hbaseCalls = counter(registry, "playline.job.hbase.calls", "HBase batch calls");
    retries = counter(registry, "playline.job.retries", "Polls retried after a transient Redis or HBase failure");
    fatalFailures = counter(registry, "playline.job.failures.fatal", "Failures that stopped the consumer loop");
    consumerRestarts = counter(registry, "playline.job.consumer.restarts",
        "Kafka consumers closed after a consumer failure and opened again (their uncommitted poll is redelivered)");
    commitFailures = counter(registry, "playline.job.commit.failures", "Offset commits that failed (records are redelivered)");
    commitLatency = Timer.builder("playline.job.commit.latency").description("Kafka offset commit latency")
        .register(registry);
    hbaseLatency = Timer.builder("playline.job.hbase.latency").description("Latency of one HBase batch call")
        .register(registry);
    loopMarksCleared = Counter.builder("playline.job.recovery.marks.cleared").tag("by", "consumer")
        .description("Recovery marks cleared").register(registry);
    sweptMarksCleared = Counter.builder("playline.job.recovery.marks.cleared").tag("by", "sweep")
        .description("Recovery marks cleared").register(registry);
    markClearFailures = counter(registry, "playline.job.recovery.marks.clear.failures",
        "Mark clears that failed after a persisted poll (the sweep persists those items again)");
    sweeps = counter(registry, "playline.job.recovery.sweeps", "Recovery sweeps run");
    sweepFailures = counter(registry, "playline.job.recovery.sweep.failures", "Recovery sweeps stopped by a failure");
    recoveredItems = counter(registry, "playline.job.recovery.items", "Items persisted by the recovery sweep");
    missingRecords = counter(registry, "playline.job.recovery.missing",
        "Recovery marks whose record was gone from Redis (cleared without a write)");
    Gauge.builder("playline.job.partitions.assigned", partitionsAssigned, AtomicInteger::get).strongReference(true)
        .description("Write-back topic partitions this instance consumes (the group splits them)").register(registry);
    Gauge.builder("playline.job.recovery.shards.owned", shardsOwned, AtomicInteger::get).strongReference(true)
        .description("Recovery shards this instance holds a sweep lease on").register(registry);
    Gauge.builder("playline.job.recovery.instances", liveInstances, AtomicInteger::get).strongReference(true)
        .description("Live job instances sharing the recovery sweep, as this instance last saw them")
        .register(registry);
    Gauge.builder("playline.job.lag.records", lagRecords, AtomicLong::get).strongReference(true)
        .description("Write-back records not yet persisted on this instance's partitions (as of its last poll)")
        .register(registry);
    Gauge.builder("playline.job.lag.seconds", unpersistedSinceMs, since -> since.get() == Long.MAX_VALUE ? 0
            : Math.max(0, time.millis() - since.get()) / 1000.0).strongReference(true)
        .description("Age of the oldest record this instance polled but has not persisted yet (grows while HBase "
            + "or Redis is down); 0 when caught up").register(registry);
    leasesAcquired = lease(registry, "acquired");
    leasesRenewed = lease(registry, "renewed");
    leasesLost = lease(registry, "lost");
    leasesReleased = lease(registry, "released");
    sweptShards = DistributionSummary.builder("playline.job.recovery.sweep.shards")
        .description("Recovery shards one sweep covered (those this instance held a lease on)").register(registry);
  }

  private static Counter lease(MeterRegistry registry, String event) {
    return Counter.builder("playline.job.recovery.leases").tag("event", event)
        .description("Recovery shard leases acquired (were free), renewed, lost (expired or another instance's "
            + "at renewal) or released (surplus after an instance joined, or at close)").register(registry);
  }

  private static Counter counter(MeterRegistry registry, String name, String description) {
    return Counter.builder(name).description(description).register(registry);
  }

  /** Records behind on this instance's partitions, including the poll in flight. */
  public void lag(long records) {
    lagRecords.set(records);
  }

  /** The Kafka timestamp (ms) of the oldest polled record not yet persisted; {@code Long.MAX_VALUE} = none. */
  public void unpersistedSince(long timestampMs) {
    unpersistedSinceMs.set(timestampMs);
  }

  /** What one poll added to the item counters: the fields of {@code ItemCounters.Applied} ({@code job/stats}). */
  public void itemCounters(int items, long viewers, long finishes, int conflicts, int skipped) {
    statsItems.increment(items);
    statsViewers.increment(viewers);
    statsFinishes.increment(finishes);
    statsConflicts.increment(conflicts);
    statsSkipped.increment(skipped);
  }

  public void records(int n) {
    records.increment(n);
  }

  public void batch() {
    batches.increment();
  }

  public void parseFailure() {
    parseFailures.increment();
  }

  public void invalidEntry() {
    invalidEntries.increment();
  }

  public void droppedUpsert() {
    droppedUpserts.increment();
  }

  public void redisNewer() {
    redisNewer.increment();
  }

  public void snapshotUsed() {
    snapshotUsed.increment();
  }

  public void hbaseCall(int putCells, int deleteMarkers, long nanos) {
    puts.increment(putCells);
    deletes.increment(deleteMarkers);
    hbaseCalls.increment();
    hbaseLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  public void retry() {
    retries.increment();
  }

  public void consumerRestart() {
    consumerRestarts.increment();
  }

  public void fatalFailure() {
    fatalFailures.increment();
  }

  public void commit(long nanos) {
    commitLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  public void commitFailure() {
    commitFailures.increment();
  }

  public void marksClearedByConsumer(long n) {
    loopMarksCleared.increment(n);
  }

  public void markClearFailure() {
    markClearFailures.increment();
  }

  public void sweep() {
    sweeps.increment();
  }

  public void sweepFailure() {
    sweepFailures.increment();
  }

  public void recovered(int n) {
    recoveredItems.increment(n);
  }

  public void missingRecord() {
    missingRecords.increment();
  }

  public void marksClearedBySweep(long n) {
    sweptMarksCleared.increment(n);
  }

  /** How many write-back partitions this instance consumes now (set on the consumer thread at each rebalance). */
  public void partitionsAssigned(int partitions) {
    partitionsAssigned.set(partitions);
  }

  /** The recovery shards this instance holds a lease on now, and the live instances it last saw. */
  public void leases(int owned, int instances) {
    shardsOwned.set(owned);
    liveInstances.set(instances);
  }

  public void leasesAcquired(int n) {
    leasesAcquired.increment(n);
  }

  public void leasesRenewed(int n) {
    leasesRenewed.increment(n);
  }

  public void leasesLost(int n) {
    leasesLost.increment(n);
  }

  public void leasesReleased(int n) {
    leasesReleased.increment(n);
  }

  public void sweptShards(int n) {
    sweptShards.record(n);
  }
}
