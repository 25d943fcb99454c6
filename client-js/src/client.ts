import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import {
  Business,
  type Cursor,
  type HistoryRecord,
  type ItemKey,
  ItemKeySchema,
  type PlayEvent,
  PlayEventSchema,
} from "./gen/playline/v1/common_pb.js";
import {
  type AuthOk,
  type ClientFrame,
  ClientFrameSchema,
  Error_Code,
  type HeartbeatAck,
  type HistoryPage,
  type ServerFrame,
  ServerFrameSchema,
} from "./gen/playline/v1/stream_pb.js";
import { Backoff } from "./backoff.js";
import { EventBuffer } from "./buffer.js";
import { defaultFlagStore, type FlagStore } from "./flags.js";

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
  /** A connection not open within this long is abandoned and retried. Default 10 s. */
  connectTimeoutMs?: number;
  /** A query without an answer within this long fails with UNAVAILABLE. Default 30 s. */
  requestTimeoutMs?: number;
  /** How long close() waits for the last acks. Default 5 s. */
  closeTimeoutMs?: number;
  /** Send at once when the page is hidden or left (visibilitychange, pagehide). Default true in a browser. */
  flushOnPageHide?: boolean;
}

const DEFAULT_HEARTBEAT_INTERVAL_MS = 15_000;
const MIN_HEARTBEAT_INTERVAL_MS = 100;
const MAX_FRAMES_PER_SEND = 8;
/** The wait after a RATE_LIMITED without retry_after_ms (an older gateway). */
const MIN_RATE_LIMITED_WAIT_MS = 1_000;
const MIN_DRAIN_WAIT_MS = 1_000;
const MAX_DRAIN_WAIT_MS = 5_000;
const OPEN = 1;
/** A Refresh is sent between these fractions of the time left until the credential expires. */
const REFRESH_AT = [0.75, 0.9] as const;

type FrameBody = MessageInitShape<typeof ClientFrameSchema>["body"];

type Phase = "new" | "connecting" | "authenticating" | "connected" | "draining" | "waiting" | "closing" | "closed";

interface Pending {
  readonly frame: ClientFrame;
  readonly expect: string;
  readonly resolve: (frame: ServerFrame) => void;
  readonly reject: (error: unknown) => void;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * A player's connection to a Playline gateway over WebSocket: authenticates once (and resumes its
 * server-side session after a reconnect), sends the latest progress per item at the gateway's
 * heartbeat interval (and at once on flush() and when the page is hidden), keeps unacked events
 * and resends them after a reconnect, reconnects with exponential backoff and full jitter, follows
 * `Reconnect`, refreshes its token before it expires, keeps and echoes the first-today date, and
 * answers progress(), history(), delete() and clear() as promises.
 *
 * Single-threaded like every JavaScript object: call it from one event loop.
 */
