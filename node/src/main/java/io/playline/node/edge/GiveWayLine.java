package io.playline.node.edge;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * A port's connections grouped by address, and those of them that may give way to a newcomer,
 * each with the time it was last active: answers which one gives way — the least recently active
 * of the address holding the most connections ({@link #takeFromBusiest()}), or of one address
 * ({@link #takeFrom}) — in O(log n) per change and per answer, however many connections the port
 * holds. The times are the caller's (any increasing sequence, unique per connection). An address is
 * ranked only while one of its connections may give way.
 *
 * <p>Not thread-safe: the caller holds one lock around every call.
 *
 * @param <T> what the caller closes when a connection gives way
 */
public final class GiveWayLine<T> {
  /** One address: the connections it holds, and those that may give way by the time each was last active. */
  private static final class Address<T> {
    final @Nullable InetAddress key;
    int held;
    final TreeMap<Long, T> mayGiveWay = new TreeMap<>();

    Address(@Nullable InetAddress key) {
      this.key = key;
    }
  }

  private final Map<@Nullable InetAddress, Address<T>> addresses = new HashMap<>();
  /** The addresses with a connection that may give way: the most held first, then the least recently active. */
  private final TreeSet<Address<T>> ranked = new TreeSet<>((a, b) -> a.held != b.held
      ? Integer.compare(b.held, a.held) : Long.compare(a.mayGiveWay.firstKey(), b.mayGiveWay.firstKey()));

  /** {@code address} (its prefix; null: unknown) holds one more connection. */
  public void opened(@Nullable InetAddress address) {
    Address<T> a = unrank(address);
    a.held++;
    rank(a);
  }

  /** One of {@code address}'s connections closed (or gave way); it no longer may give way. */
  public void closed(@Nullable InetAddress address, long lastActive) {
    Address<T> a = unrank(address);
    a.held--;
    a.mayGiveWay.remove(lastActive);
    rank(a);
  }

  /** {@code connection} of {@code address}, last active at {@code lastActive}, may give way. */
  public void mayGiveWay(@Nullable InetAddress address, long lastActive, T connection) {
    Address<T> a = unrank(address);
    a.mayGiveWay.put(lastActive, connection);
    rank(a);
  }

  /** The connection of {@code address} last active at {@code lastActive} may no longer give way. */
  public void mayNotGiveWay(@Nullable InetAddress address, long lastActive) {
    Address<T> a = unrank(address);
    a.mayGiveWay.remove(lastActive);
    rank(a);
  }

  /**
   * Takes out the least recently active connection that may give way of the address holding the
   * most connections (of those that hold one that may), counting it closed; null when none may.
   */
  public @Nullable T takeFromBusiest() {
    return ranked.isEmpty() ? null : take(ranked.first());
  }

  /** As {@link #takeFromBusiest()}, from {@code address}'s connections only. */
  public @Nullable T takeFrom(@Nullable InetAddress address) {
    Address<T> a = addresses.get(address);
    return a == null || a.mayGiveWay.isEmpty() ? null : take(a);
  }

  private T take(Address<T> a) {
    ranked.remove(a);
    T taken = a.mayGiveWay.pollFirstEntry().getValue();
    a.held--;
    rank(a);
    return taken;
  }

  /** {@code address}'s entry (made when there is none), out of the ranking while the caller changes it. */
  private Address<T> unrank(@Nullable InetAddress address) {
    Address<T> a = addresses.get(address);
    if (a == null) {
      a = new Address<>(address);
      addresses.put(address, a);
    } else if (!a.mayGiveWay.isEmpty()) {
      ranked.remove(a);
    }
    return a;
  }

  /** Puts {@code a} back in the ranking when one of its connections may give way; forgets it once it holds none. */
  private void rank(Address<T> a) {
    if (!a.mayGiveWay.isEmpty()) {
      ranked.add(a);
    } else if (a.held <= 0) {
      addresses.remove(a.key);
    }
  }
}
