// /reassignments: plan, start, list, read (with live progress), re-throttle, cancel/roll back.
// The orchestration lives in src/services/reassignments/; this file maps its
// outcomes to HTTP (statuses, problems with per-partition `errors`, Location headers);
// ./reassignment-shapes.ts puts the state records in the API's shapes.
import type { Request, RequestHandler, Response, Router } from 'express';
import { strictRouter } from '../router.js';
import type { FieldError, PartitionError } from '../../domain/reassignment/index.js';
import {
  parseStartRequest,
  parseSteerFields,
  type InvalidKind,
  type PartitionState,
  type ReassignmentRecord,
  type ReassignmentService,
  type StartAhead,
  type StartResult,
} from '../../services/reassignments/reassignment-service.js';
import { mapKafkaError } from '../errors.js';
import { sendJson } from '../json-slices.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem, type ValidationError } from '../problem.js';
import { instance, param, queryFlag, validateOnlyOf } from './shared.js';
import { apiState, toAccepted, toPlan, toReassignment, toSummary } from './reassignment-shapes.js';

type Schemas = components['schemas'];

// The answers' shapes live in ./reassignment-shapes.ts (importable from here as before).
export { toAccepted, toPlan, toReassignment };

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

/** How the service's refusals map to HTTP. */
const INVALID: Record<InvalidKind, { status: 400 | 404 | 409 | 422; slug: string; title: string }> = {
  malformed: { status: 400, slug: 'validation-failed', title: 'Request validation failed' },
  'not-found': { status: 404, slug: 'unknown-topic-or-partition', title: 'Unknown topic or partition' },
  conflict: { status: 409, slug: 'reassignment-in-progress', title: 'Reassignment in progress' },
  invalid: { status: 422, slug: 'invalid-reassignment', title: 'Invalid reassignment' },
};

/** The body limit of POST /reassignments (100,000 partitions in the tool's format are ~4.4 MB). */
export const REASSIGNMENT_BODY_LIMIT = '32mb';

function notFound(req: Request, res: Response, id: string): void {
  sendProblem(res, {
    problem: {
      type: problemType('reassignment-not-found'),
      title: 'Reassignment not found',
      status: 404,
      detail: `No reassignment with id ${id} (finished ones are kept for REASSIGNMENT_RETENTION_SECONDS).`,
      instance: instance(req),
    },
  });
}

/** Answers a StartResult (POST and the rollback of DELETE share it). */
async function sendStart(req: Request, res: Response, result: StartResult, service: ReassignmentService): Promise<void> {
  const detail = queryFlag(req, 'detail');
  const inst = instance(req);
  switch (result.kind) {
    case 'bad-request':
      return sendProblem(res, {
        problem: {
          type: problemType('validation-failed'),
          title: 'Request validation failed',
          status: 400,
          detail: 'The reassignment request is malformed; see errors.',
          instance: inst,
          errors: fieldErrors(result.errors),
        },
      });
    case 'invalid': {
      const { status, slug, title } = INVALID[result.problem];
      const kafka = result.errors.find((e) => e.kafkaError)?.kafkaError;
      return sendProblem(res, {
        problem: {
          type: problemType(slug),
          title,
          status,
          detail: `${result.errors.length} problem(s) with the requested reassignment; nothing was changed. See errors.`,
          instance: inst,
          ...(kafka && status !== 400 && { kafkaError: { name: kafka.name, code: kafka.code } }),
          errors: partitionErrors(result.errors),
        },
      });
    }
    case 'plan':
      return sendJson(res, 200, toPlan(result.plan, detail));
    case 'started':
      res.location(`/reassignments/${encodeURIComponent(result.record.id)}`);
      return sendJson(res, 202, toAccepted(service.summarize(result.record), result.plan, detail));
    case 'start-failed': {
      const failed = result.record.partitions.filter((p) => p.startError);
      const first = failed[0]?.startError;
      if (!first) {
        return sendProblem(res, {
          problem: {
            type: problemType('kafka-unavailable'),
            title: 'Kafka unavailable',
            status: 503,
            detail: result.record.reason ?? 'The reassignment could not be started.',
            instance: inst,
          },
          headers: { 'Retry-After': '5' },
        });
      }
      const mapped = mapKafkaError(first, 'kafka', inst);
      return sendProblem(res, {
        problem: {
          ...mapped.problem,
          detail: `Kafka refused every partition; reassignment ${result.record.id} is failed. ${first.message}`,
          errors: failed.map((p) => ({
            path: `/body/partitions/${result.record.partitions.indexOf(p)}`,
            message: p.startError!.message,
            kafkaError: { name: p.startError!.name, code: p.startError!.code },
          })),
        },
        ...(mapped.headers && { headers: mapped.headers }),
      });
    }
  }
}

