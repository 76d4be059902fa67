// /reassignments' answers: the state records and the service's views in the API's shapes
// (./reassignments.ts routes the requests and maps outcomes to statuses and problems).
import type { SnapshotProgress } from '../../domain/reassignment/index.js';
import {
  ANY_LOG_DIR,
  inFileOrder,
  partitionCount,
  REASSIGNMENT_FILE_VERSION,
  type PlanView,
  type ReassignmentDetail,
  type ReassignmentRecord,
} from '../../services/reassignments/reassignment-service.js';
import { LazyJsonArray } from '../json-slices.js';
import type { components } from '../openapi-types.js';
import { apiReason, isHeld, toHold, toSafety, unstalledWhileHeld } from './reassignment-hold.js';

type Schemas = components['schemas'];

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** At most this many warnings without ?detail=true. */
const WARNINGS_SHOWN = 100;
/** GET includes the rollback file up to this many partitions (always with ?detail=true). */
const ROLLBACK_INLINE_MAX = 1000;

/**
 * Rows made as they are serialized (100,000 of them at the largest): the answer is written in
 * slices by sendJson, and JSON.stringify sees the array through toJSON. Only ever serialized.
 */
function lazyRows<S, T>(source: readonly S[], row: (s: S) => T): T[] {
  return LazyJsonArray.map(source, row) as unknown as T[];
}

export function toPlan(p: PlanView, detail: boolean): Schemas['ReassignmentPlan'] {
  let noOp = 0;
  for (const x of p.partitions) if (x.noOp) noOp++;
  return {
    totals: { partitions: p.partitions.length, moving: p.partitions.length - noOp, noOp, warnings: p.warnings.length },
    ...(detail && {
      partitions: lazyRows(p.partitions, (x) => ({
        topic: x.topic,
        partition: x.partition,
        currentReplicas: [...x.currentReplicas],
        targetReplicas: [...x.targetReplicas],
        adding: [...x.adding],
        removing: [...x.removing],
        leader: x.leader,
        noOp: x.noOp,
      })),
    }),
    warnings: (detail ? p.warnings : p.warnings.slice(0, WARNINGS_SHOWN)).map((w) => ({
      topic: w.topic,
      partition: w.partition,
      code: w.code,
      message: w.message,
    })),
    throttle: p.throttle,
    throttleConfigs: p.throttleConfigs.map((c) => ({
      resourceType: c.resourceType,
      resourceName: c.resourceName,
      configs: c.configs.map((x) => ({ name: x.name, value: x.value })),
    })),
    estimate: {
      totalBytes: p.estimate.totalBytes,
      brokers: p.estimate.brokers.map((b) => ({ ...b })),
      bytesPerSecond: p.estimate.bytesPerSecond,
      estimatedSeconds: p.estimate.estimatedSeconds,
      bottleneckBroker: p.estimate.bottleneckBroker,
    },
    ...(detail && { rollback: toFile(p.rollback) }),
    ...(p.healthWarning && { healthWarning: toHealthWarning(p.healthWarning) }),
    ...(p.logDirMoves && {
      logDirMoves: p.logDirMoves.map((m) => ({
        topic: m.topic,
        partition: m.partition,
        broker: m.broker,
        logDir: m.logDir,
        currentLogDir: m.currentLogDir,
      })),
    }),
    ...(p.pacing && {
      pacing: {
        concurrency: { perBroker: p.pacing.concurrency.perBroker, cluster: p.pacing.concurrency.cluster },
        order: p.pacing.order,
        waveCount: p.pacing.schedule.waveCount,
        estimatedSeconds: p.pacing.schedule.estimatedSeconds,
        peakInFlight: p.pacing.schedule.peakInFlight,
        waves: p.pacing.schedule.waves.map((w) => ({
          index: w.index,
          startSeconds: w.startSeconds,
          partitions: w.partitions.map((x) => ({ topic: x.topic, partition: x.partition })),
        })),
      },
    }),
  };
}

function toFile(f: PlanView['rollback']): Schemas['ReassignmentFile'] {
  return {
    version: 1,
    partitions: lazyRows(f.partitions, (p) => ({
      topic: p.topic,
      partition: p.partition,
      replicas: [...p.replicas],
      log_dirs: [...p.log_dirs],
    })),
  };
}

/** formatReassignmentFile of the original replicas, its rows made as they are written. */
function rollbackFileOf(r: ReassignmentRecord): Schemas['ReassignmentFile'] {
  return {
    version: REASSIGNMENT_FILE_VERSION,
    partitions: lazyRows(inFileOrder(r), (p) => ({
      topic: p.topic,
      partition: p.partition,
      replicas: [...p.original],
      log_dirs: p.original.map(() => ANY_LOG_DIR),
    })),
  };
}

export function toAccepted(d: ReassignmentDetail, plan: PlanView, detail: boolean): Schemas['ReassignmentAccepted'] {
  return {
    id: d.record.id,
    state: apiState(d.record),
    summary: toReassignment(d, false),
    rollback: toFile(plan.rollback),
    ...(detail && { plan: toPlan(plan, true) }),
    ...(plan.healthWarning && { healthWarning: toHealthWarning(plan.healthWarning) }),
  };
}

