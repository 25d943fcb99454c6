package io.playline.core.aggregate;

import com.google.protobuf.ByteString;
import io.playline.core.config.CoreConfig;
import io.playline.core.write.AppliedRecord;
import io.playline.core.write.RecoveryEntry;
import io.playline.core.write.RecoveryTrim;
import io.playline.core.write.WriteBackSink;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import io.playline.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aggregates what the write-through applied in memory, latest view time winning per (uid,
 * business, oid), together with deletes and clears, and flushes it to the write-back topic every
 * {@code writeback.flush.interval} or as soon as {@code writeback.max.pending} items are pending:
 * one {@code HistoryChangeBatch} per partition ({@link UserPartitions}), so a user's changes stay in
 * order while one record carries many users.
 *
 * <p>Thread-safe: every method may be called from any thread, including event loops and Lettuce
 * threads; writers only take a short lock. Flushes run on the aggregator's own thread, which is
 * the only one that blocks on Kafka.
 *
 * <p><b>Swap protocol</b> ({@link PendingBuffer}). Writers merge into the pending map under one
 * lock; the flush thread swaps the map for an empty one under the same lock, so every write lands
 * in exactly one snapshot. {@link #batchFinished} merges a batch's records with the recovery-log
 * entries listing them; once Kafka acknowledged everything sent (the snapshot, and what earlier
 * failed sends carried into it), those entries go ({@link RecoveryTrim}): Kafka, written with
 * {@code acks=all}, is the log of record from then on. Every delete or clear carries its own mark
 * ({@code control_marks}), which the job clears once it persisted the tombstones.
 *
 * <p><b>Failures.</b> Records Kafka did not ack stay (as the users of their partitions) and are
 * retried with exponential backoff, merged with newer writes, latest winning; their log entries stay
 * until they are acknowledged. Upserts beyond {@code writeback.max.pending.hard} are dropped oldest
 * user first, counted and logged, and the log entries held with them are kept in Redis: the job's
 * sweep persists their items. Deletes and clears are never dropped; past {@code
 * writeback.max.pending.tombstones} new ones are refused with {@link WriteBackFullException} (their
 * recovery marks still bring them to HBase through the sweep).
 */
public final class WriteBackAggregator implements WriteBackSink, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WriteBackAggregator.class);
  private static final long INITIAL_BACKOFF_MS = 100;
  private static final long ACK_WAIT_NANOS = TimeUnit.MINUTES.toNanos(2);
  private static final long CLOSE_POLL_MS = 50;
  private static final long ABANDON_JOIN_MS = 5_000;

  private final CoreConfig config;
  private final WriteBackSender sender;
  private final WriteBackMetrics metrics;
  private final String nodeId;
  private final RecoveryTrim trim;
  private final Time time;
  private final Semaphore wakeup = new Semaphore(0);
  private final PendingBuffer buffer;
  private final Thread flusher;
  private final AtomicLong droppedSinceWarn = new AtomicLong();
  private volatile boolean closing;
  private volatile boolean abandoned;

  // Confined to the flush thread: what the last attempt could not send, merged with newer writes.
  private PendingChanges carry = new PendingChanges();
  private long backoffMs;
  // Written by the flush thread; read by writers and the gauge.
  private volatile int carrySize;
  private volatile int carryTombstones;
  private volatile int carryUpserts;

  /** Starts the flush thread; flushes to {@link CoreConfig#historyTopic()} through {@code producer}. */
  public WriteBackAggregator(CoreConfig config, Producer<byte[], byte[]> producer, WriteBackMetrics metrics,
      String nodeId) {
    this(config, producer, metrics, nodeId, RecoveryTrim.NONE, Time.SYSTEM);
  }

  /**
   * As above, telling {@code trim} which recovery-log entries Kafka acknowledged, on {@code time}:
   * the flush interval, the retry backoff and the close timeout pass by it, and snapshots' {@code
   * flushed_at_ms} is read from it (epoch ms; logs and lag only).
   */
  public WriteBackAggregator(CoreConfig config, Producer<byte[], byte[]> producer, WriteBackMetrics metrics,
      String nodeId, RecoveryTrim trim, Time time) {
    this.config = config;
    this.trim = trim;
    this.time = time;
    this.sender = new WriteBackSender(producer, config.historyTopic(), metrics, time);
    this.metrics = metrics;
    this.nodeId = nodeId;
    this.buffer = new PendingBuffer(config.maxPendingItems(), config.maxPendingHardItems(),
        config.maxPendingTombstones(), time::millis, wakeup::release);
    metrics.pendingGauge(this::pendingItems, config.maxPendingHardItems());
    this.flusher = new Thread(this::run, "playline-writeback-flush");
    flusher.setDaemon(true);
    flusher.start();
  }

  @Override
  public void batchStarted() {
    buffer.started();
  }

  @Override
  public void batchFinished(List<AppliedRecord> applied) {
    dropped(buffer.finished(applied, carryUpserts));
  }

  /**
   * Carries the delete of {@code items} at {@code timeMs}, one call whose recovery mark is {@code
   * mark}, to the job, after the write-through applied it; any thread. Pending upserts of the items
   * not after {@code timeMs} are discarded.
   *
   * @throws WriteBackFullException when writeback.max.pending.tombstones deletes and clears are pending
   * @throws IllegalStateException after {@link #close} or {@link #abandon}
   */
  public void delete(long uid, List<ItemKey> items, long timeMs, byte[] mark) {
    checkUid(uid);
    List<ItemId> ids = new ArrayList<>(items.size());
    for (ItemKey item : items) {
      if (item.getBusiness() == Business.BUSINESS_UNSPECIFIED || item.getBusiness() == Business.UNRECOGNIZED
          || item.getOid() <= 0) {
        throw new IllegalArgumentException("item: " + item.toString().trim() + " (expected: a known business, oid > 0)");
      }
      ids.add(ItemId.of(item));
    }
    ByteString m = ByteString.copyFrom(mark);
    buffer.addTombstone(p -> p.delete(uid, ids, timeMs, m), carryTombstones);
  }

  /**
   * Carries the clear of {@code businesses} (empty = all) at {@code timeMs}, one call whose recovery
   * mark is {@code mark}, to the job, after the write-through applied it; any thread. Pending
   * upserts it covers are discarded.
   *
   * @throws WriteBackFullException when writeback.max.pending.tombstones deletes and clears are pending
   * @throws IllegalStateException after {@link #close} or {@link #abandon}
   */
  public void clear(long uid, List<Business> businesses, long timeMs, byte[] mark) {
    checkUid(uid);
    int mask = UserChanges.mask(businesses);
    ByteString m = ByteString.copyFrom(mark);
    buffer.addTombstone(p -> p.clear(uid, mask, timeMs, m), carryTombstones);
  }

  private static void checkUid(long uid) {
    if (uid <= 0) {
      throw new IllegalArgumentException("uid: " + uid + " (expected: > 0)");
    }
  }

  private void dropped(int upserts) {
    if (upserts > 0) {
      metrics.dropped(upserts);
      droppedSinceWarn.addAndGet(upserts);
    }
  }

  /** Items held in memory and not yet acked by Kafka (the pending gauge); any thread. */
  public int pendingItems() {
    return buffer.size() + carrySize;
  }

  private void run() {
    try {
      loop();
      if (!abandoned) {
        finish();
      }
    } catch (InterruptedException e) {
      if (!abandoned) {
        log.warn("Write-back flush thread interrupted before its last flush finished");
        giveUp();
      }
    }
  }

  private void loop() throws InterruptedException {
    long intervalNanos = config.flushInterval().toNanos();
    long nextSend = time.nanoTime() + intervalNanos;
    while (!closing && !abandoned) {
      long waitNanos = nextSend - time.nanoTime();
      if (waitNanos > 0) {
        time.tryAcquire(wakeup, waitNanos, TimeUnit.NANOSECONDS);
      }
      wakeup.drainPermits();
      if (closing || abandoned) {
        return;
      }
      boolean due = time.nanoTime() - nextSend >= 0;
      // An early (size) request sends at once, unless sends are failing: then it only compacts.
      boolean send = due || backoffMs == 0;
      try {
        long flushedAtMs = snapshot();
        if (send && carry.isEmpty()) {
          nextSend = time.nanoTime() + intervalNanos;
        } else if (send) {
          boolean ok = flush(flushedAtMs, time.nanoTime() + ACK_WAIT_NANOS);
          nextSend = time.nanoTime() + (ok ? intervalNanos : TimeUnit.MILLISECONDS.toNanos(backoffMs));
        }
      } catch (RuntimeException e) {
        // A bug, not Kafka: keep the changes and the thread, and retry like a failed send.
        failed(time.nanoTime(), "unexpected " + e);
        log.error("Write-back flush failed unexpectedly", e);
        nextSend = time.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs);
      }
    }
  }

  /** Swaps the pending map into {@code carry}; returns the snapshot's flushed_at_ms. Flush thread. */
  private long snapshot() {
    PendingBuffer.Snapshot snapshot = buffer.swap();
    if (carry.isEmpty()) {
      carry = snapshot.changes();
    } else {
      carry.mergeNewer(snapshot.changes());
    }
    int hardCap = config.maxPendingHardItems();
    dropped(carry.upserts() > hardCap ? carry.dropOldestUpserts(hardCap) : 0);
    // While sends fail, every write call adds an entry: past writeback.max.pending.hard of them they
    // are forgotten (they stay in Redis, and the job's sweep persists their items), so memory stays bounded.
    if (carry.entries().size() > hardCap) {
      log.warn("Write-back forgot {} recovery-log entries over writeback.max.pending.hard ({}) while Kafka is "
          + "unavailable; the job's recovery sweep persists their items", carry.entries().size(), hardCap);
      carry.forgetEntries();
    }
    long droppedNow = droppedSinceWarn.getAndSet(0);
    if (droppedNow > 0) {
      log.warn("Write-back dropped {} pending upserts over writeback.max.pending.hard ({}): Kafka is unavailable "
          + "or slower than the writes; the job's recovery sweep persists them from Redis", droppedNow, hardCap);
    }
    publishCarry();
    return snapshot.flushedAtMs();
  }

  private void publishCarry() {
    carrySize = carry.size();
    carryTombstones = carry.tombstones();
    carryUpserts = carry.upserts();
  }

  /** Sends {@code carry}; true when Kafka acked all of it. Flush thread. */
  private boolean flush(long flushedAtMs, long deadlineNanos) throws InterruptedException {
    long start = time.nanoTime();
    int users = carry.users().size();
    int upserts = carry.upserts();
    int tombstones = carry.tombstones();
    int partitions;
    try {
      partitions = sender.partitionCount();
    } catch (KafkaException e) {
      metrics.sendFailed();
      return failed(start, "partition lookup: " + e);
    }
    List<PartitionRecord> records = WriteBackRecords.assemble(carry.users(), partitions, flushedAtMs, nodeId,
        config.maxRecordBytes());
    if (abandoned) {
      return false;
    }
    Set<Integer> failed = sender.send(records, deadlineNanos);
    if (!failed.isEmpty()) {
      carry.retainUsers(uid -> failed.contains(UserPartitions.of(uid, partitions)));
      publishCarry();
      return failed(start, "partitions " + failed + " not acked");
    }
    Set<RecoveryEntry> acked = carry.entries();
    carry = new PendingChanges();
    publishCarry();
    backoffMs = 0;
    if (!acked.isEmpty()) {
      trim.acked(acked);
    }
    long nanos = time.nanoTime() - start;
    metrics.flushed(nanos);
    log.debug("Write-back flush: {} users, {} upserts, {} deletes/clears in {} records over {} partitions, "
        + "flushed_at_ms {}, {} ms", users, upserts, tombstones, records.size(), partitions, flushedAtMs,
        TimeUnit.NANOSECONDS.toMillis(nanos));
    return true;
  }

  private boolean failed(long startNanos, String why) {
    metrics.flushFailed(time.nanoTime() - startNanos);
    backoffMs = backoffMs == 0 ? INITIAL_BACKOFF_MS : Math.min(backoffMs * 2, config.flushRetryBackoffMax().toMillis());
    log.warn("Write-back flush failed ({}); {} items kept, retrying in {} ms", why, carry.size(), backoffMs);
    return false;
  }

  /** Flushes until nothing is pending or in flight, or writeback.close.timeout passes. Flush thread. */
  private void finish() throws InterruptedException {
    long deadline = time.nanoTime() + config.flushCloseTimeout().toNanos();
    while (time.nanoTime() - deadline < 0) {
      long flushedAtMs = snapshot();
      if (carry.isEmpty()) {
        if (buffer.stopIfDrained()) {
          break;
        }
        // Batches Redis has not answered yet still bring changes: wait for them.
        time.tryAcquire(wakeup, CLOSE_POLL_MS, TimeUnit.MILLISECONDS);
        wakeup.drainPermits();
      } else if (!flush(flushedAtMs, deadline)) {
        time.tryAcquire(wakeup, Math.min(backoffMs, Math.max(0, (deadline - time.nanoTime()) / 1_000_000)),
            TimeUnit.MILLISECONDS);
      }
    }
    giveUp();
  }

  /** Stops accepting and reports what could not be sent. */
  private void giveUp() {
    carry.mergeNewer(buffer.stop());
    int upserts = carry.upserts();
    int tombstones = carry.tombstones();
    carry = new PendingChanges();
    publishCarry();
    dropped(upserts);
    if (tombstones > 0) {
      log.warn("Write-back closed with {} deletes/clears not sent to Kafka; the job's recovery sweep persists them "
          + "from Redis", tombstones);
    }
    if (upserts > 0) {
      log.warn("Write-back closed with {} upserts not sent; the job's recovery sweep persists them from Redis", upserts);
    }
  }

  /**
   * Flushes what is pending (waiting for batches still in flight), bounded by {@code
   * writeback.close.timeout}, then stops the flush thread; later writes are dropped. Does not close
   * the producer. Idempotent; any thread but the flush thread.
   */
  @Override
  public void close() {
    if (abandoned) {
      return;
    }
    closing = true;
    buffer.closing();
    wakeup.release();
    join(config.flushCloseTimeout().toMillis() + ABANDON_JOIN_MS);
  }

  /**
   * For crash tests: stops the flush thread WITHOUT flushing, losing everything held in memory as a
   * {@code kill -9} would (the recovery log in Redis is what brings it back). Later writes are ignored.
   * Any thread but the flush thread.
   */
  public void abandon() {
    abandoned = true;
    buffer.stop();
    flusher.interrupt();
    join(ABANDON_JOIN_MS);
  }

  private void join(long millis) {
    try {
      flusher.join(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (flusher.isAlive()) {
      log.error("Write-back flush thread did not stop within {} ms; interrupting it", millis);
      flusher.interrupt();
      try {
        flusher.join(ABANDON_JOIN_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
