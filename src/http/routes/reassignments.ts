// /reassignments: plan, start, list, read (with live progress), re-throttle, cancel/roll back.
// The orchestration lives in src/reconcile/reassignment-service.ts; this file maps its
// outcomes to HTTP (statuses, problems with per-partition `errors`, Location headers) and
// the state records to the API's shapes.
import { Router, type Request, type Response } from 'express';
import type { FieldError, PartitionError, ReassignmentProgress } from '../../domain/reassignment/index.js';
import { countStates, formatReassignmentFile, parseConcurrency } from '../../domain/reassignment/index.js';
import { unwrapPlanBody } from '../../domain/plan/reassignment-body.js';
import type { ReassignmentDetail, ReassignmentService, StartResult, PlanView } from '../../reconcile/reassignment-service.js';
import type { ReassignmentRecord } from '../../state/records.js';
import { mapKafkaError } from '../errors.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem, type ValidationError } from '../problem.js';
import { instance, param, queryFlag } from './shared.js';

type Schemas = components['schemas'];

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** The API state: a running record with `paused` is `paused`. */
const apiState = (r: ReassignmentRecord): Schemas['ReassignmentState'] => (r.state === 'running' && r.paused ? 'paused' : r.state);

/** Pacing fields of a reassignment (issue 9). */
function pacingFields(r: ReassignmentRecord): Pick<Schemas['Reassignment'], 'paused' | 'concurrency' | 'order' | 'counts'> {
  return {
    paused: r.paused,
    concurrency: r.concurrency && { perBroker: r.concurrency.perBroker, cluster: r.concurrency.cluster },
    order: r.order,
    counts: countStates(r.partitions),
  };
}

/** The authenticated caller's id (set by the auth middleware; absent when auth is off). */
export function callerOf(res: Response): string | null {
  const p = (res.locals as { principal?: { id?: unknown } }).principal;
  return typeof p?.id === 'string' ? p.id : null;
}

function fieldErrors(errors: readonly FieldError[]): ValidationError[] {
  return errors.map((e) => ({ path: `/body${e.path}`, message: e.message, code: e.code }));
}

function partitionErrors(errors: readonly PartitionError[]): ValidationError[] {
  return errors.map((e) => ({
    path: e.index !== null ? `/body/partitions/${e.index}` : '/body/partitions',
    message: e.message,
    code: e.code,
    ...(e.kafkaError && { kafkaError: { name: e.kafkaError.name, code: e.kafkaError.code } }),
  }));
}

const INVALID_SLUG: Record<400 | 404 | 409 | 422, { slug: string; title: string }> = {
  400: { slug: 'validation-failed', title: 'Request validation failed' },
  404: { slug: 'unknown-topic-or-partition', title: 'Unknown topic or partition' },
  409: { slug: 'reassignment-in-progress', title: 'Reassignment in progress' },
  422: { slug: 'invalid-reassignment', title: 'Invalid reassignment' },
};

export function toPlan(p: PlanView): Schemas['ReassignmentPlan'] {
  return {
    partitions: p.partitions.map((x) => ({
      topic: x.topic,
      partition: x.partition,
      currentReplicas: [...x.currentReplicas],
      targetReplicas: [...x.targetReplicas],
      adding: [...x.adding],
      removing: [...x.removing],
      leader: x.leader,
      noOp: x.noOp,
    })),
    warnings: p.warnings.map((w) => ({ topic: w.topic, partition: w.partition, code: w.code, message: w.message })),
    throttle: p.throttle,
    throttleConfigs: p.throttleConfigs.map((c) => ({ resourceType: c.resourceType, resourceName: c.resourceName, configs: c.configs.map((x) => ({ name: x.name, value: x.value })) })),
    estimate: {
      totalBytes: p.estimate.totalBytes,
      brokers: p.estimate.brokers.map((b) => ({ ...b })),
      bytesPerSecond: p.estimate.bytesPerSecond,
      estimatedSeconds: p.estimate.estimatedSeconds,
      bottleneckBroker: p.estimate.bottleneckBroker,
    },
    rollback: toFile(p.rollback),
    ...(p.pacing && {
      pacing: {
        concurrency: { perBroker: p.pacing.concurrency.perBroker, cluster: p.pacing.concurrency.cluster },
        order: p.pacing.order,
        waveCount: p.pacing.schedule.waveCount,
        estimatedSeconds: p.pacing.schedule.estimatedSeconds,
        peakInFlight: p.pacing.schedule.peakInFlight,
        waves: p.pacing.schedule.waves.map((w) => ({ index: w.index, startSeconds: w.startSeconds, partitions: w.partitions.map((x) => ({ topic: x.topic, partition: x.partition })) })),
      },
    }),
  };
}

