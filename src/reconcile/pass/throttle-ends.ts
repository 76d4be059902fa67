// The throttle bookkeeping of a reconcile pass (reconciler.ts #passSteps): requests whose
// reason ended stop demanding, a converged sync records the removals (with their delay, from
// the last time this instance saw a move still in progress), and the progress step that keeps
// that last time.
import { throttleRequestKey, type ReassignmentRecord, type ThrottleRequestRecord } from '../../state/records.js';
import type { StateView } from '../../state/store.js';
import { isLive, type AttributedMoves, type Pace } from '../ownership.js';
import type { PassContext } from './context.js';

/**
 * Throttle requests past their ttl, or whose awaited moves finished (autoRemove): from now on
 * they demand nothing (tombstoned once their throttles are gone: recordRemovals).
 */
export async function expireRequests(ctx: PassContext, view: StateView, movingIds: ReadonlySet<string>): Promise<void> {
  const now = ctx.now();
  const writes: ThrottleRequestRecord[] = [];
  for (const t of view.throttleRequests.values()) {
    if (t.expiresAt !== null && t.expiresAt <= now) {
      if (!ctx.endSeen.has(t.id)) ctx.endSeen.set(t.id, t.expiresAt);
      continue; // already demands nothing; tombstoned once its throttles are gone
    }
    if (!t.autoRemove) continue;
    if (t.waitFor === null) {
      // Nothing was moving when it was set: wait for the next moves to start, then to end.
      if (movingIds.size > 0) writes.push({ ...t, waitFor: [...movingIds].sort(), updatedAt: now });
    } else if (!t.waitFor.some((id) => movingIds.has(id))) {
      if (!ctx.endSeen.has(t.id)) ctx.endSeen.set(t.id, now);
      writes.push({ ...t, expiresAt: now, updatedAt: now }); // demands nothing from now on
    }
  }
  if (writes.length) await ctx.d.store.write(writes);
}

/** After a converged sync (done at `now`): ended reassignments and expired requests have no throttles left. */
export async function recordRemovals(ctx: PassContext, view: StateView, now: number): Promise<void> {
  const writes: ReassignmentRecord[] = [];
  const deletes: string[] = [];
  for (const r of view.reassignments.values()) {
    if (isLive(r) || !r.throttleDemand || !r.autoRemoveThrottle || r.throttlesRemovedAt !== undefined) continue;
    writes.push({ ...r, throttlesRemovedAt: now, updatedAt: now });
    // From Kafka's completion as well as this instance can tell: the last time it saw a move
    // of it still in progress (else the end the records say).
    const from = ctx.lastSeenMoving.get(r.id) ?? r.endedAt;
    ctx.lastSeenMoving.delete(r.id);
    ctx.d.metrics?.throttleRemoved(r.state, from !== undefined ? (now - from) / 1000 : null);
    ctx.d.logger?.info('throttles removed', {
      reassignment: r.id,
      state: r.state,
      delaySeconds: from !== undefined ? (now - from) / 1000 : null,
    });
  }
  for (const t of view.throttleRequests.values()) {
    if (t.expiresAt === null || t.expiresAt > now) continue;
    deletes.push(throttleRequestKey(t.id));
    const seen = ctx.endSeen.get(t.id) ?? t.expiresAt;
    ctx.endSeen.delete(t.id);
    ctx.d.metrics?.throttleRemoved(t.autoRemove ? 'auto-remove' : 'ttl', (now - seen) / 1000);
  }
  if (writes.length || deletes.length) await ctx.d.store.write(writes, deletes);
}

/** The oldest ended reason whose gateway-owned throttles are still waiting to go (seconds; 0 = none). */
export function removalPendingSeconds(ctx: PassContext, view: StateView): number {
  const now = ctx.now();
  let oldest = now;
  for (const r of view.reassignments.values()) {
    // A running record whose moves are recorded as ended waits for its throttles to go too.
    if ((isLive(r) && r.movesEndedAt === undefined) || !r.throttleDemand || !r.autoRemoveThrottle || r.throttlesRemovedAt !== undefined)
      continue;
    oldest = Math.min(oldest, r.endedAt ?? r.movesEndedAt ?? r.updatedAt);
  }
  for (const t of view.throttleRequests.values()) {
    if (t.expiresAt !== null && t.expiresAt <= now) oldest = Math.min(oldest, ctx.endSeen.get(t.id) ?? t.expiresAt);
  }
  return (now - oldest) / 1000;
}

/** The progress step: a snapshot of every running reassignment, and the progress gauges (progress.ts). */
export async function observeProgress(ctx: PassContext, view: StateView, moves: AttributedMoves, pace: Pace): Promise<void> {
  const now = ctx.now();
  for (const id of moves.movingOf.keys()) ctx.lastSeenMoving.set(id, now);
  for (const id of ctx.lastSeenMoving.keys()) if (!view.reassignments.has(id)) ctx.lastSeenMoving.delete(id);
  ctx.d.metrics?.setPartitionsMoving('gateway', moves.gateway);
  ctx.d.metrics?.setPartitionsMoving('external', moves.external);
  const running = [...view.reassignments.values()].filter((r) => r.state === 'running');
  // One snapshot per running reassignment per interval, in the state topic (any instance).
  if (running.length > 0) await ctx.d.progress.snapshot(running, pace);
  const gauges = [];
  for (const r of running) {
    const p = ctx.d.progress.progress(r);
    let queued = 0;
    let inFlight = 0;
    for (const x of r.partitions) {
      if (x.supersededBy) continue;
      if (x.state === 'queued') queued++;
      else if (x.state === 'moving') inFlight++;
    }
    // Held by the health interlocks: not moving on purpose, not stalled (its own alert says so).
    gauges.push({
      id: r.id,
      bytesRemaining: Math.max(0, p.bytesTotal - p.bytesDone),
      etaSeconds: p.etaSeconds,
      stalled: p.stalled && !r.hold,
      queued,
      moving: inFlight,
    });
    await pace();
  }
  ctx.d.metrics?.setProgress(gauges);
}
