import assert from "node:assert/strict";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type CallOptions, type Client, Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { Business } from "../src/gen/playline/v1/common_pb.js";
import { History } from "../src/gen/playline/v1/history_pb.js";
import { ROOT, serviceToken, type Stack } from "./stack.js";

/**
 * The internal History API with clients nobody here wrote, against the same standalone as the SDK's
 * tests: connect-node (`@connectrpc/connect` with the types buf generates from `proto/`) on the
 * API's HTTP port, every method in JSON and in binary; grpc-js (`@grpc/proto-loader` reading the
 * same .proto files) on its gRPC port. Errors must carry the code the gRPC port gives the same call.
 */
export function historyApiTests(stack: () => Stack, nextUid: () => bigint): void {
  for (const useBinaryFormat of [false, true]) {
    describe(`History over Connect with connect-node (${useBinaryFormat ? "binary" : "JSON"})`, () => {
      const client = (useHttpGet = false): Client<typeof History> =>
        createClient(History, createConnectTransport({ baseUrl: stack().apiHttp, httpVersion: "1.1", useBinaryFormat,
          useHttpGet, defaultTimeoutMs: 20_000 }));
      const auth = (token = serviceToken("connect-node")): CallOptions =>
        ({ headers: { authorization: `Bearer ${token}` } });

      it("answers every method with what the calls before it did", { timeout: 60_000 }, async () => {
        const api = client();
        const uid = nextUid();
        const now = BigInt(Date.now());
        const article = { business: Business.ARTICLE, oid: 9n };
        // 2^53 + 1: exact in JSON only as a string, as the proto3 mapping writes 64-bit ids
        const video = { business: Business.VIDEO, oid: 9_007_199_254_740_993n };
        const report = await api.report({ uid, deviceId: "bff", platform: "node", events: [
          { ...article, progressMs: 3_000n, durationMs: 60_000n, eventTimeMs: now - 1_000n },
          { ...video, progressMs: 500n, durationMs: 60_000n, eventTimeMs: now },
        ] }, auth());
        assert.equal(report.firstToday, true);
        assert.deepEqual(report.firstView, [true, true]);
        assert.match(report.flagDate, /^\d{4}-\d{2}-\d{2}$/);

        const progress = await api.getProgress({ uid, items: [article, video] }, auth());
        assert.deepEqual(progress.records.map((r) => [r.business, r.oid, r.progressMs, r.durationMs, r.deviceId]),
          [[Business.ARTICLE, 9n, 3_000n, 60_000n, "bff"], [Business.VIDEO, video.oid, 500n, 60_000n, "bff"]]);

        const stranger = nextUid(); // nothing recorded
        const batch = await api.batchGetProgress({ requests: [{ uid, items: [video] }, { uid: stranger,
          items: [article] }, { uid, items: [article] }] }, auth());
        assert.deepEqual(batch.responses.map((one) => one.records.map((r) => [r.uid, r.oid, r.progressMs])),
          [[[uid, video.oid, 500n]], [], [[uid, 9n, 3_000n]]], "one answer per request, in order");

        const first = await api.listHistory({ uid, limit: 1 }, auth());
        assert.deepEqual(first.records.map((r) => r.oid), [video.oid], "newest first");
        assert.equal(first.hasMore, true);
        const second = await api.listHistory({ uid, limit: 1, after: first.next }, auth());
        assert.deepEqual(second.records.map((r) => [r.oid, r.progressMs]), [[9n, 3_000n]]);

        assert.equal((await api.setPaused({ uid, paused: true }, auth())).paused, true);
        assert.equal((await api.getPaused({ uid }, auth())).paused, true);
        const paused = await api.report({ uid, events: [{ ...article, progressMs: 9_000n, durationMs: 60_000n,
          eventTimeMs: now + 1_000n }] }, auth());
        assert.deepEqual(paused.firstView, [false], "acked, not recorded");
        assert.equal((await api.setPaused({ uid, paused: false }, auth())).paused, false);
        assert.equal((await api.getPaused({ uid }, auth())).paused, false);
        assert.deepEqual((await api.getProgress({ uid, items: [article] }, auth())).records.map((r) => r.progressMs),
          [3_000n], "nothing recorded while paused");

        const stats = await api.getItemStats({ items: [video, article, video] }, auth());
        assert.deepEqual(stats.stats.map((s) => [s.item?.business, s.item?.oid]),
          [[Business.VIDEO, video.oid], [Business.ARTICLE, 9n]], "request order, a duplicate answered once");

        await api.deleteHistory({ uid, items: [article] }, auth());
        assert.deepEqual((await api.getProgress({ uid, items: [article, video] }, auth())).records.map((r) => r.oid),
          [video.oid]);
        await api.clearHistory({ uid, businesses: [Business.VIDEO] }, auth());
        const cleared = await api.listHistory({ uid }, auth());
        assert.deepEqual(cleared.records, []);
        assert.equal(cleared.hasMore, false);
      });

      it("sends the reads as GET when asked, and the writes as POST", { timeout: 60_000 }, async () => {
        const api = client(true);
        const uid = nextUid();
        const item = { business: Business.COMIC, oid: 3n };
        await api.report({ uid, events: [{ ...item, progressMs: 1_500n, durationMs: 9_000n,
          eventTimeMs: BigInt(Date.now()) }] }, auth());
        // What went on the wire: node:http's requests, as its diagnostics channel reports them (a request
        // sent on a reused keep-alive socket is reported twice). The channel is process-wide: a player
        // client of another test reconnecting now (GET /v1/stream) is not this client's, so only the
        // History service's paths count.
        const history = "/playline.v1.History/";
        const requests = new Set<{ method: string; path: string }>();
        const record = (m: unknown) => {
          const request = (m as { request: { method: string; path: string } }).request;
          if (request.path.startsWith(history)) requests.add(request);
        };
        subscribe("http.client.request.start", record);
        try {
          const progress = await api.getProgress({ uid, items: [item] }, auth());
          assert.deepEqual(progress.records.map((r) => r.progressMs), [1_500n]);
          assert.deepEqual((await api.listHistory({ uid, limit: 5 }, auth())).records.map((r) => r.oid), [3n]);
          assert.equal((await api.getPaused({ uid }, auth())).paused, false);
          await api.setPaused({ uid, paused: false }, auth());
        } finally {
          unsubscribe("http.client.request.start", record);
        }
        assert.deepEqual([...requests].map((r) => `${r.method} ${r.path.replace(/\?.*/, "")}`), [
          `GET ${history}GetProgress`, `GET ${history}ListHistory`, `GET ${history}GetPaused`,
          `POST ${history}SetPaused`]);
      });

      it("fails with the codes the gRPC port gives", { timeout: 60_000 }, async () => {
        const api = client();
        await assert.rejects(api.getPaused({ uid: 1n }), connectError(Code.Unauthenticated, /missing credentials/));
        await assert.rejects(api.getPaused({ uid: 1n }, auth(serviceToken("x").slice(0, -2) + "xx")),
          connectError(Code.Unauthenticated));
        await assert.rejects(api.listHistory({ uid: 0n }, auth()), connectError(Code.InvalidArgument, /uid/));
        await assert.rejects(api.listHistory({ uid: 1n, limit: 101 }, auth()), connectError(Code.InvalidArgument));
        const unspecified = { business: Business.BUSINESS_UNSPECIFIED, oid: 1n, progressMs: 1n, durationMs: 2n,
          eventTimeMs: BigInt(Date.now()) };
        await assert.rejects(api.report({ uid: 1n, events: [unspecified] }, auth()),
          connectError(Code.InvalidArgument));

        const grpcApi = grpcClient(stack());
        const grpcError = (await rejection(grpcCall(grpcApi, "listHistory", { uid: "0" }))) as grpc.ServiceError;
        grpcApi.close();
        const connectErr = ConnectError.from(await rejection(api.listHistory({ uid: 0n }, auth())));
        assert.equal(grpcError.code, grpc.status.INVALID_ARGUMENT);
        assert.equal(connectErr.code, Code.InvalidArgument);
        assert.equal(connectErr.rawMessage, grpcError.details, "the same description on both ports");
      });
    });
  }

  describe("History over gRPC with grpc-js (@grpc/proto-loader)", () => {
    it("reports, reads the progress back and pages the history", { timeout: 60_000 }, async () => {
      const api = grpcClient(stack());
      const uid = String(nextUid());
      const now = Date.now();
      const report = await grpcCall<{ firstToday: boolean; firstView: boolean[] }>(api, "report", { uid,
        deviceId: "grpc-js", events: [
          { business: "VIDEO", oid: "7", progressMs: "61000", durationMs: "600000", eventTimeMs: String(now - 1_000) },
          { business: "ARTICLE", oid: "8", progressMs: "5000", durationMs: "9000", eventTimeMs: String(now) },
        ] });
      assert.equal(report.firstToday, true);
      assert.deepEqual(report.firstView, [true, true]);
      const progress = await grpcCall<{ records: { oid: string; progressMs: string; deviceId: string }[] }>(api,
        "getProgress", { uid, items: [{ business: "VIDEO", oid: "7" }] });
      assert.deepEqual(progress.records.map((r) => [r.oid, r.progressMs, r.deviceId]), [["7", "61000", "grpc-js"]]);
      const page = await grpcCall<{ records: { business: string; oid: string }[]; hasMore: boolean }>(api,
        "listHistory", { uid, limit: 10 });
      assert.deepEqual(page.records.map((r) => `${r.business}:${r.oid}`), ["ARTICLE:8", "VIDEO:7"]);
      assert.equal(page.hasMore, false);
      const refused = (await rejection(grpcCall(api, "listHistory", { uid }, "not-a-token"))) as grpc.ServiceError;
      assert.equal(refused.code, grpc.status.UNAUTHENTICATED);
      api.close();
    });
  });
}

