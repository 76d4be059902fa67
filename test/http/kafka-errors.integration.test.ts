// Every Kafka error the gateway maps (src/http/errors.ts KAFKA_ERROR_STATUS), answered by the
// simulator over the wire with a fault (src/sim/faults.ts) and parsed by the real Kafka layer:
// the status, problem type and kafkaError the caller sees, and that nothing changed. The table
// itself is pinned in errors.test.ts; this file proves the gateway reads each code out of the
// response shapes Kafka answers it in (per-topic, per-resource, top-level), including the
// retriable ones (7, 41) that it re-sends first, and Kafka's outages (no broker, no answer).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Response } from 'supertest';
import { KAFKA_ERROR_STATUS } from '../../src/http/errors.js';
import type { FaultSpec } from '../../src/sim/faults.js';
import { expectProblem, startGateway, type Gateway } from './helpers.js';

const CREATE_TOPICS = 19;
const DELETE_TOPICS = 20;
const METADATA = 3;
const DESCRIBE_CONFIGS = 32;
const CREATE_PARTITIONS = 37;
const DESCRIBE_CLUSTER = 60;

type Call = (gw: Gateway) => Promise<Response>;
const createTopic: Call = (gw) => gw.http().post('/topics').send({ name: 'fresh', partitions: 1, replicationFactor: 1 });
const deleteTopic: Call = (gw) => gw.http().delete('/topics/existing');
const addPartitions: Call = (gw) => gw.http().post('/topics/existing/partitions').send({ count: 3 });
const getTopic: Call = (gw) => gw.http().get('/topics/existing');
const getCluster: Call = (gw) => gw.http().get('/cluster');

interface Case {
  code: number;
  name: string;
  /** What the gateway does that Kafka answers with the error. */
  route: string;
  call: Call;
  apiKey: number;
  status: number;
  slug: string;
  message?: string;
  /** Requests the gateway sends before answering (retriable codes are re-sent). Default 1. */
  attempts?: number;
}

