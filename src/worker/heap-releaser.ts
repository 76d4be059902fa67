// When the reassignment worker gives its heap's free pages back to the OS (src/heap-release.ts).
//
// The worker's heap peaks while it handles a large request. At 100,000 partitions, a start
// holds the request, the plan, its rollback, the record and the 8 MB answer at once: ~150 MiB
// against ~90 while the partitions move. V8 keeps those pages resident afterwards, and every
// later peak adds to that high-water mark. So after an exchange of at least `minBytes` (request
// and answer together) ends, the worker asks for a release. The size of the exchange is what
// the peak scales with, and nothing smaller is worth stopping the worker for.
//
// At most one release runs at a time, and one starts at least `minIntervalMs` after the last
// ended: a client sending large requests back to back cannot keep the worker collecting. A
// release asked for meanwhile runs when that time is up, so the last peak is always released.
// Forwarded requests wait while one runs (~100-200 ms at 100,000 partitions); the HTTP thread's
// own answers (/healthz, summary GETs) do not.
import type { HeapRelease } from '../heap-release.js';

export interface HeapReleaserOptions {
  release: () => Promise<HeapRelease>;
  /** An exchange of at least this many bytes is a peak worth releasing after (0: never). */
  minBytes: number;
  minIntervalMs: number;
  onReleased: (released: HeapRelease) => void;
  onError: (err: unknown) => void;
  now?: () => number;
}

export class HeapReleaser {
  readonly #opts: HeapReleaserOptions;
  readonly #now: () => number;
  #running = false;
  #askedWhileRunning = false;
  #timer: NodeJS.Timeout | null = null;
  #lastEnded = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(opts: HeapReleaserOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** An exchange (a forwarded request and its answer) of `bytes` in all has ended. */
  exchanged(bytes: number): void {
    if (this.#opts.minBytes <= 0 || bytes < this.#opts.minBytes) return;
    this.#ask();
  }

  /** No release starts after this. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #ask(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#askedWhileRunning = true;
      return;
    }
    if (this.#timer) return;
    // Never within the turn that asked: the answer's last bytes go out first.
    const wait = Math.max(0, this.#lastEnded + this.#opts.minIntervalMs - this.#now());
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#run();
    }, wait);
    this.#timer.unref();
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      this.#opts.onReleased(await this.#opts.release());
    } catch (err) {
      this.#opts.onError(err);
    } finally {
      this.#running = false;
      this.#lastEnded = this.#now();
    }
    if (this.#askedWhileRunning) {
      this.#askedWhileRunning = false;
      this.#ask();
    }
  }
}
