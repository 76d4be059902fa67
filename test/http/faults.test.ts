// Kafka misbehaving, against the simulator through the real Kafka layer:
//  - unreachable at start: the gateway serves, /readyz and routes answer 503 with
//    Retry-After, and it recovers without a restart once the cluster is up;
//  - the controller moving (ZooKeeper-style NOT_CONTROLLER answers): retried;
//  - a broker stopped in the middle of a request: answered from another broker;
//  - a slow broker: the request timeout is honoured (503 kafka-timeout, Retry-After).
// SIGTERM during a request is in faults-sigterm.test.ts (needs a child process).
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import request from 'supertest';
import { appOverKafka } from './app-over-kafka.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { startSimulator } from '../../src/sim/index.js';
import { eventually } from '../eventually.js';
import { expectProblem, FAST_KAFKA_ENV, startGateway } from './helpers.js';

async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Server>((resolve) => {
          const s = net.createServer();
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

describe('Kafka unreachable at start', () => {
  it('starts, answers 503 with Retry-After, and recovers without a restart', async () => {
    const ports = await freePorts(2);
    const metrics = createMetrics({ defaultMetrics: false });
    const kafka = createKafkaGateway(
      parseKafkaConfig({ ...FAST_KAFKA_ENV, KAFKA_BOOTSTRAP_SERVERS: ports.map((p) => `127.0.0.1:${p}`).join(',') }),
      { onKafkaRequest: metrics.onKafkaRequest },
    );
    const app = appOverKafka({ kafka, metrics, validateResponses: true, readyTimeoutMs: 3000 });
    let sim: Awaited<ReturnType<typeof startSimulator>> | undefined;
    try {
      assert.equal((await request(app).get('/healthz')).status, 200, 'liveness never depends on Kafka');
      const ready = await request(app).get('/readyz');
      expectProblem(ready, 503, 'kafka-unavailable');
      assert.ok(Number(ready.headers['retry-after']) >= 1);
      for (const res of [
        await request(app).get('/topics'),
        await request(app).get('/cluster'),
        await request(app).post('/topics').send({ name: 'early', partitions: 1, replicationFactor: 1 }),
      ]) {
        expectProblem(res, 503, 'kafka-unavailable');
        assert.ok(Number(res.headers['retry-after']) >= 1, JSON.stringify(res.headers));
      }

      sim = await startSimulator({ brokers: 2, ports });
      await eventually('readyz 200', async () => ((await request(app).get('/readyz')).status === 200 ? true : undefined), {
        timeoutMs: 15_000,
        everyMs: 100,
      });
      assert.equal((await request(app).get('/topics')).status, 200);
      assert.equal((await request(app).post('/topics').send({ name: 'late', partitions: 1, replicationFactor: 2 })).status, 201);
      // The 503 POST before the cluster existed created nothing.
      assert.equal(sim.model.getTopic('early'), undefined);
      assert.ok(sim.model.getTopic('late'));
    } finally {
      await kafka.close();
      await sim?.close();
    }
  });
});

describe('the controller moving', () => {
  it('NOT_CONTROLLER from the old controller is retried against the new one', async () => {
    const gw = await startGateway({ simulator: { brokers: 3, notControllerErrors: true }, kafkaEnv: { KAFKA_RETRIES: '3' } });
    try {
      assert.equal((await gw.http().post('/topics').send({ name: 'before-move', partitions: 1, replicationFactor: 1 })).status, 201);
      const oldController = gw.sim.model.controllerId;
      // Fence the controller (the controllership moves) and bring it back as a plain
      // broker: the gateway still believes in the old one and gets NOT_CONTROLLER.
      await gw.sim.stopBroker(oldController);
      await gw.sim.startBroker(oldController);
      assert.notEqual(gw.sim.model.controllerId, oldController);

      const res = await gw.http().post('/topics').send({ name: 'after-move', partitions: 1, replicationFactor: 1 });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const metricsText = await gw.metrics.registry.metrics();
      assert.match(metricsText, /kafka_gateway_kafka_requests_total\{api="CreateTopics",error="NOT_CONTROLLER"\} [1-9]/);

      // The controller stopped for good: connection refused, re-discovered, retried.
      await gw.sim.stopBroker(gw.sim.model.controllerId);
      assert.equal((await gw.http().delete('/topics/after-move')).status, 204);
      assert.equal(gw.sim.model.getTopic('after-move'), undefined);
    } finally {
      await gw.close();
    }
  });
});

describe('a broker stopped in the middle of a request', () => {
  it('a read in flight on the stopped broker is answered from another broker', async () => {
    const gw = await startGateway({ simulator: { brokers: 3 }, kafkaEnv: { KAFKA_RETRIES: '2' } });
    try {
      assert.equal((await gw.http().get('/cluster')).status, 200); // connections exist
      // Metadata held on brokers 0 and 1 (whichever the gateway asks), never on broker 2.
      for (const brokerId of [0, 1]) gw.sim.faults.add({ apiKey: 3, brokerId, delayMs: 600_000 });
      const held = new Promise<void>((resolve) => {
        const off = gw.sim.faults.onApplied(() => (off(), resolve()));
      });
      const inFlight = gw
        .http()
        .get('/topics')
        .then((r) => r);
      await held; // the request is at a broker that is about to stop
      await gw.sim.stopBroker(0);
      await gw.sim.stopBroker(1);
      const res = await inFlight;
      // The connection it was on broke; the retry found the broker still up.
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.match(
        await gw.metrics.registry.metrics(),
        /kafka_gateway_kafka_requests_total\{api="Metadata",error="NETWORK_EXCEPTION"\} [1-9]/,
      );
      assert.equal((await gw.http().get('/topics')).status, 200, 'served by the remaining broker');
    } finally {
      await gw.close();
    }
  });

  it('a change in flight on a stopped controller is not lost and not applied twice', async () => {
    const gw = await startGateway({ simulator: { brokers: 3 }, kafkaEnv: { KAFKA_RETRIES: '3' } });
    try {
      assert.equal((await gw.http().post('/topics').send({ name: 'warmup', partitions: 1, replicationFactor: 1 })).status, 201);
      const controller = gw.sim.model.controllerId;
      const held = gw.sim.faults.add({ apiKey: 19, brokerId: controller, delayMs: 600_000 });
      const inFlight = gw
        .http()
        .post('/topics')
        .send({ name: 'mid-flight', partitions: 2, replicationFactor: 2 })
        .then((r) => r);
      await gw.sim.faults.waitApplied(held.id); // the CreateTopics is at the controller, not handled
      await gw.sim.stopBroker(controller);
      const res = await inFlight;
      // The stopped broker never handled it (held before handling), so the retry on the
      // new controller creates it exactly once.
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(gw.sim.model.getTopic('mid-flight')?.partitions.length, 2);
    } finally {
      await gw.close();
    }
  });
});

describe('a slow broker', () => {
  it('the request timeout is honoured: 503 kafka-timeout with Retry-After, then normal service', async () => {
    const gw = await startGateway({
      simulator: { brokers: 1 },
      kafkaEnv: { KAFKA_REQUEST_TIMEOUT_MS: '300', KAFKA_PING_TIMEOUT_MS: '300', KAFKA_RETRIES: '0' },
    });
    try {
      assert.equal((await gw.http().get('/topics')).status, 200);
      gw.sim.setBrokerDelay(0, 2000);
      const res = await gw.http().get('/topics');
      expectProblem(res, 503, 'kafka-timeout', 7);
      assert.ok(Number(res.headers['retry-after']) >= 1);
      const ready = await gw.http().get('/readyz');
      assert.equal(ready.status, 503);
      const post = await gw.http().post('/topics').send({ name: 'slow', partitions: 1, replicationFactor: 1 });
      assert.equal(post.status, 503, JSON.stringify(post.body));

      gw.sim.setBrokerDelay(0, 0);
      await eventually('normal service', async () => ((await gw.http().get('/topics')).status === 200 ? true : undefined), {
        timeoutMs: 15_000,
        everyMs: 100,
      });
      assert.equal((await gw.http().get('/readyz')).status, 200);
    } finally {
      await gw.close();
    }
  });
});
