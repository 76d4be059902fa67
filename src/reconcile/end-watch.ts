// The end watch's sample (reconciler.ts #watchEnds): between two full passes the reconciler asks
// Kafka about a few of the moving partitions only, those likely to finish last, so that the end
// of a reassignment of any size is acted on within END_WATCH_MS + one pass instead of one
// reconcile interval. The sample is re-picked by every full pass from what still moves: a wrong
// guess (a partition outside the sample finishing later) costs one extra full pass, never a
// missed end (the full pass reads every move Kafka lists).
import type { ReassignmentPartitionRecord, ReassignmentRecord } from '../state/records.js';
import { PACE_EVERY, partitionId, type Pace } from './ownership.js';

/** The most partitions the end watch asks Kafka about. */
export const END_WATCH_MAX_PARTITIONS = 2000;

export interface EndWatchPartition {
  /** The reassignment the partition belongs to. */
  readonly id: string;
  readonly topic: string;
  readonly partition: number;
}

/**
 * Up to `max` partitions to watch: of each running record, an equal share of `max` (at least one
 * each; records beyond `max` get none and are seen by the full passes) of its partitions Kafka
 * lists as moving (`movingOf`, by record id, partitionId), likely the last to finish:
 * - `likelyLast(id)`: the record's partitions with the most bytes left at the last progress
 *   snapshot, most first (ProgressTracker.likelyLast): those still listed, in that order;
 * - none of those listed any more (or no snapshot): its listed partitions with the largest
 *   bytesTotal (ties: the record's order), one scan of the record.
 * Pure but for `pace` (yields to the event loop).
 */
export async function endWatchSample(
  records: Iterable<ReassignmentRecord>,
  movingOf: ReadonlyMap<string, ReadonlySet<string>>,
  likelyLast: (id: string) => readonly ReassignmentPartitionRecord[] | undefined,
  max: number,
  pace: Pace = async () => {},
): Promise<EndWatchPartition[]> {
  const watched = [...records].filter((r) => r.state === 'running' && (movingOf.get(r.id)?.size ?? 0) > 0).slice(0, Math.max(0, max));
  if (watched.length === 0) return [];
  const share = Math.max(1, Math.floor(max / watched.length));
  const out: EndWatchPartition[] = [];
  for (const r of watched) {
    const moving = movingOf.get(r.id)!;
    let taken = 0;
    for (const p of likelyLast(r.id) ?? []) {
      if (taken === share) break;
      if (!moving.has(partitionId(p.topic, p.partition))) continue;
      out.push({ id: r.id, topic: p.topic, partition: p.partition });
      taken++;
    }
    if (taken > 0) continue;
    const top = new TopK<EndWatchPartition>(share);
    const ps = r.partitions;
    for (let i = 0; i < ps.length; i++) {
      if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
      const p = ps[i];
      if (p.supersededBy || p.state !== 'moving' || !top.admits(p.bytesTotal ?? 0, i) || !moving.has(partitionId(p.topic, p.partition)))
        continue;
      top.offer(p.bytesTotal ?? 0, i, { id: r.id, topic: p.topic, partition: p.partition });
    }
    out.push(...top.items());
  }
  return out;
}

/**
 * The k items with the highest score (ties: the lowest `order` wins), in a binary min-heap.
 * Offered once per moving partition per pass (progress snapshots): an entry pushed out is
 * reused for the one that takes its place and swaps use no temporary array, so an offer
 * allocates only while the heap fills.
 */
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

  /** Whether offer(score, order) would keep the item (cheap: one comparison). */
  admits(score: number, order: number): boolean {
    const h = this.#heap;
    return h.length < this.#k || (this.#k > 0 && TopK.#below(h[0], { score, order }));
  }

  offer(score: number, order: number, item: T): void {
    if (!this.admits(score, order)) return;
    const h = this.#heap;
    if (h.length < this.#k) {
      h.push({ score, order, item });
      let i = h.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!TopK.#below(h[i], h[parent])) break;
        const e = h[i];
        h[i] = h[parent]!;
        h[parent] = e;
        i = parent;
      }
      return;
    }
    // The entry pushed out is not referenced elsewhere (items() copies the items out).
    const top = h[0];
    top.score = score;
    top.order = order;
    top.item = item;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && TopK.#below(h[l], h[m])) m = l;
      if (r < h.length && TopK.#below(h[r], h[m])) m = r;
      if (m === i) break;
      const e = h[i];
      h[i] = h[m]!;
      h[m] = e;
      i = m;
    }
  }

  /** The kept items, highest score first. */
  items(): T[] {
    return [...this.#heap].sort((a, b) => (TopK.#below(a, b) ? 1 : TopK.#below(b, a) ? -1 : 0)).map((e) => e.item);
  }
}
