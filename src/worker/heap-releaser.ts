// When the reassignment worker gives its heap's free pages back to the OS (src/heap-release.ts).
//
// The worker's heap peaks while it handles a large request. At 100,000 partitions, a dry run or
// a start holds the request, what it read of the cluster, the plan and its answer at once:
// ~150-170 MiB against ~90-110 while the partitions move. V8 keeps those pages resident
// afterwards: the RSS stays at the heap's high-water mark, under whatever the reconcile passes
// allocate outside the heap next. So when an exchange of at least `minBytes` (request and answer
// together) ends, the worker's next two full collections are memory-reducing ones
// (memoryReducingCollections: two, since marking may already be under way when it is asked).
// They come when they would anyway, at pauses of 7-49 ms (--trace-gc). Off by default
// (GATEWAY_WORKER_HEAP_RELEASE_BYTES=0, src/worker/index.ts): at 100,000 partitions RSS fell
// ~25 MiB, but the page GET a second after a start took up to 159 ms against 113, and with
// compaction up to 230 ms: V8 optimizing for size slows the worker's passes, not only its
// collections.
//
// Tried first (docs/worker-thread.md, nineteenth session), a forced collection ("last resort"):
// it stopped the worker 100-200 ms, and whatever forwarded request arrived meanwhile waited.
// Right when the exchange ended, the page GET a client sends after a start sometimes did (up to
// 140 ms); once the worker had been idle 100 ms, often (up to 191 ms, over the 150 ms target);
// 3 s later, the first reconcile passes' buffers came on top of the start's pages not yet
// released (RSS while moving up to 405 MiB).
import { Counter, type Registry } from 'prom-client';
import { memoryReducingCollections, type ReducedCollections } from '../heap-release.js';
import type { Logger } from '../observability/logger.js';
import { METRIC_PREFIX } from '../observability/metrics.js';

/** Full collections made memory-reducing after a large exchange, and how long the flag stays on at most. */
export const REDUCING_COLLECTIONS = 2;
export const REDUCING_TIMEOUT_MS = 30_000;

export interface HeapReleaserOptions {
  release: () => Promise<ReducedCollections>;
  /** An exchange of at least this many bytes is a peak worth releasing after (0: never). */
  minBytes: number;
  onReleased: (released: ReducedCollections) => void;
  onError: (err: unknown) => void;
}

export class HeapReleaser {
  readonly #opts: HeapReleaserOptions;
  #running = false;
  #again = false;
  #stopped = false;

  constructor(opts: HeapReleaserOptions) {
    this.#opts = opts;
  }

  /** A forwarded exchange (the request and its answer) of `bytes` in all has ended. */
  exchanged(bytes: number): void {
    if (this.#stopped || this.#opts.minBytes <= 0 || bytes < this.#opts.minBytes) return;
    // One at a time; a peak that ends meanwhile gets its own collections after.
    if (this.#running) this.#again = true;
    else void this.#run();
  }

  /** No release starts after this (one under way ends with its collections or its timeout). */
  stop(): void {
    this.#stopped = true;
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      this.#opts.onReleased(await this.#opts.release());
    } catch (err) {
      this.#opts.onError(err);
    } finally {
      this.#running = false;
    }
    if (this.#again && !this.#stopped) {
      this.#again = false;
      void this.#run();
    }
  }
}

/** The reassignment worker's releaser, with a counter of its releases and a log line for each. */
export function workerHeapReleaser(o: {
  registry: Registry;
  logger: Logger;
  minBytes: number;
  nodeFlags: readonly string[];
}): HeapReleaser {
  const released = new Counter({
    name: `${METRIC_PREFIX}reassignment_worker_heap_releases_total`,
    help: "Times the reassignment worker's full collections were made memory-reducing (its heap's free pages given back to the OS) after a forwarded exchange of GATEWAY_WORKER_HEAP_RELEASE_BYTES or more (a large start or dry run).",
    registers: [o.registry],
  });
  return new HeapReleaser({
    release: () => memoryReducingCollections(REDUCING_COLLECTIONS, REDUCING_TIMEOUT_MS, o.nodeFlags),
    minBytes: o.minBytes,
    onReleased: (r) => {
      released.inc();
      o.logger.info('reassignment worker: free heap pages released', {
        collections: r.collections,
        ms: Math.round(r.seconds * 1000),
        heapBeforeMiB: Math.round(r.heapBefore / 1048576),
        heapAfterMiB: Math.round(r.heapAfter / 1048576),
      });
    },
    onError: (err) => o.logger.warn('reassignment worker: releasing free heap pages failed', { error: String(err) }),
  });
}
