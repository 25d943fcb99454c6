/**
 * One WebSocket connection to the gateway: opens it (abandoned when not authenticated within the
 * connect timeout), decodes each binary message into a ServerFrame, encodes ClientFrames, and maps a close
 * code 4000 + n to the protocol's Error.Code n. Reconnecting (with backoff.ts) is the client's.
 * Single-threaded: its handlers run on the event loop that built it.
 */
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import type { Clock, Scheduled } from "./clock.js";
import { type ClientFrame, ClientFrameSchema, Error_Code, type ServerFrame, ServerFrameSchema }
  from "./gen/playline/v1/stream_pb.js";
import { PlaylineError, type WebSocketFactory, type WebSocketLike } from "./types.js";

/** The body of a ClientFrame, as `send` takes it. */
export type FrameBody = MessageInitShape<typeof ClientFrameSchema>["body"];

/** What a Connection tells its owner. */
export interface ConnectionHandlers {
  opened(): void;
  frame(f: ServerFrame): void;
  /** The connection should be given up for `cause` (not authenticated in time, an undecodable frame). */
  failed(cause: PlaylineError): void;
  /** The socket closed; `code` is the Error.Code a 4000 + n close code carried. */
  closed(code: Error_Code | undefined, description: string): void;
}

const OPEN = 1;

export class Connection {
  private readonly ws: WebSocketLike;
  /** Until authenticated(): the socket opens, the token is fetched and AuthOk comes within the connect timeout. */
  private readonly connectTimer: Scheduled;

  /** @throws whatever the WebSocket constructor throws (e.g. a malformed URL) */
  constructor(WS: WebSocketFactory, url: string, connectTimeoutMs: number, clock: Clock, handlers: ConnectionHandlers) {
    const ws = new WS(url);
    this.ws = ws;
    ws.binaryType = "arraybuffer";
    const connectTimer = clock.schedule(() => {
      handlers.failed(new PlaylineError(Error_Code.UNAVAILABLE, `not connected within ${connectTimeoutMs} ms`));
    }, connectTimeoutMs);
    this.connectTimer = connectTimer;
    ws.onopen = () => {
      handlers.opened();
    };
    ws.onmessage = (ev) => {
      let frame: ServerFrame;
      try {
        frame = fromBinary(ServerFrameSchema, toBytes(ev.data));
      } catch (e) {
        handlers.failed(new PlaylineError(Error_Code.PROTOCOL_VIOLATION, `undecodable frame: ${String(e)}`));
        return;
      }
      handlers.frame(frame);
    };
    ws.onerror = () => {
      // A close event follows with the details.
    };
    ws.onclose = (ev) => {
      connectTimer.cancel();
      const code = ev.code >= 4000 && ev.code < 4100 ? (ev.code - 4000) as Error_Code : undefined;
      handlers.closed(code, `${ev.code}${ev.reason ? ` ${ev.reason}` : ""}`);
    };
  }

  /** AuthOk came: the connect timeout no longer applies. */
  authenticated(): void {
    this.connectTimer.cancel();
  }

  get isOpen(): boolean {
    return this.ws.readyState === OPEN;
  }

  /** Bytes the socket has not written yet. */
  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  send(body: FrameBody, seq: number): void {
    this.sendFrame(create(ClientFrameSchema, { seq: BigInt(seq), body }));
  }

  sendFrame(frame: ClientFrame): void {
    this.ws.send(toBinary(ClientFrameSchema, frame));
  }

  close(code?: number, reason?: string): void {
    this.ws.close(code, reason);
  }
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
