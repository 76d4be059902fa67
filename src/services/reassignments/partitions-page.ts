// GET /reassignments/{id}/partitions: one page of a reassignment's partitions, in (topic,
// partition) order from an opaque cursor, with live data for the page's moving partitions.
import { topicPartitionOrderSteps } from '../../domain/reassignment/index.js';
import { driveSteps } from '../../event-loop-turns.js';
import { replicaSizesRequest, slotOf, type KafkaAdmin, type MovingPartition, type ReplicaSizesRequest } from '../../kafka/kafka-admin.js';
import { partitionId } from '../../reconcile/ownership.js';
import { isCold, partitionCount } from '../../state/cold-partitions.js';
import { makePacer } from '../../state/layout.js';
import type { PartitionState, ReassignmentPartitionRecord, ReassignmentRecord } from '../../state/records.js';
import { PACE_BUDGET_MS, type PartitionPage, type PartitionRow, type ServiceContext } from './types.js';

const encodeCursor = (topic: string, partition: number): string => Buffer.from(JSON.stringify([topic, partition])).toString('base64url');
function decodeCursor(c: string): [string, number] | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(c, 'base64url').toString());
    return Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && Number.isInteger(v[1]) ? [v[0], v[1] as number] : null;
  } catch {
    return null;
  }
}

/**
 * Indexes of a record's partitions in (topic, partition) order, cached per record id (the order
 * never changes). Computed in slices (`pace`); page GETs arriving meanwhile share the one
 * computation.
 */
export class PartitionOrders {
  readonly #orders = new Map<string, { length: number; order: Promise<Uint32Array> }>();

