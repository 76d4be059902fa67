// Multi-topic deletion (DELETE /topics?name=a&name=b) and partition increases
// (POST /partitions): one Kafka request each, answered per topic like POST /topics with
// an array (src/http/batch.ts), each throttled topic with its own Retry-After.
import type { Response, Router } from 'express';
import { strictRouter } from '../router.js';
import type { PartitionService } from '../../services/partitions.js';
import type { TopicService } from '../../services/topics.js';
import { aggregateItems, failedItem, type BatchAnswer, type BatchItem, type ItemAnswer } from '../batch.js';
import { mapKafkaError } from '../errors.js';
import type { components } from '../openapi-types.js';
import { sendProblem } from '../problem.js';
import type { MutationGuard } from '../quota/mutation-guard.js';
import { instance, queryFlag } from './shared.js';
import { noProtectedTopics, protectedTopicProblem, type ProtectedTopics } from './protected-topics.js';

type Schemas = components['schemas'];

/** A validated repeated query parameter: Express gives a string for one value, an array for several. */
function queryList(query: unknown, name: string): string[] {
  // Validated against the spec before the route runs: a string or an array of strings.
  const v = (query as Record<string, string | string[] | undefined>)[name];
  if (Array.isArray(v)) return v.map(String);
  return v === undefined ? [] : [v];
}

function send<R extends BatchItem>(res: Response, answer: BatchAnswer<R>): void {
  if (answer.kind === 'problem') return sendProblem(res, { problem: answer.body, ...(answer.headers && { headers: answer.headers }) });
  res.status(answer.status).json(answer.body);
}

export function topicBatchRoutes({
  topics,
  partitions,
  mutations,
  protectedTopics = noProtectedTopics,
}: {
  topics: TopicService;
  partitions: PartitionService;
  mutations: MutationGuard;
  protectedTopics?: ProtectedTopics;
}): Router {
  const router = strictRouter();

  router.delete('/topics', async (req, res) => {
    const all = queryList(req.query, 'name');
    // The state topic is refused on its own (409); the others go to Kafka.
    const names = all.filter((n) => !protectedTopics.has(n));
    const results = names.length ? await mutations.run(req, res, 'DeleteTopics', (call) => topics.delete(call, names)) : [];
    if (res.headersSent) return;
    const answers = results.map((r): ItemAnswer<Schemas['TopicItemDeleted'] | Schemas['TopicItemFailed']> =>
      r.ok ? { result: { name: r.name, status: 200 } } : failedItem(r.name, mapKafkaError(r.error, 'kafka')),
    );
    const byName = new Map(answers.map((a, i) => [names[i], a]));
    const ordered = all.map((n) => (protectedTopics.has(n) ? failedItem(n, protectedTopicProblem(n, 'delete')) : byName.get(n)!));
    send(res, aggregateItems(ordered, 200, instance(req)));
  });

  router.post('/partitions', async (req, res) => {
    const body = req.body as Schemas['PartitionIncreaseBatchRequest'];
    const validateOnly = queryFlag(req, 'validateOnly');
    const increases = body
      .filter((i) => !protectedTopics.has(i.topic))
      .map((i) => ({ topic: i.topic, count: i.count, ...(i.assignments !== undefined && { assignments: i.assignments }) }));
    const results = increases.length
      ? await mutations.run(req, res, 'CreatePartitions', (call) => partitions.increase(call, increases, validateOnly))
      : [];
    if (res.headersSent) return;
    const countOf = new Map(increases.map((i) => [i.topic, i.count]));
    const answers = results.map((r): ItemAnswer<Schemas['PartitionIncreaseItemSucceeded'] | Schemas['TopicItemFailed']> =>
      r.ok
        ? { result: { name: r.name, status: 200, partitions: countOf.get(r.name)!, validateOnly } }
        : failedItem(r.name, mapKafkaError(r.error, 'kafka')),
    );
    const byTopic = new Map(answers.map((a, i) => [increases[i].topic, a]));
    const ordered = body.map((i) =>
      protectedTopics.has(i.topic) ? failedItem(i.topic, protectedTopicProblem(i.topic, 'alter')) : byTopic.get(i.topic)!,
    );
    send(res, aggregateItems(ordered, 200, instance(req)));
  });

  return router;
}
