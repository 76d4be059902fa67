// When the reassignment worker gives its heap's free pages back to the OS (src/heap-release.ts).
//
// The worker's heap peaks while it handles a large request. At 100,000 partitions, a start
// holds the request, the plan, its rollback, the record and the 8 MB answer at once: ~150 MiB
// against ~90 while the partitions move. V8 keeps those pages resident afterwards: the RSS
// stays at the heap's high-water mark. So after an exchange of at least `minBytes` (request
// and answer together) ends, the worker asks for a release. The size of the exchange is what
// the peak scales with, and nothing smaller is worth stopping the worker for.
//
// It runs as soon as the worker is idle after it: no request in flight but event streams, and
// none begun or ended for `quietMs`; or `maxWaitMs` after the first large exchange not yet
// released, whatever is in flight. One at a time. Measured at 100,000 partitions (six runs of
// each, docs/worker-thread.md):
// - at once, when the exchange ended: the start that followed its dry run found a small heap
//   that had to grow again (POST max up to 2.98 s against 2.47), and the page GET sent right
//   after a start waited for the release (up to 140 ms against 122);
// - 3 s later: the first reconcile passes' buffers came on top of the start's pages not yet
//   released (RSS while moving 340-405 MiB against 297-349 at once).
// Forwarded requests that arrive while one runs wait (~100-200 ms at 100,000 partitions); the
// HTTP thread's own answers (/healthz, summary GETs) never do.
import type { Server, ServerResponse } from 'node:http';
import { Histogram, type Registry } from 'prom-client';
import { releaseHeapPages, type HeapRelease } from '../heap-release.js';
import type { Logger } from '../observability/logger.js';
import { METRIC_PREFIX } from '../observability/metrics.js';

/** The worker is idle this long before a release, which waits this long at most. */
export const HEAP_RELEASE_QUIET_MS = 100;
export const HEAP_RELEASE_MAX_WAIT_MS = 10_000;

export interface HeapReleaserOptions {
  release: () => Promise<HeapRelease>;
  /** An exchange of at least this many bytes is a peak worth releasing after (0: never). */
  minBytes: number;
  quietMs: number;
  maxWaitMs: number;
  /** True while a request other than an event stream is in flight. */
  busy: () => boolean;
  onReleased: (released: HeapRelease) => void;
  onError: (err: unknown) => void;
  now?: () => number;
}

export class HeapReleaser {
  readonly #opts: HeapReleaserOptions;
  readonly #now: () => number;
  #running = false;
  #timer: NodeJS.Timeout | null = null;
  /** When the first large exchange not released yet ended (null: none). */
  #dueSince: number | null = null;
  /** When an exchange last began or ended. */
  #lastActivity = 0;
  #stopped = false;

  constructor(opts: HeapReleaserOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** A forwarded exchange has begun. */
  opened(): void {
    this.#lastActivity = this.#now();
    this.#schedule();
  }

  /** A forwarded exchange (the request and its answer) of `bytes` in all has ended. */
  exchanged(bytes: number): void {
    this.#lastActivity = this.#now();
    if (this.#opts.minBytes > 0 && bytes >= this.#opts.minBytes) this.#dueSince ??= this.#lastActivity;
    this.#schedule();
  }

  /** No release starts after this. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #schedule(): void {
    // While one runs, what ended meanwhile is scheduled when it is over.
    if (this.#stopped || this.#running || this.#dueSince === null) return;
    if (this.#timer) clearTimeout(this.#timer);
    const at = Math.min(this.#lastActivity + this.#opts.quietMs, this.#dueSince + this.#opts.maxWaitMs);
    this.#timer = setTimeout(() => this.#due(), Math.max(0, at - this.#now()));
    this.#timer.unref();
  }

  #due(): void {
    this.#timer = null;
    const dueSince = this.#dueSince;
    if (dueSince === null) return;
    // A request still in flight (begun before the quiet time): look again a quiet time later.
    if (this.#opts.busy() && this.#now() < dueSince + this.#opts.maxWaitMs) {
      this.#lastActivity = this.#now();
      return this.#schedule();
    }
    void this.#run();
  }

  async #run(): Promise<void> {
    this.#running = true;
    this.#dueSince = null;
    try {
      this.#opts.onReleased(await this.#opts.release());
    } catch (err) {
      this.#opts.onError(err);
    } finally {
      this.#running = false;
    }
    this.#schedule();
  }
}

/** True while `server` has a request in flight other than an event stream (which lasts). */
export function requestsInFlight(server: Server): () => boolean {
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  const isEventStream = (res: ServerResponse) =>
    res.headersSent && String(res.getHeader('content-type') ?? '').startsWith('text/event-stream');
  return () => {
    for (const res of inFlight) if (!isEventStream(res)) return true;
    return false;
  };
}

/**
 * The reassignment worker's releaser: the requests `server` has in flight (event streams, which
 * last, aside), a histogram of the releases' durations and a log line for each.
 */
export function workerHeapReleaser(o: {
  server: Server;
  registry: Registry;
  logger: Logger;
  minBytes: number;
  quietMs?: number;
  maxWaitMs?: number;
}): HeapReleaser {
  const durations = new Histogram({
    name: `${METRIC_PREFIX}reassignment_worker_heap_release_seconds`,
    help: "How long the reassignment worker stopped to give its heap's free pages back to the OS, once idle after a forwarded exchange of GATEWAY_WORKER_HEAP_RELEASE_BYTES or more (a large start or dry run); forwarded requests that arrive meanwhile wait.",
    buckets: [0.05, 0.1, 0.2, 0.5, 1, 2],
    registers: [o.registry],
  });
  return new HeapReleaser({
    release: releaseHeapPages,
    minBytes: o.minBytes,
    quietMs: o.quietMs ?? HEAP_RELEASE_QUIET_MS,
    maxWaitMs: o.maxWaitMs ?? HEAP_RELEASE_MAX_WAIT_MS,
    busy: requestsInFlight(o.server),
    onReleased: (r) => {
      durations.observe(r.seconds);
      o.logger.info('reassignment worker: free heap pages released', {
        ms: Math.round(r.seconds * 1000),
        heapBeforeMiB: Math.round(r.heapBefore / 1048576),
        heapAfterMiB: Math.round(r.heapAfter / 1048576),
      });
    },
    onError: (err) => o.logger.warn('reassignment worker: releasing free heap pages failed', { error: String(err) }),
  });
}
