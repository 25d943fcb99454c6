/**
 * The client's listeners: on() registers one per event, emit() calls each, and a listener that
 * throws is logged without breaking the session. Single-threaded.
 */
import type { PlaylineEvents } from "./types.js";

export class Listeners {
  private readonly listeners = new Map<keyof PlaylineEvents, Set<(...args: never[]) => void>>();

  /** Registers `listener`; returns what unregisters it. */
  on<K extends keyof PlaylineEvents>(event: K, listener: PlaylineEvents[K]): () => void {
    let set = this.listeners.get(event);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as (...args: never[]) => void);
    return () => set?.delete(listener as (...args: never[]) => void);
  }

  emit<K extends keyof PlaylineEvents>(event: K, ...args: Parameters<PlaylineEvents[K]>): void {
    for (const l of this.listeners.get(event) ?? []) {
      try {
        (l as unknown as (...a: Parameters<PlaylineEvents[K]>) => void)(...args);
      } catch (e) {
        // A listener's failure must not break the session.
        console.error("Playline listener failed", e);
      }
    }
  }
}
