// Giving a thread's freed heap pages back to the OS.
//
// V8 keeps the pages its collections free in a pool for the heap's next allocations, and hands
// them back only in a memory-reducing collection. Its memory reducer starts one only when the
// thread has been idle for a while, and a thread that answers requests or runs a reconcile pass
// every few seconds never is. So a heap's high-water mark stays resident for the life of the
// process. Measured on Node 24: 150 MiB of objects made and dropped, then full collections: the
// heap is 12 MiB, its pages still resident 157 MiB; after a memory-reducing one, 4 MiB
// (docs/worker-thread.md, nineteenth session).
//
// A thread that knows it has just passed a peak asks for one here, in one of two ways:
// - releaseHeapPages: V8's "last resort" collection, the one it runs itself before giving up on
//   an allocation: full collections until nothing more is freed, then the pooled pages
//   released. It stops the thread ~100-200 ms at ~100 MiB live: for a thread that has compiled
//   its request validators and does not listen yet.
// - memoryReducingCollections (below): the thread's next collections reduce memory, at their
//   usual pause: for the reassignment worker after a large exchange (src/worker/heap-releaser.ts).
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { runInNewContext } from 'node:vm';

type GcFunction = (options: { type: 'major'; execution: 'async'; flavor: 'last-resort' }) => Promise<void> | void;

let gcFunction: GcFunction | null = null;

function lastResortGc(): GcFunction {
  if (gcFunction) return gcFunction;
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return (gcFunction = exposed as GcFunction);
  // V8's gc extension is installed in the contexts created while --expose-gc is set: one is
  // made to take the function from, and the flag is cleared again, so no other context, this
  // thread's included, gets a global `gc`.
  setFlagsFromString('--expose-gc');
  try {
    gcFunction = runInNewContext('gc') as GcFunction;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return gcFunction;
}

export interface HeapRelease {
  /** How long the thread was stopped for it. */
  seconds: number;
  /** V8's heap (total_heap_size, bytes) before and after. */
  heapBefore: number;
  heapAfter: number;
}

/** Collects this thread's heap and gives its free pages back to the OS (stops the thread meanwhile). */
export async function releaseHeapPages(): Promise<HeapRelease> {
  const gc = lastResortGc();
  const heapBefore = getHeapStatistics().total_heap_size;
  const started = performance.now();
  await gc({ type: 'major', execution: 'async', flavor: 'last-resort' });
  return { seconds: (performance.now() - started) / 1000, heapBefore, heapAfter: getHeapStatistics().total_heap_size };
}

// While it works, a thread cannot stop for a forced collection: ~100-200 ms at 100,000
// partitions, which whatever request arrives meanwhile waits for. V8 also reduces memory in its
// own collections when it optimizes for size: it marks incrementally as always, and when done it
// releases the pooled pages. `--optimize-for-size` is read when marking starts, so turning it on,
// then off again once this thread's next collections have run, makes those (and only those,
// give or take the other thread's meanwhile) memory-reducing. `--no-compact` meanwhile, since a
// memory-reducing collection also compacts every fragmented page: at 100,000 partitions those
// pauses made a page GET wait up to 230 ms. The pooled pages are what is wanted back, and they
// are free already. Measured on a toy heap: 150 MiB of dropped objects' pages resident (189 MiB)
// went down to 47 MiB at the second full collection after, which paused the thread 29 ms, as
// the ones before it. A flag given in the node flags is left as given.

/** The process's node flags: its command line's and NODE_OPTIONS' (a worker thread's process.execArgv is its own). */
export function processNodeFlags(): string[] {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/).filter((f) => f !== '')];
}

/** As HeapRelease; `seconds` from setting the flags to setting them back (the thread was not stopped). */
export interface ReducedCollections extends HeapRelease {
  /** Full collections of this thread that ran while the flags were set (fewer: the time ran out). */
  collections: number;
}

/**
 * Makes this thread's next `collections` full (mark-compact) collections memory-reducing ones
 * without compaction, or those that run within `timeoutMs`; resolves when the flags are back.
 * One at a time in the process (the flags are the process's).
 */
export function memoryReducingCollections(
  collections: number,
  timeoutMs: number,
  nodeFlags: readonly string[] = processNodeFlags(),
): Promise<ReducedCollections> {
  const sizeFlagGiven = nodeFlags.some((f) => /^--(no-)?optimize[-_]for[-_]size$/.test(f));
  const compactFlagGiven = nodeFlags.some((f) => /^--(no-)?compact$/.test(f));
  const heapBefore = getHeapStatistics().total_heap_size;
  const started = performance.now();
  if (!sizeFlagGiven) setFlagsFromString('--optimize-for-size');
  if (!compactFlagGiven) setFlagsFromString('--no-compact');
  return new Promise((resolve) => {
    let seen = 0;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      observer.disconnect();
      clearTimeout(timer);
      if (!sizeFlagGiven) setFlagsFromString('--no-optimize-for-size');
      if (!compactFlagGiven) setFlagsFromString('--compact');
      resolve({
        collections: seen,
        seconds: (performance.now() - started) / 1000,
        heapBefore,
        heapAfter: getHeapStatistics().total_heap_size,
      });
    };
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if ((entry as { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
        if (++seen >= collections) return done();
      }
    });
    observer.observe({ entryTypes: ['gc'] });
    const timer = setTimeout(done, timeoutMs);
    timer.unref();
  });
}
