import type { PlayEvent } from "./gen/playline/v1/common_pb.js";

/** One event as a heartbeat carried it, with the version it had then. */
export interface SentEvent {
  readonly key: string;
  readonly version: number;
  readonly event: PlayEvent;
}

interface Entry {
  event: PlayEvent;
  version: number;
  /** The heartbeat carrying this version, or 0 while it waits to be sent. */
  inFlight: number;
}

interface InFlight {
  readonly events: SentEvent[];
  readonly sentAtMs: number;
}

/**
 * The latest unacked report per item (business, oid), in report order: what the next heartbeat
 * sends, what is in flight, what a lost connection must resend. Bounded: past `max` items the
 * oldest are dropped (and counted by the caller). A re-report of an item in flight waits to be
 * sent again; the older version's ack does not release it.
 */
export class EventBuffer {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<number, InFlight>();
  private nextVersion = 1;

  constructor(private readonly max: number) {}

  /** Keeps `event` as the item's latest report; returns how many old items were dropped over the bound. */
  put(event: PlayEvent): number {
    const key = `${event.business}:${event.oid}`;
    this.entries.delete(key); // a re-report moves to the end: the head is always the oldest
    this.entries.set(key, { event, version: this.nextVersion++, inFlight: 0 });
    let dropped = 0;
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      dropped++;
    }
    return dropped;
  }

  hasWaiting(): boolean {
    for (const e of this.entries.values()) {
      if (e.inFlight === 0) {
        return true;
      }
    }
    return false;
  }

  /** Marks up to `max` waiting items as carried by heartbeat `seq` and returns their events. */
  send(seq: number, max: number, nowMs: number): PlayEvent[] {
    const sent: SentEvent[] = [];
    for (const [key, e] of this.entries) {
      if (sent.length >= max) {
        break;
      }
      if (e.inFlight === 0) {
        e.inFlight = seq;
        sent.push({ key, version: e.version, event: e.event });
      }
    }
    this.inFlight.set(seq, { events: sent, sentAtMs: nowMs });
    return sent.map((s) => s.event);
  }

  isInFlight(seq: number): boolean {
    return this.inFlight.has(seq);
  }

  /** Heartbeat `seq` was written: releases the items still at the versions it carried. */
  ack(seq: number): SentEvent[] | undefined {
    const f = this.inFlight.get(seq);
    if (f === undefined) {
      return undefined;
    }
    this.inFlight.delete(seq);
    for (const s of f.events) {
      const e = this.entries.get(s.key);
      if (e !== undefined && e.version === s.version) {
        this.entries.delete(s.key);
      }
    }
    return f.events;
  }

  /** Heartbeat `seq` failed but may be retried: its items wait to be sent again. */
  retry(seq: number): number {
    const f = this.inFlight.get(seq);
    this.inFlight.delete(seq);
    return f === undefined ? 0 : this.requeue(f);
  }

  /** Heartbeat `seq` was refused as invalid: its items (at the versions it carried) are dropped. */
  reject(seq: number): number {
    const f = this.inFlight.get(seq);
    if (f === undefined) {
      return 0;
    }
    this.inFlight.delete(seq);
    let dropped = 0;
    for (const s of f.events) {
      const e = this.entries.get(s.key);
      if (e !== undefined && e.version === s.version) {
        this.entries.delete(s.key);
        dropped++;
      }
    }
    return dropped;
  }

  /** The connection is gone: nothing in flight will be answered; returns the items that wait again. */
  requeueAll(): number {
    let n = 0;
    for (const f of this.inFlight.values()) {
      n += this.requeue(f);
    }
    this.inFlight.clear();
    return n;
  }

  private requeue(f: InFlight): number {
    let n = 0;
    for (const s of f.events) {
      const e = this.entries.get(s.key);
      if (e !== undefined && e.version === s.version && e.inFlight !== 0) {
        e.inFlight = 0;
        n++;
      }
    }
    return n;
  }

  hasInFlight(): boolean {
    return this.inFlight.size > 0;
  }

  /** When the oldest unanswered heartbeat was sent, or Infinity. */
  oldestInFlightMs(): number {
    let oldest = Infinity;
    for (const f of this.inFlight.values()) {
      oldest = Math.min(oldest, f.sentAtMs);
    }
    return oldest;
  }

  /** The version the latest report got (0 before any). */
  lastVersion(): number {
    return this.nextVersion - 1;
  }

  /** The lowest version still unacked, or Infinity when everything is acked. */
  oldestVersion(): number {
    const head = this.entries.values().next();
    return head.done ? Infinity : head.value.version;
  }

  /** Items not acked yet (waiting or in flight). */
  size(): number {
    return this.entries.size;
  }
}
