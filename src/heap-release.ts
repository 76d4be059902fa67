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
// A thread that knows it has just passed a peak asks for one here: V8's "last resort"
// collection, the one it runs itself before giving up on an allocation. It runs full collections
// until nothing more is freed, then releases the pooled pages. It stops the thread that asks
// for ~100-200 ms at ~100 MiB live, so it is asked only where that is affordable: by the
// reassignment worker after a large exchange (src/worker/heap-releaser.ts), and by a thread
// that has compiled its request validators but does not listen yet.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFunction = (options: { type: 'major'; execution: 'async'; flavor: 'last-resort' }) => Promise<void> | void;

let gcFunction: GcFunction | null = null;

function memoryReducingGc(): GcFunction {
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
  const gc = memoryReducingGc();
  const heapBefore = getHeapStatistics().total_heap_size;
  const started = performance.now();
  await gc({ type: 'major', execution: 'async', flavor: 'last-resort' });
  return { seconds: (performance.now() - started) / 1000, heapBefore, heapAfter: getHeapStatistics().total_heap_size };
}
