// The worker's half of the summaries the HTTP thread answers GET /reassignments/{id} with
// (summary-answers.ts is the other half, and says why). Whenever the state store's position
// may have moved, once per turn of the event loop at most, the worker renders the summary of
// each reassignment whose record or progress changed since it last did, and posts the JSON with
// the position it was rendered at: every write below that position is in the view rendered.
//
// Posted: every live reassignment, and those that ended after they were posted (their last
// version), the `endedKept` latest of them. A reassignment that had ended before this worker
// started is never posted: its GET goes to the worker, as before. Rendering is what the route
// would do for the GET (counts are cached per record version; progress reads the snapshots),
// so a poller's GET costs the worker nothing more than the post did.
import { TERMINAL_STATES, type ReassignmentRecord } from '../state/records.js';
import type { SummaryPost } from './protocol.js';

export interface SummaryPostSource {
  view(): { readonly reassignments: ReadonlyMap<string, ReassignmentRecord>; readonly progress: ReadonlyMap<string, unknown> };
  /** The state store's position(): every write below `position` is in view(); null: the view says nothing now. */
  position(): { position: bigint; topicId: string } | null;
  observePosition(observer: () => void): () => void;
}

export interface SummaryPosterOptions {
  source: SummaryPostSource;
  /** GET /reassignments/{id}'s body (no detail) for this record, as the route renders it. */
  render: (record: ReassignmentRecord) => string;
  post: (m: SummaryPost) => void;
  /** Ended reassignments kept posted (the latest to end). */
  endedKept?: number;
}

export const ENDED_KEPT = 32;

interface Posted {
  record: ReassignmentRecord;
  progress: unknown;
  ended: boolean;
}

export class SummaryPoster {
  readonly #o: SummaryPosterOptions;
  /** What was posted, in the order it was (re)posted: the ended ones oldest first. */
  readonly #posted = new Map<string, Posted>();
  #at: { position: bigint; topicId: string } | null = null;
  #scheduled = false;
  #stop: (() => void) | undefined;

  constructor(o: SummaryPosterOptions) {
    this.#o = o;
  }

  start(): void {
    this.#stop ??= this.#o.source.observePosition(() => this.#schedule());
    this.#schedule();
  }

  stop(): void {
    this.#stop?.();
    this.#stop = undefined;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Once per turn: a read applies many batches, a pass writes several, each moving the position.
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#stop) this.publish();
    });
  }

  /** Posts what changed since the last post (nothing if nothing did). Synchronous: the position and the view are read together. */
  publish(): void {
    const at = this.#o.source.position();
    const set: SummaryPost['set'] = [];
    const drop: string[] = [];
    if (at === null) {
      // The view says nothing now (a rebuild due, the topic unreadable): nothing to answer from.
      if (this.#at === null && this.#posted.size === 0) return;
      drop.push(...this.#posted.keys());
      this.#posted.clear();
      this.#at = null;
      this.#o.post({ t: 'summaries', at: null, set, drop });
      return;
    }
    const view = this.#o.source.view();
    for (const [id, record] of view.reassignments) {
      const ended = TERMINAL_STATES.has(record.state);
      const prev = this.#posted.get(id);
      if (ended && !prev) continue;
      const progress = view.progress.get(id);
      if (prev && prev.record === record && prev.progress === progress) continue;
      let json: string;
      try {
        json = this.#o.render(record);
      } catch {
        // The worker's route answers it (and says what is wrong, if anything is).
        if (prev) {
          this.#posted.delete(id);
          drop.push(id);
        }
        continue;
      }
      this.#posted.delete(id);
      this.#posted.set(id, { record, progress, ended });
      set.push([id, json]);
    }
    let ended = 0;
    for (const [id, p] of this.#posted) {
      if (!view.reassignments.has(id)) {
        this.#posted.delete(id);
        drop.push(id);
      } else if (p.ended) ended++;
    }
    const kept = this.#o.endedKept ?? ENDED_KEPT;
    for (const [id, p] of this.#posted) {
      if (ended <= kept) break;
      if (!p.ended) continue;
      this.#posted.delete(id);
      drop.push(id);
      ended--;
    }
    if (set.length === 0 && drop.length === 0 && this.#at?.position === at.position && this.#at.topicId === at.topicId) return;
    this.#at = at;
    this.#o.post({ t: 'summaries', at, set, drop });
  }
}
