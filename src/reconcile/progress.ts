// Copy progress of running reassignments, shared by every gateway instance: whichever instance
// reconciles takes a snapshot of each running reassignment's totals (bytes to copy, bytes
// copied) and keeps the last PROGRESS_MAX_SNAPSHOTS of them in the state topic
// (`progress/<id>`), at most one per reconcile interval (an instance skips a reassignment whose
// latest snapshot, written by anyone, is younger than the interval). Rate, ETA and stall are
// computed from those snapshots alone (domain progressFromSnapshots), so two instances answer
// the same numbers. Nothing is kept per process.
//
// Bytes: a partition's `bytesTotal` (leader size x adding replicas) is measured when the
// reassignment is planned and kept in its chunk. Done = completed partitions' bytesTotal + for
// moving ones the adding replicas' partition_size (DescribeLogDirs to the brokers that host
// adding replicas only, filtered to the moving partitions), each capped at its share.
//
// A snapshot runs every pass over every moving partition (100,000 at issue 8's scale): it builds
// nothing per partition (no adding-replica list, no string key) and sends the DescribeLogDirs
// request of the previous snapshot again while the moving partitions are the same list; each
// broker's sizes come back as a column indexed by the request's slots. Per-pass garbage promoted
// then dropped is what grows V8's old generation (issue 8). The loops over partitions are indexed,
// not for...of: in code V8 has not optimized (a function run once per pass, an async one
// suspended at each pace) each step of an array iterator allocates its result object, which
// the heap profile showed as the largest share of these functions' allocations.
import { progressFromSnapshots, type ProgressOptions, type SnapshotProgress } from '../domain/reassignment/index.js';
import { givenAt, replicaSizesRequest, type KafkaAdmin, type ReplicaSizesRequest } from '../kafka/kafka-admin.js';
import { makePacer } from '../state/layout.js';
import { isCold, visitPacked } from '../state/cold-partitions.js';
import {
  PROGRESS_MAX_SNAPSHOTS,
  RECORD_VERSION,
  type ProgressRecord,
  type ReassignmentPartitionRecord,
  type ReassignmentRecord,
} from '../state/records.js';
import type { StateStore } from '../state/store.js';
import { PACE_EVERY } from './ownership.js';
import { END_WATCH_MAX_PARTITIONS, TopK } from './end-watch.js';
import { BrokerBytesLeft, brokerBytesAsOf } from './deadline-bytes.js';
import type { BrokerBytes } from '../domain/reassignment/index.js';

/** Snapshots older than this are dropped (bounds the record whatever the interval). */
const MAX_HISTORY_MS = 10 * 60_000;

const counted = (p: ReassignmentPartitionRecord) =>
  !p.supersededBy && (p.state === 'queued' || p.state === 'moving' || p.state === 'completed');
/** A partition whose adding replicas' sizes a snapshot asks for. */
const measured = (p: ReassignmentPartitionRecord) => p.state === 'moving' && !p.supersededBy && !!p.bytesTotal;
/** Its adding replicas (target brokers not in original, duplicates kept), counted without building the list. */
function addingCount(p: ReassignmentPartitionRecord): number {
  let n = 0;
  const { target, original } = p;
  for (let i = 0; i < target.length; i++) if (!original.includes(target[i])) n++;
  return n;
}

/** Bytes to copy for the whole reassignment: its partitions' bytesTotal (failed, cancelled, superseded ones excluded). O(n). */
export function bytesTotalOf(r: ReassignmentRecord): number {
  return bytesOf(r).total;
}

/**
 * Bytes to copy (bytesTotalOf) and those of the partitions already completed, in one walk.
 * Records are immutable (a change is a new object, with a new partitions array when a
 * partition changed): every GET of a 100,000-partition summary asks, once walked is enough.
 */
function bytesOf(r: ReassignmentRecord): { total: number; completed: number } {
  const cached = bytesTotals.get(r);
  // A cold record never changes: kept without its unpacked array (as countPartitions does).
  const cold = isCold(r);
  if (cached !== undefined && (cold || cached.partitions === r.partitions) && cached.updatedAt === r.updatedAt) return cached;
  let total = 0;
  let completed = 0;
  let ps: ReassignmentRecord['partitions'] | null = null;
  // A cold record's from its columns (no unpacking), with the same rule as counted().
  const packed = visitPacked(r, (state, bytes, superseded) => {
    if (superseded || (state !== 'queued' && state !== 'moving' && state !== 'completed')) return;
    total += bytes ?? 0;
    if (state === 'completed') completed += bytes ?? 0;
  });
  if (!packed) {
    ps = r.partitions;
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i];
      if (!counted(p)) continue;
      total += p.bytesTotal ?? 0;
      if (p.state === 'completed') completed += p.bytesTotal ?? 0;
    }
  }
  const out = { partitions: cold ? null : ps, updatedAt: r.updatedAt, total, completed };
  bytesTotals.set(r, out);
  return out;
}
const bytesTotals = new WeakMap<
  ReassignmentRecord,
  { partitions: ReassignmentRecord['partitions'] | null; updatedAt: number; total: number; completed: number }