function toFile(f: PlanView['rollback']): Schemas['ReassignmentFile'] {
  return { version: 1, partitions: f.partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...p.replicas], log_dirs: [...p.log_dirs] })) };
}

function rollbackFileOf(r: ReassignmentRecord): Schemas['ReassignmentFile'] {
  return toFile(formatReassignmentFile(r.partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.original }))));
}

export function toAccepted(record: ReassignmentRecord, plan: PlanView): Schemas['ReassignmentAccepted'] {
  return { id: record.id, state: apiState(record), rollback: toFile(plan.rollback), plan: toPlan(plan) };
}

function toSummary(record: ReassignmentRecord, moving: Schemas['MovingPartition'][]): Schemas['ReassignmentSummary'] {
  return {
    id: record.id,
    state: apiState(record),
    createdAt: iso(record.createdAt)!,
    startedAt: iso(record.startedAt),
    endedAt: iso(record.endedAt),
    throttle: record.throttle,
    autoRemoveThrottle: record.autoRemoveThrottle,
    partitionCount: record.partitions.length,
    moving,
  };
}

function toProgress(record: ReassignmentRecord, p: ReassignmentProgress | null): Schemas['ReassignmentProgress'] {
  if (record.state === 'completed' || !p) {
    const done = record.state === 'completed';
    return {
      percent: done ? 100 : 0,
      bytesTotal: p?.bytesTotal ?? 0,
      bytesCopied: done ? (p?.bytesTotal ?? 0) : 0,
      bytesRemaining: 0,
      bytesPerSecond: p?.bytesPerSecond == null ? null : Math.round(p.bytesPerSecond),
      etaSeconds: done ? 0 : null,
      stalled: false,
      lastProgressAt: p?.lastProgressAtMs != null ? iso(p.lastProgressAtMs) : null,
    };
  }
  return {
    percent: p.percent,
    bytesTotal: p.bytesTotal,
    bytesCopied: p.bytesCopied,
    bytesRemaining: p.bytesRemaining,
    bytesPerSecond: p.bytesPerSecond === null ? null : Math.round(p.bytesPerSecond),
    etaSeconds: p.etaSeconds,
    stalled: record.state === 'running' && p.stalled,
    lastProgressAt: p.lastProgressAtMs === null ? null : iso(p.lastProgressAtMs),
  };
}

