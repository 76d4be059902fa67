// HTTP behaviour against an in-memory KafkaGateway: everything the gateway decides on
// its own (validation, media types, limits, routing, metrics, its own bugs). Kafka's errors
// and outages are answered by the simulator over the wire (faults on demand) in
// kafka-errors.integration.test.ts. Every app here validates its responses against openapi.yaml.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import request from 'supertest';
import type { Express } from 'express';
import { appOverKafka } from './app-over-kafka.js';
import { createMetrics, type GatewayMetrics } from '../../src/observability/metrics.js';
import { FakeKafka } from './fake-kafka.js';
import { expectProblem, recordingLogger } from './helpers.js';

let kafka: FakeKafka;
let app: Express;
let metrics: GatewayMetrics;
let logger: ReturnType<typeof recordingLogger>;

beforeEach(() => {
  kafka = new FakeKafka();
  metrics = createMetrics({ defaultMetrics: false });
  logger = recordingLogger();
  app = appOverKafka({ kafka, metrics, validateResponses: true, logger, bodyLimit: '16kb' });
});

describe('request validation', () => {
  it('400 lists every violation with path and message; unknown fields rejected', async () => {
    const res = await request(app).post('/topics').send({ name: 'bad name', partitions: 0, replicationFactor: 'x', extra: true });
    expectProblem(res, 400, 'validation-failed');
    const paths = res.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ['/body/extra', '/body/name', '/body/partitions', '/body/replicationFactor']);
    for (const e of res.body.errors) assert.ok(e.message.length > 0);
    assert.equal(kafka.topics.size, 0);
  });

  it('400 for errors inside an array body, pointing at the item', async () => {
    const res = await request(app)
      .post('/topics')
      .send([{ name: 'ok' }, { name: 'x', partitions: -1 }]);
    expectProblem(res, 400, 'validation-failed');
    assert.deepEqual(
      res.body.errors.map((e: { path: string }) => e.path),
      ['/body/1/partitions'],
    );
  });

  it('400 for an empty array', async () => {
    expectProblem(await request(app).post('/topics').send([]), 400, 'validation-failed');
  });

  it('400 for assignments combined with partitions or replicationFactor', async () => {
    const res = await request(app)
      .post('/topics')
      .send({ name: 't', assignments: [[0]], partitions: 1, replicationFactor: 1 });
    expectProblem(res, 400, 'validation-failed');
    assert.deepEqual(res.body.errors.map((e: { path: string }) => e.path).sort(), ['/body/partitions', '/body/replicationFactor']);
  });

  it('400 for a broker repeated in one replica list (create and add partitions)', async () => {
    expectProblem(
      await request(app)
        .post('/topics')
        .send({ name: 't', assignments: [[0, 0]] }),
      400,
      'validation-failed',
    );
    kafka.topics.set('t', { name: 't', topicId: null, internal: false, partitions: [], configs: [] });
    const res = await request(app)
      .post('/topics/t/partitions')
      .send({ count: 2, assignments: [[1, 1]] });
    expectProblem(res, 400, 'validation-failed');
    assert.equal(res.body.errors[0].path, '/body/assignments/0');
  });

  it('400 for duplicate topic names in one request (Kafka would fail every copy)', async () => {
    const res = await request(app)
      .post('/topics')
      .send([{ name: 'a' }, { name: 'b' }, { name: 'a' }]);
    expectProblem(res, 400, 'validation-failed');
    assert.deepEqual(
      res.body.errors.map((e: { path: string }) => e.path),
      ['/body/2/name'],
    );
    assert.equal(kafka.topics.size, 0);
  });

  it('400 for a bad query parameter and for unknown query parameters', async () => {
    expectProblem(await request(app).post('/topics?validateOnly=maybe').send({ name: 'a' }), 400, 'validation-failed');
    expectProblem(await request(app).get('/topics?foo=1'), 400, 'validation-failed');
  });

  it('400 for an illegal topic name in the path', async () => {
    expectProblem(await request(app).get('/topics/a%20b'), 400, 'validation-failed');
    // A dot segment is not a name but a path step (a client or proxy may resolve it away): no route.
    expectProblem(await request(app).get('/topics/..'), 404, 'route-not-found');
    expectProblem(await request(app).get(`/topics/${'x'.repeat(250)}`), 400, 'validation-failed');
  });

  it('400 malformed-json for an unparsable body', async () => {
    expectProblem(await request(app).post('/topics').set('Content-Type', 'application/json').send('{"name":'), 400, 'malformed-json');
  });

  it('415 for a body that is not application/json', async () => {
    expectProblem(await request(app).post('/topics').set('Content-Type', 'text/plain').send('name=a'), 415, 'unsupported-media-type');
    expectProblem(
      await request(app).post('/topics/a/partitions').set('Content-Type', 'application/x-www-form-urlencoded').send('count=2'),
      415,
      'unsupported-media-type',
    );
  });

  it('413 for a body over the limit', async () => {
    const res = await request(app)
      .post('/topics')
      .send({ name: 'a', configs: { 'x.y': 'z'.repeat(20_000) } });
    expectProblem(res, 413, 'payload-too-large');
    assert.equal(kafka.topics.size, 0);
  });

  it('404 problem for an unknown route, 405 problem with Allow for a wrong method', async () => {
    expectProblem(await request(app).get('/nope'), 404, 'route-not-found');
    expectProblem(await request(app).post('/topics/a/partitions/extra').send({}), 404, 'route-not-found');
    const res = await request(app).put('/topics');
    expectProblem(res, 405, 'method-not-allowed');
    assert.deepEqual(
      res.headers.allow
        ?.split(',')
        .map((s: string) => s.trim())
        .sort(),
      ['DELETE', 'GET', 'POST'],
    );
    expectProblem(await request(app).patch('/topics/a'), 405, 'method-not-allowed');
  });
});

