// PATCH /reassignments/{id}: a new throttle for a live reassignment, or new bounds, a pause or
// resume, a new health policy for a paced one, each written under the record's claim.
import {
  computeReassignmentThrottles,
  throttleDemandFor,
  withLogDirThrottle,
  type ThrottleDemand,
} from '../../domain/reassignment/index.js';
import { logDirBrokers } from '../../reconcile/log-dir-moves.js';
import { activePartitions, isLive, partitionId } from '../../reconcile/ownership.js';
import type { ReassignmentRecord } from '../../state/records.js';
import { withPacingClaim } from './pacing-claim.js';
import type { ServiceContext, SetThrottleResult, SteerPatch, SteerResult } from './types.js';

/** Changes the throttle of a live reassignment (null = unthrottled). */
export async function setThrottle(ctx: ServiceContext, id: string, throttle: number | null): Promise<SetThrottleResult> {
  return withPacingClaim(ctx, id, 'throttle', () => setThrottleClaimed(ctx, id, throttle));
}

async function setThrottleClaimed(ctx: ServiceContext, id: string, throttle: number | null): Promise<SetThrottleResult> {
  const view = await ctx.d.store.refresh();
  const record = view.reassignments.get(id);
  if (!record) return { kind: 'not-found' };
  if (!isLive(record)) return { kind: 'not-running', record };
  let demand: ThrottleDemand | null = null;
  if (throttle !== null) {
    if (record.throttleDemand) {
      // Same lists; the new rate on the same brokers.
      const brokers: Record<string, { leaderRate: number; followerRate: number }> = {};
      for (const [b, d] of Object.entries(record.throttleDemand.brokers))
        if (d.leaderRate !== undefined || d.followerRate !== undefined) brokers[b] = { leaderRate: throttle, followerRate: throttle };
      demand = { topics: record.throttleDemand.topics, brokers };
    } else {
      // First throttle of an unthrottled reassignment: lists as Kafka's tool would compute them now.
      const { moving } = await ctx.ongoing(view);
      // Paced: only the moves in flight are throttled (the pacer adds each wave's).
      const mine = activePartitions(record)
        .filter((p) => record.concurrency === null || p.state === 'moving')
        .map((p) => ({ topic: p.topic, partition: p.partition, currentReplicas: p.original, targetReplicas: p.target }));
      const mineIds = new Set(mine.map((p) => partitionId(p.topic, p.partition)));
      const others = moving.filter((m) => !mineIds.has(partitionId(m.topic, m.partition)));
      demand = throttleDemandFor(computeReassignmentThrottles(others, mine), throttle);
    }
    demand = withLogDirThrottle(demand, logDirBrokers(record), throttle);
  }
  const next: ReassignmentRecord = { ...record, throttle, throttleDemand: demand, updatedAt: ctx.now() };
  // A throttle set by hand ends deadline pacing (the reconciler would otherwise overwrite it).
  delete next.deadline;
  await ctx.d.store.write([next]);
  const sync = await ctx.d.throttles.sync();
  return { kind: 'ok', record: next, sync };
}

/**
 * PATCH of a paced execution: `concurrency` (new bounds) and/or `paused`. Header-only write
 * (the store rewrites no chunk); then one pacing step at once so that a resume or a raised
 * bound starts moves without waiting for the reconciler. Giving `concurrency` to a reassignment
 * that was sent at once makes no difference to what already moves.
 */
export async function steer(ctx: ServiceContext, id: string, patch: SteerPatch): Promise<SteerResult> {
  const result = await withPacingClaim(ctx, id, 'steer', () => steerClaimed(ctx, id, patch));
  // A resume or a raised bound starts moves at once (under the pacer's own claim).
  if (
    result.kind === 'ok' &&
    ctx.d.pacer &&
    result.record.state === 'running' &&
    result.record.concurrency !== null &&
    !result.record.paused
  )
    await ctx.d.pacer.advance(id).catch(() => undefined);
  return result.kind === 'ok' ? { kind: 'ok', record: (await ctx.d.store.refresh()).reassignments.get(id) ?? result.record } : result;
}

async function steerClaimed(ctx: ServiceContext, id: string, patch: SteerPatch): Promise<SteerResult> {
  const view = await ctx.d.store.refresh();
  const record = view.reassignments.get(id);
  if (!record) return { kind: 'not-found' };
  if (!isLive(record)) return { kind: 'not-running', record };
  let next: ReassignmentRecord = {
    ...record,
    ...(patch.concurrency !== undefined && {
      concurrency: patch.concurrency && { perBroker: patch.concurrency.perBroker, cluster: patch.concurrency.cluster },
    }),
    ...(patch.paused !== undefined && { paused: patch.paused }),
    // Health interlocks: a new policy (null = the default); a hold it no longer warrants ends at the next pass.
    ...(patch.safety && { safety: patch.safety }),
    updatedAt: ctx.now(),
  };
  if (patch.safety === null) {
    const { safety: _default, ...rest } = next;
    next = rest;
  }
  await ctx.d.store.write([next]);
  return { kind: 'ok', record: next };
}
