package io.playline.gateway.session;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Caps concurrent player connections per remote IP address ({@code connection.max.per.address}),
 * across both transports. Thread-safe; a {@link #tryAcquire} that answers true must be paired
 * with exactly one {@link #release}.
 */
public final class ConnectionLimiter {
  private final int maxPerAddress;
  private final ConcurrentHashMap<InetAddress, AtomicInteger> counts = new ConcurrentHashMap<>();

  public ConnectionLimiter(int maxPerAddress) {
    if (maxPerAddress <= 0) {
      throw new IllegalArgumentException("maxPerAddress: " + maxPerAddress + " (expected: > 0)");
    }
    this.maxPerAddress = maxPerAddress;
  }

  public int maxPerAddress() {
    return maxPerAddress;
  }

  public boolean tryAcquire(InetAddress address) {
    boolean[] ok = new boolean[1];
    counts.compute(address, (a, n) -> {
      AtomicInteger c = n == null ? new AtomicInteger() : n;
      ok[0] = c.get() < maxPerAddress;
      if (ok[0]) {
        c.incrementAndGet();
      }
      return c.get() == 0 ? null : c;
    });
    return ok[0];
  }

  public void release(InetAddress address) {
    counts.computeIfPresent(address, (a, n) -> n.decrementAndGet() <= 0 ? null : n);
  }
}
