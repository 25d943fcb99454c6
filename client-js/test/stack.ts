import { type ChildProcess, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { createServer, type Server, type Socket, connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type EndpointsField, type EndpointsServes, readEndpoints } from "./endpoints.js";

/** The standalone's public development secret (bin/playline standalone signs player tokens with it). */
const DEV_SECRET = "playline-dev-secret-do-not-use-in-production";
/** The standalone's public development key for service tokens of the internal API (`api.secret`). */
const DEV_API_SECRET = "playline-dev-api-secret-do-not-use-in-production";
/** The repository's root (this file runs from client-js/dist/test). */
export const ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "..");

export interface Stack {
  wsUrl: string;
  wsPort: number;
  admin: string;
  /** The internal History API's gRPC port, `host:port`. */
  api: string;
  /** The same API over HTTP (the Connect protocol): its base URL. */
  apiHttp: string;
  stop(): Promise<void>;
}

/** What the tests need of a standalone's endpoints.json. */
const REQUIRED: EndpointsField[] = ["playline.websocket", "playline.admin", "playline.api", "playline.apiHttp"];

function addresses(file: string): Omit<Stack, "stop"> {
  const { websocket, admin, api, apiHttp } = readEndpoints(file, ...REQUIRED).playline as Required<EndpointsServes>;
  return { wsUrl: websocket, wsPort: Number(new URL(websocket).port), admin, api, apiHttp };
}

/**
 * `bin/playline standalone` (embedded real Redis, Kafka, HBase) on free loopback ports in a fresh
 * data directory, as a child process; resolves once its endpoints file names this process and its
 * WebSocket port accepts connections.
 */
export async function startStack(extra: string[] = []): Promise<Stack> {
  const existing = process.env.PLAYLINE_TEST_ENDPOINTS;
  if (existing) {
    // A standalone started by hand with the same settings (endpoints.json of its data dir): kept running.
    return { ...addresses(existing), stop: async () => undefined };
  }
  const dataDir = mkdtempSync(join(tmpdir(), "playline-js-"));
  const args = ["standalone", "--data-dir", dataDir, "--set", "bind.host=127.0.0.1", "--set", "ws.port=0",
    "--set", "grpc.port=0", "--set", "api.port=0", "--set", "admin.port=0", ...extra];
  const child: ChildProcess = spawn(join(ROOT, "bin", "playline"), args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  child.stderr?.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const endpointsFile = join(dataDir, "endpoints.json");
  const deadline = Date.now() + 240_000;
  // The standalone writes its endpoints file (atomically) before it prints how to stop it.
  while (!(existsSync(endpointsFile) && output.includes("Stop with Ctrl-C"))) {
    if (child.exitCode !== null) {
      throw new Error(`bin/playline standalone exited with ${child.exitCode}:\n${output}`);
    }
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      throw new Error(`bin/playline standalone did not start within 240 s:\n${output}`);
    }
    await sleep(250);
  }
  return {
    ...addresses(endpointsFile),
    async stop() {
      child.kill("SIGTERM");
      const timeout = sleep(90_000).then(() => "timeout");
      if ((await Promise.race([exited, timeout])) === "timeout") {
        child.kill("SIGKILL");
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A player token as the standalone accepts it: HS256, sub = uid, exp = now + ttl, now being
 * `nowMs` (by default the machine's time; a test on a ManualClock mints on that clock).
 */
export function token(uid: bigint | number, ttlSeconds = 300, nowMs = Date.now()): string {
  return jwt(DEV_SECRET, { sub: String(uid) }, ttlSeconds, nowMs);
}

/** A service token for the standalone's internal API (as `bin/playline token --service NAME` mints it). */
export function serviceToken(service: string, ttlSeconds = 300): string {
  return jwt(DEV_API_SECRET, { sub: service, aud: "playline-api" }, ttlSeconds);
}

function jwt(secret: string, claims: object, ttlSeconds: number, nowMs = Date.now()): string {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const now = Math.floor(nowMs / 1000);
  const body = `${enc({ alg: "HS256", typ: "JWT" })}.${enc({ ...claims, iat: now, exp: now + ttlSeconds })}`;
  return `${body}.${createHmac("sha256", secret).update(body).digest("base64url")}`;
}

/**
 * A TCP relay between the SDK and the gateway that the test can cut (every connection through it
 * is destroyed, as a network failure would) or hold (the gateway's bytes stop reaching the SDK, so
 * acks never arrive).
 */
export class Relay {
  private readonly server: Server;
  private readonly pairs = new Set<[Socket, Socket]>();
  private holding = false;
  readonly ready: Promise<number>;

  constructor(private readonly targetPort: number) {
    this.server = createServer((client) => {
      const upstream = connect(this.targetPort, "127.0.0.1");
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      client.on("data", (d) => upstream.write(d));
      upstream.on("data", (d) => {
        if (!this.holding) {
          client.write(d);
        }
      });
      const end = () => {
        client.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      client.on("close", end).on("error", end);
      upstream.on("close", end).on("error", end);
    });
    this.ready = new Promise((r) => this.server.listen(0, "127.0.0.1", () => {
      const address = this.server.address();
      r(typeof address === "object" && address !== null ? address.port : 0);
    }));
  }

  /** From now on the gateway's bytes are dropped (not delayed) until cut(). */
  hold(): void {
    this.holding = true;
  }

  /** Destroys every connection through the relay; new ones pass normally. */
  cut(): void {
    this.holding = false;
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    this.pairs.clear();
  }

  connections(): number {
    return this.pairs.size;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((r) => this.server.close(() => r()));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Waits for `condition` (polled every 50 ms, exceptions count as false) up to `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await condition()) {
        return;
      }
    } catch {
      // not yet
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(50);
  }
}

/** The sum of a metric's series in the node's /metrics. */
export async function metric(admin: string, name: string, labels = ""): Promise<number> {
  const text = await (await fetch(`${admin}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    if ((line.startsWith(`${name} `) || line.startsWith(`${name}{`)) && line.includes(labels)) {
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return sum;
}
