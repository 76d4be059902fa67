// The end watch's sample (reconciler.ts #watchEnds): between two full passes the reconciler asks
// Kafka about a few of the moving partitions only, those likely to finish last, so that the end
// of a reassignment of any size is acted on within END_WATCH_MS + one pass instead of one
// reconcile interval. The sample is re-picked by every full pass from what still moves: a wrong
// guess (a partition outside the sample finishing later) costs one extra full pass, never a
// missed end (the full pass reads every move Kafka lists).
import type { ReassignmentRecord } from '../state/records.js';
import { PACE_EVERY, partitionId, type Pace } from './ownership.js';

export interface EndWatchPartition {
  /** The reassignment the partition belongs to. */
  readonly id: string;
  readonly topic: string;
  readonly partition: number;
}

/**
 * Up to `max` partitions to watch: of each running record, its partitions Kafka lists as moving
 * (`movingOf`, by record id, partitionId) with the most bytes `remaining`, an equal share of
 * `max` per record (at least one each; records beyond `max` get none and are seen by the full
 * passes). Ties keep the record's order. Pure but for `pace` (yields to the event loop).
 * O(moving partitions x log(share)).
 */
export async function endWatchSample(
  records: Iterable<ReassignmentRecord>,
  movingOf: ReadonlyMap<string, ReadonlySet<string>>,
  remaining: (p: ReassignmentRecord['partitions'][number]) => number,
  max: number,
  pace: Pace = async () => {},
): Promise<EndWatchPartition[]> {
  const watched = [...records].filter((r) => r.state === 'running' && (movingOf.get(r.id)?.size ?? 0) > 0).slice(0, Math.max(0, max));
  if (watched.length === 0) return [];
  const share = Math.max(1, Math.floor(max / watched.length));
  const out: EndWatchPartition[] = [];
  for (const r of watched) {
    const moving = movingOf.get(r.id)!;
    const top = new TopK<EndWatchPartition>(share);
    const ps = r.partitions;
    for (let i = 0; i < ps.length; i++) {
      if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
      const p = ps[i]!;
      if (p.supersededBy || p.state !== 'moving' || !moving.has(partitionId(p.topic, p.partition))) continue;
      top.offer(remaining(p), i, { id: r.id, topic: p.topic, partition: p.partition });
    }
    out.push(...top.items());
  }
  return out;
}

/** The k items with the highest score (ties: the lowest `order` wins), in a binary min-heap. */
export class TopK<T> {
  readonly #k: number;
  readonly #heap: { score: number; order: number; item: T }[] = [];

  constructor(k: number) {
    this.#k = k;
  }

  /** a ranks below b (it leaves the heap first). */
  static #below(a: { score: number; order: number }, b: { score: number; order: number }): boolean {
    return a.score < b.score || (a.score === b.score && a.order > b.order);
  }

  offer(score: number, order: number, item: T): void {
    const h = this.#heap;
    const e = { score, order, item };
    if (h.length < this.#k) {
      h.push(e);
      let i = h.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!TopK.#below(h[i]!, h[parent]!)) break;
        [h[i], h[parent]] = [h[parent]!, h[i]!];
        i = parent;
      }
      return;
    }
    if (this.#k === 0 || !TopK.#below(h[0]!, e)) return;
    h[0] = e;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && TopK.#below(h[l]!, h[m]!)) m = l;
      if (r < h.length && TopK.#below(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }

  /** The kept items, highest score first. */
  items(): T[] {
    return [...this.#heap].sort((a, b) => (TopK.#below(a, b) ? 1 : TopK.#below(b, a) ? -1 : 0)).map((e) => e.item);
  }
}
