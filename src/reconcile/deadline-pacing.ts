// Deadline pacing (issue 30, part 2), the I/O side: every reconcile pass, for each running
// reassignment with a `finishBy`, work out the bytes left per broker (its record and the latest
// progress snapshot, both in the state topic: every instance computes the same), let the domain
// pick the throttle (src/domain/reassignment/deadline.ts) and write it into the record: `throttle`,
// the broker rates of its `throttleDemand`, and the forecast (`deadline`). The pass's throttle sync,
// which runs right after, applies the rates through the usual ledger path (throttle-sync.ts), so
// the rate changes and the removal at the end are as crash-safe as a fixed throttle's.
//
// The write is header-only (the partitions are the same objects: no chunk is rewritten) and made
// under the record's claim over the record as the state topic has it then (pacer.ts
// withRecordClaim): a PATCH, a wave or a cancel written meanwhile, on any instance, is never
// written over; the decision is re-made from the fresh record.
import {
  bytesLeftPerBroker,
  advanceEfficiency,
  efficiencyWindowMs,
  scaleToRemaining,
  paceToDeadline,
  type BrokerBytes,
  type DeadlineDecision,
  type DeadlineState,
  type SnapshotProgress,
  type ThrottleBounds,
  type ThrottleDemand,
} from '../domain/reassignment/index.js';
import type { Logger } from '../observability/logger.js';
import type { ReassignmentMetrics } from '../observability/reassignment-metrics.js';
import type { ReassignmentRecord } from '../state/records.js';
import type { StateStore, StateView } from '../state/store.js';
import type { ReassignmentConfig } from './config.js';
import { withRecordClaim } from './pacer.js';
import type { ProgressTracker } from './progress.js';

/** How long a pass waits for another holder of a record's claim before leaving the decision to the next pass. */
const CLAIM_WAIT_MS = 1000;

/** The plan's partitions as the start knows them (a PartitionMovePlan fits). */
export interface PlannedMove {
  readonly currentReplicas: readonly number[];
  readonly targetReplicas: readonly number[];
  readonly adding: readonly number[];
}

/**
 * The throttle and deadline state a start writes: from the plan's bytes per broker, with no
 * efficiency measured yet (1). `sizeAt(i)`: the leader size of the i-th planned partition.
 */
export function initialDeadline(
  moves: readonly PlannedMove[],
  sizeAt: (i: number) => number | undefined,
  opts: { finishBy: number; bounds: ThrottleBounds; now: number; bandwidth: number | null },
): { throttle: number; state: DeadlineState } {
  const partitions = moves.map((m, i) => ({
    original: m.currentReplicas,
    target: m.targetReplicas,
    state: 'queued',
    bytesTotal: (sizeAt(i) ?? 0) * m.adding.length,
  }));
  const decision = paceToDeadline({
    nowMs: opts.now,
    startedAtMs: opts.now,
    finishByMs: opts.finishBy,
    brokers: bytesLeftPerBroker(partitions, 0),
    bounds: opts.bounds,
    currentThrottle: null,
    efficiency: 1,
    bandwidth: opts.bandwidth,
  });
  return { throttle: decision.throttle, state: stateOf(opts.finishBy, opts.bounds, decision, 1, null, opts.now) };
}

function stateOf(
  finishBy: number,
  bounds: ThrottleBounds,
  d: DeadlineDecision,
  efficiency: number,
  sample: DeadlineState['sample'],
  now: number,
): DeadlineState {
  return {
    finishBy,
    bounds,
    holds: d.holds,
    expectedEnd: Math.round(d.expectedEndMs),
    expectedEndAtMax: Math.round(d.expectedEndAtMaxMs),
    efficiency,
    sample,
    decidedAt: now,
  };
}