// At least one row per mapped code, on the route where Kafka answers it; 29 on every route.
const CASES: Case[] = [
  {
    code: 3,
    name: 'UNKNOWN_TOPIC_OR_PARTITION',
    route: 'DELETE /topics/{t}',
    call: deleteTopic,
    apiKey: DELETE_TOPICS,
    status: 404,
    slug: 'unknown-topic-or-partition',
  },
  // Per topic, 7 is final (the controller may still create it: a re-send would answer 36).
  {
    code: 7,
    name: 'REQUEST_TIMED_OUT',
    route: 'POST /topics',
    call: createTopic,
    apiKey: CREATE_TOPICS,
    status: 503,
    slug: 'request-timed-out',
  },
  // As a whole-request error it is re-sent until the retry budget (KAFKA_RETRIES=2) is spent.
  {
    code: 7,
    name: 'REQUEST_TIMED_OUT',
    route: 'GET /cluster',
    call: getCluster,
    apiKey: DESCRIBE_CLUSTER,
    status: 503,
    slug: 'kafka-unavailable',
    attempts: 3,
  },
  {
    code: 17,
    name: 'INVALID_TOPIC_EXCEPTION',
    route: 'POST /topics',
    call: createTopic,
    apiKey: CREATE_TOPICS,
    status: 422,
    slug: 'invalid-topic-exception',
  },
  {
    code: 29,
    name: 'TOPIC_AUTHORIZATION_FAILED',
    route: 'POST /topics',
    call: createTopic,
    apiKey: CREATE_TOPICS,
    status: 403,
    slug: 'topic-authorization-failed',
  },
  {
    code: 29,
    name: 'TOPIC_AUTHORIZATION_FAILED',
    route: 'DELETE /topics/{t}',
    call: deleteTopic,
    apiKey: DELETE_TOPICS,
    status: 403,
    slug: 'topic-authorization-failed',
  },
  {
    code: 29,
    name: 'TOPIC_AUTHORIZATION_FAILED',
    route: 'POST /topics/{t}/partitions',
    call: addPartitions,
    apiKey: CREATE_PARTITIONS,
    status: 403,
    slug: 'topic-authorization-failed',
  },
  {
    code: 29,
    name: 'TOPIC_AUTHORIZATION_FAILED',
    route: 'GET /topics/{t} (Metadata)',
    call: getTopic,
    apiKey: METADATA,
    status: 403,
    slug: 'topic-authorization-failed',
  },
  {
    code: 29,
    name: 'TOPIC_AUTHORIZATION_FAILED',
    route: 'GET /topics/{t} (DescribeConfigs)',
    call: getTopic,
    apiKey: DESCRIBE_CONFIGS,
    status: 403,
    slug: 'topic-authorization-failed',
  },
  {
    code: 31,
    name: 'CLUSTER_AUTHORIZATION_FAILED',
    route: 'GET /cluster',
    call: getCluster,
    apiKey: DESCRIBE_CLUSTER,
    status: 403,
    slug: 'cluster-authorization-failed',
  },
  {
    code: 31,
    name: 'CLUSTER_AUTHORIZATION_FAILED',
    route: 'POST /topics',
    call: createTopic,
    apiKey: CREATE_TOPICS,
    status: 403,
    slug: 'cluster-authorization-failed',
  },
  {
    code: 36,
    name: 'TOPIC_ALREADY_EXISTS',
    route: 'POST /topics',
    call: createTopic,
    apiKey: CREATE_TOPICS,
    status: 409,
    slug: 'topic-already-exists',
  },
  {
    code: 37,
    name: 'INVALID_PARTITIONS',
    route: 'POST /topics/{t}/partitions',
    call: addPartitions,
    apiKey: CREATE_PARTITIONS,
    status: 422,
    slug: 'invalid-partitions',
  },
  {
    code: 38,
    name: 'INVALID_REPLICATION_FACTOR',
    route: 'POST /topics',
    call: createTopic,
    apiKey: CREATE_TOPICS,
    status: 422,
    slug: 'invalid-replication-factor',
  },
  {
    code: 39,
    name: 'INVALID_REPLICA_ASSIGNMENT',
    route: 'POST /topics/{t}/partitions',
    call: addPartitions,
    apiKey: CREATE_PARTITIONS,
    status: 422,
    slug: 'invalid-replica-assignment',
  },
  {
    code: 40,
    name: 'INVALID_CONFIG',
    route: 'POST /topics',
    call: createTopic,
    apiKey: CREATE_TOPICS,
    status: 422,
    slug: 'invalid-config',
  },
  // Re-sent to the re-discovered controller until the budget is spent; then Kafka is unavailable.
  {
    code: 41,
    name: 'NOT_CONTROLLER',
    route: 'POST /topics',
    call: createTopic,
    apiKey: CREATE_TOPICS,
    status: 503,
    slug: 'kafka-unavailable',
    attempts: 3,
  },
  {
    code: 41,
    name: 'NOT_CONTROLLER',
    route: 'DELETE /topics/{t}',
    call: deleteTopic,
    apiKey: DELETE_TOPICS,
    status: 503,
    slug: 'kafka-unavailable',
    attempts: 3,
  },
  {
    code: 42,
    name: 'INVALID_REQUEST',
    route: 'DELETE /topics/{t}',
    call: deleteTopic,
    apiKey: DELETE_TOPICS,
    status: 422,
    slug: 'invalid-request',
  },
  {
    code: 44,
    name: 'POLICY_VIOLATION',
    route: 'POST /topics',
    call: createTopic,
    apiKey: CREATE_TOPICS,
    status: 422,
    slug: 'policy-violation',
  },
  {
    code: 56,
    name: 'KAFKA_STORAGE_ERROR',
    route: 'POST /topics/{t}/partitions',
    call: addPartitions,
    apiKey: CREATE_PARTITIONS,
    status: 503,
    slug: 'kafka-storage-error',
  },
  {
    code: 60,
    name: 'REASSIGNMENT_IN_PROGRESS',
    route: 'POST /topics/{t}/partitions',
    call: addPartitions,
    apiKey: CREATE_PARTITIONS,
    status: 409,
    slug: 'reassignment-in-progress',
  },
  {
    code: 60,
    name: 'REASSIGNMENT_IN_PROGRESS',
    route: 'DELETE /topics/{t}',
    call: deleteTopic,
    apiKey: DELETE_TOPICS,
    status: 409,
    slug: 'reassignment-in-progress',
  },
  {
    code: 73,
    name: 'TOPIC_DELETION_DISABLED',
    route: 'DELETE /topics/{t}',
    call: deleteTopic,
    apiKey: DELETE_TOPICS,
    status: 403,
    slug: 'topic-deletion-disabled',
    message: 'Topic deletion is disabled.',
  },
  {
    code: 89,
    name: 'THROTTLING_QUOTA_EXCEEDED',
    route: 'POST /topics',
    call: createTopic,
    apiKey: CREATE_TOPICS,
    status: 429,
    slug: 'throttling-quota-exceeded',
  },
  {
    code: 89,
    name: 'THROTTLING_QUOTA_EXCEEDED',
    route: 'DELETE /topics/{t}',
    call: deleteTopic,
    apiKey: DELETE_TOPICS,
    status: 429,
    slug: 'throttling-quota-exceeded',
  },
  {
    code: 89,
    name: 'THROTTLING_QUOTA_EXCEEDED',
    route: 'POST /topics/{t}/partitions',
    call: addPartitions,
    apiKey: CREATE_PARTITIONS,
    status: 429,
    slug: 'throttling-quota-exceeded',
  },
  // Not in the table: 502.
  {
    code: -1,
    name: 'UNKNOWN_SERVER_ERROR',
    route: 'GET /cluster',
    call: getCluster,
    apiKey: DESCRIBE_CLUSTER,
    status: 502,
    slug: 'unknown-server-error',
  },
  {
    code: -1,
    name: 'UNKNOWN_SERVER_ERROR',
    route: 'GET /topics/{t}',
    call: getTopic,
    apiKey: METADATA,
    status: 502,
    slug: 'unknown-server-error',
  },
  {
    code: 8,
    name: 'BROKER_NOT_AVAILABLE',
    route: 'POST /topics',
    call: createTopic,
    apiKey: CREATE_TOPICS,
    status: 502,
    slug: 'broker-not-available',
  },
];

