/**
 * An in-process gateway for unit tests: a WebSocket class the client opens sockets with, each
 * socket driven by the test (open it, hand the client server frames, close it as the gateway or
 * the network would) and recording the client frames sent on it, decoded. Nothing touches the
 * network; with a ManualClock nothing waits for the wall clock either. Tests against a real
 * gateway are sdk.test.ts's.
 */
import assert from "node:assert/strict";
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { type ClientFrame, ClientFrameSchema, ServerFrameSchema } from "../src/gen/playline/v1/stream_pb.js";
import { MemoryFlagStore, PlaylineClient, type PlaylineClientOptions, type WebSocketFactory,
  type WebSocketLike } from "../src/index.js";
import type { ManualClock } from "./virtual-clock.js";

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

type ServerFrameInit = MessageInitShape<typeof ServerFrameSchema>;
type AuthOkInit = Extract<NonNullable<ServerFrameInit["body"]>, { case: "authOk" }>["value"];
/** A kind of client frame (its body's case). */
export type ClientFrameKind = NonNullable<ClientFrame["body"]["case"]>;

/** Lets the client's promise chains run (the token supplier, the Auth after it, a close event): one event-loop turn. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One WebSocket the client opened; the test plays the gateway and the network. */
export class ScriptedSocket implements WebSocketLike {
  binaryType = "blob";
  readyState = CONNECTING;
  /** Bytes "not written yet", as the test sets them (a socket that cannot write). */
  bufferedAmount = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  /** Every frame the client sent, in order. */
  readonly sent: ClientFrame[] = [];
  /** The close the client asked for, if it did. */
  closedByClient?: { code?: number; reason?: string };
  private acked = 0;

  constructor(readonly url: string) {}

  // What the client calls

  send(data: Uint8Array): void {
    if (this.readyState === CONNECTING) {
      throw new Error("send() on a socket that is not open yet"); // as a browser's WebSocket throws
    }
    if (this.readyState === OPEN) {
      this.sent.push(fromBinary(ClientFrameSchema, data));
    }
  }

  /** As a WebSocket's: the close event follows asynchronously (on a CONNECTING socket with 1006). */
  close(code?: number, reason?: string): void {
    if (this.readyState === CLOSING || this.readyState === CLOSED) {
      return;
    }
    const wasConnecting = this.readyState === CONNECTING;
    this.readyState = CLOSING;
    this.closedByClient = { code, reason };
    queueMicrotask(() => this.closed(wasConnecting ? 1006 : code ?? 1005, reason ?? ""));
  }

  // What the test calls, as the gateway or the network

  /** The handshake completed. */
  open(): void {
    assert.equal(this.readyState, CONNECTING, "open() on a socket that is not connecting");
    this.readyState = OPEN;
    this.onopen?.({});
  }

  /** The gateway sends `frame`. */
  receive(frame: ServerFrameInit): void {
    assert.equal(this.readyState, OPEN, "receive() on a socket that is not open");
    const bytes = toBinary(ServerFrameSchema, create(ServerFrameSchema, frame));
    this.onmessage?.({ data: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
  }

  /** The gateway (or the network: 1006) closes the socket. */
  closeByGateway(code: number, reason = ""): void {
    if (this.readyState !== CLOSED) {
      this.closed(code, reason);
    }
  }

  /** Acks every heartbeat sent since the last call (no first view, no first-today); returns how many. */
  ackHeartbeats(): number {
    const heartbeats = this.frames("heartbeat");
    for (const h of heartbeats.slice(this.acked)) {
      this.receive({ seq: h.seq, body: { case: "heartbeatAck", value: {} } });
    }
    const n = heartbeats.length - this.acked;
    this.acked = heartbeats.length;
    return n;
  }

  /** Frames the client sent of `kind`. */
  frames(kind: ClientFrameKind): ClientFrame[] {
    return this.sent.filter((f) => f.body.case === kind);
  }

  /** The last frame of `kind` the client sent; fails the test when there is none. */
  last(kind: ClientFrameKind): ClientFrame {
    const all = this.frames(kind);
    const sent = this.sent.map((f) => f.body.case).join(", ") || "nothing";
    assert.ok(all.length > 0, `no ${kind} frame sent (sent: ${sent})`);
    return all[all.length - 1];
  }

  get isOpen(): boolean {
    return this.readyState === OPEN;
  }

  get isClosed(): boolean {
    return this.readyState === CLOSED;
  }

  private closed(code: number, reason: string): void {
    this.readyState = CLOSED;
    this.onclose?.({ code, reason });
  }
}

/**
 * The gateway: every socket the client opens (through `WebSocket`), and the handshake and answers
 * a well-behaved gateway gives.
 */
export class ScriptedGateway {
  static readonly URL = "ws://gateway.test/v1/stream";
  readonly sockets: ScriptedSocket[] = [];
  readonly WebSocket: WebSocketFactory;

  constructor(private readonly clock: ManualClock) {
    const sockets = this.sockets;
    this.WebSocket = class extends ScriptedSocket {
      constructor(url: string) {
        super(url);
        sockets.push(this);
      }
    };
  }

  /** A started client of this gateway on `clock`; `options` override the test defaults. */
  client(options: Partial<PlaylineClientOptions> = {}): PlaylineClient {
    return new PlaylineClient({
      url: ScriptedGateway.URL,
      token: () => "token-1",
      deviceId: "device-1",
      platform: "test",
      flagStore: new MemoryFlagStore(),
      WebSocket: this.WebSocket,
      clock: this.clock,
      random: () => {
        throw new Error("the test scripted no random numbers");
      },
      ...options,
    }).start();
  }

  /** The socket the client opened last. */
  get latest(): ScriptedSocket {
    assert.ok(this.sockets.length > 0, "the client opened no socket");
    return this.sockets[this.sockets.length - 1];
  }

  /**
   * Completes the latest socket's handshake, waits for the client's Auth and answers AuthOk
   * (`authOk` overrides: by default uid 42, session "session-1", heartbeats every second, a
   * credential that does not expire); returns the socket.
   */
  async accept(authOk: AuthOkInit = {}): Promise<ScriptedSocket> {
    const socket = this.latest;
    socket.open();
    await settle();
    const auth = socket.last("auth");
    socket.receive({ seq: auth.seq, body: { case: "authOk", value: {
      uid: 42n, sessionId: "session-1", heartbeatIntervalMs: 1_000, serverTimeMs: BigInt(this.clock.now()),
      expiresAtMs: 0n, ...authOk,
    } } });
    return socket;
  }
}

/** The client closes `socket` exactly `ms` (≥ 1) from now, not a millisecond before; returns the close asked for. */
export function expectClientClosesAfter(clock: ManualClock, socket: ScriptedSocket, ms: number):
  { code?: number; reason?: string } {
  clock.advance(ms - 1);
  assert.equal(socket.closedByClient, undefined, `still open ${ms - 1} ms on`);
  clock.advance(1);
  assert.ok(socket.closedByClient, `closed by the client ${ms} ms on`);
  return socket.closedByClient;
}

/** Advances `clock` by `ms`, timer by timer, acking every heartbeat `socket` carried as a live gateway would. */
export function advanceAcking(clock: ManualClock, socket: ScriptedSocket, ms: number): void {
  const until = clock.now() + ms;
  for (let next = clock.nextDueInMs(); next !== undefined && clock.now() + next <= until; next = clock.nextDueInMs()) {
    clock.advance(next);
    if (socket.isOpen) {
      socket.ackHeartbeats();
    }
  }
  clock.advance(until - clock.now());
}
