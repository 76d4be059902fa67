// /quotas: client quotas (KIP-546 DescribeClientQuotas / AlterClientQuotas), every key
// Kafka knows, controller_mutation_rate (KIP-599) included. Admin only (openapi.yaml).
//
// Shapes: an entity is {user?, clientId?} or {ip} with null = the default entity of that
// type; quota keys are camelCase in JSON (controllerMutationRate = controller_mutation_rate).
// IP entities (KIP-612) take only connectionCreationRate = connection_creation_rate, and
// user / client-id entities cannot take it; Kafka refuses ip combined with user/client-id,
// so the gateway answers those mixes 400 before asking Kafka.
// GET filters like Kafka's DescribeClientQuotas; PUT replaces one entity's quotas (keys
// absent from the body are removed); DELETE removes every quota of exactly one entity.
import { isIP } from 'node:net';
import type { Request, Response, Router } from 'express';
import { strictRouter } from '../router.js';
import {
  IP_QUOTA_KEY,
  type ClientQuotaEntry,
  type ClientQuotaFilter,
  type ClientQuotaService,
  type IpQuotaKey,
  type QuotaEntity,
  type QuotaKey,
} from '../../services/quotas/client-quotas.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem, type ValidationError } from '../problem.js';
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

/** The one quota of an IP entity (QuotaConfigs.ipConfigs). */
export const IP_QUOTA_FIELD: readonly [QuotaField, IpQuotaKey] = ['connectionCreationRate', IP_QUOTA_KEY];

/** The JSON fields an entity may carry: IP entities one, user / client-id entities the four others. */
function fieldsFor(entity: QuotaEntity): ReadonlyArray<readonly [QuotaField, QuotaKey | IpQuotaKey]> {
  return entity.ip !== undefined ? [IP_QUOTA_FIELD] : QUOTA_FIELDS;
}

function toBody(entry: ClientQuotaEntry): ClientQuotaBody {
  const body: ClientQuotaBody = { entity: toEntityBody(entry.entity) };
  for (const [field, key] of fieldsFor(entry.entity)) {
    const v = entry.values[key];
    if (v !== undefined) body[field] = v;
  }
  return body;
}

function toEntityBody(entity: QuotaEntity): Schemas['QuotaEntity'] {
  return {
    ...(entity.user !== undefined && { user: entity.user }),
    ...(entity.clientId !== undefined && { clientId: entity.clientId }),
    ...(entity.ip !== undefined && { ip: entity.ip }),
  };
}

/**
 * 400 details for an ip entity mixed with user / client-id (Kafka refuses it) or an ip that
 * is not an IPv4/IPv6 address (Kafka would try to resolve it as a host name).
 */
function ipMixErrors(entity: QuotaEntity, path: string): ValidationError[] {
  if (entity.ip === undefined) return [];
  if (entity.user !== undefined || entity.clientId !== undefined) {
    return [{ path, message: 'an ip entity cannot be combined with user or clientId (Kafka refuses the combination)' }];
  }
  if (entity.ip !== null && isIP(entity.ip) === 0) return [{ path, message: 'must be an IPv4 or IPv6 address' }];
  return [];
}

function badRequest(req: Request, res: Response, detail: string, errors: ValidationError[]): void {
  sendProblem(res, {
    problem: {
      type: problemType('validation-failed'),
      title: 'Request validation failed',
      status: 400,
      detail,
      instance: instance(req),
      errors,
    },
  });
}

/**
 * The entity named by ?user / ?defaultUser / ?clientId / ?defaultClientId. A name and the
 * default flag of the same type exclude each other (400). Undefined fields = not named.
 */
function entityFromQuery(req: Request): {
  entity: { user?: string | null; clientId?: string | null; ip?: string | null };
  errors: ValidationError[];
} {
  const q = req.query as Record<string, unknown>;
  const errors: ValidationError[] = [];
  const entity: { user?: string | null; clientId?: string | null; ip?: string | null } = {};
  for (const [field, flag] of [
    ['user', 'defaultUser'],
    ['clientId', 'defaultClientId'],
    ['ip', 'defaultIp'],
  ] as const) {
    const name = typeof q[field] === 'string' ? q[field] : undefined;
    const isDefault = queryFlag(req, flag);
    if (name !== undefined && isDefault)
      errors.push({ path: `/query/${flag}`, message: `must not be combined with ${field}: name one ${field} entity or the default one` });
    else if (name !== undefined) entity[field] = name;
    else if (isDefault) entity[field] = null;
  }
  errors.push(...ipMixErrors(entity, '/query/ip'));
  return { entity, errors };
}

export function quotaRoutes({ quotas }: { quotas: ClientQuotaService }): Router {
  const router = strictRouter();

  router.get('/quotas', async (req, res) => {
    const { entity, errors } = entityFromQuery(req);
    if (errors.length > 0) return badRequest(req, res, 'Conflicting entity filters.', errors);
    const filter: ClientQuotaFilter = { ...entity, strict: queryFlag(req, 'strict') };
    const entries = await quotas.describe(filter);
    const body: Schemas['ClientQuotaList'] = { quotas: entries.map(toBody) };
    res.json(body);
  });

  router.put('/quotas', async (req, res) => {
    const body = req.body as ClientQuotaBody;
    const entity: QuotaEntity = {
      ...(body.entity.user !== undefined && { user: body.entity.user }),
      ...(body.entity.clientId !== undefined && { clientId: body.entity.clientId }),
      ...(body.entity.ip !== undefined && { ip: body.entity.ip }),
    };
    const errors = ipMixErrors(entity, '/body/entity/ip');
    const allowed = new Set(fieldsFor(entity).map(([field]) => field));
    for (const [field] of [...QUOTA_FIELDS, IP_QUOTA_FIELD]) {
      if (body[field] !== undefined && !allowed.has(field)) {
        errors.push({
          path: `/body/${field}`,
          message:
            entity.ip !== undefined ? 'an ip entity takes only connectionCreationRate' : 'connectionCreationRate is for ip entities only',
        });
      }
    }
    if (errors.length > 0) return badRequest(req, res, 'This entity cannot take these quotas.', errors);
    const set: Partial<Record<QuotaKey | IpQuotaKey, number>> = {};
    const remove: Array<QuotaKey | IpQuotaKey> = [];
    for (const [field, key] of fieldsFor(entity)) {
      const v = body[field];
      if (v === undefined) remove.push(key);
      else set[key] = v;
    }
    const validateOnly = queryFlag(req, 'validateOnly');
    await quotas.alter(entity, set, remove, validateOnly);
    res.json(toBody({ entity, values: set }));
  });

  router.delete('/quotas', async (req, res) => {
    const { entity, errors } = entityFromQuery(req);
    if (errors.length > 0) return badRequest(req, res, 'Conflicting entity parameters.', errors);
    if (entity.user === undefined && entity.clientId === undefined && entity.ip === undefined) {
      return badRequest(req, res, 'Name the entity whose quotas to remove.', [
        { path: '/query', message: 'one of user, defaultUser, clientId, defaultClientId, ip, defaultIp is required' },
      ]);
    }
    await quotas.remove(
      entity,
      fieldsFor(entity).map(([, key]) => key),
    );
    res.status(204).end();
  });

  return router;
}
