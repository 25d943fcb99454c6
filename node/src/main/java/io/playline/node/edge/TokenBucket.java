package io.playline.node.edge;

/**
 * A token bucket: holds at most {@code capacity} tokens (the burst) and regains {@code rate} per
 * {@code periodNanos}, so over any interval at most about rate per period plus one full bucket are
 * granted. A take larger than the capacity passes when the bucket is full and leaves it owing the
 * rest, so no request size is refused forever and every token is paid for (a user's budget shared
 * by many nodes prices one heartbeat above a bucket). Thread-safe (synchronized; a few arithmetic
 * operations).
 */
public final class TokenBucket {
  /**
   * Credit in nanoseconds: one token costs perToken of it, and a nanosecond of time earns one;
   * negative while a take larger than the bucket is paid off.
   */
  private final long perToken;
  private final long full;
  private final long capacity;
  private long credit;
  private long lastNanos;

  /** A bucket of {@code capacity} tokens regaining {@code rate} of them per {@code periodNanos}, full at {@code nowNanos}. */
  public TokenBucket(long capacity, long rate, long periodNanos, long nowNanos) {
    if (capacity <= 0 || rate <= 0 || periodNanos <= 0) {
      throw new IllegalArgumentException("token bucket: capacity " + capacity + ", rate " + rate + " per "
          + periodNanos + " ns (expected: each > 0)");
    }
    this.capacity = capacity;
    this.perToken = Math.max(1, periodNanos / rate);
    this.full = capacity * perToken;
    this.credit = full;
    this.lastNanos = nowNanos;
  }

  /** Takes {@code n} tokens at {@code nowNanos}: 0 when granted, else nanoseconds until they would be. */
  public synchronized long take(long n, long nowNanos) {
    refill(nowNanos);
    long needed = Math.min(n, capacity) * perToken;
    if (credit >= needed) {
      credit -= Math.min(n, Long.MAX_VALUE / 4 / perToken) * perToken;
      return 0;
    }
    return needed - credit;
  }

  /** Whether the bucket is full again at {@code nowNanos} (so forgetting it changes nothing). */
  public synchronized boolean isFull(long nowNanos) {
    refill(nowNanos);
    return credit >= full;
  }

  /** Whether less than half the capacity was left after the last take (a user spending fast). */
  public synchronized boolean isBelowHalf() {
    return credit < full / 2;
  }

  private void refill(long nowNanos) {
    if (nowNanos > lastNanos) {
      credit = Math.min(full, credit + (nowNanos - lastNanos));
      lastNanos = nowNanos;
    }
  }
}
