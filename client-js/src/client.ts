/**
 * The session: PlaylineClient, the SDK's one public class. Drives a connection (transport.ts)
 * through its states (authenticate, resume, follow Reconnect, reconnect per reconnect.ts, close),
 * keeps the first-today date, and hands heartbeats to heartbeats.ts, queries to queries.ts, token
 * refresh to refresh.ts and listeners to events.ts.
 *
 * Past 400 lines on purpose: what is left is one state machine (the phases below) whose every
 * transition reads and writes the same few fields (phase, connection, seq, session id, timers);
 * frame routing, the heartbeat tick and the close path each move the phase, so splitting them
 * would spread one set of transitions over several files that all mutate this class.
 */
import { create } from "@bufbuild/protobuf";
import type { Scheduled } from "./clock.js";
import { Business, type Cursor, type HistoryRecord, PlayEventSchema } from "./gen/playline/v1/common_pb.js";
import { type AuthOk, Error_Code, type HeartbeatAck, type HistoryPage, type ServerFrame }
  from "./gen/playline/v1/stream_pb.js";
import { Listeners } from "./events.js";
import { FirstToday } from "./firsttoday.js";
import { Heartbeats } from "./heartbeats.js";
import { millis, type ResolvedOptions, resolveOptions } from "./options.js";
import { pageHidden, watchPageHide } from "./page.js";
import { Queries } from "./queries.js";
import { ReconnectPolicy } from "./reconnect.js";
import { TokenRefresh } from "./refresh.js";
import { Connection, type FrameBody } from "./transport.js";
import { type ConnectionState, PlaylineError, type PlaylineClientOptions, type PlaylineEvents } from "./types.js";

export { type Ack, type AckedEvent, type ConnectionState, PlaylineError, type PlaylineClientOptions, type PlaylineEvents,
  type WebSocketFactory, type WebSocketLike } from "./types.js";


const DEFAULT_HEARTBEAT_INTERVAL_MS = 15_000;
const MIN_HEARTBEAT_INTERVAL_MS = 100;
const MIN_DRAIN_WAIT_MS = 1_000;
const MAX_DRAIN_WAIT_MS = 5_000;

type Phase = "new" | "connecting" | "authenticating" | "connected" | "draining" | "waiting" | "closing" | "closed";

/**
 * A player's connection to a Playline gateway over WebSocket: authenticates once (and resumes its
 * server-side session after a reconnect), sends the latest progress per item at the gateway's
 * heartbeat interval (and at once on flush() and when the page is hidden), keeps unacked events
 * and resends them after a reconnect, reconnects with exponential backoff and full jitter, follows
 * `Reconnect`, refreshes its token before it expires, keeps and echoes the first-today date, and
 * answers progress(), history(), delete(), clear() and clearAll() as promises.
 *
 * Single-threaded like every JavaScript object: call it from one event loop.
 */
export class PlaylineClient {
  private readonly opts: ResolvedOptions;
  private readonly reconnects: ReconnectPolicy;
  private readonly heartbeats: Heartbeats;
  private readonly listeners = new Listeners();
  private readonly refresh: TokenRefresh;
  private readonly queries: Queries;
  private phase: Phase = "new";
  private announced?: ConnectionState;
  private conn?: Connection;
  private seq = 0;
  private authSeq = 0;
  private sessionId = "";
  private readonly firstToday: FirstToday;
  private heartbeatIntervalMs = DEFAULT_HEARTBEAT_INTERVAL_MS;
  private lastCause: unknown;
  private timer?: Scheduled;
  private heartbeatTimer?: Scheduled;
  private closed?: Promise<void>;
  private resolveClosed?: () => void;
  private unwatchPage = (): void => undefined;
  /** Counters since the client was built. */
  readonly stats = { connections: 0, resumes: 0, eventsReported: 0, eventsAcked: 0, eventsResent: 0, eventsDropped: 0 };