export function toReassignment(d: ReassignmentDetail): Schemas['Reassignment'] {
  const r = d.record;
  const copiesOf = (topic: string, partition: number): Schemas['ReplicaCopy'][] =>
    (d.progress?.replicas ?? [])
      .filter((c) => c.topic === topic && c.partition === partition)
      .map((c) => ({ broker: c.broker, bytesCopied: c.bytesCopied, bytesRemaining: c.bytesRemaining, bytesTotal: c.bytesTotal, percent: c.percent }));
  // A partition Kafka reports done has copied everything, whatever the last sample said.
  const complete = (c: Schemas['ReplicaCopy']): Schemas['ReplicaCopy'] => (c.bytesTotal === null ? c : { ...c, bytesCopied: c.bytesTotal, bytesRemaining: 0, percent: 100 });
  const progress = toProgress(r, d.progress);
  return {
    id: r.id,
    state: apiState(r),
    ...(r.reason !== undefined && { reason: r.reason }),
    createdAt: iso(r.createdAt)!,
    startedAt: iso(r.startedAt),
    endedAt: iso(r.endedAt),
    throttle: r.throttle,
    autoRemoveThrottle: r.autoRemoveThrottle,
    throttlesRemovedAt: iso(r.throttlesRemovedAt),
    requestedBy: r.requestedBy,
    owner: r.owner,
    ...(r.rollbackOf !== undefined && { rollbackOf: r.rollbackOf }),
    partitions: d.partitions.map((p) => ({
      topic: p.topic,
      partition: p.partition,
      status: p.status,
      originalReplicas: p.originalReplicas,
      targetReplicas: p.targetReplicas,
      replicas: p.replicas,
      adding: p.adding,
      removing: p.removing,
      // Done partitions keep their copies at 100%; reverted/failed ones copied nothing that stays.
      copies: p.status === 'moving' ? copiesOf(p.topic, p.partition) : p.status === 'done' ? copiesOf(p.topic, p.partition).map(complete) : [],
      ...(p.error && { error: p.error }),
      ...(p.supersededBy && { supersededBy: p.supersededBy }),
    })),
    // Paced: the ETA counts the queue (the moves in flight, then the waves still to run).
    progress: d.pacedEtaSeconds !== undefined && progress.etaSeconds !== 0 ? { ...progress, etaSeconds: d.pacedEtaSeconds } : progress,
    rollback: rollbackFileOf(r),
    ...pacingFields(r),
  };
}

function notFound(req: Request, res: Response, id: string): void {
  sendProblem(res, {
    problem: { type: problemType('reassignment-not-found'), title: 'Reassignment not found', status: 404, detail: `No reassignment with id ${id} (finished ones are kept for REASSIGNMENT_RETENTION_SECONDS).`, instance: instance(req) },
  });
}

/** Answers a StartResult (POST and the rollback of DELETE share it). */
function sendStart(req: Request, res: Response, result: StartResult): void {
  const inst = instance(req);
  switch (result.kind) {
    case 'bad-request':
      return sendProblem(res, {
        problem: { type: problemType('validation-failed'), title: 'Request validation failed', status: 400, detail: 'The reassignment request is malformed; see errors.', instance: inst, errors: fieldErrors(result.errors) },
      });
    case 'invalid': {
      const { slug, title } = INVALID_SLUG[result.status];
      const kafka = result.errors.find((e) => e.kafkaError)?.kafkaError;
      return sendProblem(res, {
        problem: {
          type: problemType(slug),
          title,
          status: result.status,
          detail: `${result.errors.length} problem(s) with the requested reassignment; nothing was changed. See errors.`,
          instance: inst,
          ...(kafka && result.status !== 400 && { kafkaError: { name: kafka.name, code: kafka.code } }),
          errors: partitionErrors(result.errors),
        },
      });
    }
    case 'plan':
      res.status(200).json(toPlan(result.plan));
      return;
    case 'started':
      res.location(`/reassignments/${encodeURIComponent(result.record.id)}`);
      res.status(202).json(toAccepted(result.record, result.plan));
      return;
    case 'start-failed': {
      const failed = result.record.partitions.filter((p) => p.startError);
      const first = failed[0]?.startError;
      if (!first) {
        return sendProblem(res, {
          problem: { type: problemType('kafka-unavailable'), title: 'Kafka unavailable', status: 503, detail: result.record.reason ?? 'The reassignment could not be started.', instance: inst },
          headers: { 'Retry-After': '5' },
        });
      }
      const mapped = mapKafkaError(first, 'kafka', inst);
      return sendProblem(res, {
        problem: {
          ...mapped.problem,
          detail: `Kafka refused every partition; reassignment ${result.record.id} is failed. ${first.message}`,
          errors: failed.map((p) => ({ path: `/body/partitions/${result.record.partitions.indexOf(p)}`, message: p.startError!.message, kafkaError: { name: p.startError!.name, code: p.startError!.code } })),
        },
        ...(mapped.headers && { headers: mapped.headers }),
      });
    }
  }
}

