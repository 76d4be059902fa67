// Long pure computations as generators (the domain's, and the Kafka decoders'): they `yield` (no
// value) between bounded pieces of work, so that a caller on the event loop can let other work run
// in between (runInSlices and driveSteps in src/event-loop-turns.ts, src/plan/sliced.ts), while the
// result stays a pure function of the input: no I/O and no clock either way, same input, same
// result. `drain` runs one to the end synchronously (pure callers, tests, benches).

/** A computation in steps: yields nothing, returns T. */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to the end, synchronously. */
export function drain<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Items handled between two yields of a Steps computation (~1 ms of work or less each). */
export const STEP_ITEMS = 2048;

/** Yield once every `every` calls (a power of two): cheap enough for hot loops. */
export function counter(every = 1024): () => boolean {
  let n = 0;
  const mask = every - 1;
  return () => (++n & mask) === 0;
}
