// /topics: list, create (one or many), describe, delete, add partitions.
import type { Response, Router } from 'express';
import { strictRouter } from '../router.js';
import type {
  CreatedTopic as KafkaCreatedTopic,
  NewTopic,
  TopicDescription,
  TopicService,
  TopicSummary as KafkaTopicSummary,
} from '../../services/topics.js';
import type { PartitionService } from '../../services/partitions.js';
import { aggregateItems, failedItem, type ItemAnswer } from '../batch.js';
import { mapKafkaError } from '../errors.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem, type ValidationError } from '../problem.js';
import type { MutationGuard } from '../quota/mutation-guard.js';
import { instance, param, queryFlag, validateOnlyOf } from './shared.js';
import { noProtectedTopics, protectedTopicProblem, type ProtectedTopics } from './protected-topics.js';

type Schemas = components['schemas'];
type NewTopicBody = Schemas['NewTopic'];

function toTopicSummary(t: KafkaTopicSummary): Schemas['TopicSummary'] {
  return { name: t.name, topicId: t.topicId, partitions: t.partitions, replicationFactor: t.replicationFactor, internal: t.internal };
}

function toCreatedTopic(t: KafkaCreatedTopic): Schemas['CreatedTopic'] {
  return { name: t.name, topicId: t.topicId, partitions: t.partitions, replicationFactor: t.replicationFactor };
}

function toTopic(t: TopicDescription): Schemas['Topic'] {
  return {
    name: t.name,
    topicId: t.topicId,
    internal: t.internal,
    partitions: [...t.partitions]
      .sort((a, b) => a.partition - b.partition)
      .map((p) => ({ partition: p.partition, leader: p.leader, replicas: p.replicas, isr: p.isr, offlineReplicas: p.offlineReplicas })),
    configs: [...t.configs]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((c) => ({
        name: c.name,
        value: c.value,
        source: c.source,
        isDefault: c.isDefault,
        readOnly: c.readOnly,
        sensitive: c.sensitive,
      })),
  };
}

function toNewTopic(b: NewTopicBody): NewTopic {
  return {
    name: b.name,
    ...(b.partitions !== undefined && { partitions: b.partitions }),
    ...(b.replicationFactor !== undefined && { replicationFactor: b.replicationFactor }),
    ...(b.assignments !== undefined && { assignments: b.assignments }),
    ...(b.configs !== undefined && { configs: b.configs }),
  };
}

/**
 * Kafka answers a CreateTopics with a repeated name by failing every copy with
 * INVALID_REQUEST, and JSON Schema cannot express "unique by name". It is a malformed
 * request, so it is a 400 before Kafka is asked.
 */
function duplicateNameErrors(topics: NewTopicBody[], arrayBody: boolean): ValidationError[] {
  const firstIndex = new Map<string, number>();
  const errors: ValidationError[] = [];
  topics.forEach((t, i) => {
    const first = firstIndex.get(t.name);
    if (first === undefined) firstIndex.set(t.name, i);
    else
      errors.push({
        path: arrayBody ? `/body/${i}/name` : '/body/name',
        message: `duplicate topic name '${t.name}' (first at /body/${first}/name)`,
      });
  });
  return errors;
}

export interface TopicRouteOptions {
  topics: TopicService;
  partitions: PartitionService;
  /** Every topic creation/deletion/partition increase goes through the quota guard (issue 4). */
  mutations: MutationGuard;
  protectedTopics?: ProtectedTopics;
  /**
   * GET /topics/{name} sends each description's bytes and ETag made once (TopicAnswers); off
   * where response validation is on (tests), which checks answers given through res.json.
   */
  answersMadeOnce?: boolean;
}

/**
 * GET /topics/{name}'s answer as bytes, with its ETag, made once per description. A description
 * read within TOPIC_READ_MAX_AGE_MS is the same object answered again (src/services/topics.ts),
 * and res.json serialized it (9 % of the gateway's CPU for this route in a profile of
 * bench:overhead) and hashed the bytes for the ETag (8 %) on every request. Keyed by the
 * description: kept while the recent read holds it, no longer.
 */
class TopicAnswers {
  readonly #answers = new WeakMap<TopicDescription, { bytes: Buffer; etag: string | undefined }>();

  /** Sends the answer to `t`, made by `body` the first time. */
  send(res: Response, t: TopicDescription, body: () => Schemas['Topic']): void {
    let answer = this.#answers.get(t);
    if (!answer) {
      const bytes = Buffer.from(JSON.stringify(body()));
      // The app's own ETag function, as res.send would call it on these bytes.
      const etagOf = res.app.get('etag fn') as ((body: Buffer) => string | undefined) | undefined;
      answer = { bytes, etag: typeof etagOf === 'function' ? etagOf(bytes) : undefined };
      this.#answers.set(t, answer);
    }
    // What res.json's res.send does with the string it makes: the type with its charset, then
    // Content-Length, freshness (304) and HEAD by res.send itself; the ETag is already there.
    res.set('Content-Type', 'application/json; charset=utf-8');
    if (answer.etag) res.set('ETag', answer.etag);
    res.send(answer.bytes);
  }
}