/** The demand with `rate` on every broker rate it sets (same lists). The same object when nothing changes. */
export function withRate(demand: ThrottleDemand, rate: number): ThrottleDemand {
  let changed = false;
  const brokers: Record<string, { leaderRate?: number; followerRate?: number; logDirRate?: number }> = {};
  for (const [b, d] of Object.entries(demand.brokers)) {
    const next = {
      ...(d.leaderRate !== undefined && { leaderRate: rate }),
      ...(d.followerRate !== undefined && { followerRate: rate }),
      ...(d.logDirRate !== undefined && { logDirRate: rate }),
    };
    if (next.leaderRate !== d.leaderRate || next.followerRate !== d.followerRate || next.logDirRate !== d.logDirRate) changed = true;
    brokers[b] = next;
  }
  return changed ? { topics: demand.topics, brokers } : demand;
}

/**
 * The share of its moving partitions' bytes a reassignment has copied, from the latest progress
 * snapshot: bytes done less the completed partitions', over the moving partitions' (as the paced
 * ETA does: reassignment-service.ts #pacedEta).
 */
export function movingDoneShare(r: ReassignmentRecord, progress: SnapshotProgress): number {
  let completed = 0;
  let moving = 0;
  const ps = r.partitions;
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i];
    if (p.supersededBy) continue;
    if (p.state === 'completed') completed += p.bytesTotal ?? 0;
    else if (p.state === 'moving') moving += p.bytesTotal ?? 0;
  }
  if (moving <= 0) return 0;
  return Math.max(0, Math.min(moving, progress.bytesDone - completed)) / moving;
}

/** This pass's record for a running deadline reassignment: the throttle, its demand's rates, the forecast. */
export function deadlineStep(
  r: ReassignmentRecord & { deadline: DeadlineState },
  progress: SnapshotProgress,
  now: number,
  bandwidth: number | null,
  measuredPerBroker: BrokerBytes[] | null = null,
): { next: ReassignmentRecord; decision: DeadlineDecision; brokers: BrokerBytes[] } {
  const d = r.deadline;
  const startedAt = r.startedAt ?? r.createdAt;
  // Per broker as the snapshot measured it (deadline-bytes.ts); else the record's split scaled to the snapshot's amount.
  const measured = progress.asOfMs !== null;
  const split = measuredPerBroker ?? bytesLeftPerBroker(r.partitions, movingDoneShare(r, progress));
  const brokers = measured && !measuredPerBroker ? scaleToRemaining(split, Math.max(0, progress.bytesTotal - progress.bytesDone)) : split;
  const { efficiency, sample } = measured
    ? advanceEfficiency(d, progress.asOfMs, brokers, r.throttle, efficiencyWindowMs(startedAt, d.finishBy), bandwidth)
    : d;
  // The bytes are as of the latest snapshot: so is the time left (counted from now, the rate
  // would also cover the bytes copied since the snapshot, and the end comes a pass early).
  const decision = paceToDeadline({
    nowMs: measured ? Math.min(now, progress.asOfMs) : now,
    startedAtMs: startedAt,
    finishByMs: d.finishBy,
    brokers,
    bounds: d.bounds,
    currentThrottle: r.throttle,
    efficiency,
    bandwidth,
  });
  const throttleDemand = r.throttleDemand && decision.rewrite ? withRate(r.throttleDemand, decision.throttle) : r.throttleDemand;
  return {
    next: {
      ...r,
      throttle: decision.throttle,
      throttleDemand,
      deadline: stateOf(d.finishBy, d.bounds, decision, efficiency, sample, now),
      updatedAt: now,
    },
    decision,
    brokers,
  };
}

/** Rewrite the forecast at least this often, even when nothing else changed (the GET shows decidedAt). */
const FORECAST_REFRESH_MS = 30_000;

/**
 * Whether a pass's decision is worth a record write: a new rate, holds flipped, an efficiency
 * window closed, the expected end moved by more than 1 % of the duration (at least 1 s), or the
 * forecast is FORECAST_REFRESH_MS old. Skipping the others keeps a pass from rewriting every
 * record's header every interval (and, with several instances, from racing their passes); the
 * window's allowance is integrated from its last written mark, at the rate in place, which a
 * skipped write did not change.
 */
