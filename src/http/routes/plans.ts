// POST /plans and GET /brokers: HTTP around src/services/plans.ts (statuses, problems with one
// `errors` entry per item, the API's shapes). The plan itself is src/domain/plan's.
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { yieldTurn as nextTurn } from '../../event-loop-turns.js';
import type { Request, Response, Router } from 'express';
import { strictRouter } from '../router.js';
import type { PlanError, PlanRequest } from '../../domain/plan/index.js';
import type { PlanService } from '../../services/plans.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem } from '../problem.js';
import { instance } from './shared.js';

type Schemas = components['schemas'];

function sendPlanErrors(req: Request, res: Response, status: 400 | 422, errors: readonly PlanError[]): void {
  const kafka = errors.find((e) => e.kafkaError)?.kafkaError;
  sendProblem(res, {
    problem: {
      type: problemType(status === 400 ? 'validation-failed' : 'invalid-plan-request'),
      title: status === 400 ? 'Request validation failed' : 'Invalid plan request',
      status,
      detail: `${errors.length} problem(s) with the plan request; nothing was planned. See errors.`,
      instance: instance(req),
      ...(status === 422 && kafka && { kafkaError: { name: kafka.name, code: kafka.code } }),
      errors: errors.map((e) => ({
        path: `/body${e.path}`,
        message: e.message,
        code: e.code,
        ...(e.kafkaError && { kafkaError: { name: e.kafkaError.name, code: e.kafkaError.code } }),
      })),
    },
  });
}

/** Plans with more changed partitions than this are written in slices. */
const STREAM_ABOVE = 2_000;
const CHUNK = 256;
const SLICE_MS = 10;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasLargeArray = (v: Record<string, unknown>): boolean =>
  Object.values(v).some((x) => (Array.isArray(x) && x.length > CHUNK) || (isObject(x) && hasLargeArray(x)));

/** The JSON text of `value` in pieces: large arrays CHUNK items at a time, the rest whole. Same text as JSON.stringify. */
function* jsonPieces(value: unknown): Generator<string> {
  if (Array.isArray(value) && value.length > CHUNK) {
    yield '[';
    for (let i = 0; i < value.length; i += CHUNK)
      yield (
        (i > 0 ? ',' : '') +
        value
          .slice(i, i + CHUNK)
          .map((v) => JSON.stringify(v) ?? 'null')
          .join(',')
      );
    yield ']';
  } else if (isObject(value) && hasLargeArray(value)) {
    yield '{';
    let first = true;
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      yield `${first ? '' : ','}${JSON.stringify(k)}:`;
      first = false;
      yield* jsonPieces(v);
    }
    yield '}';
  } else {
    yield JSON.stringify(value);
  }
}

/** Writes `body` as JSON, letting the event loop run every SLICE_MS and waiting for the socket to drain. */
async function sendJsonInSlices(res: Response, body: object): Promise<void> {
  res.status(200).type('application/json');
  let start = performance.now();
  const runner = {};
  for (const piece of jsonPieces(body)) {
    if (!res.write(piece)) {
      const ac = new AbortController();
      const drained = await Promise.race([
        once(res, 'drain', { signal: ac.signal }).then(() => true),
        once(res, 'close', { signal: ac.signal }).then(() => false),
      ]).catch(() => false);
      ac.abort();
      if (!drained) return;
    }
    if (performance.now() - start >= SLICE_MS) {
      await nextTurn(runner);
      if (res.destroyed) return;
      start = performance.now();
    }
  }
  res.end();
}

export function planRoutes({ plans }: { plans: PlanService }): Router {
  const router = strictRouter();

  router.post('/plans', async (req, res) => {
    const outcome = await plans.plan(req.body as PlanRequest);
    if (outcome.kind === 'malformed') return sendPlanErrors(req, res, 400, outcome.errors);
    if (outcome.kind === 'invalid') return sendPlanErrors(req, res, 422, outcome.errors);
    const p = outcome.plan;
    const body: Schemas['PlanResponse'] = {
      goal: p.goal,
      partitions: p.partitions.map((x) => ({
        topic: x.topic,
        partition: x.partition,
        currentReplicas: [...x.currentReplicas],
        targetReplicas: [...x.targetReplicas],
        adding: [...x.adding],
        removing: [...x.removing],
        bytes: x.bytes,
      })),
      reassignment: {
        version: 1,
        partitions: outcome.reassignment.partitions.map((x) => ({
          topic: x.topic,
          partition: x.partition,
          replicas: [...x.replicas],
          log_dirs: [...x.log_dirs],
        })),
      },
      movedReplicas: p.movedReplicas,
      movedBytes: p.movedBytes,
      lowerBound: { movedReplicas: p.lowerBound.movedReplicas, movedBytes: p.lowerBound.movedBytes },
      before: p.before.map((l) => ({ ...l })),
      after: p.after.map((l) => ({ ...l })),
      warnings: [
        ...p.warnings.map((w) => ({
          code: w.code,
          message: w.message,
          ...(w.topic !== undefined && { topic: w.topic }),
          ...(w.broker !== undefined && { broker: w.broker }),
        })),
        ...outcome.sizeErrors.map((e) => ({
          code: 'SIZES_UNKNOWN' as const,
          broker: e.broker,
          message: `Broker ${e.broker} did not describe its log dirs (${e.error.name}): sizes of its replicas are missing.`,
        })),
      ],
      options: { ...p.options, brokers: [...p.options.brokers] },
    };
    // A plan of thousands of partitions is megabytes of JSON: one JSON.stringify would hold the
    // event loop for ~50-100 ms at 100,000 partitions, so large answers are written in slices.
    // Small ones go through res.json (where tests validate responses against openapi.yaml; the
    // large path writes the same object).
    if (body.partitions.length <= STREAM_ABOVE) return void res.json(body);
    await sendJsonInSlices(res, body);
  });

  router.get('/brokers', async (_req, res) => {
    const { brokers } = await plans.brokers();
    const body: Schemas['BrokerList'] = { brokers: brokers.map((b) => ({ ...b, reassignment: { ...b.reassignment } })) };
    res.json(body);
  });

  return router;
}
