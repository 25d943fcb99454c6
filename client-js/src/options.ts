/**
 * The client's options as it runs with them: PlaylineClientOptions checked (required fields,
 * ranges, a WebSocket class to use) and defaulted. Also the range checks of report()'s numbers.
 * Pure functions.
 */
import { systemClock, systemRandom } from "./clock.js";
import { defaultFlagStore, type FlagStore } from "./flags.js";
import type { PlaylineClientOptions, WebSocketFactory } from "./types.js";

/** Every option, defaulted and checked. */
export interface ResolvedOptions extends Required<Omit<PlaylineClientOptions, "platform" | "flagStore" | "WebSocket">> {
  readonly platform: string;
  readonly flags: FlagStore;
  readonly WS: WebSocketFactory;
}

/** @throws RangeError naming the option that is missing or out of range, or when there is no WebSocket */
export function resolveOptions(options: PlaylineClientOptions): ResolvedOptions {
  if (!options.url) {
    throw new RangeError("url is required");
  }
  if (!options.deviceId) {
    throw new RangeError("deviceId is required");
  }
  const WS = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketFactory }).WebSocket;
  if (WS === undefined) {
    throw new RangeError("no WebSocket here: pass options.WebSocket (in Node: WebSocket from the 'ws' package)");
  }
  return {
    WS,
    platform: options.platform ?? "",
    flags: options.flagStore ?? defaultFlagStore(),
    url: options.url,
    token: options.token,
    deviceId: options.deviceId,
    maxUnackedEvents: positive(options.maxUnackedEvents ?? 1_000, "maxUnackedEvents"),
    maxEventsPerHeartbeat: positive(options.maxEventsPerHeartbeat ?? 100, "maxEventsPerHeartbeat"),
    backoffBaseMs: options.backoffBaseMs ?? 500,
    backoffCapMs: options.backoffCapMs ?? 30_000,
    maxAttempts: positive(options.maxAttempts ?? Infinity, "maxAttempts"),
    connectTimeoutMs: positive(options.connectTimeoutMs ?? 10_000, "connectTimeoutMs"),
    requestTimeoutMs: positive(options.requestTimeoutMs ?? 30_000, "requestTimeoutMs"),
    closeTimeoutMs: positive(options.closeTimeoutMs ?? 5_000, "closeTimeoutMs"),
    flushOnPageHide: options.flushOnPageHide ?? true,
    clock: options.clock ?? systemClock,
    random: options.random ?? systemRandom,
  };
}

function positive(n: number, name: string): number {
  if (!(n >= 1)) {
    throw new RangeError(`${name}: ${n} (expected: >= 1)`);
  }
  return n;
}

/** Milliseconds as the wire wants them: fractions (a media element's `currentTime * 1000`) truncated. */
export function millis(name: string, value: number | bigint): bigint {
  if (typeof value === "bigint") {
    return value;
  }
  if (!Number.isFinite(value)) {
    throw new RangeError(`${name}: ${value} (expected: a finite number of milliseconds)`);
  }
  return BigInt(Math.trunc(value));
}
