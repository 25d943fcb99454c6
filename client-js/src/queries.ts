/**
 * The client's queries (progress, history, delete, clear) and their answers: builds each query's
 * frame, holds it until the connection is authenticated, sends it with its own seq, matches the
 * answer by seq, and fails it after the request timeout or when the connection is lost.
 * Single-threaded: called from the client's event loop.
 */
import { create } from "@bufbuild/protobuf";
import type { Clock, Scheduled } from "./clock.js";
import { type Business, type Cursor, type HistoryRecord, ItemKeySchema } from "./gen/playline/v1/common_pb.js";
import { type ClientFrame, ClientFrameSchema, Error_Code, type HistoryPage, type ServerFrame }
  from "./gen/playline/v1/stream_pb.js";
import type { FrameBody } from "./transport.js";
import { PlaylineError } from "./types.js";

interface Pending {
  readonly frame: ClientFrame;
  readonly expect: string;
  readonly resolve: (frame: ServerFrame) => void;
  readonly reject: (error: unknown) => void;
  timer?: Scheduled;
}

/** What the queries need of the client. */
export interface QueryChannel {
  readonly requestTimeoutMs: number;
  /** Whether queries are refused (closing or closed), sent now (authenticated) or held. */
  status(): "refused" | "send" | "hold";
  nextSeq(): number;
  send(frame: ClientFrame): void;
}

export class Queries {
  private readonly inFlight = new Map<number, Pending>();
  private readonly queued: Pending[] = [];

  constructor(private readonly channel: QueryChannel, private readonly clock: Clock) {}

  async progress(items: { business: Business; oid: number | bigint }[]): Promise<HistoryRecord[]> {
    const keys = items.map((i) => create(ItemKeySchema, { business: i.business, oid: BigInt(i.oid) }));
    const f = await this.request({ case: "progressQuery", value: { items: keys } }, "progress");
    return f.body.case === "progress" ? f.body.value.records : [];
  }

  async history(query: { businesses?: Business[]; after?: Cursor; limit?: number }): Promise<HistoryPage> {
    const f = await this.request({
      case: "historyQuery",
      value: { businesses: query.businesses ?? [], after: query.after, limit: query.limit ?? 0 },
    }, "historyPage");
    if (f.body.case !== "historyPage") {
      throw new PlaylineError(Error_Code.INTERNAL, "unexpected answer");
    }
    return f.body.value;
  }

  async delete(items: { business: Business; oid: number | bigint }[]): Promise<void> {
    const keys = items.map((i) => create(ItemKeySchema, { business: i.business, oid: BigInt(i.oid) }));
    await this.request({ case: "delete", value: { items: keys } }, "done");
  }

  /** Exactly one scope: some `businesses`, or `allBusinesses` (the server refuses an empty list alone). */
  async clear(businesses: Business[], allBusinesses: boolean): Promise<void> {
    await this.request({ case: "clear", value: { businesses, allBusinesses } }, "done");
  }

  /** Sends the queries held until the connection was authenticated. */
  sendQueued(): void {
    for (const p of this.queued.splice(0)) {
      this.dispatch(p);
    }
  }

  /** Whether a sent query awaits its answer. */
  awaiting(): boolean {
    return this.inFlight.size > 0;
  }

  /** Whether `seq` is a sent query's. */
  has(seq: number): boolean {
    return this.inFlight.has(seq);
  }

  /** Settles the query sent as `seq` with `f` (its answer or an error), if it still waits. */
  answer(seq: number, f: ServerFrame): void {
    const p = this.inFlight.get(seq);
    if (p === undefined) {
      return;
    }
    this.inFlight.delete(seq);
    p.timer?.cancel();
    if (f.body.case === "error") {
      p.reject(new PlaylineError(f.body.value.code, f.body.value.message));
    } else if (f.body.case === p.expect) {
      p.resolve(f);
    } else {
      p.reject(new PlaylineError(Error_Code.INTERNAL, `expected ${p.expect}, got ${String(f.body.case)}`));
    }
  }

  /** The connection was lost: every sent query fails (the caller may retry). */
  lost(): void {
    for (const [seq, p] of this.inFlight) {
      this.inFlight.delete(seq);
      p.timer?.cancel();
      p.reject(new PlaylineError(Error_Code.UNAVAILABLE, "connection lost before the answer; retry"));
    }
  }

  /** The client closed: every held query fails with `error`. */
  rejectQueued(error: PlaylineError): void {
    for (const p of this.queued.splice(0)) {
      p.reject(error);
    }
  }

  private request(body: FrameBody, expect: string): Promise<ServerFrame> {
    const status = this.channel.status();
    if (status === "refused") {
      return Promise.reject(new PlaylineError(Error_Code.UNAVAILABLE, "client closed"));
    }
    return new Promise<ServerFrame>((resolve, reject) => {
      const p: Pending = { frame: create(ClientFrameSchema, { body }), expect, resolve, reject };
      if (status === "send") {
        this.dispatch(p);
      } else {
        this.queued.push(p);
      }
    });
  }

  private dispatch(p: Pending): void {
    const seq = this.channel.nextSeq();
    p.frame.seq = BigInt(seq);
    this.inFlight.set(seq, p);
    const timeoutMs = this.channel.requestTimeoutMs;
    p.timer = this.clock.schedule(() => {
      if (this.inFlight.delete(seq)) {
        p.reject(new PlaylineError(Error_Code.UNAVAILABLE, `no answer within ${timeoutMs} ms`));
      }
    }, timeoutMs);
    this.channel.send(p.frame);
  }
}
