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
import { progressFromSnapshots, type ProgressOptions, type SnapshotProgress } from '../domain/reassignment/index.js';
import type { KafkaAdmin } from '../kafka/kafka-admin.js';
import { describeReplicaSizes, replicaKey } from '../kafka/log-dirs.js';
import { makePacer } from '../state/layout.js';
import { PROGRESS_MAX_SNAPSHOTS, RECORD_VERSION, type ProgressRecord, type ReassignmentPartitionRecord, type ReassignmentRecord } from '../state/records.js';
import type { StateStore } from '../state/store.js';
import { PACE_EVERY } from './ownership.js';
import { END_WATCH_MAX_PARTITIONS, TopK } from './end-watch.js';

/** Snapshots older than this are dropped (bounds the record whatever the interval). */
const MAX_HISTORY_MS = 10 * 60_000;

const counted = (p: ReassignmentPartitionRecord) => !p.supersededBy && (p.state === 'queued' || p.state === 'moving' || p.state === 'completed');
const adding = (p: ReassignmentPartitionRecord) => p.target.filter((b) => !p.original.includes(b));

/** Bytes to copy for the whole reassignment: its partitions' bytesTotal (failed, cancelled, superseded ones excluded). O(n). */
export function bytesTotalOf(r: ReassignmentRecord): number {
  let total = 0;
  for (const p of r.partitions) if (counted(p)) total += p.bytesTotal ?? 0;
  return total;
}

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
    if (due.length === 0) return [];
    const moving: ReassignmentPartitionRecord[] = [];
    const brokers = new Set<number>();
    for (const r of due) {
      let i = 0;
      for (const p of r.partitions) {
        if (++i % PACE_EVERY === 0) await pace();
        if (p.state !== 'moving' || p.supersededBy || !p.bytesTotal) continue;
        moving.push(p);
        for (const b of adding(p)) brokers.add(b);
      }
      await pace();
    }
    const sizes = new Map<number, Map<string, number>>();
    let unanswered = false;
    if (moving.length) for (const a of await describeReplicaSizes(this.#kafka, [...brokers], moving)) a.ok ? sizes.set(a.broker, a.sizes) : (unanswered = true);
    const writes: ProgressRecord[] = [];
    for (const id of this.#likelyLast.keys()) if (!running.some((r) => r.id === id)) this.#likelyLast.delete(id);
    for (const r of due) {
      let total = 0;
      let done = 0;
      let i = 0;
      const lastToFinish = new TopK<ReassignmentPartitionRecord>(END_WATCH_MAX_PARTITIONS);
      for (const p of r.partitions) {
        if (++i % PACE_EVERY === 0) await pace();
        if (!counted(p)) continue;
        const t = p.bytesTotal ?? 0;
        total += t;
        if (p.state === 'completed') done += t;
        else if (p.state === 'moving' && t > 0) {
          const add = adding(p);
          const share = t / Math.max(1, add.length);
          const k = replicaKey(p.topic, p.partition);
          let copied = 0;
          for (const b of add) copied += Math.min(share, sizes.get(b)?.get(k) ?? 0);
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
      const snapshots = [...(prev?.snapshots ?? []), { t: now, bytesTotal: total, bytesDone: done }].filter((s) => s.t > now - MAX_HISTORY_MS).slice(-PROGRESS_MAX_SNAPSHOTS);
      const grew = !last || done > last.bytesDone;
      writes.push({ kind: 'progress', v: RECORD_VERSION, id: r.id, snapshots, lastProgressAt: grew ? now : (prev?.lastProgressAt ?? now), updatedAt: now });
      await pace();
    }
    await this.#store.write(writes);
    return writes.map((w) => w.id);
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
      let done = 0;
      for (const p of r.partitions) if (counted(p) && p.state === 'completed') done += p.bytesTotal ?? 0;
      // No snapshot yet: asOf stays null (nothing was measured).
      return { ...progressFromSnapshots([{ t: r.startedAt ?? r.createdAt, bytesTotal: total, bytesDone: done }], null, { ...this.#options, stallAfterMs: Number.MAX_SAFE_INTEGER }), asOfMs: null };
    }
    const p = progressFromSnapshots(rec.snapshots, rec.lastProgressAt, this.#options);
    return r.state === 'running' ? p : { ...p, stalled: false };
  }
}
