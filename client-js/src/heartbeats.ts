/**
 * Heartbeats and their acks, over buffer.ts's EventBuffer: sends what waits (at most a few frames
 * at once, none during a RATE_LIMITED's wait, one at a time while paced after it), settles an ack
 * or a refusal of a heartbeat (dropping, resending or holding its events), requeues everything
 * in flight when a connection is lost, and resolves flush() promises once what they cover is acked.
 * Single-threaded: called from the client's event loop.
 */
import type { Clock } from "./clock.js";
import type { PlayEvent } from "./gen/playline/v1/common_pb.js";
import { Error_Code } from "./gen/playline/v1/stream_pb.js";
import { EventBuffer, type SentEvent } from "./buffer.js";
import type { Connection } from "./transport.js";
import type { PlaylineError } from "./types.js";

const MAX_FRAMES_PER_SEND = 8;
/** The wait after a RATE_LIMITED without retry_after_ms (an older gateway). */
const MIN_RATE_LIMITED_WAIT_MS = 1_000;

/** The client's event counters that heartbeats move. */
export interface EventStats {
  eventsAcked: number;
  eventsResent: number;
  eventsDropped: number;
}

export class Heartbeats {
  private readonly buffer: EventBuffer;
  private readonly flushes: { version: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  /** No events are sent before this (clock.now()), the end of the last RATE_LIMITED's retry_after_ms. */
  private holdUntilMs = 0;
  /** Since a RATE_LIMITED, until nothing waits: one heartbeat with events at a time, each after the last's ack plus paceMs. */
  private paced = false;
  /** The last RATE_LIMITED's wait: the pace of heartbeats while paced. */
  private paceMs = 0;

  constructor(maxUnackedEvents: number, private readonly maxEventsPerHeartbeat: number,
    private readonly stats: EventStats, private readonly clock: Clock) {
    this.buffer = new EventBuffer(maxUnackedEvents);
  }

  /** Keeps `event` as its item's latest report. */
  report(event: PlayEvent): void {
    const dropped = this.buffer.put(event);
    if (dropped > 0) {
      this.stats.eventsDropped += dropped;
      this.completeFlushes();
    }
  }

  /** Resolves once everything reported so far is acked (or dropped). */
  flushed(): Promise<void> {
    const done = new Promise<void>((resolve, reject) => {
      this.flushes.push({ version: this.buffer.lastVersion(), resolve, reject });
    });
    this.completeFlushes();
    return done;
  }

  /** Sends what waits over `conn`; with `keepAlive`, an empty heartbeat when nothing does. */
  send(conn: Connection | undefined, keepAlive: boolean, flagDate: string, nextSeq: () => number): void {
    if (conn === undefined || !conn.isOpen) {
      return;
    }
    // While a RATE_LIMITED's wait runs nothing is sent; while paced, one heartbeat at a time.
    const maxFrames = this.clock.now() < this.holdUntilMs ? 0
      : this.paced ? (this.buffer.hasInFlight() ? 0 : 1) : MAX_FRAMES_PER_SEND;
    let frames = 0;
    while (this.buffer.hasWaiting() && frames < maxFrames) {
      const seq = nextSeq();
      const events = this.buffer.send(seq, this.maxEventsPerHeartbeat, this.clock.now());
      conn.send({ case: "heartbeat", value: { events, flagDate } }, seq);
      frames++;
    }
    if (frames === 0 && keepAlive) {
      const seq = nextSeq();
      this.buffer.send(seq, 0, this.clock.now());
      conn.send({ case: "heartbeat", value: { events: [], flagDate } }, seq);
    }
  }

  /** The heartbeat `seq` was acked: its events, or undefined when `seq` is no heartbeat in flight. */
  acked(seq: number): SentEvent[] | undefined {
    const sent = this.buffer.ack(seq);
    if (sent === undefined) {
      return undefined;
    }
    this.stats.eventsAcked += sent.length;
    if (this.paced && sent.length > 0) { // a keep-alive's ack says nothing about the budget
      this.paced = this.buffer.hasWaiting();
      this.holdUntilMs = this.paced ? this.clock.now() + this.paceMs : this.holdUntilMs;
    }
    return sent;
  }

  /** Call after acked() once listeners have been told: resolves the flushes it completed. */
  completeFlushes(): void {
    const oldest = this.buffer.oldestVersion();
    while (this.flushes.length > 0 && this.flushes[0].version < oldest) {
      this.flushes.shift()?.resolve();
    }
  }

  /** Whether `seq` is a heartbeat in flight. */
  isInFlight(seq: number): boolean {
    return this.buffer.isInFlight(seq);
  }

  /** The gateway refused heartbeat `seq`: its events are dropped, or resent (after the wait a RATE_LIMITED asks). */
  refused(seq: number, error: PlaylineError): void {
    if (error.code === Error_Code.INVALID_ARGUMENT || error.code === Error_Code.FRAME_TOO_LARGE) {
      this.stats.eventsDropped += this.buffer.reject(seq); // resending cannot help
    } else {
      this.stats.eventsResent += this.buffer.retry(seq);
      if (error.code === Error_Code.RATE_LIMITED) {
        this.paceMs = Math.max(error.retryAfterMs, MIN_RATE_LIMITED_WAIT_MS);
        this.holdUntilMs = Math.max(this.holdUntilMs, this.clock.now() + this.paceMs);
        this.paced = true;
      }
    }
    this.completeFlushes();
  }

  /** The connection was lost: everything in flight waits to be resent. */
  lost(): void {
    this.stats.eventsResent += this.buffer.requeueAll();
  }

  /** How long a RATE_LIMITED still holds sending back (≤ 0: it does not). */
  holdLeftMs(): number {
    return this.holdUntilMs - this.clock.now();
  }

  hasWaiting(): boolean {
    return this.buffer.hasWaiting();
  }

  hasInFlight(): boolean {
    return this.buffer.hasInFlight();
  }

  oldestInFlightMs(): number {
    return this.buffer.oldestInFlightMs();
  }

  /** The client closed: every flush fails with `error`. */
  rejectFlushes(error: PlaylineError): void {
    for (const f of this.flushes.splice(0)) {
      f.reject(error);
    }
  }
}