  constructor(options: PlaylineClientOptions) {
    this.opts = resolveOptions(options);
    this.firstToday = new FirstToday(this.opts.flags);
    const { clock, random } = this.opts;
    this.reconnects = new ReconnectPolicy(this.opts.backoffBaseMs, this.opts.backoffCapMs, this.opts.maxAttempts,
      clock, random);
    this.heartbeats = new Heartbeats(this.opts.maxUnackedEvents, this.opts.maxEventsPerHeartbeat, this.stats, clock);
    this.refresh = new TokenRefresh({
      connected: () => this.phase === "connected",
      token: () => this.opts.token(),
      nextSeq: () => this.nextSeq(),
      send: (body, seq) => this.send(body, seq),
      error: (error) => this.emit("error", error),
    }, clock, random);
    this.queries = new Queries({
      requestTimeoutMs: this.opts.requestTimeoutMs,
      status: () => this.phase === "closed" || this.phase === "closing" ? "refused"
        : this.phase === "connected" ? "send" : "hold",
      nextSeq: () => this.nextSeq(),
      send: (frame) => this.conn?.sendFrame(frame),
    }, clock);
  }

  /** Connects (once); events reported before are sent once authenticated. */
  start(): this {
    if (this.phase === "new") {
      if (this.opts.flushOnPageHide) {
        this.unwatchPage = watchPageHide(() => {
          if (pageHidden()) {
            void this.flush().catch(() => undefined);
          }
        });
      }
      this.announce("connecting");
      this.connect();
    }
    return this;
  }

  on<K extends keyof PlaylineEvents>(event: K, listener: PlaylineEvents[K]): () => void {
    return this.listeners.on(event, listener);
  }

  get state(): ConnectionState {
    return this.announced ?? "connecting";
  }

