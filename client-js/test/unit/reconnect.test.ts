/**
 * Reconnecting on virtual time: the backoff's exact full-jitter delays (scripted random), its cap,
 * its reset after a connection succeeds, giving up after maxAttempts, and Reconnect{after_ms}.
 */
import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { Business, ErrorCode, type PlaylineClient, PlaylineError } from "../../src/index.js";
import { expectClientClosesAfter, ScriptedGateway, settle } from "../scripted-gateway.js";
import { ManualClock, ScriptedRandom } from "../virtual-clock.js";

const NETWORK_LOST = 1006;

describe("reconnecting on virtual time", () => {
  let clock: ManualClock;
  let gateway: ScriptedGateway;

  beforeEach(() => {
    clock = new ManualClock();
    gateway = new ScriptedGateway(clock);
  });

  function client(random: ScriptedRandom, maxAttempts?: number): PlaylineClient {
    return gateway.client({ backoffBaseMs: 100, backoffCapMs: 1_000, random: random.next, maxAttempts });
  }

  /** The next socket is opened exactly `ms` from now: not a millisecond before. */
  function expectAttemptAfter(ms: number): void {
    const opened = gateway.sockets.length;
    if (ms > 0) {
      clock.advance(ms - 1);
      assert.equal(gateway.sockets.length, opened, `no attempt before ${ms} ms`);
    }
    clock.advance(ms > 0 ? 1 : 0);
    assert.equal(gateway.sockets.length, opened + 1, `an attempt at ${ms} ms`);
  }

  it("waits a full-jitter delay in [0, min(cap, base * 2^n)], doubling per failed attempt up to the cap", async () => {
    // n = 0 after a healthy connection, then 1, 2, 3 (ceilings 100, 200, 400, 800), then the cap of 1000 (not 1600).
    const random = new ScriptedRandom(0.5, 0.5, 0.25, 0.75, 0.999, 0.999);
    const c = client(random);
    await gateway.accept();
    assert.equal(c.state, "connected");

    gateway.latest.closeByGateway(NETWORK_LOST);
    assert.equal(c.state, "reconnecting");
    expectAttemptAfter(50); // floor(0.5 * 101)
    for (const delay of [100, 100, 600, 999, 999]) { // floor(r * (ceiling + 1))
      gateway.latest.closeByGateway(NETWORK_LOST); // the attempt fails before the socket opens
      expectAttemptAfter(delay);
    }
    assert.equal(random.draws, 6);
    assert.equal(c.state, "reconnecting");
  });

  it("starts again from the base once a connection succeeds", async () => {
    const random = new ScriptedRandom(0.5, 0.5, 0.5, 0.999);
    const c = client(random);
    await gateway.accept();
    gateway.latest.closeByGateway(NETWORK_LOST);
    expectAttemptAfter(50);
    gateway.latest.closeByGateway(NETWORK_LOST);
    expectAttemptAfter(100);
    gateway.latest.closeByGateway(NETWORK_LOST);
    expectAttemptAfter(200);

    await gateway.accept({ sessionId: "session-1" });
    assert.equal(c.state, "connected");
    assert.equal(c.stats.resumes, 1);
    gateway.latest.closeByGateway(NETWORK_LOST);
    expectAttemptAfter(100); // floor(0.999 * 101): n = 0 again, not floor(0.999 * 801) = 799
  });

  it("gives up after maxAttempts consecutive failed attempts", async () => {
    const random = new ScriptedRandom(0, 0);
    const c = client(random, 3);
    const states: string[] = [];
    c.on("state", (s) => states.push(s));
    gateway.latest.closeByGateway(NETWORK_LOST);
    expectAttemptAfter(0);
    gateway.latest.closeByGateway(NETWORK_LOST);
    expectAttemptAfter(0);
    gateway.latest.closeByGateway(NETWORK_LOST);

    assert.equal(c.state, "closed");
    assert.deepEqual(states, ["reconnecting", "closed"]);
    assert.equal(clock.pending(), 0, "no timer left behind");
    await assert.rejects(c.flush(), PlaylineError);
  });

  it("reconnects at the time a Reconnect asks, plus jitter up to the base", async () => {
    const random = new ScriptedRandom(0.5);
    const c = client(random);
    const socket = await gateway.accept();
    socket.receive({ body: { case: "reconnect", value: { afterMs: 3_000, reason: "node draining" } } });
    assert.deepEqual(socket.closedByClient, { code: 1000, reason: "reconnecting" },
      "nothing awaits an answer: closed at once");
    await settle();
    assert.equal(c.state, "reconnecting");
    expectAttemptAfter(3_050); // 3000 + floor(0.5 * 101)
  });

  // The drain waits max(1 s, after_ms), 5 s at most; the next attempt goes at after_ms + jitter,
  // counted from the Reconnect.
  for (const { afterMs, drainMs, attemptAfterMs } of [
    { afterMs: 200, drainMs: 1_000, attemptAfterMs: 0 }, // 200 + floor(0.5 * 101) passed during the drain
    { afterMs: 60_000, drainMs: 5_000, attemptAfterMs: 55_050 },
  ]) {
    it(`when draining after Reconnect{after_ms: ${afterMs}}, waits ${drainMs} ms at most for answers`, async () => {
      const c = client(new ScriptedRandom(0.5));
      const socket = await gateway.accept();
      c.report(Business.VIDEO, 1, 1_000, 60_000);
      void c.flush();
      assert.equal(socket.frames("heartbeat").length, 1);
      socket.receive({ body: { case: "reconnect", value: { afterMs, reason: "node draining" } } });

      assert.deepEqual(expectClientClosesAfter(clock, socket, drainMs), { code: 1000, reason: "reconnecting" });
      await settle();
      assert.equal(c.stats.eventsResent, 1, "the unanswered heartbeat's event waits for the next connection");
      expectAttemptAfter(attemptAfterMs);
    });
  }

  it("retries at once with a fresh token when a resumed session has expired", async () => {
    const random = new ScriptedRandom(0.5);
    let tokens = 0;
    const c = gateway.client({ backoffBaseMs: 100, backoffCapMs: 1_000, random: random.next,
      token: () => `token-${++tokens}` });
    await gateway.accept();
    gateway.latest.closeByGateway(NETWORK_LOST);
    expectAttemptAfter(50);

    const resumed = gateway.latest;
    resumed.open();
    await settle();
    const auth = resumed.last("auth");
    assert.equal(auth.body.case === "auth" && auth.body.value.sessionId, "session-1");
    resumed.receive({ seq: auth.seq,
      body: { case: "error", value: { code: ErrorCode.SESSION_EXPIRED, message: "gone" } } });
    resumed.closeByGateway(4000 + ErrorCode.SESSION_EXPIRED);
    expectAttemptAfter(0);
    await gateway.accept({ sessionId: "session-2" });
    const fresh = gateway.latest.last("auth");
    assert.equal(fresh.body.case === "auth" && fresh.body.value.token, "token-2");
    assert.equal(c.state, "connected");
  });
});