export function topicRoutes({
  topics: service,
  partitions,
  mutations,
  protectedTopics = noProtectedTopics,
  answersMadeOnce = false,
}: TopicRouteOptions): Router {
  const router = strictRouter();
  const answers = answersMadeOnce ? new TopicAnswers() : null;

  router.get('/topics', async (req, res) => {
    const topics = await service.list();
    // The gateway's own state topic is internal: hidden unless asked for.
    const withInternal = queryFlag(req, 'internal');
    const body: Schemas['TopicList'] = {
      topics: topics
        .map((t) => (protectedTopics.has(t.name) ? { ...t, internal: true } : t))
        .filter((t) => withInternal || !protectedTopics.has(t.name))
        .map(toTopicSummary)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    };
    res.json(body);
  });

  router.post('/topics', async (req, res) => {
    const body = req.body as Schemas['CreateTopicsRequest'];
    const validateOnly = queryFlag(req, 'validateOnly');
    const inst = instance(req);
    const arrayBody = Array.isArray(body);
    const topics = arrayBody ? body : [body];

    const dupes = duplicateNameErrors(topics, arrayBody);
    if (dupes.length > 0) {
      return sendProblem(res, {
        problem: {
          type: problemType('validation-failed'),
          title: 'Request validation failed',
          status: 400,
          detail: 'Topic names must be unique within a request.',
          instance: inst,
          errors: dupes,
        },
      });
    }

    const results = await mutations.run(req, res, 'CreateTopics', (call) => service.create(call, topics.map(toNewTopic), validateOnly));
    const byName = new Map(results.map((r) => [r.name, r]));
    const successStatus = validateOnly ? 200 : 201;

    const answers: ItemAnswer[] = topics.map(({ name }) => {
      const r = byName.get(name);
      if (!r) throw new Error(`Kafka layer returned no result for topic '${name}'`);
      return r.ok
        ? // validateOnly: Kafka answers a random id for a topic it did not create; report none.
          { result: { name, status: successStatus, topic: toCreatedTopic(validateOnly ? { ...r.value, topicId: null } : r.value) } }
        : failedItem(name, mapKafkaError(r.error, 'kafka'));
    });

    if (!arrayBody) {
      // One topic: a plain REST answer, no batch envelope.
      const only = answers[0].result;
      if ('problem' in only) {
        return sendProblem(res, {
          problem: { ...only.problem, instance: inst },
          ...(answers[0].retryAfter !== undefined && { headers: { 'Retry-After': String(answers[0].retryAfter) } }),
        });
      }
      if (!validateOnly) res.location(`/topics/${encodeURIComponent(only.name)}`);
      return res.status(successStatus).json(only.topic);
    }

    const answer = aggregateItems(answers, successStatus, inst);
    if (answer.kind === 'problem') return sendProblem(res, { problem: answer.body, ...(answer.headers && { headers: answer.headers }) });
    res.status(answer.status).json(answer.body);
  });

  router.get('/topics/:topic', async (req, res) => {
    const name = param(req, 'topic');
    const t = await service.describe(name);
    const body = () => toTopic(protectedTopics.has(name) ? { ...t, internal: true } : t);
    if (answers) return answers.send(res, t, body);
    res.json(body());
  });

  router.delete('/topics/:topic', async (req, res) => {
    const name = param(req, 'topic');
    if (protectedTopics.has(name)) return sendProblem(res, protectedTopicProblem(name, 'delete', instance(req)));
    const [result] = await mutations.run(req, res, 'DeleteTopics', (call) => service.delete(call, [name]));
    if (!result) throw new Error(`Kafka layer returned no result for topic '${name}'`);
    if (!result.ok) return sendProblem(res, mapKafkaError(result.error, 'kafka', instance(req)));
    res.status(204).end();
  });

  router.post('/topics/:topic/partitions', async (req, res) => {
    const topic = param(req, 'topic');
    if (protectedTopics.has(topic)) return sendProblem(res, protectedTopicProblem(topic, 'alter', instance(req)));
    const body = req.body as Schemas['PartitionIncreaseRequest'];
    const vo = validateOnlyOf(req, body);
    if ('problem' in vo) return sendProblem(res, vo.problem);
    const { validateOnly } = vo;
    const [result] = await mutations.run(req, res, 'CreatePartitions', (call) =>
      partitions.increase(
        call,
        [{ topic, count: body.count, ...(body.assignments !== undefined && { assignments: body.assignments }) }],
        validateOnly,
      ),
    );
    if (!result) throw new Error(`Kafka layer returned no result for topic '${topic}'`);
    if (!result.ok) return sendProblem(res, mapKafkaError(result.error, 'kafka', instance(req)));
    const answer: Schemas['PartitionIncreaseResult'] = { topic, partitions: body.count, validateOnly };
    res.json(answer);
  });

  return router;
}
