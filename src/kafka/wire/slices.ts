// Long decodes in slices. A decoder written as steps (src/domain/steps.ts) yields every
// ENTRIES_PER_STEP entries; inSlices runs it and lets the event loop turn whenever a slice has
// run for SLICE_MS, so a 100,000-partition answer does not hold every other request (health
// checks, GETs) for the whole decode. drain() (src/domain/steps.ts) runs one to the end at once
// (tests, benches).
import type { Steps } from '../../domain/steps.js';
import { runInSlices } from '../../event-loop-turns.js';

/** Entries a decoder handles between two yields (a yield costs a check of the clock). */
export const ENTRIES_PER_STEP = 2048;

export const SLICE_MS = 8;

/** A decode run in slices of SLICE_MS, each decode one task for event-loop-turns.ts. */
export const inSlices = <T>(steps: Steps<T>, sliceMs = SLICE_MS): Promise<T> => runInSlices(steps, sliceMs);
