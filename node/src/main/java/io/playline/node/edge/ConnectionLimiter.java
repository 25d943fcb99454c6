package io.playline.node.edge;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Caps concurrent player connections on this node, across both transports: all of them ({@code
 * connection.max}), per remote address ({@code connection.max.per.address}; an address is its
 * {@link AddressPrefixes prefix}: an IPv4 /32, an IPv6 /64 by default) and per user once
 * authenticated ({@code connection.max.per.user}). Thread-safe; an {@link #admit} that answers null
 * must be paired with exactly one {@link #release}, an {@link #admitUser} that answers true with
 * exactly one {@link #releaseUser}.
 */
public final class ConnectionLimiter {
  private final int maxPerNode;
  private final int maxPerAddress;
  private final int maxPerUser;
  private final AddressPrefixes prefixes;
  private final AtomicInteger total = new AtomicInteger();
  private final ConcurrentHashMap<InetAddress, AtomicInteger> perAddress = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Long, AtomicInteger> perUser = new ConcurrentHashMap<>();

  public ConnectionLimiter(int maxPerNode, int maxPerAddress, int maxPerUser) {
    this(maxPerNode, maxPerAddress, maxPerUser, AddressPrefixes.DEFAULT);
  }

  public ConnectionLimiter(int maxPerNode, int maxPerAddress, int maxPerUser, AddressPrefixes prefixes) {
    if (maxPerNode <= 0 || maxPerAddress <= 0 || maxPerUser <= 0) {
      throw new IllegalArgumentException("connection caps: " + maxPerNode + "/" + maxPerAddress + "/" + maxPerUser
          + " (expected: each > 0)");
    }
    this.maxPerNode = maxPerNode;
    this.maxPerAddress = maxPerAddress;
    this.maxPerUser = maxPerUser;
    this.prefixes = prefixes;
  }

  /** Caps of connections that never authenticate as a user (the internal API's). */
  public ConnectionLimiter(int maxPerNode, int maxPerAddress) {
    this(maxPerNode, maxPerAddress, Integer.MAX_VALUE);
  }

  /**
   * Counts a new connection from {@code address} (null: unknown); null when admitted, else why not
   * (client-safe), and nothing is counted.
   */
  public @Nullable String admit(@Nullable InetAddress address) {
    if (total.incrementAndGet() > maxPerNode) {
      total.decrementAndGet();
      return "more than " + maxPerNode + " connections on this node";
    }
    if (address != null && !acquire(perAddress, prefixes.key(address), maxPerAddress)) {
      total.decrementAndGet();
      return "more than " + maxPerAddress + " connections from one address";
    }
    return null;
  }

  /** Uncounts a connection {@link #admit} let in. */
  public void release(@Nullable InetAddress address) {
    total.decrementAndGet();
    if (address != null) {
      perAddress.computeIfPresent(prefixes.key(address), (a, n) -> n.decrementAndGet() <= 0 ? null : n);
    }
  }

  /** Counts an authenticated connection of {@code uid}; false when the user has {@code connection.max.per.user}. */
  public boolean admitUser(long uid) {
    return acquire(perUser, uid, maxPerUser);
  }

  public void releaseUser(long uid) {
    perUser.computeIfPresent(uid, (u, n) -> n.decrementAndGet() <= 0 ? null : n);
  }

  public int maxPerUser() {
    return maxPerUser;
  }

  /** Connections counted now (for tests and metrics). */
  public int connections() {
    return total.get();
  }

  private static <K> boolean acquire(ConcurrentHashMap<K, AtomicInteger> counts, K key, int max) {
    boolean[] ok = new boolean[1];
    counts.compute(key, (k, n) -> {
      AtomicInteger c = n == null ? new AtomicInteger() : n;
      ok[0] = c.get() < max;
      if (ok[0]) {
        c.incrementAndGet();
      }
      return c.get() == 0 ? null : c;
    });
    return ok[0];
  }
}
