package io.playline.node.write;

import io.playline.node.loops.LoopCounters;
import java.util.Arrays;

/**
 * Durations of one stage of the heartbeat path, as a cumulative histogram that costs a heartbeat a
 * few nanoseconds: the bucket is read off the value's bits (no search), and a record is two plain
 * additions into the recording loop's own stripe of {@link LoopCounters}. A record may carry a
 * weight, so the heartbeats of one batch that share a value (its Redis round trip) are one record.
 * No time window, no max, no clock read: a scraper takes percentiles over any window from two
 * scrapes. Exposed by {@link StageCollector}. Thread-safe.
 *
 * <p>Buckets: four per power of two of nanoseconds (upper bounds 2<sup>e</sup>·(1 + k/4)), from 8.2 µs
 * ({@code 2^13} ns) to 17.2 s ({@code 2^34} ns), then +Inf; neighbouring bounds are 14–25 % apart.
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
  /**
   * The counter after the buckets: the sum of the values in microseconds (in nanoseconds a node
   * answering 100 000 heartbeats a second at 3 ms would wrap a long within a year).
   */
  private static final int SUM = BUCKETS;

  private final LoopCounters counters;

  public StageHistogram() {
    counters = new LoopCounters(BUCKETS + 1);
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
    long v = Math.min(Math.max(0, nanos), 1L << 50); // 13 days: past every bucket, and no overflow below
    counters.add(bucket(v), count, SUM, (v + 500) / 1000 * count);
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
    long[] all = counters.sums();
    return new Snapshot(Arrays.copyOf(all, BUCKETS), all[SUM]);
  }

  /** Durations recorded so far. */
  long count() {
    return snapshot().count();
  }

  /** Their sum in microseconds (each rounded to the nearest). */
  long sumMicros() {
    return snapshot().sumMicros();
  }

  /** Counts per bucket (index as {@link #bucket}) and the sum of the values in microseconds. */
  record Snapshot(long[] counts, long sumMicros) {
    long count() {
      long n = 0;
      for (long c : counts) {
        n += c;
      }
      return n;
    }
  }
}
