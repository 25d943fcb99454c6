/**
 * The client's timeouts on virtual time: connect (the socket opening, the token and AuthOk), the
 * heartbeat ack timeout, a query's request timeout, and close()'s wait for the last acks.
 */
import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { Business, ErrorCode, type PlaylineClient, PlaylineError } from "../../src/index.js";
import { advanceAcking, expectClientClosesAfter, ScriptedGateway, settle } from "../scripted-gateway.js";
import { ManualClock, ScriptedRandom } from "../virtual-clock.js";

describe("timeouts on virtual time", () => {
  let clock: ManualClock;
  let gateway: ScriptedGateway;
  let causes: unknown[];

  beforeEach(() => {
    clock = new ManualClock();
    gateway = new ScriptedGateway(clock);
    causes = [];
  });

  function client(options: Parameters<ScriptedGateway["client"]>[0] = {}): PlaylineClient {
    const c = gateway.client({ connectTimeoutMs: 5_000, random: new ScriptedRandom(0).next, ...options });
    c.on("state", (state, cause) => state === "reconnecting" && causes.push(cause));
    return c;
  }

  function lastCause(): string {
    return String(causes[causes.length - 1]);
  }

  it("abandons a socket that does not open within connectTimeoutMs and tries again", async () => {
    const c = client();
    expectClientClosesAfter(clock, gateway.latest, 5_000);
    await settle();
    assert.equal(c.state, "reconnecting");
    assert.match(lastCause(), /UNAVAILABLE: not connected within 5000 ms/);
    clock.advance(0); // floor(0 * 201): the next attempt at once
    assert.equal(gateway.sockets.length, 2);
  });

  it("bounds the whole attempt by connectTimeoutMs: a socket that opens but gets no AuthOk is abandoned", async () => {
    client();
    const socket = gateway.latest;
    clock.advance(3_000);
    socket.open();
    await settle();
    assert.equal(socket.frames("auth").length, 1, "Auth sent");
    expectClientClosesAfter(clock, socket, 2_000); // 5 s after the attempt started, the Auth unanswered
    await settle();
    assert.match(lastCause(), /not connected within 5000 ms/);
  });

  it("abandons an attempt whose token supplier does not answer within connectTimeoutMs", async () => {
    client({ token: () => new Promise<string>(() => undefined) });
    const socket = gateway.latest;
    socket.open();
    await settle();
    clock.advance(5_000);
    assert.ok(socket.closedByClient);
    assert.equal(socket.frames("auth").length, 0);
  });

  it("keeps an authenticated connection past connectTimeoutMs", async () => {
    const c = client();
    clock.advance(1_000);
    const socket = await gateway.accept();
    advanceAcking(clock, socket, 60_000);
    assert.equal(socket.closedByClient, undefined);
    assert.equal(c.state, "connected");
  });

  for (const first of ["a keep-alive", "a heartbeat with events"]) {
    it(`closes a connection when ${first} gets no answer within 2 × interval + connectTimeoutMs`, async () => {
      const c = client();
      const socket = await gateway.accept({ heartbeatIntervalMs: 1_000 });
      if (first !== "a keep-alive") {
        c.report(Business.VIDEO, 1, 1_000, 60_000);
      }
      clock.advance(1_000);
      assert.equal(socket.frames("heartbeat").length, 1, `${first} at the first tick, never answered`);
      // Sent at 1 000; each tick checks; 8 000 - 1 000 = 7 000 is not over 7 000, 9 000 - 1 000 is.
      expectClientClosesAfter(clock, socket, 8_000);
      await settle();
      assert.equal(c.state, "reconnecting");
      assert.match(lastCause(), /no answer to a heartbeat within 7000 ms/);
    });
  }

  it("fails a query without an answer after requestTimeoutMs, and an answer cancels its timer", async () => {
    const c = client({ requestTimeoutMs: 2_000 });
    const socket = await gateway.accept({ heartbeatIntervalMs: 60_000 });
    const pendingBefore = clock.pending();

    const answered = c.progress([{ business: Business.VIDEO, oid: 1 }]);
    assert.equal(clock.pending(), pendingBefore + 1, "the request's timer");
    socket.receive({ seq: socket.last("progressQuery").seq, body: { case: "progress", value: { records: [] } } });
    assert.deepEqual(await answered, []);
    assert.equal(clock.pending(), pendingBefore, "the answer cancelled it");

    const unanswered: { outcome: unknown } = { outcome: "pending" };
    c.progress([{ business: Business.VIDEO, oid: 2 }]).then((v) => (unanswered.outcome = v),
      (e: unknown) => (unanswered.outcome = e));
    clock.advance(1_999);
    await settle();
    assert.equal(String(unanswered.outcome), "pending");
    clock.advance(1);
    await settle();
    const error = unanswered.outcome;
    assert.ok(error instanceof PlaylineError, `rejected with a PlaylineError: ${String(error)}`);
    assert.equal(error.code, ErrorCode.UNAVAILABLE);
    assert.match(error.message, /no answer within 2000 ms/);
    assert.equal(c.state, "connected", "a slow answer does not end the connection");
  });

  it("close() waits closeTimeoutMs for the last acks, then closes", async () => {
    const c = client({ closeTimeoutMs: 3_000 });
    const socket = await gateway.accept({ heartbeatIntervalMs: 60_000 });
    c.report(Business.VIDEO, 1, 1_000, 60_000);
    let closed = false;
    void c.close().then(() => (closed = true));
    assert.equal(socket.frames("heartbeat").length, 1, "close() sends what waits");

    assert.deepEqual(expectClientClosesAfter(clock, socket, 3_000), { code: 1000, reason: "closing" });
    await settle();
    assert.ok(closed);
    assert.equal(c.state, "closed");
    assert.equal(clock.pending(), 0, "no timer left behind");
  });

  it("close() closes as soon as the last ack arrives", async () => {
    const c = client({ closeTimeoutMs: 3_000 });
    const socket = await gateway.accept({ heartbeatIntervalMs: 60_000 });
    c.report(Business.VIDEO, 1, 1_000, 60_000);
    const closing = c.close();
    clock.advance(10);
    socket.ackHeartbeats();
    assert.deepEqual(socket.closedByClient, { code: 1000, reason: "closing" });
    await closing;
    assert.equal(clock.pending(), 0);
  });
});