describe('every mapped Kafka error, answered over the wire', () => {
  let gw: Gateway;
  before(async () => {
    gw = await startGateway({ simulator: { brokers: 3 }, kafkaEnv: { KAFKA_RETRIES: '2' } });
    assert.equal((await gw.http().post('/topics').send({ name: 'existing', partitions: 2, replicationFactor: 2 })).status, 201);
  });
  after(() => gw.close());
  beforeEach(() => gw.sim.faults.clear());

  it('covers every code the table maps', () => {
    const covered = new Set(CASES.map((c) => c.code));
    assert.deepEqual(
      [...KAFKA_ERROR_STATUS.keys()].filter((code) => !covered.has(code)),
      [],
    );
  });

  for (const c of CASES) {
    it(`${c.name} (${c.code}) on ${c.route} -> ${c.status}`, async () => {
      const before = await gw.snapshot();
      const throttleTimeMs = c.code === 89 ? 2500 : undefined;
      const message = c.message ?? `simulated ${c.name}`;
      const spec: FaultSpec = {
        apiKey: c.apiKey,
        error: { code: c.code, message, ...(throttleTimeMs !== undefined && { throttleTimeMs }) },
      };
      const fault = gw.sim.faults.add(spec);
      const res = await c.call(gw);
      expectProblem(res, c.status, c.slug, c.code);
      assert.equal(res.body.kafkaError.name, c.name);
      assert.equal(gw.sim.faults.get(fault.id)!.applied, c.attempts ?? 1, 'requests the gateway sent');
      // Where the response shape carries a message, the broker's text reaches the caller.
      if (c.apiKey !== METADATA && !c.attempts) assert.equal(res.body.detail, message);
      if (c.status === 429) {
        assert.equal(res.headers['retry-after'], '3');
        assert.equal(res.body.throttleTimeMs, 2500);
      } else if (c.status === 503) {
        assert.ok(Number(res.headers['retry-after']) >= 1);
      } else {
        assert.equal(res.headers['retry-after'], undefined);
      }
      gw.sim.faults.clear();
      await gw.assertUnchanged(before);
    });
  }
});

describe('retriable errors the retry budget absorbs', () => {
  let gw: Gateway;
  before(async () => {
    gw = await startGateway({ simulator: { brokers: 3 }, kafkaEnv: { KAFKA_RETRIES: '2' } });
  });
  after(() => gw.close());
  beforeEach(() => gw.sim.faults.clear());

  it('NOT_CONTROLLER twice, then the topic is created exactly once', async () => {
    const fault = gw.sim.faults.add({ apiKey: CREATE_TOPICS, times: 2, error: { code: 41 } });
    const res = await gw.http().post('/topics').send({ name: 'after-41', partitions: 2, replicationFactor: 1 });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(gw.sim.faults.get(fault.id)!.applied, 2);
    assert.equal(gw.sim.model.getTopic('after-41')?.partitions.length, 2);
    assert.match(await gw.metrics.registry.metrics(), /kafka_gateway_kafka_requests_total\{api="CreateTopics",error="NOT_CONTROLLER"\} 2/);
  });

  it('REQUEST_TIMED_OUT on a read, then the answer', async () => {
    gw.sim.faults.add({ apiKey: DESCRIBE_CLUSTER, times: 1, error: { code: 7 } });
    const res = await gw.http().get('/cluster');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.brokers.length, 3);
  });

  it('a dropped answer to DeleteTopics: re-sent, and the second answer (unknown topic) is reported', async () => {
    assert.equal((await gw.http().post('/topics').send({ name: 'dropped', partitions: 1, replicationFactor: 1 })).status, 201);
    gw.sim.faults.add({ apiKey: DELETE_TOPICS, times: 1, drop: 'after' });
    const res = await gw.http().delete('/topics/dropped');
    // Deleted by the first request; the re-send finds nothing. Kafka gives no way to tell this
    // from "never existed", so the gateway reports what Kafka said.
    expectProblem(res, 404, 'unknown-topic-or-partition', 3);
    assert.equal(gw.sim.model.getTopic('dropped'), undefined);
  });
});

