// /topics against a simulated 3-broker cluster and the real Kafka layer. Every
// response is validated against openapi.yaml (validateResponses: true), and after
// every 4xx the cluster is compared with its state before the request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTopics, expectProblem, startGateway, type Gateway } from './helpers.js';

let gw: Gateway;
before(async () => {
  gw = await startGateway({ simulator: { brokers: 3 } });
});
after(() => gw?.close());

/** Runs `send`, expects the problem, and checks nothing changed in the cluster. */
async function rejected(send: () => Promise<import('supertest').Response>, status: number, slug: string, kafkaCode?: number) {
  const snapshot = await gw.snapshot();
  const res = await send();
  expectProblem(res, status, slug, kafkaCode);
  await gw.assertUnchanged(snapshot);
  return res;
}

describe('GET /topics', () => {
  it('lists topics sorted by name with partition count and replication factor', async () => {
    await createTopics(
      gw,
      { name: 'list-b', partitions: 2, replicationFactor: 2 },
      { name: 'list-a', partitions: 1, replicationFactor: 3 },
    );
    const res = await gw.http().get('/topics');
    assert.equal(res.status, 200);
    const names: string[] = res.body.topics.map((t: { name: string }) => t.name);
    assert.deepEqual(names, [...names].sort());
    const a = res.body.topics.find((t: { name: string }) => t.name === 'list-a');
    const b = res.body.topics.find((t: { name: string }) => t.name === 'list-b');
    assert.deepEqual([a.partitions, a.replicationFactor, a.internal], [1, 3, false]);
    assert.deepEqual([b.partitions, b.replicationFactor], [2, 2]);
    assert.match(a.topicId, /^[\w-]+$/);
  });
});

