// Graceful shutdown: in-flight requests finish, new requests get 503 shutting-down, /readyz
// flips to 503 while draining, and Kafka is closed only after the last response.
import assert from 'node:assert/strict';
import { httpGet } from './http-get.js';
import { it } from 'node:test';
import { appOverKafka } from './app-over-kafka.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { startServer } from '../../src/http/server.js';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { startSimulator } from '../../src/sim/index.js';
import { FakeKafka } from './fake-kafka.js';
import { FAST_KAFKA_ENV, recordingLogger } from './helpers.js';

const get = httpGet;

it('drains in-flight requests, answers new ones 503 shutting-down, then closes Kafka', async () => {
  const kafka = new FakeKafka();
  const events: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inHandler = new Promise<void>((r) => (entered = r));
  kafka.describeCluster = async () => {
    entered();
    await gate;
    events.push('response computed');
    return kafka.cluster;
  };
  kafka.close = async () => {
    events.push('kafka closed');
  };
  const state = { draining: false };
  const app = appOverKafka({ kafka, state, metrics: createMetrics({ defaultMetrics: false }) });
  const server = await startServer({ app, kafka, state, logger: recordingLogger(), port: 0, host: '127.0.0.1', shutdownTimeoutMs: 5000 });
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);

  const inFlight = get(`${server.url}/cluster`);
  await inHandler;
  const stopped = server.shutdown('test');
  assert.equal(state.draining, true, 'readiness flips before connections close');
  const fresh = await get(`${server.url}/topics`);
  assert.equal(fresh.status, 503);
  assert.equal(JSON.parse(fresh.body).type, 'https://kafka-admin-gateway.dev/problems/shutting-down');
  assert.equal((await get(`${server.url}/readyz`)).status, 503, 'readiness answers 503 instead of refusing the connection');

  release();
  const res = await inFlight;
  assert.equal(res.status, 200);
  assert.equal(JSON.parse(res.body).clusterId, 'fake-cluster');
  await stopped;
  assert.deepEqual(events, ['response computed', 'kafka closed']);
  assert.equal(server.server.listening, false);
  await assert.rejects(get(`${server.url}/healthz`), /ECONNREFUSED|ECONNRESET/, 'closed once drained');
  // Idempotent: a second signal does not close Kafka twice.
  await server.shutdown('again');
  assert.deepEqual(events, ['response computed', 'kafka closed']);
});

it('answers requests still running after the shutdown timeout with 503 shutting-down, and still closes Kafka', async () => {
  // Over the wire: the simulator holds the gateway's DescribeCluster (a Kafka that never answers).
  const sim = await startSimulator({ brokers: 1 });
  const kafka = createKafkaGateway(
    parseKafkaConfig({ ...FAST_KAFKA_ENV, KAFKA_REQUEST_TIMEOUT_MS: '600000', KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') }),
  );
  try {
    const hang = sim.faults.add({ apiKey: 60, delayMs: 600_000 });
    const state = { draining: false };
    const logger = recordingLogger();
    const app = appOverKafka({ kafka, state, metrics: createMetrics({ defaultMetrics: false }) });
    const server = await startServer({ app, kafka, state, logger, port: 0, host: '127.0.0.1', shutdownTimeoutMs: 100 });
    const hung = get(`${server.url}/cluster`);
    await sim.faults.waitApplied(hang.id); // the request is at the broker, unanswered
    await server.shutdown('test');
    const res = await hung;
    assert.equal(res.status, 503);
    assert.equal(JSON.parse(res.body).type, 'https://kafka-admin-gateway.dev/problems/shutting-down');
    await assert.rejects(kafka.describeCluster(), /closed/, 'Kafka was closed');
    assert.equal(logger.warnings.length, 1);
  } finally {
    await kafka.close().catch(() => undefined);
    await sim.close();
  }
});

it('rejects when the port is taken', async () => {
  const kafka = new FakeKafka();
  const app = appOverKafka({ kafka, metrics: createMetrics({ defaultMetrics: false }) });
  const a = await startServer({ app, kafka, state: { draining: false }, logger: recordingLogger(), port: 0, host: '127.0.0.1' });
  const port = Number(new URL(a.url).port);
  await assert.rejects(
    startServer({ app, kafka, state: { draining: false }, logger: recordingLogger(), port, host: '127.0.0.1' }),
    /EADDRINUSE/,
  );
  await a.shutdown();
});
