package io.playline.client.internal;

import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with full jitter (the AWS Architecture Blog's "full jitter"): the delay
 * before retry {@code n} (0-based: the first retry after a healthy connection dropped is 0) is
 * uniform in {@code [0, min(cap, base * 2^n)]}, so many clients dropped together do not come back
 * together. Immutable; thread-safe when the random source is.
 */
public final class Backoff {
  private final long baseMs;
  private final long capMs;
  private final DoubleSupplier random;

  /**
   * @param baseMs ceiling of the first delay, &gt; 0
   * @param capMs largest ceiling, &ge; baseMs
   * @param random uniform values in {@code [0, 1)}
   */
  public Backoff(long baseMs, long capMs, DoubleSupplier random) {
    Checks.checkArgument(baseMs > 0, "backoff base: %s ms (expected: > 0)", baseMs);
    Checks.checkArgument(capMs >= baseMs, "backoff cap: %s ms (expected: >= base %s ms)", capMs, baseMs);
    this.baseMs = baseMs;
    this.capMs = capMs;
    this.random = random;
  }

  /** {@code min(cap, base * 2^retry)}, without overflow. */
  public long ceilingMs(int retry) {
    if (retry < 0) {
      throw new IllegalArgumentException("retry: " + retry + " (expected: >= 0)");
    }
    if (retry >= 62 || baseMs > (capMs >> retry)) {
      return capMs;
    }
    return Math.min(capMs, baseMs << retry);
  }

  /** A delay drawn uniformly from {@code [0, ceilingMs(retry)]}. */
  public long delayMs(int retry) {
    double r = Math.min(1.0, Math.max(0.0, random.getAsDouble()));
    return Math.round(r * ceilingMs(retry));
  }

  /** A small jitter drawn uniformly from {@code [0, base]}, added to a delay the server asked for. */
  public long jitterMs() {
    double r = Math.min(1.0, Math.max(0.0, random.getAsDouble()));
    return Math.round(r * baseMs);
  }
}