describe('POST /topics (one topic)', () => {
  it('201 with Location and the created topic; GET shows partitions and configs', async () => {
    const res = await gw
      .http()
      .post('/topics')
      .send({ name: 'create-one', partitions: 3, replicationFactor: 2, configs: { 'cleanup.policy': 'compact' } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.headers.location, '/topics/create-one');
    assert.deepEqual(
      { ...res.body, topicId: typeof res.body.topicId },
      { name: 'create-one', topicId: 'string', partitions: 3, replicationFactor: 2 },
    );

    const desc = await gw.http().get(res.headers.location);
    assert.equal(desc.status, 200);
    assert.equal(desc.body.topicId, res.body.topicId);
    assert.deepEqual(
      desc.body.partitions.map((p: { partition: number }) => p.partition),
      [0, 1, 2],
    );
    for (const p of desc.body.partitions) {
      assert.equal(p.replicas.length, 2);
      assert.ok(p.replicas.includes(p.leader), 'leader is a replica');
      assert.deepEqual([...p.isr].sort(), [...p.replicas].sort());
    }
    const policy = desc.body.configs.find((c: { name: string }) => c.name === 'cleanup.policy');
    assert.deepEqual([policy.value, policy.source, policy.isDefault], ['compact', 'TOPIC_CONFIG', false]);
  });

  it('201 with explicit assignments: replicas exactly as given, first = leader', async () => {
    const res = await gw
      .http()
      .post('/topics')
      .send({
        name: 'create-assigned',
        assignments: [
          [2, 0],
          [0, 1],
        ],
      });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual([res.body.partitions, res.body.replicationFactor], [2, 2]);
    const desc = await gw.http().get('/topics/create-assigned');
    assert.deepEqual(
      desc.body.partitions.map((p: { replicas: number[]; leader: number }) => [p.replicas, p.leader]),
      [
        [[2, 0], 2],
        [[0, 1], 0],
      ],
    );
  });

  it('201 with broker defaults when partitions/replicationFactor are omitted', async () => {
    const res = await gw.http().post('/topics').send({ name: 'create-defaults' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.ok(res.body.partitions >= 1 && res.body.replicationFactor >= 1);
  });

  it('200 with validateOnly: answers what would be created, creates nothing', async () => {
    const snapshot = await gw.snapshot();
    const res = await gw.http().post('/topics?validateOnly=true').send({ name: 'create-dry', partitions: 4, replicationFactor: 3 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers.location, undefined);
    assert.deepEqual([res.body.name, res.body.partitions, res.body.replicationFactor], ['create-dry', 4, 3]);
    // Kafka answers validateOnly with a random id of a topic that does not exist: none is reported.
    assert.equal(res.body.topicId, null);
    await gw.assertUnchanged(snapshot);
  });

  it('409 TOPIC_ALREADY_EXISTS', async () => {
    await createTopics(gw, { name: 'create-dup', partitions: 1, replicationFactor: 1 });
    const res = await rejected(
      () => gw.http().post('/topics').send({ name: 'create-dup', partitions: 5 }),
      409,
      'topic-already-exists',
      36,
    );
    assert.equal(res.body.kafkaError.name, 'TOPIC_ALREADY_EXISTS');
    assert.equal(res.body.instance, '/topics');
  });

  it('422 INVALID_REPLICATION_FACTOR when RF exceeds the brokers', async () => {
    await rejected(
      () => gw.http().post('/topics').send({ name: 'create-rf', partitions: 1, replicationFactor: 4 }),
      422,
      'invalid-replication-factor',
      38,
    );
  });

  it('422 INVALID_REPLICA_ASSIGNMENT for an unknown broker or uneven replica lists', async () => {
    await rejected(
      () =>
        gw
          .http()
          .post('/topics')
          .send({ name: 'create-ra', assignments: [[0, 7]] }),
      422,
      'invalid-replica-assignment',
      39,
    );
    await rejected(
      () =>
        gw
          .http()
          .post('/topics')
          .send({ name: 'create-ra', assignments: [[0, 1], [2]] }),
      422,
      'invalid-replica-assignment',
      39,
    );
  });

  it('422 INVALID_CONFIG for an unknown topic config', async () => {
    await rejected(
      () =>
        gw
          .http()
          .post('/topics')
          .send({ name: 'create-cfg', configs: { 'no.such.config': '1' } }),
      422,
      'invalid-config',
      40,
    );
  });

  it('422 INVALID_TOPIC_EXCEPTION for a name colliding via "." and "_"', async () => {
    await createTopics(gw, { name: 'collide_me', partitions: 1, replicationFactor: 1 });
    await rejected(() => gw.http().post('/topics').send({ name: 'collide.me' }), 422, 'invalid-topic-exception', 17);
  });

  it('400 (schema), 415 and 413 never reach Kafka', async () => {
    await rejected(() => gw.http().post('/topics').send({ name: 'bad/name', partitions: 0 }), 400, 'validation-failed');
    await rejected(() => gw.http().post('/topics').send({ name: 'ok-name', unknownField: 1 }), 400, 'validation-failed');
    await rejected(
      () =>
        gw
          .http()
          .post('/topics')
          .send({ name: 'ok-name', assignments: [[1, 1]] }),
      400,
      'validation-failed',
    );
    await rejected(() => gw.http().post('/topics').set('Content-Type', 'text/plain').send('ok-name'), 415, 'unsupported-media-type');
    await rejected(
      () =>
        gw
          .http()
          .post('/topics')
          .send({ name: 'ok-name', configs: { 'x.y': 'z'.repeat(1_100_000) } }),
      413,
      'payload-too-large',
    );
    assert.equal((await gw.http().get('/topics/ok-name')).status, 404);
  });
});

describe('POST /topics (several topics)', () => {
  it('201 when every topic is created; items in request order', async () => {
    const res = await gw
      .http()
      .post('/topics')
      .send([
        { name: 'batch-a', partitions: 1, replicationFactor: 1 },
        { name: 'batch-b', partitions: 2, replicationFactor: 1 },
      ]);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.headers.location, undefined);
    assert.deepEqual(
      res.body.items.map((i: { name: string; status: number; topic: { partitions: number } }) => [i.name, i.status, i.topic.partitions]),
      [
        ['batch-a', 201, 1],
        ['batch-b', 201, 2],
      ],
    );
  });

  it('207 when results differ: the good topic is created, the bad ones are not', async () => {
    await createTopics(gw, { name: 'mixed-exists', partitions: 1, replicationFactor: 1 });
    const res = await gw
      .http()
      .post('/topics')
      .send([
        { name: 'mixed-new', partitions: 1, replicationFactor: 1 },
        { name: 'mixed-exists', partitions: 1, replicationFactor: 1 },
        { name: 'mixed-rf', partitions: 1, replicationFactor: 9 },
      ]);
    assert.equal(res.status, 207, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.items.map((i: { name: string; status: number }) => [i.name, i.status]),
      [
        ['mixed-new', 201],
        ['mixed-exists', 409],
        ['mixed-rf', 422],
      ],
    );
    assert.deepEqual(res.body.items[1].problem.kafkaError, { name: 'TOPIC_ALREADY_EXISTS', code: 36 });
    assert.deepEqual(res.body.items[2].problem.kafkaError, { name: 'INVALID_REPLICATION_FACTOR', code: 38 });
    assert.equal((await gw.http().get('/topics/mixed-new')).status, 200);
    assert.equal((await gw.http().get('/topics/mixed-rf')).status, 404);
  });

  it('409 when every topic fails with 409; the problem carries the items', async () => {
    await createTopics(
      gw,
      { name: 'all-dup-1', partitions: 1, replicationFactor: 1 },
      { name: 'all-dup-2', partitions: 1, replicationFactor: 1 },
    );
    const res = await rejected(
      () =>
        gw
          .http()
          .post('/topics')
          .send([{ name: 'all-dup-1' }, { name: 'all-dup-2' }]),
      409,
      'topic-already-exists',
      36,
    );
    assert.deepEqual(
      res.body.items.map((i: { status: number }) => i.status),
      [409, 409],
    );
  });

  it('422 batch-failed when every topic fails with 422 for different reasons', async () => {
    const res = await rejected(
      () =>
        gw
          .http()
          .post('/topics')
          .send([
            { name: 'all-422-rf', replicationFactor: 9 },
            { name: 'all-422-cfg', configs: { 'no.such': 'x' } },
          ]),
      422,
      'batch-failed',
    );
    assert.deepEqual(
      res.body.items.map((i: { problem: { kafkaError: { code: number } } }) => i.problem.kafkaError.code),
      [38, 40],
    );
  });

  it('200 with validateOnly when every topic validates; nothing is created', async () => {
    const snapshot = await gw.snapshot();
    const res = await gw
      .http()
      .post('/topics?validateOnly=true')
      .send([{ name: 'dry-a', partitions: 2, replicationFactor: 1 }, { name: 'dry-b' }]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.items.map((i: { status: number }) => i.status),
      [200, 200],
    );
    await gw.assertUnchanged(snapshot);
  });

  it('400 for duplicate names and for an invalid item; nothing is created', async () => {
    await rejected(
      () =>
        gw
          .http()
          .post('/topics')
          .send([{ name: 'dupname' }, { name: 'dupname' }]),
      400,
      'validation-failed',
    );
    await rejected(
      () =>
        gw
          .http()
          .post('/topics')
          .send([{ name: 'fine' }, { name: 'fine2', partitions: 'many' }]),
      400,
      'validation-failed',
    );
  });
});

describe('GET /topics/{topic}', () => {
  it('200 with partitions (leader, replicas, ISR) and configs', async () => {
    await createTopics(gw, { name: 'describe-me', partitions: 2, replicationFactor: 3 });
    const res = await gw.http().get('/topics/describe-me');
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'describe-me');
    assert.equal(res.body.partitions.length, 2);
    for (const p of res.body.partitions) {
      assert.deepEqual([...p.replicas].sort(), [0, 1, 2]);
      assert.ok(p.replicas.includes(p.leader));
      assert.deepEqual(p.offlineReplicas, []);
    }
    assert.ok(res.body.configs.some((c: { name: string }) => c.name === 'retention.ms'));
  });

  it('404 UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const res = await rejected(() => gw.http().get('/topics/no-such-topic'), 404, 'unknown-topic-or-partition', 3);
    assert.equal(res.body.instance, '/topics/no-such-topic');
  });

  it('400 for an illegal topic name', async () => {
    await rejected(() => gw.http().get('/topics/has%20space'), 400, 'validation-failed');
  });
});

describe('DELETE /topics/{topic}', () => {
  it('204, then the topic is gone', async () => {
    await createTopics(gw, { name: 'delete-me', partitions: 2, replicationFactor: 1 });
    const res = await gw.http().delete('/topics/delete-me');
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assert.equal((await gw.http().get('/topics/delete-me')).status, 404);
    assert.ok(!(await gw.http().get('/topics')).body.topics.some((t: { name: string }) => t.name === 'delete-me'));
  });

  it('404 for an unknown topic', async () => {
    await rejected(() => gw.http().delete('/topics/never-existed'), 404, 'unknown-topic-or-partition', 3);
  });

  it('400 for an illegal topic name', async () => {
    await rejected(() => gw.http().delete('/topics/a%2Fb'), 400, 'validation-failed');
  });
});

describe('POST /topics/{topic}/partitions', () => {
  before(async () => {
    await createTopics(
      gw,
      { name: 'grow', partitions: 2, replicationFactor: 2 },
      { name: 'grow-assigned', partitions: 1, replicationFactor: 2 },
    );
  });

  it('200 and the topic has the new count', async () => {
    const res = await gw.http().post('/topics/grow/partitions').send({ count: 4 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { topic: 'grow', partitions: 4, validateOnly: false });
    const desc = await gw.http().get('/topics/grow');
    assert.equal(desc.body.partitions.length, 4);
    for (const p of desc.body.partitions) assert.equal(p.replicas.length, 2);
  });

  it('200 with assignments: new partitions placed exactly as given', async () => {
    const res = await gw
      .http()
      .post('/topics/grow-assigned/partitions')
      .send({
        count: 3,
        assignments: [
          [2, 1],
          [1, 0],
        ],
      });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const desc = await gw.http().get('/topics/grow-assigned');
    assert.deepEqual(
      desc.body.partitions.slice(1).map((p: { replicas: number[] }) => p.replicas),
      [
        [2, 1],
        [1, 0],
      ],
    );
  });

  it('200 with validateOnly: nothing changes', async () => {
    const snapshot = await gw.snapshot();
    const res = await gw.http().post('/topics/grow/partitions?validateOnly=true').send({ count: 10 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { topic: 'grow', partitions: 10, validateOnly: true });
    await gw.assertUnchanged(snapshot);
  });

  it('200 with validateOnly as a body field (as POST /reassignments takes it), or in both places agreeing: nothing changes', async () => {
    const snapshot = await gw.snapshot();
    const res = await gw.http().post('/topics/grow/partitions').send({ count: 9, validateOnly: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { topic: 'grow', partitions: 9, validateOnly: true });
    const agreeing = await gw.http().post('/topics/grow/partitions?validateOnly=true').send({ count: 9, validateOnly: true });
    assert.deepEqual(agreeing.body, { topic: 'grow', partitions: 9, validateOnly: true });
    await gw.assertUnchanged(snapshot);
    // Kafka's checks still run: a count that does not grow is refused, validate-only or not.
    await rejected(() => gw.http().post('/topics/grow/partitions').send({ count: 1, validateOnly: true }), 422, 'invalid-partitions', 37);
  });

  it('422 INVALID_PARTITIONS when count does not grow', async () => {
    await rejected(() => gw.http().post('/topics/grow/partitions').send({ count: 4 }), 422, 'invalid-partitions', 37);
    await rejected(() => gw.http().post('/topics/grow/partitions').send({ count: 1 }), 422, 'invalid-partitions', 37);
  });

  it('422 INVALID_REPLICA_ASSIGNMENT when the number of lists is not count - current', async () => {
    const res = await rejected(
      () =>
        gw
          .http()
          .post('/topics/grow/partitions')
          .send({ count: 6, assignments: [[0, 1]] }),
      422,
      'invalid-replica-assignment',
      39,
    );
    assert.ok(res.body.detail, 'the broker message comes through');
  });

  it('422 INVALID_REPLICA_ASSIGNMENT when a list is not as long as the replication factor', async () => {
    await rejected(
      () =>
        gw
          .http()
          .post('/topics/grow/partitions')
          .send({ count: 5, assignments: [[0, 1, 2]] }),
      422,
      'invalid-replica-assignment',
      39,
    );
    await rejected(
      () =>
        gw
          .http()
          .post('/topics/grow/partitions')
          .send({ count: 5, assignments: [[0]] }),
      422,
      'invalid-replica-assignment',
      39,
    );
  });

  it('422 INVALID_REPLICA_ASSIGNMENT for an unknown broker', async () => {
    await rejected(
      () =>
        gw
          .http()
          .post('/topics/grow/partitions')
          .send({ count: 5, assignments: [[0, 42]] }),
      422,
      'invalid-replica-assignment',
      39,
    );
  });

  it('400 for a broker repeated in one list (schema), and for malformed bodies', async () => {
    const res = await rejected(
      () =>
        gw
          .http()
          .post('/topics/grow/partitions')
          .send({ count: 5, assignments: [[1, 1]] }),
      400,
      'validation-failed',
    );
    assert.equal(res.body.errors[0].path, '/body/assignments/0');
    await rejected(() => gw.http().post('/topics/grow/partitions').send({ count: 0 }), 400, 'validation-failed');
    // validateOnly in the query and in the body, with different values: one would be ignored.
    const both = await rejected(
      () => gw.http().post('/topics/grow/partitions?validateOnly=false').send({ count: 5, validateOnly: true }),
      400,
      'validation-failed',
    );
    assert.equal(both.body.errors[0].path, '/query/validateOnly');
    await rejected(() => gw.http().post('/topics/grow/partitions').send({ count: 5, validateOnly: 'yes' }), 400, 'validation-failed');
    await rejected(() => gw.http().post('/topics/grow/partitions').send({}), 400, 'validation-failed');
  });

  it('415 for a non-JSON body', async () => {
    await rejected(
      () => gw.http().post('/topics/grow/partitions').set('Content-Type', 'text/plain').send('5'),
      415,
      'unsupported-media-type',
    );
  });

  it('404 for an unknown topic', async () => {
    await rejected(() => gw.http().post('/topics/no-such/partitions').send({ count: 3 }), 404, 'unknown-topic-or-partition', 3);
  });
});

describe('metrics from a real Kafka layer', () => {
  it('records Kafka requests through the onKafkaRequest hook, with error names', async () => {
    const text = (await gw.http().get('/metrics')).text;
    assert.match(text, /kafka_gateway_kafka_requests_total\{api="[A-Za-z]+",error="NONE"\} \d+/);
    assert.match(text, /kafka_gateway_kafka_requests_total\{api="[A-Za-z]+",error="TOPIC_ALREADY_EXISTS"\} \d+/);
    assert.match(text, /kafka_gateway_http_requests_total\{method="POST",route="\/topics\/\{topic\}\/partitions",status="422"\} \d+/);
  });
});
