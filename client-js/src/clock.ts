/**
 * The client's time and randomness, injected: every timer the SDK sets (heartbeat tick, reconnect
 * waits, token refresh, connect, request, close and drain timeouts) goes through a Clock, every
 * reading of the time through Clock.now(), every jitter through a RandomSource. The defaults are
 * the platform's (setTimeout, Date.now, Math.random); tests pass a manual clock and scripted
 * numbers so that no test waits for the wall clock.
 */

/** A task a Clock scheduled that may still be cancelled. */
export interface Scheduled {
  /** Cancels the task if it has not run; idempotent. */
  cancel(): void;
}

/** Where the client reads the time and schedules its timers. Called from the client's event loop only. */
export interface Clock {
  /** Milliseconds since the Unix epoch (event times are sent as such). */
  now(): number;
  /**
   * Runs `task` once, `delayMs` milliseconds from now (0 or less: as soon as possible, but never
   * before schedule() returns).
   */
  schedule(task: () => void, delayMs: number): Scheduled;
}

/** Uniformly distributed numbers in [0, 1), as Math.random returns them. */
export type RandomSource = () => number;

/** The platform's clock: Date.now and setTimeout. */
export const systemClock: Clock = {
  now: () => Date.now(),
  schedule(task: () => void, delayMs: number): Scheduled {
    const timer = setTimeout(task, delayMs);
    return { cancel: () => clearTimeout(timer) };
  },
};

/** Math.random. */
export const systemRandom: RandomSource = () => Math.random();
