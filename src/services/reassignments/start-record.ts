// Step 3 of a start, the write-ahead: the reassignment record (pending, with its throttle
// demand) is written before anything changes in the cluster, so that any instance's reconciler
// can finish or undo the job (see reconciler.ts for how a pending record is resolved). Two
// instances may admit overlapping requests at once: the state topic decides (admission.ts); the
// record is written with the admission claim's release, with the records it supersedes.
import { randomBytes } from 'node:crypto';
import { PartitionMap, STEP_ITEMS, throttleDemandForSteps, withLogDirThrottle } from '../../domain/reassignment/index.js';
import { driveSteps } from '../../event-loop-turns.js';
import { activePartitions, isLive } from '../../reconcile/ownership.js';
import { RECORD_VERSION, type PartitionState, type ReassignmentPartitionRecord, type ReassignmentRecord } from '../../state/records.js';
import type { StateView } from '../../state/store.js';
import { admitReassignment } from './admission.js';
import type { PlannedStart } from './start-plan.js';
import type { ValidatedStart } from './start-validate.js';
import type { ServiceContext, StartOptions, StartResult } from './types.js';

function newId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** Writes the pending record of a validated, planned start (refused: another instance admitted an overlapping one). */
export async function writeStartRecord(
  ctx: ServiceContext,
  v: ValidatedStart,
  s: PlannedStart,
  requestedBy: string | null,
  opts: StartOptions,
  pace: () => Promise<void>,
): Promise<{ refused: StartResult } | { record: ReassignmentRecord }> {
  const { view, plan, sizeAt, dirBrokers, dirsOf } = v;
  const { req, deadline, concurrency, order, heldAtStart, firstWave, inFirstWave, throttles } = s;
  const now = ctx.now();
  const id = newId('r');
  // The record holds the plan's shared replica lists (replica-list.ts): ~23 MiB less per 100k record.
  // Each partition is written ahead as a successful start leaves it (sent: moving since now;
  // a paced no-op: completed; the rest of a paced plan: queued), so the write once Kafka
  // answered rewrites only the chunks of partitions it refused: at 100,000 partitions a header
  // instead of ~10 MB again (~0.25 s of a POST). While the record is pending, its moving
  // partitions are being sent; a start that fails before sending ends them cancelled (failBeforeSending, start-send.ts),
  // a writer that dies is resolved from Kafka's state by the reconciler (queued or moving alike).
  const recordPartitions = new Array<ReassignmentPartitionRecord>(plan.partitions.length);
  for (let i = 0; i < plan.partitions.length; i++) {
    const p = plan.partitions[i];
    const size = sizeAt(i);
    const bytesTotal = size === undefined ? null : size * p.adding.length;
    const logDirs = dirsOf.size > 0 ? dirsOf.get(p.topic, p.partition) : undefined;
    const original = p.currentReplicas;
    const target = p.targetReplicas;
    const sent = !firstWave || inFirstWave.has(p.topic, p.partition);
    // A paced no-op is at its target already (not sent); one with dir moves waits for them.
    const state: PartitionState = sent ? 'moving' : p.noOp ? (logDirs ? 'moving' : 'completed') : 'queued';
    const entry: ReassignmentPartitionRecord = logDirs
      ? { topic: p.topic, partition: p.partition, original, target, state, bytesTotal, logDirs }
      : { topic: p.topic, partition: p.partition, original, target, state, bytesTotal };
    if (state !== 'queued') entry.startedAt = now;
    if (state === 'completed') entry.endedAt = now;
    recordPartitions[i] = entry;
    if (i % STEP_ITEMS === 0) await pace();
  }
  const record: ReassignmentRecord = {
    kind: 'reassignment',
    v: RECORD_VERSION,
    id,
    state: 'pending',
    partitions: recordPartitions,
    concurrency: concurrency && { perBroker: concurrency.perBroker, cluster: concurrency.cluster },
    order: concurrency ? order : 'as-given',
    paused: false,
    throttle: req.throttle,
    autoRemoveThrottle: req.autoRemoveThrottle,
    // Preferred leader elections as partitions complete (leader-elections.ts); every rollback elects.
    ...((req.electLeaders || opts.rollbackOf) && { electLeaders: true }),
    ...(deadline && { deadline: deadline.state }),
    throttleDemand:
      throttles && req.throttle !== null
        ? withLogDirThrottle(await driveSteps(throttleDemandForSteps(throttles, req.throttle), pace), dirBrokers, req.throttle)
        : null,
    owner: ctx.d.config.instanceId,
    requestedBy,
    ...(opts.rollbackOf && { rollbackOf: opts.rollbackOf }),
    // Where it came from (a plan's goal, the caller's label): header only, a few hundred bytes at most.
    ...(req.origin && { origin: req.origin }),
    // Health interlocks (issue 30): the caller's policy, when given (absent = DEFAULT_SAFETY).
    ...(req.safety && { safety: req.safety }),
    ...(heldAtStart && { hold: heldAtStart }),
    createdAt: now,
    startDeadline: now + ctx.d.config.startTimeoutMs,
    updatedAt: now,
  };
  // Two instances may admit overlapping requests at once: the state topic decides (admission.ts).
  const validated = new Map([...view.reassignments.values()].filter(isLive).map((r) => [r.id, r.state]));
  const admitted = await admitReassignment(
    ctx.d.store,
    { id, owner: ctx.d.config.instanceId, partitions: record.partitions, addToExisting: req.addToExisting, validated },
    pace,
  );
  if (!admitted.ok) return { refused: { kind: 'invalid', problem: 'conflict', errors: admitted.errors } };
  // The order pages are served in, computed here in the start's slices rather than by the
  // first page GET, which tends to come right after the start, while the first pass over the
  // new moves runs and clients poll.
  await ctx.order(record, pace);
  // addToExisting: partitions another gateway reassignment was moving are this one's now.
  const superseded = await supersede(admitted.view, record, pace);
  await ctx.d.store.release(admitted.claim, [record, ...superseded]);
  return { record };
}

/** Records of other live reassignments whose partitions `next` takes over (addToExisting). */
async function supersede(view: StateView, next: ReassignmentRecord, pace: () => Promise<void>): Promise<ReassignmentRecord[]> {
  const others = [...view.reassignments.values()].filter((r) => isLive(r) && r.id !== next.id);
  if (others.length === 0) return [];
  const taken = new PartitionMap<true>();
  for (let i = 0; i < next.partitions.length; i++) {
    taken.set(next.partitions[i].topic, next.partitions[i].partition, true);
    if (i % STEP_ITEMS === 0) await pace();
  }
  const out: ReassignmentRecord[] = [];
  for (const r of others) {
    if (!activePartitions(r).some((p) => taken.has(p.topic, p.partition))) continue;
    out.push({
      ...r,
      partitions: r.partitions.map((p) =>
        !p.supersededBy && p.state !== 'failed' && taken.has(p.topic, p.partition)
          ? { ...p, supersededBy: next.id, ...(p.state !== 'completed' && { state: 'cancelled' as const, endedAt: next.createdAt }) }
          : p,
      ),
      updatedAt: next.createdAt,
    });
    await pace();
  }
  return out;
}