export function reassignmentRoutes({ service }: { service: ReassignmentService }): Router {
  const router = Router();

  router.get('/reassignments', async (_req, res) => {
    const listing = await service.list();
    const body: Schemas['ReassignmentList'] = {
      reassignments: listing.reassignments.map(({ record, moving }) => toSummary(record, moving)),
      external: listing.external,
    };
    res.json(body);
  });

  router.post('/reassignments', async (req, res) => {
    sendStart(req, res, await service.start(unwrapPlanBody(req.body), callerOf(res)));
  });

  router.get('/reassignments/:id', async (req, res) => {
    const id = param(req, 'id');
    const detail = await service.get(id);
    if (!detail) return notFound(req, res, id);
    res.json(toReassignment(detail));
  });

  router.patch('/reassignments/:id', async (req, res) => {
    const id = param(req, 'id');
    const body = req.body as Schemas['ReassignmentPatch'];
    const errors: FieldError[] = [];
    const concurrency = 'concurrency' in body ? parseConcurrency(body.concurrency, '/concurrency', errors) : undefined;
    if (errors.length > 0) {
      return sendProblem(res, { problem: { type: problemType('validation-failed'), title: 'Request validation failed', status: 400, detail: errors.map((e) => e.message).join(' '), instance: instance(req), errors: fieldErrors(errors) } });
    }
    const notRunning = (record: ReassignmentRecord) =>
      sendProblem(res, {
        problem: { type: problemType('reassignment-not-running'), title: 'Reassignment not running', status: 409, detail: `Reassignment ${id} is ${record.state}: it can no longer change.`, instance: instance(req) },
      });
    if (concurrency !== undefined || body.paused !== undefined) {
      const steered = await service.steer(id, { ...(concurrency !== undefined && { concurrency }), ...(body.paused !== undefined && { paused: body.paused }) });
      if (steered.kind === 'not-found') return notFound(req, res, id);
      if (steered.kind === 'not-running') return notRunning(steered.record);
    }
    if ('throttle' in body) {
      const result = await service.setThrottle(id, body.throttle ?? null);
      if (result.kind === 'not-found') return notFound(req, res, id);
      if (result.kind === 'not-running') return notRunning(result.record);
      if (result.sync.failures.length > 0) {
        const f = result.sync.failures[0]!;
        return sendProblem(res, mapKafkaError(f.error, f.error.code === 13 || f.error.code === 7 ? 'unavailable' : 'kafka', instance(req)));
      }
    }
    const detail = await service.get(id);
    if (!detail) return notFound(req, res, id);
    res.json(toReassignment(detail));
  });

  router.delete('/reassignments/:id', async (req, res) => {
    const id = param(req, 'id');
    const result = await service.cancel(id, { preserveThrottles: queryFlag(req, 'preserveThrottles'), rollback: queryFlag(req, 'rollback') }, callerOf(res));
    if (result.kind === 'not-found') return notFound(req, res, id);
    const rb = result.rollback;
    if (rb && rb.kind !== 'started') {
      // The cancel happened; the rollback did not: say why, as the rollback's own problem.
      return sendStart(req, res, rb);
    }
    const body: Schemas['ReassignmentCancelled'] = {
      id: result.record.id,
      state: result.record.state,
      cancelled: result.cancelled,
      rollback: rb && rb.kind === 'started' ? toAccepted(rb.record, rb.plan) : null,
    };
    if (rb && rb.kind === 'started') {
      res.location(`/reassignments/${encodeURIComponent(rb.record.id)}`);
      res.status(202).json(body);
      return;
    }
    res.json(body);
  });

  return router;
}
