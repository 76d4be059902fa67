// DELETE /reassignments/{id}: cancel a reassignment (its moves in Kafka, its throttles unless
// kept) and optionally roll back what already moved, as a new reassignment (a start).
import { parseReassignmentRequestSteps, type OngoingPartitionReassignment } from '../../domain/reassignment/index.js';
import { driveSteps } from '../../event-loop-turns.js';
import { KafkaRequestError } from '../../kafka/errors.js';
import type { MovingPartition, TopicPartitions } from '../../kafka/kafka-admin.js';
import { keptThrottles } from '../../reconcile/kept-throttles.js';
import { isLive, partitionId } from '../../reconcile/ownership.js';
import { makePacer } from '../../state/layout.js';
import type { ReassignmentRecord, ThrottleRequestRecord } from '../../state/records.js';
import { startReassignment } from './start.js';
import { withPacingClaim } from './pacing-claim.js';
import {
  PACE_BUDGET_MS,
  type CancelOptions,
  type CancelResult,
  type PartitionStatus,
  type ServiceContext,
  type StartResult,
} from './types.js';

export async function cancel(ctx: ServiceContext, id: string, opts: CancelOptions, requestedBy: string | null): Promise<CancelResult> {
  // Paced: no instance starts a wave between our reading Kafka's moves and recording the cancel.
  return withPacingClaim(ctx, id, 'cancel', () => cancelClaimed(ctx, id, opts, requestedBy));
}

async function cancelClaimed(ctx: ServiceContext, id: string, opts: CancelOptions, requestedBy: string | null): Promise<CancelResult> {
  const view = await ctx.d.store.refresh();
  let record = view.reassignments.get(id);
  if (!record) return { kind: 'not-found' };
  const { moving, attributed } = await ctx.ongoing(view);
  const mine = attributed.filter((a) => a.reassignmentId === id).map((a) => ({ topic: a.topic, partition: a.partition }));
  const cancelling = new Set(mine.map((m) => partitionId(m.topic, m.partition)));

  const now = ctx.now();
  const writes: (ReassignmentRecord | ThrottleRequestRecord)[] = [];
  if (isLive(record)) {
    const pending = record.state === 'pending';
    // Record first: from here on it demands nothing (unless the throttles are kept), and a
    // reconciler seeing its moves end will not mistake the cancel for a completion.
    if (opts.preserveThrottles && record.throttleDemand) writes.push(keptThrottles(record, now, requestedBy));
    record = {
      ...record,
      // Moving in Kafka now: cancelled below. Sent but not moving any more: Kafka finished it.
      // A pending record's moving partitions are being sent (written ahead as started): its
      // start sees the cancel and sends nothing, so those not moving in Kafka never moved.
      partitions: record.partitions.map((p) => {
        if (p.state === 'queued' || (p.state === 'moving' && (pending || cancelling.has(partitionId(p.topic, p.partition)))))
          return { ...p, state: 'cancelled' as const, endedAt: now };
        return p.state === 'moving' ? { ...p, state: 'completed' as const, endedAt: now } : p;
      }),
      state: 'cancelled',
      endedAt: now,
      updatedAt: now,
      reason: `cancelled${requestedBy ? ` by ${requestedBy}` : ''}`,
    };
    writes.push(record);
    await ctx.d.store.write(writes);
    if (mine.length > 0) {
      const results = await ctx.d.kafka.alterPartitionReassignments(mine.map((m) => ({ ...m, replicas: null })));
      // 85 = it finished (or was cancelled) meanwhile: nothing left to cancel there.
      const failed = results.find((r) => !r.ok && r.error.code !== 85);
      if (failed && !failed.ok) throw new KafkaRequestError('kafka', failed.error);
    }
    await ctx.d.throttles.sync();
  } else if (!opts.rollback) {
    return { kind: 'done', record, cancelled: [], rollback: null };
  }

  let rollback: StartResult | null = null;
  if (opts.rollback) {
    // Partitions that reached their target go back; cancelled ones were reverted by Kafka.
    const placement = await ctx.d.kafka.describePartitions([...new Set(record.partitions.map((p) => p.topic))]);
    const statuses = partitionStatuses(
      record,
      moving.filter((m) => !cancelling.has(partitionId(m.topic, m.partition))),
      [],
      placement,
    );
    // Also those Kafka's cancel reverted to the original replicas in another order: a revert
    // keeps target ++ removing minus adding ([2,1,0] -> [2,0] for [0,2] -> [2,1]), which changed
    // the preferred leader; a pure reorder (no bytes) puts the original order back.
    const back = statuses.filter(
      (s) =>
        (s.status === 'done' && s.originalReplicas.join() !== s.targetReplicas.join()) ||
        (s.status === 'reverted' && reorderedOnly(s.replicas, s.originalReplicas)),
    );
    if (back.length > 0) {
      // The domain's parser makes the request (its defaults, its shared replica lists).
      const body = {
        partitions: back.map((s) => ({ topic: s.topic, partition: s.partition, replicas: s.originalReplicas })),
        throttle: record.throttle,
        autoRemoveThrottle: record.autoRemoveThrottle,
      };
      const parsed = await driveSteps(parseReassignmentRequestSteps(body), makePacer(PACE_BUDGET_MS));
      rollback = parsed.ok
        ? await startReassignment(ctx, parsed.request, requestedBy, { rollbackOf: record.id })
        : { kind: 'bad-request', errors: parsed.errors };
    }
  }
  return { kind: 'done', record, cancelled: mine, rollback };
}

export function partitionStatuses(
  record: ReassignmentRecord,
  moving: MovingPartition[],
  attributed: OngoingPartitionReassignment[],
  placement: TopicPartitions[],
): PartitionStatus[] {
  const movingHere = new Map<string, MovingPartition>();
  attributed.forEach((a, i) => {
    if (a.reassignmentId === record.id) movingHere.set(partitionId(a.topic, a.partition), moving[i]);
  });
  const current = new Map<string, number[]>();
  for (const t of placement) for (const p of t.partitions) current.set(partitionId(t.name, p.partition), p.replicas);
  return record.partitions.map((p): PartitionStatus => {
    const base = { topic: p.topic, partition: p.partition, originalReplicas: p.original, targetReplicas: p.target };
    const replicas = current.get(partitionId(p.topic, p.partition)) ?? [];
    if (p.startError) return { ...base, status: 'failed', replicas, adding: [], removing: [], error: p.startError };
    if (p.supersededBy) return { ...base, status: 'superseded', replicas, adding: [], removing: [], supersededBy: p.supersededBy };
    const m = movingHere.get(partitionId(p.topic, p.partition));
    if (m) return { ...base, status: 'moving', replicas: m.replicas, adding: m.adding, removing: m.removing };
    if (record.state === 'pending') return { ...base, status: 'pending', replicas, adding: [], removing: [] };
    return { ...base, status: sameSet(replicas, p.target) ? 'done' : 'reverted', replicas, adding: [], removing: [] };
  });
}

const sameSet = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x) => b.includes(x));

/** Same replicas as `original`, in another order. */
function reorderedOnly(current: readonly number[], original: readonly number[]): boolean {
  return current.length === original.length && current.join() !== original.join() && current.every((b) => original.includes(b));
}
