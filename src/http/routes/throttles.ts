// /throttles: every replication throttle with its owner; set rates / throttled replicas as
// gateway-owned (optionally self-removing); remove them. Logic in src/services/throttles.ts.
import type { Request, Router } from 'express';
import { strictRouter } from '../router.js';
import type { SetResult, ThrottleService, ThrottlesView } from '../../services/throttles.js';
import { sendJson } from '../json-slices.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem } from '../problem.js';
import { callerOf } from './reassignments.js';
import { instance, queryFlag } from './shared.js';

type Schemas = components['schemas'];

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A topic's lists are answered up to this many entries (both lists together), or with ?detail=true. */
const LISTS_SHOWN_MAX_ENTRIES = 1000;

/**
 * The API's shape. Lean unless `detail`: a topic's lists (the config values and gatewayEntries)
 * only up to LISTS_SHOWN_MAX_ENTRIES, counted always: at 100,000 moving partitions every list
 * is ~5.7 MB, and the console polls this every 2 s.
 */
export function toThrottles(v: ThrottlesView, detail = false): Schemas['Throttles'] {
  return {
    rates: v.rates.map((r) => ({ ...r, expiresAt: iso(r.expiresAt) })),
    replicas: v.replicas.map(({ leader, follower, gatewayEntries, ...r }) => ({
      ...r,
      expiresAt: iso(r.expiresAt),
      // gatewayEntries' lists are the ownership memo's frozen arrays (read-only); the generated schema types are mutable.
      ...((detail || (r.leaderEntries ?? 0) + (r.followerEntries ?? 0) <= LISTS_SHOWN_MAX_ENTRIES) && {
        leader,
        follower,
        gatewayEntries: gatewayEntries as { leader: string[]; follower: string[] },
      }),
    })),
  };
}

/** A comma-separated query list (already pattern-checked by the validator); null when absent. */
function listParam(req: Request, name: string): string[] | null {
  const v: unknown = (req.query as Record<string, unknown>)[name];
  const items = Array.isArray(v) ? v.map(String) : typeof v === 'string' && v !== '' ? v.split(',') : null;
  return items && [...new Set(items)];
}

export function throttleRoutes({ service }: { service: ThrottleService }): Router {
  const router = strictRouter();

  const answerSet = (req: Request, res: import('express').Response, result: SetResult) => {
    const detail = 'Nothing was changed; see errors.';
    switch (result.kind) {
      case 'unknown-resource':
        return sendProblem(res, {
          problem: {
            type: problemType('unknown-topic-or-partition'),
            title: 'Unknown topic or partition',
            status: 404,
            detail,
            instance: instance(req),
            errors: result.errors,
          },
        });
      case 'invalid':
        return sendProblem(res, {
          problem: {
            type: problemType('invalid-throttle'),
            title: 'Invalid throttle',
            status: 422,
            detail,
            instance: instance(req),
            errors: result.errors,
          },
        });
      case 'nothing-moving':
        return sendProblem(res, {
          problem: {
            type: problemType('nothing-moving'),
            title: 'Nothing is moving',
            status: 409,
            detail:
              'autoRemove removes the throttle when the reassignments in progress have finished, and none is in progress now. Nothing was changed. Use ttlSeconds to remove it after a given time, or no option to keep it until DELETE.',
            instance: instance(req),
            errors: [{ path: '/body/autoRemove', message: 'No reassignment is in progress: use ttlSeconds instead.' }],
          },
        });
      case 'ok': {
        const body: Schemas['ThrottlesSet'] = { id: result.id, throttles: toThrottles(result.view) };
        return sendJson(res, 200, body);
      }
    }
  };

  // Answers of every throttle are large at scale (100 topics with 3,000-entry lists: ~5.7 MB):
  // serialized in slices (json-slices.ts), the same bytes as res.json.
  router.get('/throttles', async (req, res) => {
    await sendJson(res, 200, toThrottles(await service.list(), queryFlag(req, 'detail')));
  });

  router.put('/throttles/rates', async (req, res) => {
    const body = req.body as Schemas['ThrottleRatesRequest'];
    const opts = { autoRemove: body.autoRemove ?? false, ttlSeconds: body.ttlSeconds ?? null };
    await answerSet(req, res, await service.setRates(body.rates, opts, callerOf(res)));
  });

  router.put('/throttles/replicas', async (req, res) => {
    const body = req.body as Schemas['ThrottleReplicasRequest'];
    const opts = { autoRemove: body.autoRemove ?? false, ttlSeconds: body.ttlSeconds ?? null };
    await answerSet(req, res, await service.setReplicas(body.replicas, opts, callerOf(res)));
  });

  // Recovery after the state topic was lost: dry run unless dryRun=false.
  router.delete('/throttles/orphaned', async (req, res) => {
    const v: unknown = (req.query as Record<string, unknown>).dryRun;
    const dryRun = !(v === false || v === 'false');
    await sendJson(res, 200, await service.cleanupOrphans(dryRun));
  });

  router.delete('/throttles/rates', async (req, res) => {
    await sendJson(res, 200, toThrottles(await service.remove('rates', listParam(req, 'brokers'), queryFlag(req, 'includeExternal'))));
  });

  router.delete('/throttles/replicas', async (req, res) => {
    await sendJson(res, 200, toThrottles(await service.remove('replicas', listParam(req, 'topics'), queryFlag(req, 'includeExternal'))));
  });

  return router;
}
