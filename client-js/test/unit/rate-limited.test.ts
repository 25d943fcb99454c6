/**
 * A RATE_LIMITED heartbeat on virtual time: its events wait retry_after_ms (flushes meanwhile send
 * nothing), then go one heartbeat at a time, each after the previous one's ack plus that wait, to
 * the millisecond; every event is acked once. The real gateway's budget is sdk.test.ts's.
 */
import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { Business, ErrorCode, type PlaylineClient, type PlaylineError } from "../../src/index.js";
import type { ClientFrame } from "../../src/gen/playline/v1/stream_pb.js";
import { ScriptedGateway, type ScriptedSocket, settle } from "../scripted-gateway.js";
import { ManualClock } from "../virtual-clock.js";

/** The heartbeats that carried events (keep-alives left out). */
function withEvents(socket: ScriptedSocket): ClientFrame[] {
  return socket.frames("heartbeat").filter((f) => f.body.case === "heartbeat" && f.body.value.events.length > 0);
}

function ack(socket: ScriptedSocket, heartbeat: ClientFrame): void {
  socket.receive({ seq: heartbeat.seq, body: { case: "heartbeatAck", value: {} } });
}

function refuse(socket: ScriptedSocket, heartbeat: ClientFrame, retryAfterMs: number): void {
  socket.receive({ seq: heartbeat.seq, body: { case: "error", value: {
    code: ErrorCode.RATE_LIMITED, message: "more events per second than the user's budget", retryAfterMs } } });
}

describe("a RATE_LIMITED heartbeat on virtual time", () => {
  let clock: ManualClock;
  let gateway: ScriptedGateway;
  let c: PlaylineClient;
  let errors: PlaylineError[];
  /** Keep-alives already acked. */
  let keptAlive: Set<bigint>;

  beforeEach(() => {
    clock = new ManualClock();
    gateway = new ScriptedGateway(clock);
    errors = [];
    keptAlive = new Set();
  });

  /** Flushes every 100 ms for `ms` (keep-alives of the tick acked); returns the heartbeats with events sent meanwhile. */
  async function chattyFor(socket: ScriptedSocket, ms: number): Promise<number> {
    const before = withEvents(socket).length;
    for (let t = 0; t < ms; t += 100) {
      void c.flush().catch(() => undefined);
      clock.advance(Math.min(100, ms - t));
      for (const k of socket.frames("heartbeat").filter((f) => f.body.case === "heartbeat"
        && f.body.value.events.length === 0 && !keptAlive.has(f.seq))) {
        keptAlive.add(k.seq);
        ack(socket, k);
      }
      await settle();
    }
    return withEvents(socket).length - before;
  }

  it("holds the refused events for retry_after_ms, then sends them one heartbeat at a time, paced", async () => {
    c = gateway.client({ maxEventsPerHeartbeat: 10 });
    c.on("error", (e) => errors.push(e));
    const socket = await gateway.accept();
    for (let oid = 1; oid <= 30; oid++) {
      c.report(Business.VIDEO, oid, 1_000, 60_000);
    }
    void c.flush().catch(() => undefined);
    const [first, second, third] = withEvents(socket);
    assert.equal(withEvents(socket).length, 3, "30 events, 10 a heartbeat, at once");
    ack(socket, first);
    refuse(socket, second, 1_000);
    refuse(socket, third, 1_000);
    assert.deepEqual(errors.map((e) => [e.code, e.retryAfterMs]), [[ErrorCode.RATE_LIMITED, 1_000],
      [ErrorCode.RATE_LIMITED, 1_000]]);

    // retry_after_ms runs: flushes send nothing.
    assert.equal(await chattyFor(socket, 999), 0, "nothing during the wait");
    assert.equal(await chattyFor(socket, 1), 1, "one heartbeat when the wait is over");
    const resent = withEvents(socket)[3];
    assert.equal(resent.body.case === "heartbeat" && resent.body.value.events.length, 10);
    assert.equal(await chattyFor(socket, 3_000), 0, "nothing more while it awaits its answer");
    ack(socket, resent);
    assert.equal(await chattyFor(socket, 999), 0, "the next one waits as long after the ack");
    assert.equal(await chattyFor(socket, 1), 1);
    ack(socket, withEvents(socket)[4]);
    await settle();

    assert.equal(c.stats.eventsAcked, 30);
    assert.equal(await chattyFor(socket, 3_000), 0, "nothing left to send");
    assert.deepEqual(withEvents(socket).flatMap((f) => f.body.case === "heartbeat"
      ? f.body.value.events.map((e) => Number(e.oid)) : []).sort((a, b) => a - b),
    [...Array.from({ length: 30 }, (_, i) => i + 1), ...Array.from({ length: 20 }, (_, i) => i + 11)].sort((a, b) => a - b),
    "each refused event sent once more, none beyond");
    assert.equal(c.stats.connections, 1);
  });
});
