// When the reassignment worker gives its heap's free pages back to the OS (src/heap-release.ts).
//
// The worker's heap peaks while it handles a large request. At 100,000 partitions, a start
// holds the request, the plan, its rollback, the record and the 8 MB answer at once: ~150 MiB
// against ~90 while the partitions move. V8 keeps those pages resident afterwards: the RSS
// stays at the heap's high-water mark. So after an exchange of at least `minBytes` (request
// and answer together) ends, the worker asks for a release. The size of the exchange is what
// the peak scales with, and nothing smaller is worth stopping the worker for.
//
// It runs once no large exchange has ended for `quietMs`, or `maxWaitMs` after the first one
// not yet released, whichever comes first, and one at a time. Not at once: a dry run is often
// followed by its start, and a start by GETs of its pages. Released at once, the start found a
// small heap that had to grow again (more collections: POST max 2.76-2.98 s in two runs of six
// at 100,000 partitions, against 2.24-2.47 s), and the GETs waited for the release. The wait
// also keeps a client sending large requests back to back from keeping the worker collecting.
// Forwarded requests wait while one runs (~100-200 ms at 100,000 partitions); the HTTP thread's
// own answers (/healthz, summary GETs) do not.
import type { HeapRelease } from '../heap-release.js';

export interface HeapReleaserOptions {
  release: () => Promise<HeapRelease>;
  /** An exchange of at least this many bytes is a peak worth releasing after (0: never). */
  minBytes: number;
  quietMs: number;
  maxWaitMs: number;
  onReleased: (released: HeapRelease) => void;
  onError: (err: unknown) => void;
  now?: () => number;
}

export class HeapReleaser {
  readonly #opts: HeapReleaserOptions;
  readonly #now: () => number;
  #running = false;
  #timer: NodeJS.Timeout | null = null;
  /** When the first large exchange not released yet ended (null: none), and the last. */
  #dueSince: number | null = null;
  #lastLarge = 0;
  #stopped = false;

  constructor(opts: HeapReleaserOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** An exchange (a forwarded request and its answer) of `bytes` in all has ended. */
  exchanged(bytes: number): void {
    if (this.#opts.minBytes <= 0 || bytes < this.#opts.minBytes) return;
    this.#lastLarge = this.#now();
    this.#dueSince ??= this.#lastLarge;
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
    const at = Math.min(this.#lastLarge + this.#opts.quietMs, this.#dueSince + this.#opts.maxWaitMs);
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        void this.#run();
      },
      Math.max(0, at - this.#now()),
    );
    this.#timer.unref();
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