/** What `call` failed with; throws when it succeeded. */
async function rejection(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail");
}

function connectError(code: Code, message?: RegExp): (e: unknown) => boolean {
  return (e) => {
    const error = ConnectError.from(e);
    assert.equal(Code[error.code], Code[code], error.message);
    if (message) {
      assert.match(error.rawMessage, message);
    }
    return true;
  };
}

type Unary = (request: object, metadata: grpc.Metadata, options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, response: unknown) => void) => void;

/** A grpc-js client of playline.v1.History on the stack's API port, from the .proto files as they are. */
function grpcClient(s: Stack): grpc.Client {
  const definition = protoLoader.loadSync("playline/v1/history.proto", { includeDirs: [join(ROOT, "proto", "src",
    "main", "proto")], longs: String, enums: String, defaults: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as
    { playline: { v1: { History: grpc.ServiceClientConstructor } } };
  return new pkg.playline.v1.History(s.api, grpc.credentials.createInsecure());
}

function grpcCall<T>(client: grpc.Client, method: string, request: object,
  token = serviceToken("grpc-js")): Promise<T> {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  const call = (client as unknown as Record<string, Unary>)[method];
  return new Promise((resolve, reject) => call.call(client, request, metadata, { deadline: Date.now() + 20_000 },
    (error, response) => (error ? reject(error) : resolve(response as T))));
}