describe('failures of our own', () => {
  it('500 problem (not a crash) for a non-Kafka error, and it is logged', async () => {
    kafka.listTopics = async () => {
      throw new TypeError('bug');
    };
    expectProblem(await request(app).get('/topics'), 500, 'internal-error');
    assert.equal(logger.errors.length, 1);
  });
});

describe('health', () => {
  it('/healthz is 200 without touching Kafka', async () => {
    kafka.describeCluster =
      kafka.listTopics =
      kafka.ping =
        () => {
          throw new Error('/healthz must not call Kafka');
        };
    const res = await request(app).get('/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });

  it('/readyz is 503 shutting-down while draining', async () => {
    const state = { draining: false };
    const a = appOverKafka({ kafka, state, validateResponses: true, metrics: createMetrics({ defaultMetrics: false }) });
    assert.equal((await request(a).get('/readyz')).status, 200);
    state.draining = true;
    expectProblem(await request(a).get('/readyz'), 503, 'shutting-down');
  });
});

describe('documents', () => {
  it('/openapi.yaml serves the spec verbatim', async () => {
    const res = await request(app).get('/openapi.yaml');
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^application\/yaml/);
    assert.match(res.text, /^openapi: 3\.1\.0/);
  });
});

describe('metrics', () => {
  it('labels requests by OpenAPI route template, never by raw URL; unknown routes are "unmatched"', async () => {
    kafka.topics.set('orders', { name: 'orders', topicId: null, internal: false, partitions: [], configs: [] });
    await request(app).get('/topics/orders');
    await request(app).get('/topics/does-not-exist');
    await request(app).get('/no/such/route');
    await request(app).put('/topics');
    await request(app)
      .post('/topics')
      .send({ name: 'x', configs: { a: 'b'.repeat(20_000) } });
    const text = (await request(app).get('/metrics')).text;
    assert.match(text, /kafka_gateway_http_requests_total\{method="GET",route="\/topics\/\{topic\}",status="200"\} 1/);
    assert.match(text, /kafka_gateway_http_requests_total\{method="GET",route="\/topics\/\{topic\}",status="404"\} 1/);
    assert.match(text, /kafka_gateway_http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
    assert.match(text, /kafka_gateway_http_requests_total\{method="PUT",route="\/topics",status="405"\} 1/);
    assert.match(text, /kafka_gateway_http_requests_total\{method="POST",route="\/topics",status="413"\} 1/);
    assert.match(
      text,
      /kafka_gateway_http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/topics\/\{topic\}",status="200"\}/,
    );
    assert.doesNotMatch(text, /orders|does-not-exist|no\/such/);
  });

  it('onKafkaRequest feeds kafka_gateway_kafka_requests_total and the duration histogram', async () => {
    metrics.onKafkaRequest('CreateTopics', 'NONE', 0.01);
    metrics.onKafkaRequest('CreateTopics', 'THROTTLING_QUOTA_EXCEEDED', 0.02);
    metrics.onKafkaRequest('Metadata', null, 0.001);
    const text = await metrics.registry.metrics();
    assert.match(text, /kafka_gateway_kafka_requests_total\{api="CreateTopics",error="NONE"\} 1/);
    assert.match(text, /kafka_gateway_kafka_requests_total\{api="CreateTopics",error="THROTTLING_QUOTA_EXCEEDED"\} 1/);
    assert.match(text, /kafka_gateway_kafka_requests_total\{api="Metadata",error="NONE"\} 1/);
    assert.match(text, /kafka_gateway_kafka_request_duration_seconds_count\{api="CreateTopics",error="NONE"\} 1/);
  });

  it('default process metrics carry the prefix; each app has its own registry', async () => {
    const a = appOverKafka({ kafka });
    const b = appOverKafka({ kafka });
    await request(a).get('/healthz');
    const textA = (await request(a).get('/metrics')).text;
    const textB = (await request(b).get('/metrics')).text;
    assert.match(textA, /^kafka_gateway_process_cpu_user_seconds_total /m);
    assert.match(textA, /kafka_gateway_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1/);
    assert.doesNotMatch(textB, /route="\/healthz"/);
  });
});

describe('response validation (tests run with it on)', () => {
  it('a response that drifts from openapi.yaml becomes a 500 naming the violation', async () => {
    // rack is required (nullable) in the Broker schema; a Kafka layer that drops it must be caught.
    kafka.cluster = { clusterId: 'c', controllerId: 0, brokers: [{ id: 0, host: 'h', port: 1 } as never] };
    const res = await request(app).get('/cluster');
    expectProblem(res, 500, 'internal-error');
    assert.ok(res.body.errors.some((e: { message: string }) => /rack/.test(e.message)));
  });
});