describe('a batch answered with one error', () => {
  it('every topic throttled: 429 with Retry-After and each item 429', async () => {
    const gw = await startGateway({ simulator: { brokers: 1 } });
    try {
      gw.sim.faults.add({ apiKey: CREATE_TOPICS, error: { code: 89, throttleTimeMs: 4100 } });
      const res = await gw
        .http()
        .post('/topics')
        .send([{ name: 'a' }, { name: 'b' }]);
      expectProblem(res, 429, 'throttling-quota-exceeded', 89);
      assert.equal(res.headers['retry-after'], '5');
      assert.deepEqual(
        res.body.items.map((i: { name: string; status: number }) => [i.name, i.status]),
        [
          ['a', 429],
          ['b', 429],
        ],
      );
      assert.equal(gw.sim.model.getTopic('a'), undefined);
    } finally {
      await gw.close();
    }
  });
});

// Every route that reaches Kafka, and the readiness probe.
const KAFKA_ROUTES: [string, Call][] = [
  ['GET /cluster', getCluster],
  ['GET /topics', (gw) => gw.http().get('/topics')],
  ['POST /topics', createTopic],
  [
    'POST /topics (batch)',
    (gw) =>
      gw
        .http()
        .post('/topics')
        .send([{ name: 'a' }, { name: 'b' }]),
  ],
  ['GET /topics/{t}', getTopic],
  ['DELETE /topics/{t}', deleteTopic],
  ['POST /topics/{t}/partitions', addPartitions],
  ['GET /readyz', (gw) => gw.http().get('/readyz')],
];

describe('Kafka outages', () => {
  it('no broker answers: 503 kafka-unavailable with Retry-After on every route; /healthz stays 200', async () => {
    const gw = await startGateway({ simulator: { brokers: 2 } });
    try {
      assert.equal((await gw.http().post('/topics').send({ name: 'existing', partitions: 1, replicationFactor: 1 })).status, 201);
      for (const e of gw.sim.endpoints()) await gw.sim.stopBroker(e.id);
      for (const [route, call] of KAFKA_ROUTES) {
        const res = await call(gw);
        expectProblem(res, 503, 'kafka-unavailable', 13);
        assert.ok(Number(res.headers['retry-after']) >= 1, route);
      }
      const health = await gw.http().get('/healthz');
      assert.deepEqual([health.status, health.body], [200, { status: 'ok' }], 'liveness never depends on Kafka');
    } finally {
      await gw.close();
    }
  });

  it('no answer within the request timeout: 503 kafka-timeout (REQUEST_TIMED_OUT) with Retry-After on every route', async () => {
    const gw = await startGateway({
      simulator: { brokers: 1 },
      kafkaEnv: { KAFKA_REQUEST_TIMEOUT_MS: '1000', KAFKA_PING_TIMEOUT_MS: '1000', KAFKA_RETRIES: '0' },
    });
    try {
      assert.equal((await gw.http().post('/topics').send({ name: 'existing', partitions: 1, replicationFactor: 1 })).status, 201);
      for (const apiKey of [METADATA, CREATE_TOPICS, DELETE_TOPICS, DESCRIBE_CONFIGS, CREATE_PARTITIONS, DESCRIBE_CLUSTER]) {
        gw.sim.faults.add({ apiKey, delayMs: 600_000 });
      }
      for (const [route, call] of KAFKA_ROUTES) {
        const res = await call(gw);
        expectProblem(res, 503, 'kafka-timeout', 7);
        assert.ok(Number(res.headers['retry-after']) >= 1, route);
      }
      gw.sim.faults.clear();
      assert.equal(gw.sim.model.getTopic('fresh'), undefined, 'the timed-out creations were never handled');
    } finally {
      await gw.close();
    }
  });

  it('/readyz: 503 kafka-timeout without a Kafka error when the probe outlives the readiness timeout', async () => {
    const gw = await startGateway({
      simulator: { brokers: 1 },
      kafkaEnv: { KAFKA_PING_TIMEOUT_MS: '30000' },
      app: { readyTimeoutMs: 200 },
    });
    try {
      const hang = gw.sim.faults.add({ apiKey: METADATA, delayMs: 600_000 });
      const res = await gw.http().get('/readyz');
      expectProblem(res, 503, 'kafka-timeout');
      assert.equal(res.body.kafkaError, undefined, 'our own timeout is not a Kafka error');
      assert.equal(gw.sim.faults.get(hang.id)!.applied, 1, 'the probe reached the broker and hung there');
    } finally {
      await gw.close();
    }
  });
});
