/**
 * Token refresh on virtual time: a Refresh at 75 % + r × 15 % of the credential's remaining
 * lifetime (r scripted), to the millisecond; the next one planned from RefreshOk; retries after a
 * failing token supplier (5 s) and an UNAVAILABLE answer (the heartbeat interval); none for a
 * credential that does not expire or after the connection is lost.
 */
import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { ErrorCode, type PlaylineClient, type PlaylineError } from "../../src/index.js";
import { advanceAcking, ScriptedGateway, type ScriptedSocket, settle } from "../scripted-gateway.js";
import { ManualClock, ScriptedRandom } from "../virtual-clock.js";

describe("token refresh on virtual time", () => {
  let clock: ManualClock;
  let gateway: ScriptedGateway;
  let tokens: number;
  let errors: PlaylineError[];

  beforeEach(() => {
    clock = new ManualClock();
    gateway = new ScriptedGateway(clock);
    tokens = 0;
    errors = [];
  });

  /** A client whose token supplier counts its calls and throws on the calls numbered in `failing`. */
  function client(random: ScriptedRandom, failing: number[] = [], connectTimeoutMs?: number): PlaylineClient {
    const c = gateway.client({
      random: random.next,
      connectTimeoutMs,
      token: () => {
        const n = ++tokens;
        if (failing.includes(n)) {
          throw new Error("identity service down");
        }
        return `token-${n}`;
      },
    });
    c.on("error", (e) => errors.push(e));
    return c;
  }

  /** Connected with a credential valid for `lifetimeMs` more (by the gateway's clock, which agrees). */
  function accept(lifetimeMs: number, heartbeatIntervalMs = 1_000): Promise<ScriptedSocket> {
    return gateway.accept({ heartbeatIntervalMs, serverTimeMs: BigInt(clock.now()),
      expiresAtMs: BigInt(clock.now() + lifetimeMs) });
  }

  /** The Refresh frames `socket` got, as their tokens. */
  function refreshes(socket: ScriptedSocket): string[] {
    return socket.frames("refresh").map((f) => f.body.case === "refresh" ? f.body.value.token : "?");
  }

  /** Runs the timers due within `ms` (acking heartbeats) and lets the token supplier's promise settle. */
  async function runFor(socket: ScriptedSocket, ms: number): Promise<void> {
    advanceAcking(clock, socket, ms);
    await settle();
  }

  it("refreshes at 75 % + r × 15 % of the lifetime left, to the millisecond, then from RefreshOk", async () => {
    const c = client(new ScriptedRandom(0.5, 0));
    const socket = await accept(100_000);
    await runFor(socket, 82_499); // 100 000 × (0.75 + 0.5 × 0.15) = 82 500
    assert.deepEqual(refreshes(socket), []);
    assert.equal(tokens, 1);
    await runFor(socket, 1);
    assert.deepEqual(refreshes(socket), ["token-2"]);

    socket.receive({ seq: socket.last("refresh").seq,
      body: { case: "refreshOk", value: { expiresAtMs: BigInt(clock.now() + 200_000) } } });
    await runFor(socket, 149_999); // 200 000 × (0.75 + 0 × 0.15)
    assert.deepEqual(refreshes(socket), ["token-2"]);
    await runFor(socket, 1);
    assert.deepEqual(refreshes(socket), ["token-2", "token-3"]);
    assert.deepEqual(errors, []);
    assert.equal(c.stats.connections, 1);
  });

  it("retries 5 s after the token supplier fails, telling listeners UNAUTHENTICATED", async () => {
    client(new ScriptedRandom(0), [2]);
    const socket = await accept(100_000);
    await runFor(socket, 75_000);
    assert.equal(tokens, 2);
    assert.deepEqual(refreshes(socket), []);
    assert.equal(errors.length, 1);
    assert.equal(errors[0].code, ErrorCode.UNAUTHENTICATED);
    assert.match(errors[0].message, /token supplier failed: Error: identity service down/);

    await runFor(socket, 4_999);
    assert.equal(tokens, 2);
    await runFor(socket, 1);
    assert.deepEqual(refreshes(socket), ["token-3"]);
  });

  it("retries an UNAVAILABLE answer after the heartbeat interval, on the same connection", async () => {
    const c = client(new ScriptedRandom(0));
    const socket = await accept(100_000, 2_000);
    await runFor(socket, 75_000);
    assert.deepEqual(refreshes(socket), ["token-2"]);
    socket.receive({ seq: socket.last("refresh").seq,
      body: { case: "error", value: { code: ErrorCode.UNAVAILABLE, message: "auth backend busy" } } });
    assert.equal(errors[0]?.code, ErrorCode.UNAVAILABLE);

    await runFor(socket, 1_999);
    assert.deepEqual(refreshes(socket), ["token-2"]);
    await runFor(socket, 1);
    assert.deepEqual(refreshes(socket), ["token-2", "token-3"]);
    assert.equal(socket.closedByClient, undefined);
    assert.equal(c.state, "connected");
  });

  it("authenticates the next connection with a fresh token after the gateway refuses a Refresh's token", async () => {
    client(new ScriptedRandom(0, 0.5, 0.5));
    const socket = await accept(100_000);
    await runFor(socket, 75_000);
    socket.receive({ seq: socket.last("refresh").seq,
      body: { case: "error", value: { code: ErrorCode.UNAUTHENTICATED, message: "token revoked" } } });
    socket.closeByGateway(4000 + ErrorCode.UNAUTHENTICATED);
    clock.advance(250); // floor(0.5 * 501)
    const next = await accept(100_000);
    const auth = next.last("auth");
    assert.equal(auth.body.case === "auth" && auth.body.value.token, "token-3");
    assert.equal(auth.body.case === "auth" && auth.body.value.sessionId, "", "no resume: the session is gone");
  });

  it("plans no refresh for a credential that does not expire, nor after the connection is lost", async () => {
    // Draws: the first reconnect's jitter (0), the expiring credential's refresh moment (0.5), the
    // second reconnect's (0). The last attempt's socket stays unopened: no connect timeout meanwhile.
    client(new ScriptedRandom(0, 0.5, 0), [], 1_000_000);
    const forever = await gateway.accept({ expiresAtMs: 0n, heartbeatIntervalMs: 1_000 });
    assert.equal(clock.pending(), 1, "the heartbeat tick only");
    await runFor(forever, 500_000);
    assert.deepEqual(refreshes(forever), []);

    forever.closeByGateway(1006);
    clock.advance(0);
    const expiring = await accept(100_000);
    expiring.closeByGateway(1006); // lost before the refresh was due
    assert.equal(clock.pending(), 1, "the reconnect wait only: the refresh is cancelled");
    clock.advance(100_000);
    await settle();
    assert.equal(tokens, 1, "resumed without a token, never refreshed");
    assert.deepEqual(refreshes(expiring), []);
    assert.equal(gateway.sockets.length, 3);
  });
});