  get(r: ReassignmentRecord, pace: () => Promise<void>): Promise<Uint32Array> {
    // partitionCount: a finished (cold) record's partitions are not unpacked to compare counts.
    const length = partitionCount(r);
    const cached = this.#orders.get(r.id);
    if (cached && cached.length === length) return cached.order;
    const order = driveSteps(topicPartitionOrderSteps(r.partitions), pace);
    if (this.#orders.size >= 16) this.#orders.delete(this.#orders.keys().next().value!);
    this.#orders.set(r.id, { length, order });
    // A failed computation is not kept: the next GET computes it again.
    order.catch(() => this.#orders.get(r.id)?.order === order && this.#orders.delete(r.id));
    return order;
  }
}

/** The page's rows from `order` past `after`, and whether more follow. */
function pickPage(
  record: ReassignmentRecord,
  order: Uint32Array,
  after: [string, number] | null,
  q: { state: PartitionState | 'all'; limit: number },
): { picked: ReassignmentPartitionRecord[]; more: boolean } {
  const parts = record.partitions;
  // First index past the cursor (binary search over the (topic, partition) order).
  let lo = 0;
  if (after) {
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const p = parts[order[mid]];
      if (p.topic < after[0] || (p.topic === after[0] && p.partition <= after[1])) lo = mid + 1;
      else hi = mid;
    }
  }
  const picked: ReassignmentPartitionRecord[] = [];
  for (let i = lo; i < order.length; i++) {
    const p = parts[order[i]];
    if (q.state !== 'all' && p.state !== q.state) continue;
    if (picked.length === q.limit) return { picked, more: true };
    picked.push(p);
  }
  return { picked, more: false };
}

const moving = (picked: readonly ReassignmentPartitionRecord[]) => picked.filter((p) => p.state === 'moving');

/** What Kafka says now of some moving partitions: their replicas, and their sizes on the brokers adding them. */
interface LiveReads {
  /** The partitions asked about, by partitionId. */
  asked: Set<string>;
  live: Map<string, MovingPartition>;
  /** Per broker: the request naming the partitions it adds, and their sizes on it by slot. */
  sizes: Map<number, { request: ReplicaSizesRequest; sizes: Float64Array }>;
}

/** One ListPartitionReassignments and one DescribeLogDirs per broker adding some of `movingHere`, all at once. */
async function readLive(connections: () => KafkaAdmin, movingHere: ReassignmentPartitionRecord[]): Promise<LiveReads> {
  const reads: LiveReads = { asked: new Set(movingHere.map((p) => partitionId(p.topic, p.partition))), live: new Map(), sizes: new Map() };
  if (movingHere.length === 0) return reads;
  const kafka = connections();
  // Each broker is asked only about the partitions it is adding.
  const byBroker = new Map<number, ReassignmentPartitionRecord[]>();
  for (const p of movingHere) {
    for (const b of p.target) {
      if (p.original.includes(b)) continue;
      let list = byBroker.get(b);
      if (!list) byBroker.set(b, (list = []));
      if (list.at(-1) !== p) list.push(p);
    }
  }
  const [moves, answers] = await Promise.all([
    kafka.listPartitionReassignments(movingHere),
    Promise.all(
      [...byBroker].map(async ([b, parts]) => {
        const request = await replicaSizesRequest(parts);
        return { request, answers: await kafka.describeReplicaSizeColumns([b], request) };
      }),
    ),
  ]);
  for (const m of moves) reads.live.set(partitionId(m.topic, m.partition), m);
  for (const { request, answers: a } of answers) for (const x of a) if (x.ok) reads.sizes.set(x.broker, { request, sizes: x.sizes });
  return reads;
}

/**
 * One page of a reassignment's partitions in (topic, partition) order, from `cursor` (the
 * last (topic, partition) of the previous page, opaque to callers). The order never changes
 * for a record, so pages are stable while partitions change state. Live data (replicas,
 * adding/removing, bytes copied) only for the page's moving partitions: one
 * ListPartitionReassignments and one DescribeLogDirs per broker hosting their adding replicas.
 *
 * The live reads start with the state refresh, for the page as this instance already holds it,
 * instead of after it: at 100,000 moving partitions, with the cluster busy, each took up to
 * ~100 ms, and a page GET waited for the sum (up to 248 ms; docs/worker-thread.md). They are
 * kept if the refreshed page's moving partitions are among those asked about (a partition that
 * completed meanwhile is no longer looked up); otherwise they are read again for the refreshed
 * page. Either way, the rows come from the refreshed record.
 */
export async function partitionsPage(
  ctx: ServiceContext,
  id: string,
  q: { state: PartitionState | 'all'; limit: number; cursor: string | null },
): Promise<PartitionPage> {
  const after = q.cursor === null ? null : decodeCursor(q.cursor);
  const refreshed = ctx.d.store.refresh();
  // On connections of their own (made when first needed): not behind a pass's big requests to
  // the same brokers.
  const kafka = () => ctx.d.kafka.interactive?.() ?? ctx.d.kafka;
  const held = ctx.d.store.view().reassignments.get(id);
  let early: Promise<LiveReads> | null = null;
  // A finished (cold) record has nothing moving: not unpacked for nothing.
  if (held && !isCold(held) && (after || q.cursor === null)) {
    early = ctx.order(held, makePacer(PACE_BUDGET_MS)).then((order) => readLive(kafka, moving(pickPage(held, order, after, q).picked)));
    // Awaited below unless the refresh fails or finds no such record: not an unhandled rejection.
    early.catch(() => undefined);
  }
  const record = (await refreshed).reassignments.get(id);
  if (!record) return { kind: 'not-found' };
  if (q.cursor !== null && !after) return { kind: 'invalid-cursor' };
  const order = await ctx.order(record, makePacer(PACE_BUDGET_MS));
  const { picked, more } = pickPage(record, order, after, q);
  const movingHere = moving(picked);
  // Early reads that failed are not the answer's: the refreshed page may not need them, or reads again.
  let reads = early && (await early.catch(() => null));
  if (!reads || movingHere.some((p) => !reads!.asked.has(partitionId(p.topic, p.partition)))) reads = await readLive(kafka, movingHere);
  const { live, sizes } = reads;
  /** Bytes of p's replica on broker b (0 if b did not answer or has none; b was asked about p if it adds it). */
  const sizeOn = (b: number, p: ReassignmentPartitionRecord): number => {
    const on = sizes.get(b);
    const slot = on ? slotOf(on.request.keys, p.topic, p.partition) : -1;
    const size = slot < 0 ? NaN : on!.sizes[slot];
    return size === size ? size : 0;
  };
  const items = picked.map((p): PartitionRow => {
    const adding = p.target.filter((b) => !p.original.includes(b));
    const total = p.bytesTotal ?? null;
    let done: number | null;
    let replicas: readonly number[];
    let addingReplicas: readonly number[] = [];
    let removingReplicas: readonly number[] = [];
    if (p.state === 'moving') {
      const m = live.get(partitionId(p.topic, p.partition));
      replicas = m ? m.replicas : [...p.target, ...p.original.filter((b) => !p.target.includes(b))];
      addingReplicas = m ? m.adding : adding;
      removingReplicas = m ? m.removing : p.original.filter((b) => !p.target.includes(b));
      const share = total === null ? null : total / Math.max(1, adding.length);
      done = share === null ? null : Math.round(adding.reduce((n, b) => n + Math.min(share, sizeOn(b, p)), 0));
    } else {
      replicas = p.state === 'completed' ? p.target : p.original;
      done = p.state === 'completed' ? total : p.state === 'queued' ? 0 : null;
    }
    const percent =
      p.state === 'completed'
        ? 100
        : total === null || done === null
          ? null
          : total === 0
            ? p.state === 'moving'
              ? 0
              : 100
            : Math.floor((Math.min(done, total) / total) * 10_000) / 100;
    return {
      topic: p.topic,
      partition: p.partition,
      state: p.state,
      originalReplicas: p.original,
      targetReplicas: p.target,
      replicas,
      addingReplicas,
      removingReplicas,
      bytesTotal: total,
      bytesDone: done,
      percent,
      ...(p.startError && { error: p.startError }),
      ...(p.supersededBy && { supersededBy: p.supersededBy }),
    };
  });
  const last = picked.at(-1);
  return { kind: 'ok', items, next: more && last ? encodeCursor(last.topic, last.partition) : null };
}