  /** The authenticated user (0n before the first AuthOk). */
  get uid(): bigint {
    return this.firstToday.user;
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
      eventTimeMs: BigInt(this.opts.clock.now()),
    });
    this.stats.eventsReported++;
    this.heartbeats.report(event);
  }

  /** Sends what waits now (e.g. on pause or stop); resolves once everything reported so far is acked. */
  flush(): Promise<void> {
    if (this.phase === "closed") {
      return Promise.reject(new PlaylineError(Error_Code.UNAVAILABLE, "client closed"));
    }
    if (this.phase === "connected") {
      this.sendHeartbeats(false);
    }
    return this.heartbeats.flushed();
  }

  /** The user's progress in `items` (items without progress are left out). */
  progress(items: { business: Business; oid: number | bigint }[]): Promise<HistoryRecord[]> {
    return this.queries.progress(items);
  }

  /** One page of the user's history, newest first; pass the previous page's `next` as `after`. */
  history(query: { businesses?: Business[]; after?: Cursor; limit?: number } = {}): Promise<HistoryPage> {
    return this.queries.history(query);
  }

  /** Deletes items from the user's history in every tier. */
  delete(items: { business: Business; oid: number | bigint }[]): Promise<void> {
    return this.queries.delete(items);
  }

  /** Clears the user's history of `businesses` (at least one; `clearAll()` clears everything). */
  clear(businesses: Business[]): Promise<void> {
    if (businesses.length === 0) {
      return Promise.reject(new RangeError("businesses: empty (expected: at least one; clearAll() clears everything)"));
    }
    return this.queries.clear(businesses, false);
  }

  /** Clears the user's whole history, every business. */
  clearAll(): Promise<void> {
    return this.queries.clear([], true);
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
    this.unwatchPage();
    if (this.conn === undefined) {
      this.terminate(undefined);
    } else if (was === "connected" || was === "draining") {
      this.timer = this.opts.clock.schedule(() => this.conn?.close(1000, "closing"), this.opts.closeTimeoutMs);
      this.sendHeartbeats(false);
      this.answered();
    } else {
      this.conn.close(1000, "closing");
    }
    return this.closed;
  }

  // Connecting and authenticating

  private connect(): void {
    this.phase = "connecting";
    let conn: Connection;
    try {
      conn = new Connection(this.opts.WS, this.opts.url, this.opts.connectTimeoutMs, this.opts.clock, {
        opened: () => {
          if (this.conn === conn) {
            void this.opened();
          }
        },
        frame: (f) => {
          if (this.conn === conn) {
            this.frame(f);
          }
        },
        failed: (cause) => {
          if (this.conn === conn) {
            this.lastCause = cause;
            conn.close();
          }
        },
        closed: (code, description) => {
          if (this.conn !== conn) {
            return;
          }
          this.conn = undefined;
          if (code === Error_Code.SESSION_EXPIRED || code === Error_Code.TOKEN_EXPIRED
            || code === Error_Code.UNAUTHENTICATED) {
            this.sessionId = ""; // reconnect with a fresh token
          }
          this.ended(this.lastCause ?? new PlaylineError(code ?? Error_Code.UNAVAILABLE,
            `connection closed (${description})`));
        },
      });
    } catch (e) {
      this.ended(e);
      return;
    }
    this.conn = conn;
  }

  private async opened(): Promise<void> {
    if (this.phase !== "connecting") {
      return;
    }
    this.phase = "authenticating";
    const conn = this.conn;
    let token = "";
    if (this.sessionId === "") {
      try {
        token = await this.opts.token();
      } catch (e) {
        this.lastCause = e;
        conn?.close();
        return;
      }
    }
    if (this.conn !== conn || this.phase !== "authenticating") {
      return;
    }
    this.authSeq = this.nextSeq();
    const flagDate = this.firstToday.authDate();
    this.send({ case: "auth", value: {
      token, deviceId: this.opts.deviceId, platform: this.opts.platform, flagDate, sessionId: this.sessionId,
    } }, this.authSeq);
  }

  private authenticated(ok: AuthOk): void {
    this.phase = "connected";
    this.conn?.authenticated();
    this.reconnects.succeeded();
    const resumed = this.sessionId !== "" && ok.sessionId === this.sessionId;
    this.sessionId = ok.sessionId;
    this.stats.connections++;
    if (resumed) {
      this.stats.resumes++;
    }
    this.firstToday.authenticated(ok.uid, ok.flagDate);
    this.heartbeatIntervalMs = ok.heartbeatIntervalMs > 0
      ? Math.max(MIN_HEARTBEAT_INTERVAL_MS, ok.heartbeatIntervalMs) : DEFAULT_HEARTBEAT_INTERVAL_MS;
    this.announce("connected");
    this.refresh.schedule(ok.expiresAtMs, ok.serverTimeMs);
    this.queries.sendQueued();
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
        this.queries.answer(seq, f);
        this.answered();
        break;
      case "refreshOk":
        if (this.refresh.awaits(seq)) {
          this.refresh.accepted(f.body.value.expiresAtMs);
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
    const sent = this.heartbeats.acked(seq);
    if (sent === undefined) {
      return;
    }
    this.firstToday.remember(ack.flagDate);
    const events = sent.map((s, i) => ({ event: s.event, firstView: ack.firstView[i] ?? false }));
    this.emit("ack", { events, flagDate: ack.flagDate, firstToday: ack.firstToday });
    if (this.firstToday.firstNotice(ack.firstToday, ack.flagDate)) {
      this.emit("firstToday", ack.flagDate);
    }
    this.heartbeats.completeFlushes();
  }

  private onError(seq: number, error: PlaylineError, f: ServerFrame): void {
    if (this.phase === "authenticating" && seq === this.authSeq) {
      // The gateway closes next. A session that expired is retried at once with a fresh token.
      if (this.sessionId !== "" && error.code === Error_Code.SESSION_EXPIRED) {
        this.reconnects.retryNow();
      }
      this.sessionId = "";
      this.lastCause = error;
      this.emit("error", error);
      return;
    }
    if (this.refresh.awaits(seq)) {
      if (this.refresh.refused(error, this.heartbeatIntervalMs)) {
        this.sessionId = ""; // the gateway closes; reconnect with a fresh token
      }
      return;
    }
    if (seq !== 0 && this.heartbeats.isInFlight(seq)) {
      this.heartbeats.refused(seq, error);
      this.emit("error", error);
      this.answered();
      return;
    }
    if (seq !== 0 && this.queries.has(seq)) {
      this.queries.answer(seq, f);
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
    this.reconnects.requested(after);
    this.lastCause = new PlaylineError(Error_Code.DRAINING, `gateway asked to reconnect: ${reason}`);
    this.timer = this.opts.clock.schedule(() => this.conn?.close(1000, "reconnecting"),
      Math.min(MAX_DRAIN_WAIT_MS, Math.max(MIN_DRAIN_WAIT_MS, after)));
    this.answered();
  }

  /** After an answer: a draining or closing connection closes once nothing awaits an answer. */
  private answered(): void {
    const conn = this.conn;
    if (conn === undefined || (this.phase !== "draining" && this.phase !== "closing")) {
      return;
    }
    if (this.phase === "closing" && this.heartbeats.hasWaiting()) {
      this.sendHeartbeats(false);
    }
    if (!this.heartbeats.hasInFlight() && !this.queries.awaiting()) {
      conn.close(1000, this.phase === "closing" ? "closing" : "reconnecting");
    }
  }

  // Heartbeats

  private sendHeartbeats(keepAlive: boolean): void {
    this.heartbeats.send(this.conn, keepAlive, this.firstToday.date, () => this.nextSeq());
  }

  private scheduleTick(): void {
    this.heartbeatTimer = this.opts.clock.schedule(() => this.tick(), this.heartbeatIntervalMs);
  }

  private tick(): void {
    this.heartbeatTimer = undefined;
    const conn = this.conn;
    if (this.phase !== "connected" || conn === undefined) {
      return;
    }
    const ackTimeoutMs = 2 * this.heartbeatIntervalMs + this.opts.connectTimeoutMs;
    if (this.opts.clock.now() - this.heartbeats.oldestInFlightMs() > ackTimeoutMs) {
      this.lastCause = new PlaylineError(Error_Code.UNAVAILABLE, `no answer to a heartbeat within ${ackTimeoutMs} ms`);
      conn.close();
      return;
    }
    if (conn.bufferedAmount < 1 << 20) { // a socket that cannot write keeps the events for later
      this.sendHeartbeats(true);
    }
    this.scheduleTick();
  }

  // Losing and ending connections

  private ended(cause: unknown): void {
    this.cancelTimers();
    const was = this.phase;
    this.heartbeats.lost();
    this.refresh.lost();
    this.queries.lost();
    if (was === "closing") {
      this.terminate(undefined);
      return;
    }
    const why = this.lastCause ?? cause;
    this.lastCause = undefined;
    let delay = this.reconnects.nextDelayMs(was === "connected" || was === "draining");
    if (delay >= 0) {
      delay = Math.max(delay, this.heartbeats.holdLeftMs()); // closed RATE_LIMITED: no sooner than told
    }
    if (delay < 0) {
      this.terminate(why);
      return;
    }
    this.phase = "waiting";
    this.announce("reconnecting", why);
    this.timer = this.opts.clock.schedule(() => this.connect(), delay);
  }

  private terminate(cause: unknown): void {
    this.phase = "closed";
    this.cancelTimers();
    this.unwatchPage();
    const error = new PlaylineError(Error_Code.UNAVAILABLE, cause === undefined ? "client closed"
      : `gave up reconnecting: ${String(cause)}`);
    this.queries.rejectQueued(error);
    this.heartbeats.rejectFlushes(error);
    this.announce("closed", cause);
    if (this.closed === undefined) {
      this.closed = Promise.resolve();
    }
    this.resolveClosed?.();
  }

  private cancelTimers(): void {
    this.timer?.cancel();
    this.heartbeatTimer?.cancel();
    this.timer = this.heartbeatTimer = undefined;
    this.refresh.cancel();
  }

  private announce(next: ConnectionState, cause?: unknown): void {
    if (next !== this.announced) {
      this.announced = next;
      this.emit("state", next, cause);
    }
  }

  private emit<K extends keyof PlaylineEvents>(event: K, ...args: Parameters<PlaylineEvents[K]>): void {
    this.listeners.emit(event, ...args);
  }

  private nextSeq(): number {
    return ++this.seq;
  }

  private send(body: FrameBody, seq: number): void {
    this.conn?.send(body, seq);
  }
}

export { Business };
