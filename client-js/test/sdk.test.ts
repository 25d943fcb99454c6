import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fromBinary } from "@bufbuild/protobuf";
import { WebSocket } from "ws";
import { type Ack, Business, ErrorCode, type HistoryRecord, MemoryFlagStore, PlaylineClient, type PlaylineClientOptions,
  type PlaylineError } from "../src/index.js";
import { ServerFrameSchema } from "../src/gen/playline/v1/stream_pb.js";
import { demoTests } from "./demo.js";
import { historyApiTests } from "./history-api.js";
import { metric, Relay, type Stack, startStack, token, until } from "./stack.js";
import { ManualClock } from "./virtual-clock.js";

let stack: Stack;
let nextUid = BigInt(Date.now() % 1_000_000) * 1000n;
const clients: PlaylineClient[] = [];

function client(uid: bigint, deviceId: string, extra: Partial<PlaylineClientOptions> = {}): PlaylineClient {
  const c = new PlaylineClient({
    url: stack.wsUrl,
    token: () => token(uid),
    deviceId,
    platform: "node",
    WebSocket: WebSocket as unknown as PlaylineClientOptions["WebSocket"],
    backoffBaseMs: 50,
    backoffCapMs: 500,
    ...extra,
  });
  clients.push(c);
  return c.start();
}

/** The keys of VIDEO items `from` to `to`. */
function items(from: number, to: number): { business: Business; oid: number }[] {
  return Array.from({ length: to - from + 1 }, (_, i) => ({ business: Business.VIDEO, oid: from + i }));
}

async function allHistory(c: PlaylineClient): Promise<HistoryRecord[]> {
  const records: HistoryRecord[] = [];
  let page = await c.history({ limit: 100 });
  records.push(...page.records);
  while (page.hasMore) {
    page = await c.history({ limit: 100, after: page.next });
    records.push(...page.records);
  }
  return records;
}

before(async () => {
  stack = await startStack(["--set", "heartbeat.interval=1s", "--set", "auth.expiry.grace=0s", "--set", "drain.grace=1s",
    "--set", "user.max.events.per.second=10"]);
}, { timeout: 300_000 });

after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await stack?.stop();
  // A test that failed by timing out may leave a socket or timer behind: never let it hang the run.
  setTimeout(() => process.exit(), 5_000).unref();
}, { timeout: 120_000 });

