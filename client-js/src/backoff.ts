import type { RandomSource } from "./clock.js";

/**
 * Exponential backoff with full jitter: the n-th retry waits a uniformly random time in
 * [0, min(cap, base * 2^n)] (n = 0 for the first retry after a healthy connection was lost),
 * drawn from the client's RandomSource.
 */
export class Backoff {
  constructor(
    readonly baseMs: number,
    readonly capMs: number,
    private readonly random: RandomSource,
  ) {
    if (!(baseMs >= 1) || !(capMs >= baseMs)) {
      throw new RangeError(`backoff: base ${baseMs} ms, cap ${capMs} ms (expected: 1 <= base <= cap)`);
    }
  }

  delayMs(retry: number): number {
    const ceiling = Math.min(this.capMs, this.baseMs * 2 ** Math.min(retry, 30));
    return Math.floor(this.random() * (ceiling + 1));
  }

  /** A little jitter (up to the base) to spread clients that were told the same time. */
  jitterMs(): number {
    return Math.floor(this.random() * (this.baseMs + 1));
  }
}
