package io.playline.client.internal;

import io.playline.proto.lite.v1.PlayEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The reported events not yet acked: the latest report per item (by event time), each either
 * waiting to be sent or in flight in one heartbeat. An ack releases exactly the versions that
 * heartbeat carried, so a report that arrived meanwhile stays and goes out with the next
 * heartbeat. At most {@code max} items are kept; beyond that the item reported longest ago is
 * dropped. Resending after a reconnect is safe because the gateway keeps the latest event time.
 *
 * <p>Confined to the client's loop.
 */
final class EventBuffer {
  /** An item's identity: (business, oid); sub_id is a position, not identity. A map key. */
  static final class Item {
    final int business;
    final long oid;

    Item(int business, long oid) {
      this.business = business;
      this.oid = oid;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Item && ((Item) o).business == business && ((Item) o).oid == oid;
    }

    @Override
    public int hashCode() {
      return 31 * business + Long.hashCode(oid);
    }
  }

  /** One event as sent in a heartbeat, with the version it had then. */
  static final class Sent {
    final Item item;
    final long version;
    final PlayEvent event;

    Sent(Item item, long version, PlayEvent event) {
      this.item = item;
      this.version = version;
      this.event = event;
    }

    PlayEvent event() {
      return event;
    }
  }

  /** What one heartbeat carried and when. */
  private static final class InFlight {
    final List<Sent> events;
    final long sentAtMs;

    InFlight(List<Sent> events, long sentAtMs) {
      this.events = events;
      this.sentAtMs = sentAtMs;
    }
  }

  /** What an ack released: the heartbeat's events, and how many were still current. */
  static final class Released {
    final List<Sent> events;
    final int released;

    Released(List<Sent> events, int released) {
      this.events = events;
      this.released = released;
    }

    List<Sent> events() {
      return events;
    }

    int released() {
      return released;
    }
  }

  private static final class Entry {
    final PlayEvent event;
    final long version;
    long seq; // heartbeat carrying this version, 0 while waiting to be sent

    Entry(PlayEvent event, long version) {
      this.event = event;
      this.version = version;
    }
  }

  private final int max;
  /** In report order (a re-report moves to the end), so the head is the oldest and has the lowest version. */
  private final LinkedHashMap<Item, Entry> entries = new LinkedHashMap<>();
  private final Map<Long, InFlight> inFlight = new HashMap<>();
  private long versions;
  private int waiting;

  EventBuffer(int max) {
    this.max = max;
  }

  /**
   * Keeps {@code event} as its item's latest unless a report with a later event time is held;
   * returns how many items were dropped to stay within the bound.
   */
  int put(PlayEvent event) {
    Item item = new Item(event.getBusinessValue(), event.getOid());
    Entry old = entries.get(item);
    if (old != null) {
      if (old.event.getEventTimeMs() > event.getEventTimeMs()) {
        return 0;
      }
      remove(item, old);
    }
    entries.put(item, new Entry(event, ++versions));
    waiting++;
    int dropped = 0;
    while (entries.size() > max) {
      Map.Entry<Item, Entry> eldest = entries.entrySet().iterator().next();
      remove(eldest.getKey(), eldest.getValue());
      dropped++;
    }
    return dropped;
  }

  private void remove(Item item, Entry e) {
    entries.remove(item);
    if (e.seq == 0) {
      waiting--;
    }
  }

  /** Whether some item waits to be sent. */
  boolean hasWaiting() {
    return waiting > 0;
  }

  /**
   * Takes up to {@code limit} waiting items into heartbeat {@code seq} (possibly none: a
   * keep-alive) and returns their events in order.
   */
  List<PlayEvent> send(long seq, int limit, long nowMs) {
    List<Sent> sent = new ArrayList<>(Math.min(limit, waiting));
    for (Iterator<Map.Entry<Item, Entry>> it = entries.entrySet().iterator(); it.hasNext() && sent.size() < limit; ) {
      Map.Entry<Item, Entry> e = it.next();
      Entry entry = e.getValue();
      if (entry.seq == 0) {
        entry.seq = seq;
        waiting--;
        sent.add(new Sent(e.getKey(), entry.version, entry.event));
      }
    }
    inFlight.put(seq, new InFlight(sent, nowMs));
    List<PlayEvent> events = new ArrayList<>(sent.size());
    for (Sent s : sent) {
      events.add(s.event);
    }
    return events;
  }

  /** Whether {@code seq} is a heartbeat in flight. */
  boolean isInFlight(long seq) {
    return inFlight.containsKey(seq);
  }

  /** Heartbeat {@code seq} was written: releases the items still at the versions it carried. */
  @Nullable Released ack(long seq) {
    InFlight f = inFlight.remove(seq);
    if (f == null) {
      return null;
    }
    int released = 0;
    for (Sent s : f.events) {
      Entry e = entries.get(s.item);
      if (e != null && e.version == s.version) {
        remove(s.item, e);
        released++;
      }
    }
    return new Released(f.events, released);
  }

  /** Heartbeat {@code seq} failed but may be retried: its current items wait to be sent again. */
  int retry(long seq) {
    InFlight f = inFlight.remove(seq);
    return f == null ? 0 : requeue(f);
  }

  /** Heartbeat {@code seq} was rejected as invalid: its current items are dropped. */
  int reject(long seq) {
    InFlight f = inFlight.remove(seq);
    int dropped = 0;
    for (Sent s : f == null ? Collections.<Sent>emptyList() : f.events) {
      Entry e = entries.get(s.item);
      if (e != null && e.version == s.version) {
        remove(s.item, e);
        dropped++;
      }
    }
    return dropped;
  }

  /** The connection is gone: every heartbeat in flight will never be answered; returns items requeued. */
  int requeueAll() {
    int requeued = 0;
    for (InFlight f : inFlight.values()) {
      requeued += requeue(f);
    }
    inFlight.clear();
    return requeued;
  }

  private int requeue(InFlight f) {
    int requeued = 0;
    for (Sent s : f.events) {
      Entry e = entries.get(s.item);
      if (e != null && e.version == s.version && e.seq != 0) {
        e.seq = 0;
        waiting++;
        requeued++;
      }
    }
    return requeued;
  }

  /** Whether any heartbeat awaits its answer. */
  boolean hasInFlight() {
    return !inFlight.isEmpty();
  }

  /** When the oldest unanswered heartbeat was sent, or {@link Long#MAX_VALUE} if none. */
  long oldestInFlightMs() {
    long oldest = Long.MAX_VALUE;
    for (InFlight f : inFlight.values()) {
      oldest = Math.min(oldest, f.sentAtMs);
    }
    return oldest;
  }

  /** The version the next report will exceed: every item held now has a version at most this. */
  long lastVersion() {
    return versions;
  }

  /** The lowest version held, or {@link Long#MAX_VALUE} when empty. */
  long oldestVersion() {
    return entries.isEmpty() ? Long.MAX_VALUE : entries.values().iterator().next().version;
  }

  /** Items held (waiting or in flight). */
  int size() {
    return entries.size();
  }
}
