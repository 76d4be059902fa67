// Long pure computations as generators: they `yield` (no value) between bounded pieces of work so
// that a caller on the event loop can let other work run (src/plan's sliced runner), while the
// result stays a pure function of the input. `drain` runs them to the end synchronously.

/** A computation in steps: yields nothing, returns T. */
export type Steps<T> = Generator<void, T, void>;

export function drain<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Yield once every `every` calls (a power of two): cheap enough for hot loops. */
export function counter(every = 1024): () => boolean {
  let n = 0;
  const mask = every - 1;
  return () => (++n & mask) === 0;
}
