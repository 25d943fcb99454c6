/**
 * The heartbeat tick on virtual time: at the gateway's interval (clamped, defaulted), a keep-alive
 * when nothing moved, the latest report per item otherwise; no tick while disconnected and the
 * tick resumed by the next connection; no send while the socket cannot write.
 */
import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { Business, type PlaylineClient } from "../../src/index.js";
import { ScriptedGateway, type ScriptedSocket } from "../scripted-gateway.js";
import { ManualClock, ScriptedRandom } from "../virtual-clock.js";

/** The events each heartbeat carried, as "oid:progress", one string per heartbeat. */
function carried(socket: ScriptedSocket): string[] {
  return socket.frames("heartbeat").map((f) => f.body.case === "heartbeat"
    ? f.body.value.events.map((e) => `${e.oid}:${e.progressMs}`).join(",") : "?");
}

describe("the heartbeat tick on virtual time", () => {
  let clock: ManualClock;
  let gateway: ScriptedGateway;
  let c: PlaylineClient;

  beforeEach(() => {
    clock = new ManualClock();
    gateway = new ScriptedGateway(clock);
  });

  /** Advances `ms` and returns how many heartbeats `socket` got meanwhile. */
  function heartbeatsDuring(socket: ScriptedSocket, ms: number): number {
    const before = socket.frames("heartbeat").length;
    clock.advance(ms);
    return socket.frames("heartbeat").length - before;
  }

  it("ticks at heartbeat_interval_ms: a keep-alive when nothing moved, else the latest report per item", async () => {
    c = gateway.client();
    const socket = await gateway.accept({ heartbeatIntervalMs: 2_500 });
    assert.equal(heartbeatsDuring(socket, 2_499), 0);
    assert.equal(heartbeatsDuring(socket, 1), 1);
    assert.deepEqual(carried(socket), [""], "a keep-alive");
    socket.ackHeartbeats();

    c.report(Business.VIDEO, 7, 1_000, 60_000);
    c.report(Business.VIDEO, 7, 2_000, 60_000);
    c.report(Business.VIDEO, 8, 500, 60_000);
    assert.equal(heartbeatsDuring(socket, 2_499), 0, "reports wait for the tick");
    assert.equal(heartbeatsDuring(socket, 1), 1);
    assert.deepEqual(carried(socket), ["", "7:2000,8:500"]);
    const [, sent] = socket.frames("heartbeat");
    assert.equal(sent.body.case === "heartbeat" && sent.body.value.events[0].eventTimeMs,
      BigInt(clock.now() - 2_500), "event time is the clock's at report()");
    socket.ackHeartbeats();
    assert.equal(heartbeatsDuring(socket, 10_000), 4, "every 2.5 s");
  });

  it("ticks no faster than every 100 ms, and every 15 s when the gateway names no interval", async () => {
    c = gateway.client({ random: new ScriptedRandom(0).next });
    const fast = await gateway.accept({ heartbeatIntervalMs: 10 });
    assert.equal(heartbeatsDuring(fast, 99), 0);
    assert.equal(heartbeatsDuring(fast, 1), 1);

    fast.closeByGateway(1006);
    clock.advance(0);
    const unnamed = await gateway.accept({ heartbeatIntervalMs: 0 });
    assert.equal(heartbeatsDuring(unnamed, 14_999), 0);
    assert.equal(heartbeatsDuring(unnamed, 1), 1);
  });

  it("stops ticking while disconnected and resumes with the next connection's interval", async () => {
    c = gateway.client({ backoffBaseMs: 1_000, backoffCapMs: 1_000, random: new ScriptedRandom(0.5).next });
    const first = await gateway.accept({ heartbeatIntervalMs: 1_000 });
    assert.equal(clock.pending(), 1, "the tick (the connect timeout ended with AuthOk)");
    assert.equal(heartbeatsDuring(first, 1_000), 1);
    first.ackHeartbeats();

    first.closeByGateway(1006);
    assert.equal(clock.pending(), 1, "only the reconnect wait: the tick is cancelled");
    c.report(Business.VIDEO, 1, 1_000, 60_000);
    clock.advance(500); // floor(0.5 * 1001)
    const second = gateway.latest;
    assert.notEqual(second, first);
    clock.advance(9_000);
    assert.equal(first.frames("heartbeat").length, 1, "nothing sent while disconnected");
    assert.equal(second.sent.length, 0, "nothing before the socket opens");

    await gateway.accept({ heartbeatIntervalMs: 3_000 });
    assert.deepEqual(carried(second), ["1:1000"], "what waited goes at once");
    second.ackHeartbeats();
    assert.equal(heartbeatsDuring(second, 2_999), 0);
    assert.equal(heartbeatsDuring(second, 1), 1);
  });

  it("skips a tick's send while the socket cannot write, and keeps ticking", async () => {
    c = gateway.client();
    const socket = await gateway.accept({ heartbeatIntervalMs: 1_000 });
    c.report(Business.VIDEO, 1, 1_000, 60_000);
    socket.bufferedAmount = 2 << 20;
    assert.equal(heartbeatsDuring(socket, 3_000), 0);
    socket.bufferedAmount = 0;
    assert.equal(heartbeatsDuring(socket, 1_000), 1);
    assert.deepEqual(carried(socket), ["1:1000"]);
  });
});
