/**
 * The SDK's public types: the client's options, the events it emits, what an ack carries, the
 * WebSocket it needs and its error (the Clock and RandomSource it takes are clock.ts's). Plain data;
 * no behaviour beyond PlaylineError's message.
 */
import type { Clock, RandomSource } from "./clock.js";
import type { HistoryRecord, PlayEvent } from "./gen/playline/v1/common_pb.js";
import { Error_Code } from "./gen/playline/v1/stream_pb.js";
import type { FlagStore } from "./flags.js";

/** The connection state the client reports. */
export type ConnectionState = "connecting" | "connected" | "reconnecting" | "closed";

/** A failure the gateway (or the client) reported; `code` is the protocol's Error.Code. */
export class PlaylineError extends Error {
  /**
   * @param retryAfterMs for RATE_LIMITED, how long the gateway asked to wait before sending again
   *     (the client holds the refused events back that long and resends them itself); 0 otherwise
   */
  constructor(
    readonly code: Error_Code,
    message: string,
    readonly retryAfterMs = 0,
  ) {
    super(`${Error_Code[code] ?? "INTERNAL"}: ${message}`);
    this.name = "PlaylineError";
  }
}

/** One acked event and whether it created the user's record of the item. */
export interface AckedEvent {
  readonly event: PlayEvent;
  readonly firstView: boolean;
}

/** A heartbeat the gateway wrote to Redis. */
export interface Ack {
  readonly events: AckedEvent[];
  /** Today's date once the user is known to be counted today (echoed from then on), else "". */
  readonly flagDate: string;
  /** True on exactly one heartbeat per user per day, across all of the user's devices. */
  readonly firstToday: boolean;
}

/** What the client tells its listeners. */
export interface PlaylineEvents {
  ack: (ack: Ack) => void;
  /** Once per date: this user's first play of the day (e.g. for daily rewards). */
  firstToday: (date: string) => void;
  /** Another device of this user moved an item's progress. */
  sync: (record: HistoryRecord) => void;
  error: (error: PlaylineError) => void;
  state: (state: ConnectionState, cause?: unknown) => void;
}

/** The WebSocket the client needs: the browser's, or the `ws` package's in Node. */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  readonly bufferedAmount: number;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketFactory = new (url: string) => WebSocketLike;

export interface PlaylineClientOptions {
  /** The gateway's stream endpoint, e.g. `wss://play.example.com/v1/stream`. */
  url: string;
  /** Returns a fresh player token (called to authenticate, to re-authenticate and to refresh). */
  token: () => string | Promise<string>;
  /** Stable id of this device or installation. */
  deviceId: string;
  /** e.g. "web", "android", "tv". */
  platform?: string;
  /** Where the first-today date is kept: localStorage in a browser, memory elsewhere. */
  flagStore?: FlagStore;
  /** The WebSocket class: globalThis.WebSocket by default; in Node pass `WebSocket` from the `ws` package. */
  WebSocket?: WebSocketFactory;
  /** Unacked items kept for resending (latest report per item); the oldest are dropped beyond it. Default 1000. */
  maxUnackedEvents?: number;
  /** Events per Heartbeat frame (the gateway's limit, default 100). */
  maxEventsPerHeartbeat?: number;
  /** Backoff between reconnect attempts: full jitter in [0, min(cap, base * 2^n)]. Defaults 500 ms / 30 s. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Consecutive failed attempts before giving up (state "closed"). Default: never give up. */
  maxAttempts?: number;
  /**
   * An attempt not authenticated within this long (the socket opened, the token fetched, AuthOk
   * received) is abandoned and retried. Default 10 s.
   */
  connectTimeoutMs?: number;
  /** A query without an answer within this long fails with UNAVAILABLE. Default 30 s. */
  requestTimeoutMs?: number;
  /** How long close() waits for the last acks. Default 5 s. */
  closeTimeoutMs?: number;
  /** Send at once when the page is hidden or left (visibilitychange, pagehide). Default true in a browser. */
  flushOnPageHide?: boolean;
  /**
   * Where the client reads the time (event times, deadlines) and sets every timer: the heartbeat
   * tick, reconnect waits, token refresh, and the connect, request, close and drain timeouts.
   * Default: Date.now and setTimeout. Tests pass a manual clock to run these on virtual time.
   */
  clock?: Clock;
  /**
   * The numbers in [0, 1) behind the reconnect backoff's jitter and the moment of a token refresh.
   * Default: Math.random.
   */
  random?: RandomSource;
}
