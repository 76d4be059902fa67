// POST /leaders/elections: HTTP around src/services/leaders.ts (statuses, the API's shapes; the
// body's checks beyond the schema are the service's). Audited like every change (../audit.ts).
import type { Request, Response, Router } from 'express';
import { strictRouter } from '../router.js';
import type { ElectionOutcome, ElectionRequestBody, LeaderElectionService } from '../../services/leaders.js';
import { mapKafkaError } from '../errors.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem } from '../problem.js';
import { instance } from './shared.js';

type Schemas = components['schemas'];

function answer(req: Request, res: Response, outcome: ElectionOutcome): void {
  switch (outcome.kind) {
    case 'ok': {
      const body: Schemas['LeaderElectionResponse'] = {
        type: outcome.type,
        scope: outcome.scope,
        summary: outcome.summary,
        results: outcome.results.map((r) => ({
          topic: r.topic,
          partition: r.partition,
          outcome: r.outcome,
          ...(r.kafkaError && { kafkaError: { name: r.kafkaError.name, code: r.kafkaError.code, message: r.kafkaError.message } }),
        })),
      };
      res.json(body);
      return;
    }
    case 'unknown-topics':
      return sendProblem(res, {
        problem: {
          type: problemType('unknown-topic-or-partition'),
          title: 'Unknown topic or partition',
          status: 404,
          detail: `Unknown topic(s): ${outcome.topics.join(', ')}. Nothing was elected.`,
          instance: instance(req),
          kafkaError: { name: 'UNKNOWN_TOPIC_OR_PARTITION', code: 3 },
          errors: outcome.topics.map((t) => ({ path: '/body/topics', message: `topic ${t} does not exist` })),
        },
      });
    case 'not-supported':
      return sendProblem(res, {
        problem: {
          type: problemType('not-supported'),
          title: 'Elections not available',
          status: 503,
          detail: 'This gateway cannot send ElectLeaders to its Kafka.',
          instance: instance(req),
        },
      });
    case 'kafka-error': {
      const mapped = mapKafkaError(outcome.error, outcome.failure, instance(req));
      const done = outcome.partial.elected;
      if (done > 0) mapped.problem.detail = `${mapped.problem.detail ?? ''} ${done} leader(s) had been elected before.`.trim();
      return sendProblem(res, mapped);
    }
  }
}

export function leaderRoutes({ service }: { service: LeaderElectionService }): Router {
  const router = strictRouter();
  router.post('/leaders/elections', async (req, res) => {
    const outcome = await service.electFromBody(req.body as ElectionRequestBody);
    if (outcome.kind === 'invalid') {
      return sendProblem(res, {
        problem: {
          type: problemType('validation-failed'),
          title: 'Request validation failed',
          status: 400,
          detail: outcome.errors.map((e) => e.message).join('; '),
          instance: instance(req),
          errors: outcome.errors,
        },
      });
    }
    answer(req, res, outcome);
  });
  return router;
}
