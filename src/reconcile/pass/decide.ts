// What a pass writes for one live reassignment record given what Kafka shows: its partitions
// settled (completed, cancelled, failed, still moving) and its state (adopted, completed,
// cancelled, failed), pure in the record and the observation (reconciler.ts, records.ts).
import type { TopicPartitions } from '../../kafka/kafka-admin.js';
import type { PartitionState, ReassignmentPartitionRecord, ReassignmentRecord, StateValue } from '../../state/records.js';
import type { StateView } from '../../state/store.js';
import { boundedError } from '../../state/layout.js';
import { activePartitions, isLive, PACE_EVERY, partitionId, type AttributedMoves, type Pace } from '../ownership.js';
import type { LogDirObservation } from '../log-dir-moves.js';
import { keptThrottles } from '../kept-throttles.js';
import { MOVING, QUEUED_OR_MOVING } from './ended.js';

const sameSet = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x) => b.includes(x));

export interface Observation {
  /** Per reassignment id: the partitions Kafka lists as moving that are its. */
  movingOf: ReadonlyMap<string, ReadonlySet<string>>;
  /** Current replicas of the observed partitions: by topic, indexed by partition number. */
  replicas: Map<string, (number[] | undefined)[]>;
  throttleRequests: ReadonlyMap<string, unknown>;
}

export async function observation(view: StateView, moves: AttributedMoves, placement: TopicPartitions[], pace: Pace): Promise<Observation> {
  const replicas = new Map<string, (number[] | undefined)[]>();
  for (const t of placement) {
    const byPartition: (number[] | undefined)[] = [];
    for (const p of t.partitions) byPartition[p.partition] = p.replicas;
    replicas.set(t.name, byPartition);
    await pace();
  }
  return { movingOf: moves.movingOf, replicas, throttleRequests: view.throttleRequests };
}

/**
 * What a pass writes for the live record `r` given what Kafka shows (`obs`), or undefined
 * (nothing to write). Pure in `r` and `obs` (`pace` only yields to the event loop; `pendingDue`:
 * the Reconciler's start timeout of a pending record).
 */
export async function decide(
  r: ReassignmentRecord,
  obs: Observation,
  now: number,
  dirs: LogDirObservation,
  pace: Pace,
  pendingDue: (r: ReassignmentRecord) => boolean,
): Promise<{ next: ReassignmentRecord; extra: StateValue[] } | undefined> {
  const still = obs.movingOf.get(r.id);
  // The moves ended when a pass recorded it (the end is written later, after the throttle sync).
  const endedAt = r.movesEndedAt ?? now;
  const reached = (p: ReassignmentPartitionRecord) => {
    const cur = obs.replicas.get(p.topic)?.[p.partition];
    return cur !== undefined && sameSet(cur, p.target);
  };
  const atTarget = async (x: ReassignmentRecord) => {
    const active = activePartitions(x);
    for (let i = 0; i < active.length; i++) {
      if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
      if (!reached(active[i])) return false;
    }
    return true;
  };
  /**
   * Partitions of `r` in `from` that Kafka does not list as moving any more: completed at
   * their target, cancelled otherwise; those still moving become `moving`. Unchanged entries
   * stay the same objects (the store rewrites only chunks with a changed entry).
   */
  const settle = async (from: ReadonlySet<PartitionState>): Promise<ReassignmentRecord['partitions']> => {
    let changed = false;
    const out: ReassignmentPartitionRecord[] = new Array<ReassignmentPartitionRecord>(r.partitions.length);
    const one = (p: ReassignmentPartitionRecord): ReassignmentPartitionRecord => {
      if (!from.has(p.state) || p.supersededBy) return p;
      if (still?.has(partitionId(p.topic, p.partition))) {
        if (p.state === 'moving') return p;
        changed = true;
        return { ...p, state: 'moving' as const, startedAt: now };
      }
      // Paced: a partition still waiting for its wave stays queued (pacer.ts starts it).
      if (r.concurrency !== null && p.state === 'queued' && !reached(p)) return p;
      const id = partitionId(p.topic, p.partition);
      const dirError = p.logDirs && p.state === 'moving' ? dirs.failed.get(id) : undefined;
      if (dirError) {
        changed = true;
        return { ...p, state: 'failed' as const, endedAt, startError: boundedError(dirError) };
      }
      // Its intra-broker moves are still copying (or waiting to be re-sent): still moving.
      if (p.logDirs && p.state === 'moving' && dirs.pending.has(id)) return p;
      changed = true;
      return { ...p, state: reached(p) ? ('completed' as const) : ('cancelled' as const), endedAt };
    };
    for (let i = 0; i < r.partitions.length; i++) {
      if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
      out[i] = one(r.partitions[i]);
    }
    return changed ? out : r.partitions;
  };

  const stillMoving = (still?.size ?? 0) > 0;
  let next: ReassignmentRecord | undefined;
  if (r.state === 'pending') {
    if (!pendingDue(r)) return undefined; // its writer may still be starting it
    if (stillMoving)
      next = {
        ...r,
        partitions: await settle(QUEUED_OR_MOVING),
        state: 'running',
        startedAt: now,
        reason: 'adopted by the reconciler: its start was interrupted after Kafka accepted it',
      };
    else if (await atTarget(r))
      next = {
        ...r,
        partitions: await settle(QUEUED_OR_MOVING),
        state: 'completed',
        startedAt: now,
        endedAt: now,
        reason: 'its start was interrupted; the partitions are at their target',
      };
    else {
      const partitions = r.partitions.map((p) =>
        p.state === 'queued' || p.state === 'moving' ? { ...p, state: 'cancelled' as const, endedAt: now } : p,
      );
      next = {
        ...r,
        partitions,
        state: 'failed',
        endedAt: now,
        reason: 'its start was interrupted before Kafka accepted it (the gateway stopped); nothing was moved',
      };
    }
  } else if (r.state === 'running') {
    const partitions = await settle(MOVING);
    // Queued partitions (paced execution) keep it running even with nothing moving.
    const open = partitions.some((p) => !p.supersededBy && (p.state === 'moving' || p.state === 'queued'));
    if (!stillMoving && !open) {
      // Every partition it is responsible for completed (this pass or earlier ones).
      next = partitions.every((p) => p.supersededBy || p.state === 'completed' || p.state === 'failed')
        ? { ...r, partitions, state: 'completed', endedAt }
        : {
            ...r,
            partitions,
            state: 'cancelled',
            endedAt,
            reason: 'its moves ended without reaching the target: cancelled outside the gateway',
          };
    } else if (r.movesEndedAt !== undefined) {
      // Recorded as ended, yet moving again (re-sent outside the gateway): its demand is live again.
      const { movesEndedAt: _ended, ...rest } = r;
      return { next: { ...rest, partitions, updatedAt: now }, extra: [] };
    } else if (partitions !== r.partitions) {
      // Some partitions finished: only their chunks are rewritten.
      return { next: { ...r, partitions, updatedAt: now }, extra: [] };
    }
  }
  if (!next) return undefined;
  next = { ...next, updatedAt: now };
  // Throttles kept on purpose outlive the reassignment as a standing request.
  const extra: StateValue[] = [];
  if (!isLive(next) && next.throttleDemand && !next.autoRemoveThrottle && !obs.throttleRequests.has(`kept-${r.id}`))
    extra.push(keptThrottles(next, now, r.requestedBy));
  return { next, extra };
}
