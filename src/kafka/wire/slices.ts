// Long decodes in slices. A decoder written as a generator yields every few thousand entries;
// inSlices runs it and lets the event loop turn (setImmediate) whenever a slice has run for
// SLICE_MS, so a 100,000-partition answer does not hold every other request (health checks,
// GETs) for the whole decode. drain() runs one to the end at once (tests, benches).
import { performance } from 'node:perf_hooks';
import { yieldTurn } from '../../event-loop-turns.js';

export type Steps<T> = Generator<void, T, void>;

/** Entries a decoder handles between two yields (a yield costs a check of the clock). */
export const ENTRIES_PER_STEP = 2048;

export const SLICE_MS = 8;

export function drain<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

export async function inSlices<T>(steps: Steps<T>, sliceMs = SLICE_MS): Promise<T> {
  let since = performance.now();
  const runner = {};
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - since >= sliceMs) {
      await yieldTurn(runner);
      since = performance.now();
    }
  }
}