export class PlaylineClient {
  private readonly opts: Required<Omit<PlaylineClientOptions, "platform" | "flagStore" | "WebSocket">>;
  private readonly platform: string;
  private readonly flags: FlagStore;
  private readonly WS: WebSocketFactory;
  private readonly backoff: Backoff;
  private readonly buffer: EventBuffer;
  private readonly listeners = new Map<keyof PlaylineEvents, Set<(...args: never[]) => void>>();
  private readonly inFlight = new Map<number, Pending>();
  private readonly queued: Pending[] = [];
  private readonly flushes: { version: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private phase: Phase = "new";
  private announced?: ConnectionState;
  private ws?: WebSocketLike;
  private seq = 0;
  private authSeq = 0;
  private refreshSeq = 0;
  private sessionId = "";
  private knownUid = 0n;
  private flagDate = "";
  private notifiedDay = "";
  private heartbeatIntervalMs = DEFAULT_HEARTBEAT_INTERVAL_MS;
  private failures = 0;
  private retryAtOnce = false;
  private reconnectAtMs = -1;
  /** No events are sent before this (Date.now()), the end of the last RATE_LIMITED's retry_after_ms. */
  private holdUntilMs = 0;
  /** Since a RATE_LIMITED, until nothing waits: one heartbeat with events at a time, each after the last's ack plus paceMs. */
  private paced = false;
  /** The last RATE_LIMITED's wait: the pace of heartbeats while paced. */
  private paceMs = 0;
  private lastCause: unknown;
  private timer?: ReturnType<typeof setTimeout>;
  private heartbeatTimer?: ReturnType<typeof setTimeout>;
  private refreshTimer?: ReturnType<typeof setTimeout>;
  private closed?: Promise<void>;
  private resolveClosed?: () => void;
  private readonly pageHidden = () => {
    const doc = (globalThis as { document?: { visibilityState?: string } }).document;
    if (doc === undefined || doc.visibilityState !== "visible") {
      void this.flush().catch(() => undefined);
    }
  };
  /** Counters since the client was built. */
  readonly stats = { connections: 0, resumes: 0, eventsReported: 0, eventsAcked: 0, eventsResent: 0, eventsDropped: 0 };

  constructor(options: PlaylineClientOptions) {
    if (!options.url) {
      throw new RangeError("url is required");
    }
    if (!options.deviceId) {
      throw new RangeError("deviceId is required");
    }
    const WS = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketFactory }).WebSocket;
    if (WS === undefined) {
      throw new RangeError("no WebSocket here: pass options.WebSocket (in Node: WebSocket from the 'ws' package)");
    }
    this.WS = WS;
    this.platform = options.platform ?? "";
    this.flags = options.flagStore ?? defaultFlagStore();
    this.opts = {
      url: options.url,
      token: options.token,
      deviceId: options.deviceId,
      maxUnackedEvents: positive(options.maxUnackedEvents ?? 1_000, "maxUnackedEvents"),
      maxEventsPerHeartbeat: positive(options.maxEventsPerHeartbeat ?? 100, "maxEventsPerHeartbeat"),
      backoffBaseMs: options.backoffBaseMs ?? 500,
      backoffCapMs: options.backoffCapMs ?? 30_000,
      maxAttempts: positive(options.maxAttempts ?? Infinity, "maxAttempts"),
      connectTimeoutMs: positive(options.connectTimeoutMs ?? 10_000, "connectTimeoutMs"),
      requestTimeoutMs: positive(options.requestTimeoutMs ?? 30_000, "requestTimeoutMs"),
      closeTimeoutMs: positive(options.closeTimeoutMs ?? 5_000, "closeTimeoutMs"),
      flushOnPageHide: options.flushOnPageHide ?? true,
    };
    this.backoff = new Backoff(this.opts.backoffBaseMs, this.opts.backoffCapMs);
    this.buffer = new EventBuffer(this.opts.maxUnackedEvents);
  }

  /** Connects (once); events reported before are sent once authenticated. */
  start(): this {
    if (this.phase === "new") {
      const w = globalThis as { addEventListener?: (t: string, f: () => void) => void };
      if (this.opts.flushOnPageHide && typeof w.addEventListener === "function" && "document" in globalThis) {
        w.addEventListener("pagehide", this.pageHidden);
        (globalThis as unknown as { document: { addEventListener(t: string, f: () => void): void } }).document
          .addEventListener("visibilitychange", this.pageHidden);
      }
      this.announce("connecting");
      this.connect();
    }
    return this;
  }

  on<K extends keyof PlaylineEvents>(event: K, listener: PlaylineEvents[K]): () => void {
    let set = this.listeners.get(event);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as (...args: never[]) => void);
    return () => set?.delete(listener as (...args: never[]) => void);
  }

  get state(): ConnectionState {
    return this.announced ?? "connecting";
  }

  /** The authenticated user (0n before the first AuthOk). */
  get uid(): bigint {
    return this.knownUid;
  }

  /**
   * Reports progress in an item: kept as the item's latest report and sent with the next heartbeat
   * (`progressMs` -1 = finished; fractional milliseconds are truncated). Call it as often as the
   * player likes; only the latest per item is sent.
   */
  report(business: Business, oid: number | bigint, progressMs: number | bigint, durationMs: number | bigint,
    subId: number | bigint = 0): void {
    if (this.phase === "closed") {
      return;
    }
    const event = create(PlayEventSchema, {
      business,
      oid: BigInt(oid),
      subId: BigInt(subId),
      progressMs: millis("progressMs", progressMs),
      durationMs: millis("durationMs", durationMs),
      eventTimeMs: BigInt(Date.now()),
    });
    this.stats.eventsReported++;
    const dropped = this.buffer.put(event);
    if (dropped > 0) {
      this.stats.eventsDropped += dropped;
      this.completeFlushes();
    }
  }

  /** Sends what waits now (e.g. on pause or stop); resolves once everything reported so far is acked. */
  flush(): Promise<void> {
    if (this.phase === "closed") {
      return Promise.reject(new PlaylineError(Error_Code.UNAVAILABLE, "client closed"));
    }
    const done = new Promise<void>((resolve, reject) => {
      this.flushes.push({ version: this.buffer.lastVersion(), resolve, reject });
    });
    if (this.phase === "connected") {
      this.sendHeartbeats(false);
    }
    this.completeFlushes();
    return done;
  }

  /** The user's progress in `items` (items without progress are left out). */
  async progress(items: { business: Business; oid: number | bigint }[]): Promise<HistoryRecord[]> {
    const keys: ItemKey[] = items.map((i) => create(ItemKeySchema, { business: i.business, oid: BigInt(i.oid) }));
    const f = await this.request({ case: "progressQuery", value: { items: keys } }, "progress");
    return f.body.case === "progress" ? f.body.value.records : [];
  }

  /** One page of the user's history, newest first; pass the previous page's `next` as `after`. */
  async history(query: { businesses?: Business[]; after?: Cursor; limit?: number } = {}): Promise<HistoryPage> {
    const f = await this.request({
      case: "historyQuery",
      value: { businesses: query.businesses ?? [], after: query.after, limit: query.limit ?? 0 },
    }, "historyPage");
    if (f.body.case !== "historyPage") {
      throw new PlaylineError(Error_Code.INTERNAL, "unexpected answer");
    }
    return f.body.value;
  }

  /** Deletes items from the user's history in every tier. */
  async delete(items: { business: Business; oid: number | bigint }[]): Promise<void> {
    const keys = items.map((i) => create(ItemKeySchema, { business: i.business, oid: BigInt(i.oid) }));
    await this.request({ case: "delete", value: { items: keys } }, "done");
  }

  /** Clears the user's history of `businesses` (none = everything). */
  async clear(businesses: Business[] = []): Promise<void> {
    await this.request({ case: "clear", value: { businesses } }, "done");
  }

  /** Sends what waits, waits (at most closeTimeoutMs) for the acks and answers, then closes. */
  close(): Promise<void> {
    if (this.closed !== undefined) {
      return this.closed;
    }
    this.closed = new Promise<void>((resolve) => (this.resolveClosed = resolve));
    const was = this.phase;
    if (was === "closed") {
      this.resolveClosed?.();
      return this.closed;
    }
    this.phase = "closing";
    this.cancelTimers();
    this.removePageListeners();
    if (this.ws === undefined) {
      this.terminate(undefined);
    } else if (was === "connected" || was === "draining") {
      this.timer = setTimeout(() => this.ws?.close(1000, "closing"), this.opts.closeTimeoutMs);
      this.sendHeartbeats(false);
      this.answered();
    } else {
      this.ws.close(1000, "closing");
    }
    return this.closed;
  }

  // Connecting and authenticating

  private connect(): void {
    this.phase = "connecting";
    let ws: WebSocketLike;
    try {
      ws = new this.WS(this.opts.url);
    } catch (e) {
      this.ended(e);
      return;
    }
    this.ws = ws;
    ws.binaryType = "arraybuffer";
    const connectTimer = setTimeout(() => {
      if (this.ws === ws && this.phase === "connecting") {
        this.lastCause = new PlaylineError(Error_Code.UNAVAILABLE, `not connected within ${this.opts.connectTimeoutMs} ms`);
        ws.close();
      }
    }, this.opts.connectTimeoutMs);
    ws.onopen = () => {
      clearTimeout(connectTimer);
      if (this.ws === ws) {
        void this.opened();
      }
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) {
        return;
      }
      let frame: ServerFrame;
      try {
        frame = fromBinary(ServerFrameSchema, toBytes(ev.data));
      } catch (e) {
        this.lastCause = new PlaylineError(Error_Code.PROTOCOL_VIOLATION, `undecodable frame: ${String(e)}`);
        ws.close();
        return;
      }
      this.frame(frame);
    };
    ws.onerror = () => {
      // A close event follows with the details.
    };
    ws.onclose = (ev) => {
      clearTimeout(connectTimer);
      if (this.ws !== ws) {
        return;
      }
      this.ws = undefined;
      const code = ev.code >= 4000 && ev.code < 4100 ? (ev.code - 4000) as Error_Code : undefined;
      if (code === Error_Code.SESSION_EXPIRED || code === Error_Code.TOKEN_EXPIRED || code === Error_Code.UNAUTHENTICATED) {
        this.sessionId = ""; // reconnect with a fresh token
      }
      this.ended(this.lastCause ?? new PlaylineError(code ?? Error_Code.UNAVAILABLE,
        `connection closed (${ev.code}${ev.reason ? ` ${ev.reason}` : ""})`));
    };
  }

  private async opened(): Promise<void> {
    if (this.phase !== "connecting") {
      return;
    }
    this.phase = "authenticating";
    const ws = this.ws;
    let token = "";
    if (this.sessionId === "") {
      try {
        token = await this.opts.token();
      } catch (e) {
        this.lastCause = e;
        ws?.close();
        return;
      }
    }
    if (this.ws !== ws || this.phase !== "authenticating") {
      return;
    }
    this.authSeq = this.nextSeq();
    const flagDate = this.knownUid === 0n ? "" : this.flagDate || this.flags.load(this.knownUid);
    this.send({ case: "auth", value: {
      token, deviceId: this.opts.deviceId, platform: this.platform, flagDate, sessionId: this.sessionId,
    } }, this.authSeq);
  }

  private authenticated(ok: AuthOk): void {
    this.phase = "connected";
    this.failures = 0;
    const resumed = this.sessionId !== "" && ok.sessionId === this.sessionId;
    this.sessionId = ok.sessionId;
    this.stats.connections++;
    if (resumed) {
      this.stats.resumes++;
    }
    if (ok.uid !== this.knownUid) {
      this.knownUid = ok.uid;
      this.flagDate = this.flags.load(ok.uid);
      this.notifiedDay = "";
    }
    this.remember(ok.flagDate);
    this.heartbeatIntervalMs = ok.heartbeatIntervalMs > 0
      ? Math.max(MIN_HEARTBEAT_INTERVAL_MS, ok.heartbeatIntervalMs) : DEFAULT_HEARTBEAT_INTERVAL_MS;
    this.announce("connected");
    this.scheduleRefresh(ok.expiresAtMs, ok.serverTimeMs);
    for (const p of this.queued.splice(0)) {
      this.dispatch(p);
    }
    this.sendHeartbeats(false); // whatever the last connection left unacked
    this.scheduleTick();
  }

  // Frames

  private frame(f: ServerFrame): void {
    const seq = Number(f.seq);
    switch (f.body.case) {
      case "authOk":
        if (this.phase === "authenticating" && seq === this.authSeq) {
          this.authenticated(f.body.value);
        }
        break;
      case "heartbeatAck":
        this.onAck(seq, f.body.value);
        this.answered();
        break;
      case "progress":
      case "historyPage":
      case "done":
        this.answer(seq, f);
        this.answered();
        break;
      case "refreshOk":
        if (seq === this.refreshSeq) {
          this.refreshSeq = 0;
          this.scheduleRefresh(f.body.value.expiresAtMs, BigInt(Date.now()));
        }
        break;
      case "error":
        this.onError(seq, new PlaylineError(f.body.value.code, f.body.value.message, f.body.value.retryAfterMs), f);
        break;
      case "sync":
        if (f.body.value.record !== undefined) {
          this.emit("sync", f.body.value.record);
        }
        break;
      case "reconnect":
        this.reconnectRequested(f.body.value.afterMs, f.body.value.reason);
        break;
      default:
        break; // a kind this SDK does not know: ignore it, as the protocol asks
    }
  }

  private onAck(seq: number, ack: HeartbeatAck): void {
    const sent = this.buffer.ack(seq);
    if (sent === undefined) {
      return;
    }
    this.stats.eventsAcked += sent.length;
    if (this.paced && sent.length > 0) { // a keep-alive's ack says nothing about the budget
      this.paced = this.buffer.hasWaiting();
      this.holdUntilMs = this.paced ? Date.now() + this.paceMs : this.holdUntilMs;
    }
    this.remember(ack.flagDate);
    const events = sent.map((s, i) => ({ event: s.event, firstView: ack.firstView[i] ?? false }));
    this.emit("ack", { events, flagDate: ack.flagDate, firstToday: ack.firstToday });
    if (ack.firstToday && ack.flagDate !== this.notifiedDay) {
      this.notifiedDay = ack.flagDate;
      this.emit("firstToday", ack.flagDate);
    }
    this.completeFlushes();
  }

  private onError(seq: number, error: PlaylineError, f: ServerFrame): void {
    if (this.phase === "authenticating" && seq === this.authSeq) {
      // The gateway closes next. A session that expired is retried at once with a fresh token.
      if (this.sessionId !== "" && error.code === Error_Code.SESSION_EXPIRED) {
        this.retryAtOnce = true;
      }
      this.sessionId = "";
      this.lastCause = error;
      this.emit("error", error);
      return;
    }
    if (seq !== 0 && seq === this.refreshSeq) {
      this.refreshSeq = 0;
      this.emit("error", error);
      if (error.code === Error_Code.UNAVAILABLE) {
        this.refreshTimer = setTimeout(() => void this.refresh(), Math.min(30_000, this.heartbeatIntervalMs));
      } else {
        this.sessionId = ""; // refused: the gateway closes; reconnect with a fresh token
      }
      return;
    }
    if (seq !== 0 && this.buffer.isInFlight(seq)) {
      if (error.code === Error_Code.INVALID_ARGUMENT || error.code === Error_Code.FRAME_TOO_LARGE) {
        this.stats.eventsDropped += this.buffer.reject(seq); // resending cannot help
      } else {
        this.stats.eventsResent += this.buffer.retry(seq);
        if (error.code === Error_Code.RATE_LIMITED) {
          this.paceMs = Math.max(error.retryAfterMs, MIN_RATE_LIMITED_WAIT_MS);
          this.holdUntilMs = Math.max(this.holdUntilMs, Date.now() + this.paceMs);
          this.paced = true;
        }
      }
      this.completeFlushes();
      this.emit("error", error);
      this.answered();
      return;
    }
    if (seq !== 0 && this.inFlight.has(seq)) {
      this.answer(seq, f);
      this.answered();
      return;
    }
    if (error.code === Error_Code.TOKEN_EXPIRED) {
      this.sessionId = "";
    }
    this.lastCause = error; // not tied to a frame: the gateway closes the connection next
    this.emit("error", error);
  }

  private reconnectRequested(afterMs: number, reason: string): void {
    if (this.phase !== "connected") {
      return;
    }
    this.phase = "draining";
    this.cancelTimers();
    const after = Math.max(0, afterMs);
    this.reconnectAtMs = Date.now() + after + this.backoff.jitterMs();
    this.lastCause = new PlaylineError(Error_Code.DRAINING, `gateway asked to reconnect: ${reason}`);
    this.timer = setTimeout(() => this.ws?.close(1000, "reconnecting"),
      Math.min(MAX_DRAIN_WAIT_MS, Math.max(MIN_DRAIN_WAIT_MS, after)));
    this.answered();
  }

  /** After an answer: a draining or closing connection closes once nothing awaits an answer. */
  private answered(): void {
    const ws = this.ws;
    if (ws === undefined || (this.phase !== "draining" && this.phase !== "closing")) {
      return;
    }
    if (this.phase === "closing" && this.buffer.hasWaiting()) {
      this.sendHeartbeats(false);
    }
    if (!this.buffer.hasInFlight() && this.inFlight.size === 0) {
      ws.close(1000, this.phase === "closing" ? "closing" : "reconnecting");
    }
  }

  // Heartbeats

  private sendHeartbeats(keepAlive: boolean): void {
    const ws = this.ws;
    if (ws === undefined || ws.readyState !== OPEN) {
      return;
    }
    // While a RATE_LIMITED's wait runs nothing is sent; while paced, one heartbeat at a time.
    const maxFrames = Date.now() < this.holdUntilMs ? 0
      : this.paced ? (this.buffer.hasInFlight() ? 0 : 1) : MAX_FRAMES_PER_SEND;
    let frames = 0;
    while (this.buffer.hasWaiting() && frames < maxFrames) {
      const seq = this.nextSeq();
      const events = this.buffer.send(seq, this.opts.maxEventsPerHeartbeat, Date.now());
      this.send({ case: "heartbeat", value: { events, flagDate: this.flagDate } }, seq);
      frames++;
    }
    if (frames === 0 && keepAlive) {
      const seq = this.nextSeq();
      this.buffer.send(seq, 0, Date.now());
      this.send({ case: "heartbeat", value: { events: [], flagDate: this.flagDate } }, seq);
    }
  }

  private scheduleTick(): void {
    this.heartbeatTimer = setTimeout(() => this.tick(), this.heartbeatIntervalMs);
  }

  private tick(): void {
    this.heartbeatTimer = undefined;
    const ws = this.ws;
    if (this.phase !== "connected" || ws === undefined) {
      return;
    }
    const ackTimeoutMs = 2 * this.heartbeatIntervalMs + this.opts.connectTimeoutMs;
    if (Date.now() - this.buffer.oldestInFlightMs() > ackTimeoutMs) {
      this.lastCause = new PlaylineError(Error_Code.UNAVAILABLE, `no answer to a heartbeat within ${ackTimeoutMs} ms`);
      ws.close();
      return;
    }
    if (ws.bufferedAmount < 1 << 20) { // a socket that cannot write keeps the events for later
      this.sendHeartbeats(true);
    }
    this.scheduleTick();
  }

  private remember(date: string): void {
    if (date === "" || date === this.flagDate || this.knownUid === 0n) {
      return;
    }
    this.flagDate = date;
    this.flags.store(this.knownUid, date);
  }

  private completeFlushes(): void {
    const oldest = this.buffer.oldestVersion();
    while (this.flushes.length > 0 && this.flushes[0].version < oldest) {
      this.flushes.shift()?.resolve();
    }
  }

  // Token refresh

  private scheduleRefresh(expiresAtMs: bigint, serverTimeMs: bigint): void {
    if (this.refreshTimer !== undefined) {
      clearTimeout(this.refreshTimer);
      this.refreshTimer = undefined;
    }
    if (expiresAtMs === 0n) {
      return; // the credential does not expire
    }
    const left = Number(expiresAtMs - serverTimeMs);
    const fraction = REFRESH_AT[0] + Math.random() * (REFRESH_AT[1] - REFRESH_AT[0]);
    this.refreshTimer = setTimeout(() => void this.refresh(), Math.max(0, Math.floor(left * fraction)));
  }

  private async refresh(): Promise<void> {
    this.refreshTimer = undefined;
    if (this.phase !== "connected") {
      return;
    }
    let token: string;
    try {
      token = await this.opts.token();
    } catch (e) {
      this.emit("error", new PlaylineError(Error_Code.UNAUTHENTICATED, `token supplier failed: ${String(e)}`));
      this.refreshTimer = setTimeout(() => void this.refresh(), 5_000);
      return;
    }
    if (this.phase !== "connected") {
      return;
    }
    this.refreshSeq = this.nextSeq();
    this.send({ case: "refresh", value: { token } }, this.refreshSeq);
  }

  // Requests

  private request(body: FrameBody, expect: string): Promise<ServerFrame> {
    if (this.phase === "closed" || this.phase === "closing") {
      return Promise.reject(new PlaylineError(Error_Code.UNAVAILABLE, "client closed"));
    }
    return new Promise<ServerFrame>((resolve, reject) => {
      const p: Pending = { frame: create(ClientFrameSchema, { body }), expect, resolve, reject };
      if (this.phase === "connected") {
        this.dispatch(p);
      } else {
        this.queued.push(p);
      }
    });
  }

  private dispatch(p: Pending): void {
    const seq = this.nextSeq();
    p.frame.seq = BigInt(seq);
    this.inFlight.set(seq, p);
    p.timer = setTimeout(() => {
      if (this.inFlight.delete(seq)) {
        p.reject(new PlaylineError(Error_Code.UNAVAILABLE, `no answer within ${this.opts.requestTimeoutMs} ms`));
      }
    }, this.opts.requestTimeoutMs);
    this.ws?.send(toBinary(ClientFrameSchema, p.frame));
  }

  private answer(seq: number, f: ServerFrame): void {
    const p = this.inFlight.get(seq);
    if (p === undefined) {
      return;
    }
    this.inFlight.delete(seq);
    clearTimeout(p.timer);
    if (f.body.case === "error") {
      p.reject(new PlaylineError(f.body.value.code, f.body.value.message));
    } else if (f.body.case === p.expect) {
      p.resolve(f);
    } else {
      p.reject(new PlaylineError(Error_Code.INTERNAL, `expected ${p.expect}, got ${String(f.body.case)}`));
    }
  }

  // Losing and ending connections

  private ended(cause: unknown): void {
    this.cancelTimers();
    const was = this.phase;
    this.stats.eventsResent += this.buffer.requeueAll();
    this.refreshSeq = 0;
    for (const [seq, p] of this.inFlight) {
      this.inFlight.delete(seq);
      clearTimeout(p.timer);
      p.reject(new PlaylineError(Error_Code.UNAVAILABLE, "connection lost before the answer; retry"));
    }
    if (was === "closing") {
      this.terminate(undefined);
      return;
    }
    const why = this.lastCause ?? cause;
    this.lastCause = undefined;
    let delay = this.nextDelayMs(was === "connected" || was === "draining");
    if (delay >= 0) {
      delay = Math.max(delay, this.holdUntilMs - Date.now()); // closed RATE_LIMITED: no sooner than told
    }
    if (delay < 0) {
      this.terminate(why);
      return;
    }
    this.phase = "waiting";
    this.announce("reconnecting", why);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  private nextDelayMs(wasConnected: boolean): number {
    if (this.retryAtOnce) {
      this.retryAtOnce = false;
      return 0;
    }
    if (!wasConnected && ++this.failures >= this.opts.maxAttempts) {
      return -1;
    }
    if (this.reconnectAtMs >= 0) {
      const delay = Math.max(0, this.reconnectAtMs - Date.now());
      this.reconnectAtMs = -1;
      return delay;
    }
    return this.backoff.delayMs(this.failures);
  }

  private terminate(cause: unknown): void {
    this.phase = "closed";
    this.cancelTimers();
    this.removePageListeners();
    const error = new PlaylineError(Error_Code.UNAVAILABLE, cause === undefined ? "client closed"
      : `gave up reconnecting: ${String(cause)}`);
    for (const p of this.queued.splice(0)) {
      p.reject(error);
    }
    for (const f of this.flushes.splice(0)) {
      f.reject(error);
    }
    this.announce("closed", cause);
    if (this.closed === undefined) {
      this.closed = Promise.resolve();
    }
    this.resolveClosed?.();
  }

  private removePageListeners(): void {
    const w = globalThis as { removeEventListener?: (t: string, f: () => void) => void;
      document?: { removeEventListener(t: string, f: () => void): void } };
    if (typeof w.removeEventListener === "function" && w.document !== undefined) {
      w.removeEventListener("pagehide", this.pageHidden);
      w.document.removeEventListener("visibilitychange", this.pageHidden);
    }
  }

  private cancelTimers(): void {
    for (const t of [this.timer, this.heartbeatTimer, this.refreshTimer]) {
      if (t !== undefined) {
        clearTimeout(t);
      }
    }
    this.timer = this.heartbeatTimer = this.refreshTimer = undefined;
  }

  private announce(next: ConnectionState, cause?: unknown): void {
    if (next !== this.announced) {
      this.announced = next;
      this.emit("state", next, cause);
    }
  }

  private emit<K extends keyof PlaylineEvents>(event: K, ...args: Parameters<PlaylineEvents[K]>): void {
    for (const l of this.listeners.get(event) ?? []) {
      try {
        (l as unknown as (...a: Parameters<PlaylineEvents[K]>) => void)(...args);
      } catch (e) {
        // A listener's failure must not break the session.
        console.error("Playline listener failed", e);
      }
    }
  }

  private nextSeq(): number {
    return ++this.seq;
  }

  private send(body: FrameBody, seq: number): void {
    this.ws?.send(toBinary(ClientFrameSchema, create(ClientFrameSchema, { seq: BigInt(seq), body })));
  }
}

function positive(n: number, name: string): number {
  if (!(n >= 1)) {
    throw new RangeError(`${name}: ${n} (expected: >= 1)`);
  }
  return n;
}

function toBytes(data: unknown): Uint8Array {
  if (data instanceof ArrayBuffer) {
    return new Uint8Array(data);
  }
  if (ArrayBuffer.isView(data)) {
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }
  throw new TypeError("a text WebSocket message: only binary messages carry frames");
}

export { Business };

/** Milliseconds as the wire wants them: fractions (a media element's `currentTime * 1000`) truncated. */
function millis(name: string, value: number | bigint): bigint {
  if (typeof value === "bigint") {
    return value;
  }
  if (!Number.isFinite(value)) {
    throw new RangeError(`${name}: ${value} (expected: a finite number of milliseconds)`);
  }
  return BigInt(Math.trunc(value));
}
