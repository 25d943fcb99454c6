/**
 * The one typed reader of `endpoints.json` for the TypeScript tests: mirrors the Java record
 * `io.playline.roles.endpoints.Endpoints` (same field names, nesting and meaning). `readEndpoints`
 * checks every field it finds has the type that record gives it and that each required field is
 * there, and throws naming the file and the field otherwise; nothing `undefined` travels on.
 * Synchronous and stateless.
 */
import { existsSync, readFileSync } from "node:fs";

/** Redis: a single server's or cluster seed's `uri`, or the topology's `seed` and `nodes`. */
export interface EndpointsRedis {
  uri?: string;
  cluster?: boolean;
  embedded?: boolean;
  seed?: string;
  nodes?: { uri: string }[];
}

/** Kafka: `bootstrapServers` is `host:port,...`. */
export interface EndpointsKafka {
  bootstrapServers?: string;
  embedded?: boolean;
}

/** HBase, by its ZooKeeper. */
export interface EndpointsHBase {
  zookeeperQuorum?: string;
  zookeeperPort?: number;
  embedded?: boolean;
}

/** What a Playline process serves, on loopback; absent where it serves no such thing. */
export interface EndpointsServes {
  /** The player WebSocket URL (`ws://` or `wss://`). */
  websocket?: string;
  /** The player gRPC stream, `host:port`. */
  grpc?: string;
  /** The internal History API's gRPC port, `host:port`. */
  api?: string;
  /** The same API over HTTP (the Connect protocol), its base URL. */
  apiHttp?: string;
  /** The admin URL (`http://host:port`). */
  admin?: string;
  /** The demo web player's URL. */
  demo?: string;
}

/** One role process of the local topology and what it serves. */
export interface EndpointsRole {
  name: string;
  role: string;
  pid: number;
  websocket?: string;
  grpc?: string;
  api?: string;
  apiHttp?: string;
  admin?: string;
}

/** An `endpoints.json`: a standalone's, a role's `--endpoints-out`, or the local topology's. */
export interface Endpoints {
  pid?: number;
  role?: string;
  /** When the standalone started, ISO-8601. */
  startedAt?: string;
  /** The `backends.json` the topology's roles were pointed at. */
  backends?: string;
  redis?: EndpointsRedis;
  kafka?: EndpointsKafka;
  hbase?: EndpointsHBase;
  playline?: EndpointsServes;
  roles?: EndpointsRole[];
}

/** A field a reader cannot do without, as the file nests it (the Java record's `Endpoints.Field`, and `playline.admin`). */
export type EndpointsField =
  | "redis.uri"
  | "kafka.bootstrapServers"
  | "hbase.zookeeperQuorum"
  | "hbase.zookeeperPort"
  | "playline.websocket"
  | "playline.admin"
  | "playline.api"
  | "playline.apiHttp";

type Kind = "string" | "number" | "boolean";
type Shape = { [field: string]: Kind | Shape | [Shape] };

const SERVES: Shape = { websocket: "string", grpc: "string", api: "string", apiHttp: "string", admin: "string",
  demo: "string" };
const SHAPE: Shape = {
  pid: "number",
  role: "string",
  startedAt: "string",
  backends: "string",
  redis: { uri: "string", cluster: "boolean", embedded: "boolean", seed: "string", nodes: [{ uri: "string" }] },
  kafka: { bootstrapServers: "string", embedded: "boolean" },
  hbase: { zookeeperQuorum: "string", zookeeperPort: "number", embedded: "boolean" },
  playline: SERVES,
  roles: [{ name: "string", role: "string", pid: "number", websocket: "string", grpc: "string", api: "string",
    apiHttp: "string", admin: "string" }],
};
/** Fields of list elements that the Java record does not allow to be absent. */
const ELEMENT_REQUIRED: Record<string, string[]> = { "redis.nodes": ["uri"], roles: ["name", "role", "pid"] };

/**
 * Reads `file` and checks that it holds every field of `required` (present and, for text, not blank).
 *
 * @throws Error naming `file` when it is missing, not JSON, not an object, has a field of the wrong
 *     type (naming the field) or lacks a required field (naming it)
 */
export function readEndpoints(file: string, ...required: EndpointsField[]): Endpoints {
  if (!existsSync(file)) {
    throw new Error(`${file}: no such file (a running standalone writes <data dir>/endpoints.json, a role its `
      + "--endpoints-out, the local topology deploy/local/run/endpoints.json)");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file}: not an endpoints JSON object (${(e as Error).message})`);
  }
  if (!isObject(parsed)) {
    throw new Error(`${file}: holds ${JSON.stringify(parsed)}, not an endpoints object`);
  }
  check(file, parsed, SHAPE, "");
  for (const path of required) {
    const value = path.split(".").reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), parsed);
    if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) {
      throw new Error(`${file}: no ${path} (is it the endpoints file of the right process?)`);
    }
  }
  return parsed as Endpoints;
}

function check(file: string, o: Record<string, unknown>, shape: Shape, prefix: string): void {
  for (const [name, kind] of Object.entries(shape)) {
    const value = o[name];
    const path = prefix + name;
    if (value === undefined || value === null) {
      continue;
    }
    if (typeof kind === "string") {
      if (typeof value !== kind) {
        throw new Error(`${file}: field ${path}: expected ${expected(kind)}, got ${JSON.stringify(value)}`);
      }
    } else if (Array.isArray(kind)) {
      if (!Array.isArray(value)) {
        throw new Error(`${file}: field ${path}: expected a list, got ${JSON.stringify(value)}`);
      }
      value.forEach((element, i) => {
        if (!isObject(element)) {
          throw new Error(`${file}: field ${path}[${i}]: expected an object, got ${JSON.stringify(element)}`);
        }
        check(file, element, kind[0], `${path}[${i}].`);
        for (const field of ELEMENT_REQUIRED[path] ?? []) {
          if (element[field] === undefined || element[field] === null) {
            throw new Error(`${file}: no ${path}[${i}].${field}`);
          }
        }
      });
    } else if (isObject(value)) {
      check(file, value, kind, `${path}.`);
    } else {
      throw new Error(`${file}: field ${path}: expected an object, got ${JSON.stringify(value)}`);
    }
  }
}

function expected(kind: Kind): string {
  return kind === "boolean" ? "true or false" : `a ${kind}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