>();

export class ProgressTracker {
  readonly #kafka: KafkaAdmin;
  readonly #store: StateStore;
  readonly #options: ProgressOptions;
  readonly #intervalMs: number;
  readonly #now: () => number;
  /**
   * Per reassignment: its moving partitions with the most bytes left at the last snapshot this
   * instance took, most first (at most END_WATCH_MAX_PARTITIONS). A hint only (the end watch's
   * guess of the last partitions to finish); nothing is derived from it that instances must
   * agree on.
   */
  readonly #likelyLast = new Map<string, ReassignmentPartitionRecord[]>();
  /** The DescribeLogDirs request of the last snapshot (its moving partitions, in order), sent again while they do not change. */
  #asked: ReplicaSizesRequest | null = null;

  constructor(deps: { kafka: KafkaAdmin; store: StateStore; options: ProgressOptions; intervalMs: number; now?: () => number }) {
    this.#kafka = deps.kafka;
    this.#store = deps.store;
    this.#options = deps.options;
    this.#intervalMs = deps.intervalMs;
    this.#now = deps.now ?? Date.now;
  }

  /**
   * Measures the running reassignments whose latest snapshot is older than the interval and
   * writes one snapshot for each (one write for all). Returns the ids snapshotted.
   * Requests: one DescribeLogDirs per broker hosting an adding replica of a moving partition.
   * Yields to the event loop (`pace`, default a 15 ms slice) in its loops over partitions.
   */
  async snapshot(running: readonly ReassignmentRecord[], pace: () => Promise<void> = makePacer()): Promise<string[]> {
    const now = this.#now();
    const view = this.#store.view();
    const due = running.filter((r) => {
      const last = view.progress.get(r.id)?.snapshots.at(-1);
      return !last || last.t <= now - this.#intervalMs * 0.9;
    });
    if (due.length === 0) {
      if (running.length === 0) this.#asked = null; // nothing runs: the request kept goes (~2 MB at 100k)
      return [];
    }
    // The moving partitions in the order of `due` (the walk below finds each one's slot in the
    // request by its rank in that order); `due` and its records do not change meanwhile.
    let n = 0;
    let same = this.#asked !== null;
    const brokers = new Set<number>();
    for (let d = 0; d < due.length; d++) {
      const ps = due[d].partitions;
      for (let i = 0; i < ps.length; i++) {
        if ((i + 1) % PACE_EVERY === 0) await pace();
        const p = ps[i];
        if (!measured(p)) continue;
        if (same) same = givenAt(this.#asked!, n, p.topic, p.partition);
        n++;
        const { target, original } = p;
        for (let j = 0; j < target.length; j++) if (!original.includes(target[j])) brokers.add(target[j]);
      }
      await pace();
    }
    let request: ReplicaSizesRequest | null = null;
    if (n > 0 && same && this.#asked!.keys.inputSlot.length === n) request = this.#asked;
    else if (n > 0) {
      const moving: ReassignmentPartitionRecord[] = [];
      for (let d = 0; d < due.length; d++) {
        const ps = due[d].partitions;
        for (let i = 0; i < ps.length; i++) if (measured(ps[i])) moving.push(ps[i]);
        await pace();
      }
      request = await replicaSizesRequest(moving);
    }
    this.#asked = request;
    // Per broker: the size of each slot's replica on it (NaN: it has none).
    const sizes = new Map<number, Float64Array>();
    let unanswered = false;
    if (request) {
      for (const a of await this.#kafka.describeReplicaSizeColumns([...brokers], request)) {
        if (a.ok) sizes.set(a.broker, a.sizes);
        else unanswered = true;
      }
    }
    const inputSlot = request?.keys.inputSlot;
    const writes: ProgressRecord[] = [];
    for (const id of this.#likelyLast.keys()) if (!running.some((r) => r.id === id)) this.#likelyLast.delete(id);
    let rank = 0;
    for (let d = 0; d < due.length; d++) {
      const r = due[d];
      const ps = r.partitions;
      let total = 0;
      let done = 0;
      const lastToFinish = new TopK<ReassignmentPartitionRecord>(END_WATCH_MAX_PARTITIONS);
      // Deadline pacing: the bytes left per broker too (deadline-bytes.ts).
      const left = r.deadline ? new BrokerBytesLeft() : null;
      for (let k = 0; k < ps.length; k++) {
        const i = k + 1; // the partition's rank in the record, from 1 (the TopK order of ties)
        if (i % PACE_EVERY === 0) await pace();
        const p = ps[k];
        const slot = measured(p) ? inputSlot![rank++] : -1;
        if (!counted(p)) continue;
        const t = p.bytesTotal ?? 0;
        total += t;
        if (p.state === 'completed') done += t;
        else if (left && p.state === 'queued') left.queued(p, t, addingCount(p));
        else if (p.state === 'moving' && t > 0) {
          // (t > 0: measured, so it has a slot.) Summed in the order of its adding replicas, as always.
          const share = t / Math.max(1, addingCount(p));
          let copied = 0;
          const { target, original } = p;
          for (let j = 0; j < target.length; j++) {
            const b = target[j];
            if (original.includes(b)) continue;
            const size = sizes.get(b)?.[slot] ?? 0;
            const c = Math.min(share, size === size ? size : 0); // NaN: not on that broker
            copied += c;
            left?.add(b, original[0], share - c);
          }
          done += copied;
          lastToFinish.offer(t - copied, i, p);
        }
      }
      done = Math.round(done);
      const prev = this.#store.view().progress.get(r.id);
      const last = prev?.snapshots.at(-1);
      // A broker that did not answer (stopped) copied nothing we can see: its bytes are not lost.
      if (unanswered && last && last.bytesTotal === total) done = Math.max(done, last.bytesDone);
      this.#likelyLast.set(r.id, lastToFinish.items());
      const snapshots = [...(prev?.snapshots ?? []), { t: now, bytesTotal: total, bytesDone: done }]
        .filter((s) => s.t > now - MAX_HISTORY_MS)
        .slice(-PROGRESS_MAX_SNAPSHOTS);
      const grew = !last || done > last.bytesDone;
      writes.push({
        kind: 'progress',
        v: RECORD_VERSION,
        id: r.id,
        snapshots,
        lastProgressAt: grew ? now : (prev?.lastProgressAt ?? now),
        updatedAt: now,
        ...(left && { bytesLeft: left.record(now) }),
      });
      await pace();
    }
    await this.#store.write(writes);
    return writes.map((w) => w.id);
  }

  /** Deadline pacing: the bytes left per broker measured by the latest snapshot (`asOf`), or null (none, or older). */
  brokerBytesLeft(id: string, asOf: number | null): BrokerBytes[] | null {
    return brokerBytesAsOf(this.#store.view().progress.get(id)?.bytesLeft, asOf);
  }

  /** The moving partitions of reassignment `id` with the most bytes left at the last snapshot this instance took, most first (see #likelyLast). */
  likelyLast(id: string): readonly ReassignmentPartitionRecord[] | undefined {
    return this.#likelyLast.get(id);
  }

  /**
   * Progress of a reassignment from the snapshots in the state view (the same on every
   * instance). Completed: everything done. No snapshot yet: completed partitions only.
   */
  progress(r: ReassignmentRecord): SnapshotProgress {
    const rec = this.#store.view().progress.get(r.id);
    const total = bytesTotalOf(r);
    if (r.state === 'completed') {
      const base = progressFromSnapshots(rec?.snapshots ?? [], rec?.lastProgressAt ?? null, this.#options);
      return { ...base, bytesTotal: total, bytesDone: total, percent: 100, etaSeconds: 0, stalled: false };
    }
    if (!rec || rec.snapshots.length === 0) {
      const done = bytesOf(r).completed;
      // No snapshot yet: asOf stays null (nothing was measured).
      return {
        ...progressFromSnapshots([{ t: r.startedAt ?? r.createdAt, bytesTotal: total, bytesDone: done }], null, {
          ...this.#options,
          stallAfterMs: Number.MAX_SAFE_INTEGER,
        }),
        asOfMs: null,
      };
    }
    const p = progressFromSnapshots(rec.snapshots, rec.lastProgressAt, this.#options);
    return r.state === 'running' ? p : { ...p, stalled: false };
  }
}
