/**
 * Virtual time for unit tests: a ManualClock whose time moves only when the test advances it, and
 * a ScriptedRandom that returns the numbers the test wrote down. Neither waits for the wall clock.
 */
import type { Clock, RandomSource, Scheduled } from "../src/clock.js";

/** More timers than this falling due in one advance() means a timer that keeps rescheduling itself without delay. */
const MAX_TIMERS_PER_ADVANCE = 100_000;

interface Timer {
  readonly dueMs: number;
  /** Order of scheduling: timers due at the same time run first-scheduled first. */
  readonly order: number;
  readonly task: () => void;
}

/**
 * A Clock that stands still until advance(): then runs every timer that falls due, in deadline
 * order (same deadline: scheduling order), with now() at each timer's deadline while it runs;
 * timers those timers schedule run in the same advance when they fall due within it.
 */
export class ManualClock implements Clock {
  private nowMs: number;
  private scheduled = 0;
  private readonly timers = new Set<Timer>();

  constructor(startMs = Date.UTC(2026, 0, 15, 12, 0, 0)) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  schedule(task: () => void, delayMs: number): Scheduled {
    // As setTimeout: a negative or NaN delay means "as soon as possible".
    const timer: Timer = { dueMs: this.nowMs + (delayMs > 0 ? delayMs : 0), order: this.scheduled++, task };
    this.timers.add(timer);
    return { cancel: () => void this.timers.delete(timer) };
  }

  /**
   * Moves the time `ms` forward, running the timers that fall due on the way; returns how many ran.
   * @throws Error when timers keep falling due (a timer rescheduling itself at no delay would never end)
   */
  advance(ms: number): number {
    if (!(ms >= 0)) {
      throw new RangeError(`advance: ${ms} ms (expected: >= 0)`);
    }
    const until = this.nowMs + ms;
    let ran = 0;
    for (let next = this.next(); next !== undefined && next.dueMs <= until; next = this.next()) {
      this.timers.delete(next);
      this.nowMs = next.dueMs;
      if (++ran > MAX_TIMERS_PER_ADVANCE) {
        throw new Error(`advance: over ${MAX_TIMERS_PER_ADVANCE} timers fell due by ${next.dueMs}; `
          + "one reschedules itself?");
      }
      next.task();
    }
    this.nowMs = until;
    return ran;
  }

  /** Advances to the next timer's deadline and runs what falls due then; returns the time moved. */
  advanceToNext(): number {
    const next = this.next();
    if (next === undefined) {
      throw new Error("advanceToNext: no timer pending");
    }
    const ms = next.dueMs - this.nowMs;
    this.advance(ms);
    return ms;
  }

  /** Timers scheduled and neither run nor cancelled. */
  pending(): number {
    return this.timers.size;
  }

  /** Milliseconds until the next timer falls due, or undefined when none is pending. */
  nextDueInMs(): number | undefined {
    const next = this.next();
    return next === undefined ? undefined : next.dueMs - this.nowMs;
  }

  private next(): Timer | undefined {
    let first: Timer | undefined;
    for (const t of this.timers) {
      if (first === undefined || t.dueMs < first.dueMs || (t.dueMs === first.dueMs && t.order < first.order)) {
        first = t;
      }
    }
    return first;
  }
}

/**
 * A RandomSource that returns `values` in order and then fails the test: a draw the test did not
 * script is a behaviour it did not expect.
 */
export class ScriptedRandom {
  private readonly values: number[];
  private drawn = 0;

  constructor(...values: number[]) {
    for (const v of values) {
      if (!(v >= 0 && v < 1)) {
        throw new RangeError(`scripted random value ${v} (expected: in [0, 1))`);
      }
    }
    this.values = values;
  }

  /** The source to hand the client. */
  readonly next: RandomSource = () => {
    if (this.drawn >= this.values.length) {
      throw new Error(`random drawn ${this.drawn + 1} times; the test scripted ${this.values.length}`);
    }
    return this.values[this.drawn++];
  };

  /** How many numbers were drawn. */
  get draws(): number {
    return this.drawn;
  }

  /** Scripts more numbers after the ones already given. */
  add(...values: number[]): this {
    for (const v of new ScriptedRandom(...values).values) {
      this.values.push(v);
    }
    return this;
  }
}
