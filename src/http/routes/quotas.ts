// /quotas: client quotas (KIP-546 DescribeClientQuotas / AlterClientQuotas), every key
// Kafka knows, controller_mutation_rate (KIP-599) included. Admin only (openapi.yaml).
//
// Shapes: an entity is {user?, clientId?} with null = the default entity of that type;
// quota keys are camelCase in JSON (controllerMutationRate = controller_mutation_rate).
// GET filters like Kafka's DescribeClientQuotas; PUT replaces one entity's quotas (keys
// absent from the body are removed); DELETE removes every quota of exactly one entity.
import { Router, type Request, type Response } from 'express';
import type { QuotaKey } from '../../domain/quota-entity.js';
import type { ClientQuotaAdmin, ClientQuotaEntry, ClientQuotaFilter, QuotaEntity } from '../../kafka/quotas.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem, type ValidationError } from '../problem.js';
import type { MutationGuard } from '../quota/mutation-guard.js';
import { instance, queryFlag } from './shared.js';

type Schemas = components['schemas'];
type ClientQuotaBody = Schemas['ClientQuota'];
type QuotaField = Exclude<keyof ClientQuotaBody, 'entity'>;

/** JSON field <-> Kafka quota key; every client quota key Kafka has (QuotaConfigs). */
export const QUOTA_FIELDS: ReadonlyArray<readonly [QuotaField, QuotaKey]> = [
  ['producerByteRate', 'producer_byte_rate'],
  ['consumerByteRate', 'consumer_byte_rate'],
  ['requestPercentage', 'request_percentage'],
  ['controllerMutationRate', 'controller_mutation_rate'],
];

function toBody(entry: ClientQuotaEntry): ClientQuotaBody {
  const body: ClientQuotaBody = { entity: toEntityBody(entry.entity) };
  for (const [field, key] of QUOTA_FIELDS) {
    const v = entry.values[key];
    if (v !== undefined) body[field] = v;
  }
  return body;
}

function toEntityBody(entity: QuotaEntity): Schemas['QuotaEntity'] {
  return { ...(entity.user !== undefined && { user: entity.user }), ...(entity.clientId !== undefined && { clientId: entity.clientId }) };
}

function badRequest(req: Request, res: Response, detail: string, errors: ValidationError[]): void {
  sendProblem(res, { problem: { type: problemType('validation-failed'), title: 'Request validation failed', status: 400, detail, instance: instance(req), errors } });
}

/**
 * The entity named by ?user / ?defaultUser / ?clientId / ?defaultClientId. A name and the
 * default flag of the same type exclude each other (400). Undefined fields = not named.
 */
function entityFromQuery(req: Request): { entity: { user?: string | null; clientId?: string | null }; errors: ValidationError[] } {
  const q = req.query as Record<string, unknown>;
  const errors: ValidationError[] = [];
  const entity: { user?: string | null; clientId?: string | null } = {};
  for (const [field, flag] of [['user', 'defaultUser'], ['clientId', 'defaultClientId']] as const) {
    const name = typeof q[field] === 'string' ? (q[field] as string) : undefined;
    const isDefault = queryFlag(req, flag);
    if (name !== undefined && isDefault) errors.push({ path: `/query/${flag}`, message: `must not be combined with ${field}: name one ${field} entity or the default one` });
    else if (name !== undefined) entity[field] = name;
    else if (isDefault) entity[field] = null;
  }
  return { entity, errors };
}

export function quotaRoutes({ quotas, mutations }: { quotas: ClientQuotaAdmin; mutations: MutationGuard }): Router {
  const router = Router();

  router.get('/quotas', async (req, res) => {
    const { entity, errors } = entityFromQuery(req);
    if (errors.length > 0) return badRequest(req, res, 'Conflicting entity filters.', errors);
    const filter: ClientQuotaFilter = { ...entity, strict: queryFlag(req, 'strict') };
    const entries = await quotas.describeClientQuotas(filter);
    const body: Schemas['ClientQuotaList'] = { quotas: entries.map(toBody) };
    res.json(body);
  });

  router.put('/quotas', async (req, res) => {
    const body = req.body as ClientQuotaBody;
    const entity: QuotaEntity = {
      ...(body.entity.user !== undefined && { user: body.entity.user }),
      ...(body.entity.clientId !== undefined && { clientId: body.entity.clientId }),
    };
    const set: Partial<Record<QuotaKey, number>> = {};
    const remove: QuotaKey[] = [];
    for (const [field, key] of QUOTA_FIELDS) {
      const v = body[field];
      if (v === undefined) remove.push(key);
      else set[key] = v;
    }
    const validateOnly = queryFlag(req, 'validateOnly');
    await quotas.alterClientQuota({ entity, set, remove }, { validateOnly });
    if (!validateOnly) mutations.brokerPolicy.invalidate();
    res.json(toBody({ entity, values: set }));
  });

  router.delete('/quotas', async (req, res) => {
    const { entity, errors } = entityFromQuery(req);
    if (errors.length > 0) return badRequest(req, res, 'Conflicting entity parameters.', errors);
    if (entity.user === undefined && entity.clientId === undefined) {
      return badRequest(req, res, 'Name the entity whose quotas to remove.', [
        { path: '/query', message: 'one of user, defaultUser, clientId, defaultClientId is required' },
      ]);
    }
    await quotas.alterClientQuota({ entity, set: {}, remove: QUOTA_FIELDS.map(([, key]) => key) });
    mutations.brokerPolicy.invalidate();
    res.status(204).end();
  });

  return router;
}
