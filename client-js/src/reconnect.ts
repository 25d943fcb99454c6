/**
 * When to open the next connection after one ended: at once after an expired session, at the
 * time a gateway's Reconnect asked (plus jitter), else after backoff.ts's exponential backoff with
 * full jitter; never after maxAttempts consecutive failures. Single-threaded.
 */
import { Backoff } from "./backoff.js";
import type { Clock, RandomSource } from "./clock.js";

export class ReconnectPolicy {
  private readonly backoff: Backoff;
  private failures = 0;
  private retryAtOnce = false;
  private reconnectAtMs = -1;

  /** @throws RangeError for a backoff base or cap out of range */
  constructor(backoffBaseMs: number, backoffCapMs: number, private readonly maxAttempts: number,
    private readonly clock: Clock, random: RandomSource) {
    this.backoff = new Backoff(backoffBaseMs, backoffCapMs, random);
  }

  /** A connection was authenticated: failures start again from zero. */
  succeeded(): void {
    this.failures = 0;
  }

  /** The next attempt goes at once (a resumed session expired: retry with a fresh token). */
  retryNow(): void {
    this.retryAtOnce = true;
  }

  /** The gateway asked to reconnect after `afterMs`. */
  requested(afterMs: number): void {
    this.reconnectAtMs = this.clock.now() + afterMs + this.backoff.jitterMs();
  }

  /** The wait before the next attempt, or -1 to give up; `wasConnected` when the lost connection was healthy. */
  nextDelayMs(wasConnected: boolean): number {
    if (this.retryAtOnce) {
      this.retryAtOnce = false;
      return 0;
    }
    if (!wasConnected && ++this.failures >= this.maxAttempts) {
      return -1;
    }
    if (this.reconnectAtMs >= 0) {
      const delay = Math.max(0, this.reconnectAtMs - this.clock.now());
      this.reconnectAtMs = -1;
      return delay;
    }
    return this.backoff.delayMs(this.failures);
  }
}
