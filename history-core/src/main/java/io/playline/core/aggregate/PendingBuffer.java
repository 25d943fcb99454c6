package io.playline.core.aggregate;

import io.playline.core.write.AppliedRecord;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writers' side of the write-back swap protocol: the pending changes and the number of
 * write-through batches in flight, behind one lock. Writers merge under the lock; {@link #swap}
 * replaces the whole map under the same lock, so every write lands in exactly one snapshot. Each
 * upsert brings the recovery-log entry listing it, and a batch's records merge under one lock, so
 * a snapshot holds every entry whose items it carries.
 *
 * <p>Thread-safe; every critical section is short and never blocks. {@code wakeFlusher} runs outside
 * the lock.
 */
final class PendingBuffer {
  private static final Logger log = LoggerFactory.getLogger(PendingBuffer.class);

  /** A swapped-out map and the node's time of the swap (for logs and lag only). */
  record Snapshot(PendingChanges changes, long flushedAtMs) {}

  private final int maxPending;
  private final int hardCap;
  private final int maxTombstones;
  private final LongSupplier clock;
  private final Runnable wakeFlusher;

  private final Object lock = new Object();
  // Guarded by lock.
  private PendingChanges pending = new PendingChanges();
  private int inFlight;
  private boolean accepting = true;
  private boolean closing;
  private boolean flushRequested;
  // Written under lock, read by the gauge.
  private volatile int size;

  PendingBuffer(int maxPending, int hardCap, int maxTombstones, LongSupplier clock, Runnable wakeFlusher) {
    this.maxPending = maxPending;
    this.hardCap = hardCap;
    this.maxTombstones = maxTombstones;
    this.clock = clock;
    this.wakeFlusher = wakeFlusher;
  }

  /** Items pending (not yet swapped out); any thread. */
  int size() {
    return size;
  }

  /** Records a batch as in flight. */
  void started() {
    synchronized (lock) {
      inFlight++;
    }
  }

  /**
   * Merges {@code applied} and retires one batch in flight, atomically; returns how many upserts
   * were dropped (over the hard cap, or because the buffer stopped accepting). {@code
   * carriedUpserts}, the unsent upserts the flush thread holds, count against the same cap: while
   * a send to a Kafka that is down blocks, the newest {@code max.pending} upserts (at least) are
   * kept beside them and older pending ones dropped, so the two together stay within {@code
   * max.pending.hard + max.pending} (the next snapshot trims the merge to the hard cap, oldest first).
   */
  int finished(List<AppliedRecord> applied, int carriedUpserts) {
    int dropped = 0;
    boolean wake;
    synchronized (lock) {
      if (accepting) {
        for (AppliedRecord r : applied) {
          pending.upsert(r.record(), r.entry());
        }
        int room = Math.max(maxPending, hardCap - carriedUpserts);
        if (pending.upserts() > room) {
          dropped = pending.dropOldestUpserts(room);
        }
      } else {
        dropped = applied.size();
      }
      if (inFlight == 0) {
        log.warn("A write-through batch finished without having started");
      } else {
        inFlight--;
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

  /** Swaps the pending map for an empty one. */
  Snapshot swap() {
    synchronized (lock) {
      long flushedAtMs = clock.getAsLong();
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
      if (pending.isEmpty() && inFlight == 0) {
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
