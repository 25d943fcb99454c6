/**
 * Where the client keeps the last first-today date the gateway gave it, per user, so that it can
 * echo it in Auth and every Heartbeat (the gateway then skips the Redis lookup) across restarts.
 */
export interface FlagStore {
  load(uid: bigint): string;
  store(uid: bigint, date: string): void;
}

/** Keeps dates in memory: the flag survives reconnects, not a page reload. */
export class MemoryFlagStore implements FlagStore {
  private readonly dates = new Map<bigint, string>();

  load(uid: bigint): string {
    return this.dates.get(uid) ?? "";
  }

  store(uid: bigint, date: string): void {
    this.dates.set(uid, date);
  }
}

/** The subset of the Web Storage API the store needs (window.localStorage in a browser). */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** Keeps dates in `localStorage` (or any Web Storage): the flag survives page reloads. */
export class StorageFlagStore implements FlagStore {
  constructor(
    private readonly storage: KeyValueStorage,
    private readonly prefix = "playline.flagDate.",
  ) {}

  load(uid: bigint): string {
    try {
      return this.storage.getItem(this.prefix + uid.toString()) ?? "";
    } catch {
      return ""; // storage disabled (private mode, quota): behave as if nothing was stored
    }
  }

  store(uid: bigint, date: string): void {
    try {
      this.storage.setItem(this.prefix + uid.toString(), date);
    } catch {
      // storage full or disabled: the date lives in memory for this session only
    }
  }
}

/** localStorage in a browser, memory elsewhere. */
export function defaultFlagStore(): FlagStore {
  const storage = (globalThis as { localStorage?: KeyValueStorage }).localStorage;
  return storage !== undefined ? new StorageFlagStore(storage) : new MemoryFlagStore();
}