describe("PlaylineClient against a real standalone", () => {
  it("truncates fractional milliseconds (a media element's currentTime * 1000)", { timeout: 60_000 }, async () => {
    const uid = ++nextUid;
    const c = client(uid, "browser");
    c.report(Business.VIDEO, 11, 93.6 * 1000 + 0.25, 600_000.5);
    await c.flush();
    const [record] = await c.progress([{ business: Business.VIDEO, oid: 11 }]);
    assert.equal(record?.progressMs, 93_600n);
    assert.equal(record?.durationMs, 600_000n);
    assert.throws(() => c.report(Business.VIDEO, 11, Number.NaN, 1), /progressMs: NaN \(expected: a finite number/);
  });

  it("authenticates once, heartbeats, and answers progress and history", { timeout: 60_000 }, async () => {
    const uid = ++nextUid;
    let tokens = 0;
    const c = client(uid, "phone", { token: () => (tokens++, token(uid)) });
    const acks: Ack[] = [];
    c.on("ack", (a) => acks.push(a));
    c.report(Business.VIDEO, 7, 12_000, 600_000);
    c.report(Business.VIDEO, 7, 15_000, 600_000); // only the latest per item is sent
    c.report(Business.ARTICLE, 3, 800, 4_000);
    await c.flush();
    assert.equal(c.state, "connected");
    assert.equal(c.uid, uid);
    const sent = acks.flatMap((a) => a.events.map((e) => `${e.event.business}:${e.event.oid}:${e.event.progressMs}`));
    assert.deepEqual(sent.sort(), [`${Business.VIDEO}:7:15000`, `${Business.ARTICLE}:3:800`].sort());

    const progress = await c.progress([{ business: Business.VIDEO, oid: 7 }, { business: Business.COMIC, oid: 1 }]);
    assert.deepEqual(progress.map((r) => r.progressMs), [15_000n]);
    const page = await c.history({ limit: 10 });
    assert.deepEqual(page.records.map((r) => `${r.business}:${r.oid}`).sort(), [`${Business.VIDEO}:7`, `${Business.ARTICLE}:3`].sort());
    assert.equal(page.records[0].deviceId, "phone");

    await c.delete([{ business: Business.ARTICLE, oid: 3 }]);
    assert.deepEqual((await c.history()).records.map((r) => Number(r.oid)), [7]);
    await assert.rejects(c.clear([]), RangeError, "an empty list is not 'everything'");
    await c.clearAll();
    assert.deepEqual((await c.history()).records, []);
    assert.equal(tokens, 1, "one identity check for the whole session");
  });

  it("loses nothing across cut connections: unacked events are resent and the session resumes", { timeout: 60_000 }, async () => {
    const uid = ++nextUid;
    const relay = new Relay(stack.wsPort);
    const port = await relay.ready;
    let tokens = 0;
    const c = client(uid, "phone", { url: `ws://127.0.0.1:${port}/v1/stream`, token: () => (tokens++, token(uid)) });
    c.report(Business.VIDEO, 1, 1_000, 60_000);
    await c.flush();

    // Acks stop arriving: these events are written but the SDK never hears so; then the link dies.
    relay.hold();
    for (let oid = 2; oid <= 40; oid++) {
      c.report(Business.VIDEO, oid, oid * 1_000, 60_000);
    }
    const flushed = c.flush();
    await until(() => c.stats.eventsReported === 40 && relay.connections() === 1, 5_000, "events sent");
    // Written (another device of the user reads them) while their acks are held: then the link dies.
    const reader = client(uid, "reader");
    await until(async () => (await reader.progress(items(2, 40))).length === 39, 20_000, "the held-back events written");
    relay.cut();
    await until(() => c.state === "reconnecting" || c.stats.connections >= 2, 5_000, "the cut to be noticed");
    // Reported while disconnected: sent once connected again.
    c.report(Business.VIDEO, 41, 41_000, 60_000);
    c.report(Business.VIDEO, 2, 2_500, 60_000);
    await flushed;
    await c.flush();

    assert.ok(c.stats.eventsResent >= 39, `events resent after the cut: ${c.stats.eventsResent}`);
    assert.ok(c.stats.connections >= 2);
    assert.ok(c.stats.resumes >= 1, "the reconnect resumed the session");
    assert.equal(tokens, 1, "resuming needs no new token");
    const records = await allHistory(c);
    const progress = new Map(records.map((r) => [Number(r.oid), Number(r.progressMs)]));
    for (let oid = 1; oid <= 41; oid++) {
      assert.equal(progress.get(oid), oid === 2 ? 2_500 : oid * 1_000, `item ${oid}`);
    }
    await relay.close();
  });

  it("keeps the first-today date and echoes it, so the gateway skips the lookup", { timeout: 60_000 }, async () => {
    const uid = ++nextUid;
    const flags = new MemoryFlagStore();
    const first = client(uid, "phone", { flagStore: flags });
    const days: string[] = [];
    first.on("firstToday", (d) => days.push(d));
    first.report(Business.VIDEO, 9, 1_000, 60_000);
    await first.flush();
    assert.equal(days.length, 1);
    assert.match(days[0], /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(flags.load(uid), days[0], "the date is stored");

    const skipsBefore = await metric(stack.admin, "playline_first_today_total", 'result="echo_skip"');
    const second = client(uid, "tablet", { flagStore: flags });
    const secondAcks: Ack[] = [];
    second.on("ack", (a) => secondAcks.push(a));
    second.report(Business.VIDEO, 10, 1_000, 60_000);
    await second.flush();
    assert.equal(secondAcks[0].firstToday, false);
    assert.equal(secondAcks[0].flagDate, days[0]);
    assert.ok(await metric(stack.admin, "playline_first_today_total", 'result="echo_skip"') > skipsBefore,
      "the echoed date let the gateway skip the Redis lookup");
  });

  it("tells the user's other device when progress moves", { timeout: 60_000 }, async () => {
    const uid = ++nextUid;
    const phone = client(uid, "phone");
    const tv = client(uid, "tv");
    const synced: HistoryRecord[] = [];
    tv.on("sync", (r) => synced.push(r));
    await until(() => phone.state === "connected" && tv.state === "connected", 20_000, "both devices connected");
    tv.report(Business.EPISODE, 5, 100, 1_000_000); // joins the user's push registry on this node
    await tv.flush();
    phone.report(Business.EPISODE, 5, 420_000, 1_000_000);
    await phone.flush();
    await until(() => synced.some((r) => r.progressMs === 420_000n), 20_000, "the sync on the tv");
    assert.equal(synced.find((r) => r.progressMs === 420_000n)?.deviceId, "phone");
  });

  it("refreshes its token on the live connection before it expires", { timeout: 60_000 }, async () => {
    const uid = ++nextUid;
    // The SDK on virtual time: its refresh timers fall due as the test moves the clock, never while
    // it waits. Tokens are minted on that clock too (as a login service agreeing with the device),
    // so each lives 4 s as the SDK reckons (3-4 s: exp has whole seconds) and the gateway accepts them.
    const clock = new ManualClock(Date.now());
    let tokens = 0;
    let refreshOks = 0;
    const errors: string[] = [];
    /** ws's WebSocket, counting the RefreshOk frames the SDK is handed (before its own handler reads each). */
    class CountingWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        this.addEventListener("message", (ev) => {
          const frame = fromBinary(ServerFrameSchema, new Uint8Array(ev.data as ArrayBuffer));
          refreshOks += frame.body.case === "refreshOk" ? 1 : 0;
        });
      }
    }
    const c = client(uid, "phone", { clock, token: () => (tokens++, token(uid, 4, clock.now())),
      WebSocket: CountingWebSocket as unknown as PlaylineClientOptions["WebSocket"] });
    c.on("error", (e) => errors.push(e.message));
    c.report(Business.AUDIO, 1, 1_000, 60_000);
    await c.flush();
    // Two RefreshOks: the second Refresh is planned from the first one's answer, 75-90 % into the
    // refreshed token's life (each refresh runs only on the live connection).
    for (let step = 1; refreshOks < 2; step++) {
      assert.ok(step <= 40, `two refreshes within 40 steps of 250 ms (tokens fetched: ${tokens})`);
      const fetched = tokens;
      clock.advance(250);
      if (tokens > fetched) {
        // A Refresh went out: its answer comes over the network (real I/O).
        await until(() => refreshOks >= tokens - 1, 10_000, "the gateway's RefreshOk");
      }
    }
    c.report(Business.AUDIO, 1, 2_000, 60_000);
    await c.flush();
    assert.deepEqual(errors, []);
    assert.equal(c.stats.connections, 1, "the same connection all along");
    assert.equal(tokens, 3, "the first token and one per refresh");
    await c.close(); // its timers run only as the test moves its clock: nothing keeps it alive afterwards
  });

  it("waits retry_after_ms over the user's events budget, then every event is acked once", { timeout: 60_000 }, async () => {
    const uid = ++nextUid;
    const c = client(uid, "phone", { maxEventsPerHeartbeat: 10 });
    const acked: number[] = [];
    const errors: PlaylineError[] = [];
    c.on("ack", (a) => acked.push(...a.events.map((e) => Number(e.event.oid))));
    c.on("error", (e) => errors.push(e));
    const refusals = () => metric(stack.admin, "playline_user_budget_refusals_total", 'budget="events"');
    const closes = () => metric(stack.admin, "playline_user_budget_closes_total", 'budget="events"');
    const [refusedBefore, closedBefore] = [await refusals(), await closes()];
    for (let oid = 1; oid <= 130; oid++) {
      c.report(Business.VIDEO, oid, 1_000, 60_000);
    }
    // A chatty app flushes every 50 ms: the first 100 events (the bucket at 10/s) pass, the rest are refused.
    // The standalone (a child process) refills the budget on the machine's clock, which no test moves:
    // this waits about 3 s for it. The SDK's side of the wait runs on virtual time in unit/rate-limited.test.ts.
    await until(() => {
      c.flush().catch(() => undefined);
      return c.stats.eventsAcked >= 130;
    }, 50_000, "every event acked");

    assert.deepEqual(acked.sort((a, b) => a - b), Array.from({ length: 130 }, (_, i) => i + 1));
    assert.ok(errors.length > 0, "refused at least once");
    for (const e of errors) {
      assert.equal(e.code, ErrorCode.RATE_LIMITED);
      assert.ok(e.retryAfterMs >= 1 && e.retryAfterMs <= 1_000, `retryAfterMs ${e.retryAfterMs}`);
    }
    // Flushes during the wait sent nothing: a handful of refusals, never closed for ignoring them.
    const refused = (await refusals()) - refusedBefore;
    assert.ok(refused >= 1 && refused <= 8, `refusals: ${refused}`);
    assert.equal((await closes()) - closedBefore, 0);
    assert.equal(c.stats.connections, 1, "the same connection all along");
    assert.equal(c.stats.eventsDropped, 0);
  });
});

historyApiTests(() => stack, () => ++nextUid);
demoTests(() => stack, () => ++nextUid);
