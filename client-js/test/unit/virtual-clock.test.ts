/** The test clock and random source themselves: deadline order, timers set by timers, cancel, scripted numbers. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ManualClock, ScriptedRandom } from "../virtual-clock.js";

describe("ManualClock", () => {
  it("stands still until advanced, then runs due timers in deadline order, each at its deadline", () => {
    const clock = new ManualClock(1_000);
    const ran: string[] = [];
    clock.schedule(() => ran.push(`c@${clock.now()}`), 30);
    clock.schedule(() => ran.push(`a@${clock.now()}`), 10);
    clock.schedule(() => ran.push(`b@${clock.now()}`), 20);
    clock.schedule(() => ran.push(`late@${clock.now()}`), 31);
    assert.equal(clock.now(), 1_000);
    assert.deepEqual(ran, []);

    assert.equal(clock.advance(30), 3);
    assert.deepEqual(ran, ["a@1010", "b@1020", "c@1030"]);
    assert.equal(clock.now(), 1_030);
    assert.equal(clock.pending(), 1);
    assert.equal(clock.nextDueInMs(), 1);
  });

  it("runs timers due at the same time in the order they were scheduled", () => {
    const clock = new ManualClock();
    const ran: number[] = [];
    for (let i = 0; i < 5; i++) {
      clock.schedule(() => ran.push(i), 100);
    }
    clock.advance(100);
    assert.deepEqual(ran, [0, 1, 2, 3, 4]);
  });

  it("runs the timers that timers schedule when they fall due within the same advance", () => {
    const clock = new ManualClock(0);
    const ran: string[] = [];
    const tick = (n: number): void => {
      ran.push(`tick${n}@${clock.now()}`);
      clock.schedule(() => tick(n + 1), 40);
    };
    clock.schedule(() => tick(1), 40);
    clock.schedule(() => ran.push(`other@${clock.now()}`), 100);

    clock.advance(130);
    assert.deepEqual(ran, ["tick1@40", "tick2@80", "other@100", "tick3@120"]);
    assert.equal(clock.pending(), 1, "tick4, due at 160, waits");
    assert.equal(clock.now(), 130);
  });

  it("runs a zero, negative or NaN delay on the next advance, never inside schedule()", () => {
    const clock = new ManualClock(0);
    const ran: string[] = [];
    clock.schedule(() => ran.push("zero"), 0);
    clock.schedule(() => ran.push("negative"), -5);
    clock.schedule(() => ran.push("nan"), Number.NaN);
    assert.deepEqual(ran, []);
    clock.advance(0);
    assert.deepEqual(ran, ["zero", "negative", "nan"]);
    assert.equal(clock.now(), 0);
  });

  it("forgets cancelled timers (cancel is idempotent) and counts what is pending", () => {
    const clock = new ManualClock(0);
    const ran: string[] = [];
    const a = clock.schedule(() => ran.push("a"), 10);
    clock.schedule(() => ran.push("b"), 10);
    assert.equal(clock.pending(), 2);
    a.cancel();
    a.cancel();
    assert.equal(clock.pending(), 1);
    clock.advance(10);
    assert.deepEqual(ran, ["b"]);
    assert.equal(clock.pending(), 0);
    assert.equal(clock.nextDueInMs(), undefined);
  });

  it("stops a timer that keeps rescheduling itself at no delay instead of looping for ever", () => {
    const clock = new ManualClock(0);
    const spin = (): void => void clock.schedule(spin, 0);
    clock.schedule(spin, 10);
    assert.throws(() => clock.advance(10), /timers fell due by 10; one reschedules itself/);
  });

  it("advances to the next deadline on request and refuses to go back", () => {
    const clock = new ManualClock(0);
    clock.schedule(() => undefined, 250);
    assert.equal(clock.advanceToNext(), 250);
    assert.equal(clock.now(), 250);
    assert.throws(() => clock.advanceToNext(), /no timer pending/);
    assert.throws(() => clock.advance(-1), RangeError);
  });
});

describe("ScriptedRandom", () => {
  it("returns the scripted numbers in order and fails the draw nobody scripted", () => {
    const random = new ScriptedRandom(0.5, 0).add(0.25);
    assert.deepEqual([random.next(), random.next(), random.next()], [0.5, 0, 0.25]);
    assert.equal(random.draws, 3);
    assert.throws(() => random.next(), /random drawn 4 times; the test scripted 3/);
  });

  it("refuses numbers outside [0, 1)", () => {
    assert.throws(() => new ScriptedRandom(1), RangeError);
    assert.throws(() => new ScriptedRandom(-0.1), RangeError);
    assert.throws(() => new ScriptedRandom(0.2).add(Number.NaN), RangeError);
  });
});
