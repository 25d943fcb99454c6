package io.playline.node.edge;

import io.playline.node.edge.AddressBudgets.Evictable;
import io.playline.node.edge.AddressBudgets.Refusal;
import io.playline.node.edge.AddressBudgets.Transport;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import org.jspecify.annotations.Nullable;

/**
 * The connections of each address that have not yet proven themselves ({@code
 * connection.max.unproven.per.address}; see {@link AddressBudgets#admitUnproven}): how many, and
 * those that may give way to a newer one, oldest first. Addresses are the caller's prefix keys.
 * Thread-safe: one lock, held for a map lookup per call.
 */
final class UnprovenConnections {
  private final int maxPerAddress;
  private final AddressMeters meters;
  /** Unproven connections per address; an address is here only while it has some. */
  private final HashMap<InetAddress, Unproven> unproven = new HashMap<>();
  private int total;

  UnprovenConnections(int maxPerAddress, AddressMeters meters) {
    this.maxPerAddress = maxPerAddress;
    this.meters = meters;
  }

  /** One address's unproven connections: how many, and those that may give way, oldest first. */
  private static final class Unproven {
    int count;
    final LinkedHashSet<Evictable> holds = new LinkedHashSet<>();
  }

  /** See {@link AddressBudgets#admitUnproven(InetAddress, Transport, Evictable)}. */
  @Nullable Refusal admit(InetAddress address, Transport transport, @Nullable Evictable hold) {
    Evictable evicted = null;
    synchronized (this) {
      Unproven u = unproven.computeIfAbsent(address, a -> new Unproven());
      if (u.count >= maxPerAddress) {
        Iterator<Evictable> oldest = u.holds.iterator();
        if (hold == null || !oldest.hasNext()) {
          meters.logRefusal(address, transport, Refusal.UNPROVEN);
          meters.refused(transport, Refusal.UNPROVEN);
          return Refusal.UNPROVEN;
        }
        evicted = oldest.next();
        oldest.remove();
        u.count--;
        total--;
        meters.logRefusal(address, transport, Refusal.UNPROVEN);
      }
      u.count++;
      total++;
      if (hold != null) {
        u.holds.add(hold);
      }
    }
    if (evicted != null) {
      meters.refused(transport, Refusal.UNPROVEN);
      evicted.evict();
    }
    return null;
  }

  /** See {@link AddressBudgets#proven(InetAddress, Evictable)}. */
  synchronized void proven(InetAddress address, @Nullable Evictable hold) {
    Unproven u = unproven.get(address);
    if (u == null || hold != null && !u.holds.remove(hold)) {
      return;
    }
    total--;
    if (--u.count == 0) {
      unproven.remove(address);
    }
  }

  /** Unproven connections now, every address together. */
  synchronized int total() {
    return total;
  }
}
