// /topics/{topic}/configs and /brokers/{broker}/configs: read every config with its source
// and synonyms, change the resource's own level (SET / DELETE). HTTP around
// src/services/configs.ts: parse, call, map the outcome.
import type { Request, Response, Router } from 'express';
import { strictRouter } from '../router.js';
import type { AlterOutcome, ConfigLevel, ConfigResource, DescribedConfig, TopicConfigService } from '../../services/configs.js';
import { mapKafkaError } from '../errors.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem } from '../problem.js';
import { instance, param, validateOnlyOf } from './shared.js';
import { noProtectedTopics, protectedTopicProblem, type ProtectedTopics } from './protected-topics.js';

type Schemas = components['schemas'];

/** Where the gateway manages each level's throttle keys instead. */
const THROTTLES_PATH: Record<ConfigLevel, string> = { topic: '/throttles/replicas', broker: '/throttles/rates' };

function toConfig(c: DescribedConfig): Schemas['ResourceConfig'] {
  return {
    name: c.name,
    value: c.value,
    source: c.source,
    isSensitive: c.isSensitive,
    isReadOnly: c.isReadOnly,
    synonyms: c.synonyms.map((s) => ({ name: s.name, value: s.value, source: s.source })),
  };
}

/** ?includeDefaults: true unless the URL says false (the validator has checked the value). */
function includeDefaults(req: Request): boolean {
  return new URL(req.originalUrl, 'http://gateway').searchParams.get('includeDefaults') !== 'false';
}

function brokerNotFound(res: Response, req: Request, broker: string) {
  return sendProblem(res, {
    problem: {
      type: problemType('broker-not-found'),
      title: 'Broker not found',
      status: 404,
      detail: `The cluster has no broker ${broker}.`,
      instance: instance(req),
    },
  });
}

function answerAlter(req: Request, res: Response, kind: ConfigLevel, outcome: AlterOutcome) {
  switch (outcome.kind) {
    case 'ok': {
      const body: Schemas['ConfigsChanged'] = { validateOnly: outcome.validateOnly, configs: outcome.configs.map(toConfig) };
      return res.json(body);
    }
    case 'gateway-owned':
      return sendProblem(res, {
        problem: {
          type: problemType('gateway-managed-config'),
          title: 'Config managed by the gateway',
          status: 409,
          detail: `${outcome.keys.join(', ')} ${outcome.keys.length === 1 ? 'is a replication throttle' : 'are replication throttles'} the gateway manages (it records who set what and restores prior values): change ${outcome.keys.length === 1 ? 'it' : 'them'} with ${THROTTLES_PATH[kind]}. Nothing was changed.`,
          instance: instance(req),
          errors: outcome.keys.map((k) => ({ path: '/body', message: `${k}: use ${THROTTLES_PATH[kind]}` })),
        },
      });
    case 'set-and-deleted':
      return sendProblem(res, {
        problem: {
          type: problemType('validation-failed'),
          title: 'Request validation failed',
          status: 400,
          detail: 'A config cannot be both set and deleted in one request.',
          instance: instance(req),
          errors: outcome.keys.map((k) => ({ path: '/body/delete', message: `'${k}' is also in /body/set` })),
        },
      });
    case 'broker-not-found':
      return brokerNotFound(res, req, outcome.broker);
    case 'kafka-error':
      return sendProblem(res, mapKafkaError(outcome.error, 'kafka', instance(req)));
  }
}

export function configRoutes({
  service,
  protectedTopics = noProtectedTopics,
}: {
  service: TopicConfigService;
  protectedTopics?: ProtectedTopics;
}): Router {
  const router = strictRouter();

  const describe = async (req: Request, res: Response, resource: ConfigResource) => {
    const outcome = await service.describe(resource, { includeDefaults: includeDefaults(req) });
    if (outcome.kind === 'broker-not-found') return brokerNotFound(res, req, outcome.broker);
    const body: Schemas['ResourceConfigs'] = { configs: outcome.configs.map(toConfig) };
    res.json(body);
  };

  const alter = async (req: Request, res: Response, resource: ConfigResource) => {
    const body = req.body as Schemas['ConfigChangeRequest'];
    const vo = validateOnlyOf(req, body);
    if ('problem' in vo) return sendProblem(res, vo.problem);
    const change = { set: body.set ?? {}, delete: body.delete ?? [] };
    answerAlter(req, res, resource.kind, await service.alter(resource, change, vo.validateOnly));
  };

  router.get('/topics/:topic/configs', (req, res) => describe(req, res, { kind: 'topic', name: param(req, 'topic') }));
  router.patch('/topics/:topic/configs', async (req, res) => {
    const name = param(req, 'topic');
    // The state topic must stay compacted, with the retention the gateway chose.
    if (protectedTopics.has(name)) return sendProblem(res, protectedTopicProblem(name, 'configure', instance(req)));
    await alter(req, res, { kind: 'topic', name });
  });
  // The validator has checked an integer >= 0; Kafka names a broker resource by its decimal id ("01" is not one).
  const broker = (req: Request): ConfigResource => ({ kind: 'broker', name: String(Number(param(req, 'broker'))) });
  router.get('/brokers/:broker/configs', (req, res) => describe(req, res, broker(req)));
  router.patch('/brokers/:broker/configs', (req, res) => alter(req, res, broker(req)));
  return router;
}