/**
 * POST /reassignments, registered before its body parser (app.ts): the start's health read
 * begins as the request arrives, and the route hands it to start(). At 100,000 partitions the
 * body's parse and validation outlast the read, which then costs the POST nothing.
 */
export function reassignmentReadAhead(service: ReassignmentService): RequestHandler {
  return (_req, res, next) => {
    res.locals.startAhead = service.readAhead();
    next();
  };
}

export function reassignmentRoutes({ service }: { service: ReassignmentService }): Router {
  const router = strictRouter();

  // Lean by default (counts, the first external moves): pollers such as the console read it
  // every few seconds. ?detail=true lists every moving partition (~8 MB at 100,000).
  router.get('/reassignments', async (req, res) => {
    const listing = await service.list({ detail: queryFlag(req, 'detail') });
    const body: Schemas['ReassignmentList'] = {
      reassignments: listing.reassignments.map(({ movingCount, moving, ...brief }) => toSummary(brief, movingCount, moving)),
      // Kafka's lists are shared frozen arrays (readonly); the generated schema types are mutable.
      external: listing.external as Schemas['ReassignmentList']['external'],
      externalCount: listing.externalCount,
    };
    await sendJson(res, 200, body);
  });

  router.post('/reassignments', async (req, res) => {
    // validateOnly: the query parameter or the body field (one convention, see validateOnlyOf).
    const vo = validateOnlyOf(req, req.body);
    if ('problem' in vo) return sendProblem(res, vo.problem);
    // The body (a plan answer, the gateway's shape or Kafka's file) made into the service's typed request.
    const parsed = await parseStartRequest(req.body, { validateOnly: vo.validateOnly });
    // Read for the last time: the typed request is what the start uses. At 100,000 partitions
    // the parsed body is ~11 MiB of objects, which the request (and, after the answer, the
    // connection's parser) would otherwise hold through the whole start, the start's peak of
    // live memory (docs/worker-thread.md). The audit line took its summary before the route.
    req.body = undefined;
    const ahead = res.locals.startAhead as StartAhead | undefined;
    const result: StartResult = parsed.ok
      ? await service.start(parsed.request, callerOf(res), ahead ? { ahead } : {})
      : { kind: 'bad-request', errors: parsed.errors };
    await sendStart(req, res, result, service);
  });

  router.get('/reassignments/:id', async (req, res) => {
    const id = param(req, 'id');
    const detail = await service.get(id);
    if (!detail) return notFound(req, res, id);
    await sendJson(res, 200, toReassignment(detail, queryFlag(req, 'detail')));
  });

  router.get('/reassignments/:id/partitions', async (req, res) => {
    const id = param(req, 'id');
    const state = typeof req.query.state === 'string' ? (req.query.state as PartitionState | 'all') : 'all';
    // (The validation middleware has checked the range; it may have coerced it to a number.)
    const limit = req.query.limit === undefined ? 1000 : Number(req.query.limit);
    const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : null;
    const page = await service.partitionsPage(id, { state, limit, cursor });
    if (page.kind === 'not-found') return notFound(req, res, id);
    if (page.kind === 'invalid-cursor') {
      return sendProblem(res, {
        problem: {
          type: problemType('validation-failed'),
          title: 'Request validation failed',
          status: 400,
          detail: 'The cursor is not one this gateway handed out; follow the `next` link of a previous page.',
          instance: instance(req),
          errors: [{ path: '/query/cursor', message: 'unknown cursor' }],
        },
      });
    }
    const next =
      page.next === null
        ? null
        : `/reassignments/${encodeURIComponent(id)}/partitions?${new URLSearchParams({ ...(state !== 'all' && { state }), limit: String(limit), cursor: page.next }).toString()}`;
    // The rows share the records' frozen replica lists (readonly); the generated schema types are mutable.
    const body: Schemas['ReassignmentPartitionPage'] = { items: page.items as Schemas['ReassignmentPartitionPage']['items'], next };
    await sendJson(res, 200, body);
  });

  router.patch('/reassignments/:id', async (req, res) => {
    const id = param(req, 'id');
    const body = req.body as Schemas['ReassignmentPatch'];
    const { patch, errors } = parseSteerFields(body);
    const { concurrency, safety } = patch;
    if (errors.length > 0) {
      return sendProblem(res, {
        problem: {
          type: problemType('validation-failed'),
          title: 'Request validation failed',
          status: 400,
          detail: errors.map((e) => e.message).join(' '),
          instance: instance(req),
          errors: fieldErrors(errors),
        },
      });
    }
    const notRunning = (record: ReassignmentRecord) =>
      sendProblem(res, {
        problem: {
          type: problemType('reassignment-not-running'),
          title: 'Reassignment not running',
          status: 409,
          detail: `Reassignment ${id} is ${record.state}: it can no longer change.`,
          instance: instance(req),
        },
      });
    if (concurrency !== undefined || body.paused !== undefined || safety !== undefined) {
      const steered = await service.steer(id, {
        ...(concurrency !== undefined && { concurrency }),
        ...(body.paused !== undefined && { paused: body.paused }),
        ...(safety !== undefined && { safety }),
      });
      if (steered.kind === 'not-found') return notFound(req, res, id);
      if (steered.kind === 'not-running') return notRunning(steered.record);
    }
    if ('throttle' in body) {
      const result = await service.setThrottle(id, body.throttle ?? null);
      if (result.kind === 'not-found') return notFound(req, res, id);
      if (result.kind === 'not-running') return notRunning(result.record);
      if (result.sync.failures.length > 0) {
        const f = result.sync.failures[0];
        return sendProblem(res, mapKafkaError(f.error, f.error.code === 13 || f.error.code === 7 ? 'unavailable' : 'kafka', instance(req)));
      }
    }
    const detail = await service.get(id);
    if (!detail) return notFound(req, res, id);
    await sendJson(res, 200, toReassignment(detail, false));
  });

  router.delete('/reassignments/:id', async (req, res) => {
    const id = param(req, 'id');
    const result = await service.cancel(
      id,
      { preserveThrottles: queryFlag(req, 'preserveThrottles'), rollback: queryFlag(req, 'rollback') },
      callerOf(res),
    );
    if (result.kind === 'not-found') return notFound(req, res, id);
    const rb = result.rollback;
    if (rb && rb.kind !== 'started') {
      // The cancel happened; the rollback did not: say why, as the rollback's own problem.
      return await sendStart(req, res, rb, service);
    }
    const body: Schemas['ReassignmentCancelled'] = {
      id: result.record.id,
      state: apiState(result.record),
      cancelled: result.cancelled,
      rollback: rb && rb.kind === 'started' ? toAccepted(service.summarize(rb.record), rb.plan, false) : null,
    };
    if (rb && rb.kind === 'started') {
      res.location(`/reassignments/${encodeURIComponent(rb.record.id)}`);
      return sendJson(res, 202, body);
    }
    res.json(body);
  });

  return router;
}
