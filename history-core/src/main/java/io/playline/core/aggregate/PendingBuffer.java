package io.playline.core.aggregate;

import io.playline.proto.v1.HistoryRecord;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writers' side of the write-back swap protocol: the pending changes and the stamps of the
 * write-through batches in flight, behind one lock. Writers merge under the lock; {@link #swap}
 * replaces the whole map under the same lock and computes the snapshot's {@code flushed_at_ms} in
 * that critical section, so every write lands in exactly one snapshot and a snapshot never covers
 * the stamp of a batch whose records it lacks.
 *
 * <p>Thread-safe; every critical section is short and never blocks. {@code wakeFlusher} runs outside
 * the lock.
 */
final class PendingBuffer {
  private static final Logger log = LoggerFactory.getLogger(PendingBuffer.class);

  /** A swapped-out map and the time up to which it reflects every acked write. */
  record Snapshot(PendingChanges changes, long flushedAtMs) {}

  private final int maxPending;
  private final int hardCap;
  private final int maxTombstones;
  private final long skewMs;
  private final LongSupplier clock;
  private final Runnable wakeFlusher;

  private final Object lock = new Object();
  // Guarded by lock.
  private PendingChanges pending = new PendingChanges();
  private final TreeMap<Long, Integer> inFlight = new TreeMap<>();
  private boolean accepting = true;
  private boolean closing;
  private boolean flushRequested;
  private long lastSentFlushedAtMs = Long.MIN_VALUE;
  // Written under lock, read by the gauge.
  private volatile int size;

  PendingBuffer(int maxPending, int hardCap, int maxTombstones, long skewMs, LongSupplier clock, Runnable wakeFlusher) {
    this.maxPending = maxPending;
    this.hardCap = hardCap;
    this.maxTombstones = maxTombstones;
    this.skewMs = skewMs;
    this.clock = clock;
    this.wakeFlusher = wakeFlusher;
  }

  /** Items pending (not yet swapped out); any thread. */
  int size() {
    return size;
  }

  /** Records a batch stamped {@code stamp} as in flight; true when a sent snapshot already covered the stamp. */
  boolean started(long stamp) {
    synchronized (lock) {
      inFlight.merge(stamp, 1, Integer::sum);
      return stamp <= lastSentFlushedAtMs;
    }
  }

  /**
   * Merges {@code applied} and retires {@code stamp}, atomically; returns how many upserts were
   * dropped (over the hard cap, or because the buffer stopped accepting).
   */
  int finished(long stamp, List<HistoryRecord> applied) {
    int dropped = 0;
    boolean wake;
    synchronized (lock) {
      if (accepting) {
        for (HistoryRecord r : applied) {
          pending.upsert(r);
        }
        if (pending.upserts() > hardCap) {
          dropped = pending.dropOldestUpserts(hardCap);
        }
      } else {
        dropped = applied.size();
      }
      Integer n = inFlight.get(stamp);
      if (n == null) {
        log.warn("Write-through batch stamped {} finished without having started", stamp);
      } else if (n == 1) {
        inFlight.remove(stamp);
      } else {
        inFlight.put(stamp, n - 1);
      }
      wake = afterWrite();
    }
    if (wake) {
      wakeFlusher.run();
    }
    return dropped;
  }

  /**
   * Applies a delete or clear unless {@code carriedTombstones} plus the pending ones reach the cap.
   *
   * @throws WriteBackFullException at the cap
   * @throws IllegalStateException once the buffer stopped accepting
   */
  void addTombstone(Consumer<PendingChanges> op, int carriedTombstones) {
    boolean wake;
    synchronized (lock) {
      if (!accepting) {
        throw new IllegalStateException("write-back aggregator is closed");
      }
      int tombstones = pending.tombstones() + carriedTombstones;
      if (tombstones >= maxTombstones) {
        throw new WriteBackFullException("write-back holds " + tombstones
            + " unsent deletes and clears (writeback.max.pending.tombstones); Kafka is unavailable");
      }
      op.accept(pending);
      wake = afterWrite();
    }
    if (wake) {
      wakeFlusher.run();
    }
  }

  /** Under lock: whether to wake the flush thread (pending is full, or it is closing). */
  private boolean afterWrite() {
    size = pending.size();
    if (closing) {
      return true;
    }
    if (!flushRequested && size >= maxPending) {
      flushRequested = true;
      return true;
    }
    return false;
  }

  /**
   * Swaps the pending map for an empty one. The snapshot's {@code flushed_at_ms} is {@code
   * min(now - skew, oldest stamp in flight - 1)}; {@code sending} remembers it for late-stamp checks.
   */
  Snapshot swap(boolean sending) {
    synchronized (lock) {
      long flushedAtMs = clock.getAsLong() - skewMs;
      if (!inFlight.isEmpty()) {
        flushedAtMs = Math.min(flushedAtMs, inFlight.firstKey() - 1);
      }
      if (sending) {
        lastSentFlushedAtMs = Math.max(lastSentFlushedAtMs, flushedAtMs);
      }
      PendingChanges taken = pending;
      pending = new PendingChanges();
      size = 0;
      flushRequested = false;
      return new Snapshot(taken, flushedAtMs);
    }
  }

  /** From now on every write wakes the flush thread, so closing sees in-flight batches finish. */
  void closing() {
    synchronized (lock) {
      closing = true;
    }
  }

  /** Stops accepting if nothing is pending or in flight; true when it did. */
  boolean stopIfDrained() {
    synchronized (lock) {
      if (pending.isEmpty() && inFlight.isEmpty()) {
        accepting = false;
      }
      return !accepting;
    }
  }

  /** Stops accepting and hands back what was pending. */
  PendingChanges stop() {
    synchronized (lock) {
      accepting = false;
      PendingChanges left = pending;
      pending = new PendingChanges();
      size = 0;
      return left;
    }
  }
}
