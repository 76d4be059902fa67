// Multi-topic deletion (DELETE /topics?name=a&name=b) and partition increases
// (POST /partitions): one Kafka request each, answered per topic like POST /topics with
// an array (src/http/batch.ts), each throttled topic with its own Retry-After.
import { Router, type Response } from 'express';
import type { KafkaGateway } from '../../kafka/types.js';
import { aggregateItems, failedItem, type BatchAnswer, type BatchItem, type ItemAnswer } from '../batch.js';
import { mapKafkaError } from '../errors.js';
import type { components } from '../openapi-types.js';
import { sendProblem } from '../problem.js';
import type { MutationGuard } from '../quota/mutation-guard.js';
import { instance, queryFlag } from './shared.js';
import { createPartitionsMutation, deleteTopicsMutation } from './topic-mutations.js';

type Schemas = components['schemas'];

/** A validated repeated query parameter: Express gives a string for one value, an array for several. */
function queryList(query: unknown, name: string): string[] {
  const v = (query as Record<string, unknown>)[name];
  if (Array.isArray(v)) return v.map(String);
  return v === undefined ? [] : [String(v)];
}

function send<R extends BatchItem>(res: Response, answer: BatchAnswer<R>): void {
  if (answer.kind === 'problem') return sendProblem(res, { problem: answer.body, ...(answer.headers && { headers: answer.headers }) });
  res.status(answer.status).json(answer.body);
}

export function topicBatchRoutes({ kafka, mutations }: { kafka: KafkaGateway; mutations: MutationGuard }): Router {
  const router = Router();

  router.delete('/topics', async (req, res) => {
    const names = queryList(req.query, 'name');
    const results = await mutations.run(req, res, kafka, deleteTopicsMutation(names));
    const answers = results.map(
      (r): ItemAnswer<Schemas['TopicItemDeleted'] | Schemas['TopicItemFailed']> =>
        r.ok ? { result: { name: r.name, status: 200 } } : failedItem(r.name, mapKafkaError(r.error, 'kafka')),
    );
    send(res, aggregateItems(answers, 200, instance(req)));
  });

  router.post('/partitions', async (req, res) => {
    const body = req.body as Schemas['PartitionIncreaseBatchRequest'];
    const validateOnly = queryFlag(req, 'validateOnly');
    const increases = body.map((i) => ({ topic: i.topic, count: i.count, ...(i.assignments !== undefined && { assignments: i.assignments }) }));
    const results = await mutations.run(req, res, kafka, createPartitionsMutation(increases, validateOnly));
    const countOf = new Map(increases.map((i) => [i.topic, i.count]));
    const answers = results.map(
      (r): ItemAnswer<Schemas['PartitionIncreaseItemSucceeded'] | Schemas['TopicItemFailed']> =>
        r.ok
          ? { result: { name: r.name, status: 200, partitions: countOf.get(r.name)!, validateOnly } }
          : failedItem(r.name, mapKafkaError(r.error, 'kafka')),
    );
    send(res, aggregateItems(answers, 200, instance(req)));
  });

  return router;
}