export function worthWriting(prev: DeadlineState, next: DeadlineState, rewrite: boolean, startedAt: number): boolean {
  if (rewrite || prev.holds !== next.holds || prev.efficiency !== next.efficiency || prev.sample?.at !== next.sample?.at) return true;
  if (prev.expectedEnd === null || next.expectedEnd === null) return prev.expectedEnd !== next.expectedEnd;
  const tolerance = Math.max(1000, 0.01 * (next.finishBy - startedAt));
  return Math.abs(prev.expectedEnd - next.expectedEnd) > tolerance || next.decidedAt - prev.decidedAt >= FORECAST_REFRESH_MS;
}

const steered = (r: ReassignmentRecord | undefined): r is ReassignmentRecord & { deadline: DeadlineState } =>
  r !== undefined && r.state === 'running' && r.deadline !== undefined && r.movesEndedAt === undefined && r.throttleDemand !== null;

export interface DeadlinePacingDeps {
  store: StateStore;
  progress: ProgressTracker;
  config: ReassignmentConfig;
  now: () => number;
  bandwidth?: number | null;
  metrics?: ReassignmentMetrics;
  logger?: Logger;
}

export class DeadlinePacing {
  readonly #d: DeadlinePacingDeps;

  constructor(deps: DeadlinePacingDeps) {
    this.#d = deps;
  }

  #step(r: ReassignmentRecord & { deadline: DeadlineState }): ReturnType<typeof deadlineStep> {
    const progress = this.#d.progress.progress(r);
    return deadlineStep(r, progress, this.#d.now(), this.#d.bandwidth ?? null, this.#d.progress.brokerBytesLeft(r.id, progress.asOfMs));
  }

  /** One pass over the running deadline reassignments of `view`; returns the ids whose throttle changed. */
  async pass(view: StateView): Promise<string[]> {
    const changed: string[] = [];
    const gauges: { id: string; slackSeconds: number; holds: boolean }[] = [];
    for (const r of [...view.reassignments.values()]) {
      if (!steered(r)) continue;
      const guess = this.#step(r);
      if (!worthWriting(r.deadline, guess.next.deadline!, guess.decision.rewrite, r.startedAt ?? r.createdAt)) {
        gauges.push({ id: r.id, slackSeconds: (r.deadline.finishBy - guess.decision.expectedEndMs) / 1000, holds: guess.decision.holds });
        continue;
      }
      const out = await withRecordClaim(
        this.#d.store,
        { owner: this.#d.config.instanceId, ttlMs: this.#d.config.pacingLeaseMs, purpose: 'deadline', waitMs: CLAIM_WAIT_MS },
        r.id,
        async () => {
          const fresh = (await this.#d.store.refresh()).reassignments.get(r.id);
          if (!steered(fresh)) return { result: undefined };
          const step = this.#step(fresh);
          return { result: step, values: [step.next] };
        },
      );
      if (!out.granted || !out.result) continue;
      const { decision, next } = out.result;
      if (decision.rewrite) {
        changed.push(r.id);
        this.#d.logger?.info('deadline pacing: throttle changed', {
          reassignment: r.id,
          from: r.throttle,
          to: decision.throttle,
          wanted: decision.wanted,
          holds: decision.holds,
          efficiency: next.deadline?.efficiency,
        });
      }
      if (r.deadline.holds && !decision.holds)
        this.#d.logger?.warn('deadline pacing: the deadline no longer holds at the highest allowed throttle', {
          reassignment: r.id,
          finishBy: new Date(r.deadline.finishBy).toISOString(),
          expectedEndAtMax: new Date(decision.expectedEndAtMaxMs).toISOString(),
        });
      gauges.push({ id: r.id, slackSeconds: (r.deadline.finishBy - decision.expectedEndMs) / 1000, holds: decision.holds });
    }
    this.#d.metrics?.setDeadlines?.(gauges);
    return changed;
  }
}
