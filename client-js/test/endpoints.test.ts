/** Unit tests of the endpoints.json reader (no stack): a valid file reads typed, a bad one fails naming file and field. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { readEndpoints } from "./endpoints.js";

const dir = mkdtempSync(join(tmpdir(), "playline-endpoints-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const STANDALONE = {
  pid: 4242,
  startedAt: "2026-11-28T08:00:00Z",
  redis: { uri: "redis://127.0.0.1:6379", cluster: false, embedded: true },
  kafka: { bootstrapServers: "127.0.0.1:9092", embedded: true },
  hbase: { zookeeperQuorum: "127.0.0.1", zookeeperPort: 2181, embedded: true },
  playline: { websocket: "ws://127.0.0.1:8080/ws", grpc: "127.0.0.1:9090", api: "127.0.0.1:9091",
    apiHttp: "http://127.0.0.1:9092", admin: "http://127.0.0.1:8081" },
};

describe("readEndpoints", () => {
  it("reads a standalone's file with every field typed", () => {
    const e = readEndpoints(file("ok.json", STANDALONE), "playline.websocket", "playline.api", "hbase.zookeeperPort");
    assert.equal(e.pid, 4242);
    assert.equal(e.playline?.apiHttp, "http://127.0.0.1:9092");
    assert.equal(e.hbase?.zookeeperPort, 2181);
  });

  it("names the file and the missing field", () => {
    const path = file("no-api.json", { ...STANDALONE, playline: { ...STANDALONE.playline, apiHttp: undefined } });
    assert.throws(() => readEndpoints(path, "playline.websocket", "playline.apiHttp"),
      { message: `${path}: no playline.apiHttp (is it the endpoints file of the right process?)` });
  });

  it("names the file and a field of the wrong type", () => {
    const path = file("bad-port.json", { ...STANDALONE, hbase: { zookeeperQuorum: "h", zookeeperPort: "2181" } });
    assert.throws(() => readEndpoints(path), { message: `${path}: field hbase.zookeeperPort: expected a number, got "2181"` });
  });

  it("names the file when it is not there or not JSON", () => {
    const missing = join(dir, "absent.json");
    assert.throws(() => readEndpoints(missing), (e: Error) => e.message.startsWith(`${missing}: no such file`));
    const garbled = file("garbled.json", "{\"pid\": 1,");
    assert.throws(() => readEndpoints(garbled), (e: Error) => e.message.startsWith(`${garbled}: not an endpoints JSON object`));
  });
});
