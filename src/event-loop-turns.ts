// Giving the event loop back, shared by every sliced task of the gateway (body parsing, answer
// serialization, Kafka decodes, reconcile passes, plans, state-topic reads).
//
// Why one place: each sliced task yields after ~5-15 ms of work, with setImmediate. But Node
// runs, in one check phase, every immediate queued before it: with three tasks sliced at once
// (a 100,000-partition start decodes replica sizes while it validates, while a reconcile pass
// runs) their three slices ran back to back, then GC, and /healthz waited 60-80 ms between two
// polls of the sockets (bench:scale, a drift logger on a CPU profile). Here a task that yields
// queues up, and each turn of the event loop resumes ONE of them, so sockets are polled between
// any two slices. The work done is the same, in the same order per task; tasks take turns.
//
// Which one: a short task before a long one. A task (`runner`: one object per sliced run) is
// "short" for its first SHORT_YIELDS yields, then "long"; a turn resumes the first short task
// waiting, else the first long one. A 1,000-row page GET (a few slices) then does not wait
// behind the dozen 25,000-partition decodes of a progress snapshot, each taking its turn.
// Long tasks wait only while short ones are queued, and a task is short only a few times.
//
// The resumed task runs until it yields again or waits on I/O; the next one is resumed from an
// immediate queued during this turn's check phase, i.e. in the next turn, after the poll phase.
//
// The runners of computations written as steps (src/domain/steps.ts) are here too: runInSlices
// (a time budget per slice: Kafka decodes, body parsing, plans) and driveSteps (a caller's pacer).
import { performance } from 'node:perf_hooks';
import type { Steps } from './domain/steps.js';

/** Yields during which a task goes before the long ones. */
export const SHORT_YIELDS = 3;

class Queue {
  #items: (() => void)[] = [];
  #head = 0;
  push(f: () => void): void {
    this.#items.push(f);
  }
  shift(): (() => void) | undefined {
    const f = this.#items[this.#head];
    if (f === undefined) return undefined;
    this.#items[this.#head++] = undefined as unknown as () => void;
    if (this.#head === this.#items.length) {
      this.#items.length = 0;
      this.#head = 0;
    }
    return f;
  }
  get size(): number {
    return this.#items.length - this.#head;
  }
}

const short = new Queue();
const long = new Queue();
const yields = new WeakMap<object, number>();
let scheduled = false;

function resumeOne(): void {
  scheduled = false;
  const next = short.shift() ?? long.shift();
  if (next === undefined) return;
  if (short.size + long.size > 0) schedule();
  next();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(resumeOne);
}

/**
 * Resolves in a later turn of the event loop, after sockets were polled; one waiting task per
 * turn. `runner`: the same object for every yield of one sliced task (without it, a task counts
 * as long).
 */
export function yieldTurn(runner?: object): Promise<void> {
  let n = SHORT_YIELDS;
  if (runner !== undefined) {
    n = yields.get(runner) ?? 0;
    yields.set(runner, n + 1);
  }
  return new Promise<void>((resolve) => {
    (n < SHORT_YIELDS ? short : long).push(resolve);
    schedule();
  });
}

/** Tasks waiting for their turn (tests). */
export function waitingTurns(): number {
  return short.size + long.size;
}

/**
 * Runs a computation written as steps (a generator that yields between slices of its work, as
 * the domain's Steps do) to its end, calling `pace` at each yield: `pace` gives the event loop a
 * turn once its time budget is spent (src/state/layout.ts makePacer).
 */
export async function driveSteps<T>(steps: Steps<T>, pace: () => Promise<void>): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await pace();
  }
}

/** Told about each slice of a runInSlices run (src/plan/sliced.ts publishes them). */
export interface SliceWatch {
  /** A slice begins: at the start, and after each turn given to the event loop. */
  sliceStarted(): void;
  /** A slice ended after `ms` of work, at `at` (performance.now()); `done`: the last one. */
  sliceEnded(ms: number, done: boolean, at: number): void;
}

/**
 * Runs a computation written as steps to its end, giving the event loop a turn (yieldTurn, as
 * `runner`: one task) whenever a slice has run for `sliceMs` or more: the clock is read after
 * each step, so a slice is `sliceMs` plus at most one step.
 */
export async function runInSlices<T>(steps: Steps<T>, sliceMs: number, runner: object = {}, watch?: SliceWatch): Promise<T> {
  let since = performance.now();
  watch?.sliceStarted();
  for (;;) {
    const r = steps.next();
    if (r.done && watch === undefined) return r.value;
    const now = performance.now();
    if (!r.done && now - since < sliceMs) continue;
    watch?.sliceEnded(now - since, r.done === true, now);
    if (r.done) return r.value;
    await yieldTurn(runner);
    since = performance.now();
    watch?.sliceStarted();
  }
}
