package io.playline.core.aggregate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * Meters of the write-back aggregation: flushes, Kafka records and changes per record, pending
 * items, drops, send failures, late stamps and flush latency. Thread-safe.
 */
public final class WriteBackMetrics {
  private final MeterRegistry registry;
  private final Counter flushes;
  private final Counter failedFlushes;
  private final Counter recordsSent;
  private final Counter sendFailures;
  private final Counter dropped;
  private final DistributionSummary changesPerRecord;
  private final DistributionSummary recordBytes;
  private final Timer flushLatency;

  public WriteBackMetrics(MeterRegistry registry) {
    this.registry = registry;
    flushes = Counter.builder("playline.writeback.flushes").tag("outcome", "success")
        .description("Write-back flushes whose records Kafka acked").register(registry);
    failedFlushes = Counter.builder("playline.writeback.flushes").tag("outcome", "failure")
        .description("Write-back flushes retried because a record was not acked").register(registry);
    recordsSent = Counter.builder("playline.kafka.records.sent").tag("topic", "history")
        .description("Write-back records acked by Kafka").register(registry);
    sendFailures = Counter.builder("playline.writeback.send.failures")
        .description("Write-back records (or partition lookups) that failed and will be retried").register(registry);
    dropped = Counter.builder("playline.writeback.dropped")
        .description("Pending upserts dropped over writeback.max.pending.hard, or after close; "
            + "the job's recovery sweep persists them from Redis").register(registry);
    changesPerRecord = DistributionSummary.builder("playline.writeback.changes.per.record")
        .description("User changes carried per write-back Kafka record").register(registry);
    recordBytes = DistributionSummary.builder("playline.writeback.record.bytes").baseUnit("bytes")
        .description("Serialized size of write-back Kafka records").register(registry);
    flushLatency = Timer.builder("playline.writeback.flush.latency")
        .description("From snapshot to the last ack of a write-back flush").register(registry);
  }

  void pendingGauge(IntSupplier pending, int hardCap) {
    // Strong: the supplier is a method reference nothing else holds; a weak one reads NaN after a GC.
    Gauge.builder("playline.writeback.pending", pending, IntSupplier::getAsInt).strongReference(true)
        .description("Changed items held in memory, not yet acked by Kafka").register(registry);
    Gauge.builder("playline.writeback.pending.hard.limit", () -> hardCap)
        .description("writeback.max.pending.hard: unsent upserts past it are dropped to the recovery sweep "
            + "(alert on playline_writeback_pending nearing it)").register(registry);
  }

  void flushed(long nanos) {
    flushes.increment();
    flushLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  void flushFailed(long nanos) {
    failedFlushes.increment();
    flushLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  void recordSent(int changes, int bytes) {
    recordsSent.increment();
    changesPerRecord.record(changes);
    recordBytes.record(bytes);
  }

  void sendFailed() {
    sendFailures.increment();
  }

  void dropped(int upserts) {
    dropped.increment(upserts);
  }

  /** Upserts dropped so far. */
  public double droppedCount() {
    return dropped.count();
  }

  /** Write-back records acked so far. */
  public double recordsSentCount() {
    return recordsSent.count();
  }

  /** Failed record sends so far. */
  public double sendFailureCount() {
    return sendFailures.count();
  }
}
