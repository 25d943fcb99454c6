package io.playline.gateway.session;

/**
 * A token bucket: holds at most {@code capacity} tokens and regains {@code capacity} per {@code
 * periodNanos}, so over any interval at most about capacity per period (plus one full bucket) are
 * granted. A take larger than the capacity passes when the bucket is full and leaves it in debt,
 * so no request size is refused forever. Thread-safe (synchronized; a few arithmetic operations).
 */
final class TokenBucket {
  /** Credit in nanoseconds: one token costs perToken of it, and a nanosecond of time earns one. */
  private final long perToken;
  private final long full;
  private final long capacity;
  private long credit;
  private long lastNanos;

  TokenBucket(long capacity, long periodNanos, long nowNanos) {
    this.capacity = capacity;
    this.perToken = Math.max(1, periodNanos / capacity);
    this.full = capacity * perToken;
    this.credit = full;
    this.lastNanos = nowNanos;
  }

  /** Takes {@code n} tokens at {@code nowNanos}: 0 when granted, else nanoseconds until they would be. */
  synchronized long take(long n, long nowNanos) {
    if (nowNanos > lastNanos) {
      credit = Math.min(full, credit + (nowNanos - lastNanos));
      lastNanos = nowNanos;
    }
    long needed = Math.min(n, capacity) * perToken;
    if (credit >= needed) {
      credit -= n * perToken;
      return 0;
    }
    return needed - credit;
  }
}