function toHealthWarning(w: NonNullable<PlanView['healthWarning']>): Schemas['StartHealthWarning'] {
  return {
    wouldHold: w.wouldHold,
    reasons: w.reasons.map((r) => ({ kind: r.kind, count: r.count, examples: [...r.examples] })),
    message: w.message,
  };
}

/** The API's state: `paused` is a running record whose paced execution is paused. */
export function apiState(r: ReassignmentRecord): Schemas['ReassignmentState'] {
  return r.state === 'running' && r.paused ? 'paused' : isHeld(r) ? 'held' : r.state;
}

/** A move Kafka lists, as the service hands it over (its lists are shared, frozen). */
type ListedMove = { topic: string; partition: number; replicas: readonly number[]; adding: readonly number[]; removing: readonly number[] };

export function toSummary(
  brief: ReassignmentDetail,
  movingCount: number,
  moving: readonly ListedMove[] | undefined,
): Schemas['ReassignmentSummary'] {
  const record = brief.record;
  return {
    id: record.id,
    state: apiState(record),
    ...(apiReason(record) !== undefined && { reason: apiReason(record)! }),
    createdAt: iso(record.createdAt)!,
    startedAt: iso(record.startedAt),
    endedAt: iso(record.endedAt),
    throttle: record.throttle,
    autoRemoveThrottle: record.autoRemoveThrottle,
    // Who, what and how much, for the console's history (cached per record: ReassignmentService.brief).
    requestedBy: record.requestedBy,
    ...(record.rollbackOf !== undefined && { rollbackOf: record.rollbackOf }),
    ...(record.origin && { origin: { ...record.origin } }),
    concurrency: record.concurrency,
    order: record.order,
    counts: brief.counts,
    progress: unstalledWhileHeld(record, toProgress(brief.progress)),
    partitionCount: partitionCount(record),
    movingCount,
    // Kafka's lists are shared frozen arrays (readonly); the generated schema types are mutable.
    ...(moving && { moving: moving as Schemas['MovingPartition'][] }),
  };
}

function toProgress(p: SnapshotProgress): Schemas['ReassignmentProgress'] {
  return {
    percent: p.percent,
    bytesTotal: p.bytesTotal,
    bytesDone: p.bytesDone,
    bytesCopied: p.bytesDone,
    bytesRemaining: Math.max(0, p.bytesTotal - p.bytesDone),
    bytesPerSecond: p.bytesPerSecond === null ? null : Math.round(p.bytesPerSecond),
    etaSeconds: p.etaSeconds,
    stalled: p.stalled,
    lastProgressAt: p.lastProgressAtMs === null ? null : iso(p.lastProgressAtMs),
    asOf: p.asOfMs === null ? null : iso(p.asOfMs),
  };
}

/** Deadline pacing's forecast (the last pass's; the start's before one ran). */
function toDeadline(r: ReassignmentRecord, d: NonNullable<ReassignmentRecord['deadline']>): Schemas['ReassignmentDeadline'] {
  return {
    finishBy: iso(d.finishBy)!,
    holds: d.holds,
    throttle: r.throttle,
    expectedEnd: d.expectedEnd === null ? null : iso(d.expectedEnd),
    expectedEndAtMaxThrottle: d.expectedEndAtMax === null ? null : iso(d.expectedEndAtMax),
    throttleBounds: { min: d.bounds.min, max: d.bounds.max },
    decidedAt: iso(d.decidedAt)!,
  };
}

export function toReassignment(d: ReassignmentDetail, detail: boolean): Schemas['Reassignment'] {
  const r = d.record;
  return {
    id: r.id,
    state: apiState(r),
    ...(apiReason(r) !== undefined && { reason: apiReason(r)! }),
    createdAt: iso(r.createdAt)!,
    startedAt: iso(r.startedAt),
    endedAt: iso(r.endedAt),
    throttle: r.throttle,
    autoRemoveThrottle: r.autoRemoveThrottle,
    throttlesRemovedAt: iso(r.throttlesRemovedAt),
    requestedBy: r.requestedBy,
    owner: r.owner,
    ...(r.rollbackOf !== undefined && { rollbackOf: r.rollbackOf }),
    ...(r.origin && { origin: { ...r.origin } }),
    ...(r.electLeaders && { electLeaders: true }),
    ...(r.leaderElections && { leaderElections: { ...r.leaderElections, updatedAt: iso(r.leaderElections.updatedAt)! } }),
    paused: r.paused,
    concurrency: r.concurrency,
    order: r.order,
    counts: d.counts,
    progress: unstalledWhileHeld(r, toProgress(d.progress)),
    ...(r.deadline && { deadline: toDeadline(r, r.deadline) }),
    safety: toSafety(r),
    ...(toHold(r) && { hold: toHold(r)! }),
    ...((detail || partitionCount(r) <= ROLLBACK_INLINE_MAX) && { rollback: rollbackFileOf(r) }),
  };
}
