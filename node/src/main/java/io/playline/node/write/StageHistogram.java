package io.playline.node.write;

import io.netty.util.concurrent.FastThreadLocal;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Durations of one stage of the heartbeat path, as a cumulative histogram that costs a heartbeat a
 * few nanoseconds: the bucket is read off the value's bits (no search), and a record is two plain
 * additions into a stripe of counters that only the recording thread writes. Each thread that
 * records here is numbered once, in turn; the first {@code threads} own a stripe each, written
 * without locked instructions, and any later thread adds atomically into one shared stripe (a
 * node's loops are the threads that record, so each owns its stripe). A record may carry a weight,
 * so the heartbeats of one batch that share a value (its Redis round trip) are one record. No time
 * window, no max, no clock read: a scraper takes percentiles over any window from two scrapes.
 * Exposed by {@link StageCollector}. Thread-safe.
 *
 * <p>Buckets: four per power of two of nanoseconds (upper bounds 2<sup>e</sup>·(1 + k/4)), from 8.2 µs
 * ({@code 2^13} ns) to 17.2 s ({@code 2^34} ns), then +Inf; neighbouring bounds are 12–25 % apart.
 */
public final class StageHistogram {
  /** The first bucket's upper bound is {@code 2^MIN_EXP} ns. */
  static final int MIN_EXP = 13;
  /** The last finite upper bound is {@code 2^MAX_EXP} ns. */
  static final int MAX_EXP = 34;
  private static final int PER_POWER = 4;
  /** Finite upper bounds; one bucket more counts the values above the last. */
  static final int FINITE_BUCKETS = (MAX_EXP - MIN_EXP) * PER_POWER + 1;
  private static final int BUCKETS = FINITE_BUCKETS + 1;
  /** Leading and trailing slots that keep two stripes' hot counters off one cache line. */
  private static final int PAD = 8;
  private static final int SUM = PAD + BUCKETS;
  private static final int STRIPE_LENGTH = SUM + 1 + PAD;

  /** {@code owned} stripes, one per thread numbered below {@code owned}, then the shared one. */
  private final AtomicLongArray[] stripes;
  private final int owned;
  private final AtomicInteger numbered = new AtomicInteger();
  /** Each recording thread's number here, given on its first record (on a loop: one array slot to read). */
  private final FastThreadLocal<Integer> threadNumber = new FastThreadLocal<>() {
    @Override
    protected Integer initialValue() {
      return numbered.getAndIncrement();
    }
  };

  /**
   * Stripes for {@code threads} recording threads (1 to 64): the first that many threads to record
   * here own one each.
   */
  public StageHistogram(int threads) {
    owned = Math.max(1, Math.min(64, threads));
    stripes = new AtomicLongArray[owned + 1];
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = new AtomicLongArray(STRIPE_LENGTH);
    }
  }

  /** One duration of {@code nanos} (negative counts as zero). */
  public void record(long nanos) {
    record(nanos, 1);
  }

  /** {@code count} durations of {@code nanos} each (negative counts as zero); nothing for a count below one. */
  public void record(long nanos, int count) {
    if (count < 1) {
      return;
    }
    long v = Math.max(0, nanos);
    int bucket = PAD + bucket(v);
    int thread = threadNumber.get();
    if (thread < owned) {
      // This thread is the stripe's only writer: opaque writes are never torn, and a scrape reads them.
      AtomicLongArray mine = stripes[thread];
      mine.setOpaque(bucket, mine.getPlain(bucket) + count);
      mine.setOpaque(SUM, mine.getPlain(SUM) + v * count);
    } else {
      AtomicLongArray shared = stripes[owned];
      shared.getAndAdd(bucket, count);
      shared.getAndAdd(SUM, v * count);
    }
  }

  /** The bucket of {@code nanos} (≥ 0): the first whose upper bound is at least the value. */
  static int bucket(long nanos) {
    long w = nanos - 1; // upper bounds are inclusive
    if (w < 1L << MIN_EXP) {
      return 0;
    }
    int exp = 63 - Long.numberOfLeadingZeros(w);
    if (exp >= MAX_EXP) {
      return FINITE_BUCKETS;
    }
    int quarter = (int) (w >>> (exp - 2)) & (PER_POWER - 1);
    return 1 + (exp - MIN_EXP) * PER_POWER + quarter;
  }

  /** Bucket {@code i}'s upper bound in nanoseconds, {@code i < FINITE_BUCKETS}. */
  static long upperBoundNanos(int i) {
    if (i == 0) {
      return 1L << MIN_EXP;
    }
    int exp = MIN_EXP + (i - 1) / PER_POWER;
    int quarter = (i - 1) % PER_POWER + 1;
    return (1L << exp) + ((long) quarter << (exp - 2));
  }

  /** A consistent-enough copy: each bucket's count (not cumulative; the last is above every bound) and the sum. */
  Snapshot snapshot() {
    long[] counts = new long[BUCKETS];
    long sum = 0;
    for (AtomicLongArray stripe : stripes) {
      for (int i = 0; i < BUCKETS; i++) {
        counts[i] += stripe.get(PAD + i);
      }
      sum += stripe.get(SUM);
    }
    return new Snapshot(counts, sum);
  }

  /** Durations recorded so far. */
  long count() {
    return snapshot().count();
  }

  /** Their sum in nanoseconds. */
  long sumNanos() {
    return snapshot().sumNanos();
  }

  /** Counts per bucket (index as {@link #bucket}) and the sum of the values in nanoseconds. */
  record Snapshot(long[] counts, long sumNanos) {
    long count() {
      long n = 0;
      for (long c : counts) {
        n += c;
      }
      return n;
    }
  }
}
