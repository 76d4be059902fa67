// A webhook receiver (a loopback HTTP server in this test) gets every state change of a paced
// reassignment run on the simulator (created, started, paused, resumed, completed), each with a
// valid Standard Webhooks signature over a CloudEvent, exactly once by id after deduplication;
// it refuses its first deliveries (503) and gets them again (retries with backoff).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createReassignmentChangeFeed } from '../../src/events/reassignment-changes.js';
import { loadWebhookConfig } from '../../src/events/webhook-config.js';
import { createWebhookMetrics } from '../../src/events/webhook-metrics.js';
import { createWebhookRuntime, type WebhookRuntime } from '../../src/events/webhooks.js';
import { appOverKafka } from '../http/app-over-kafka.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { createTopics, startReassignGateway, type ReassignGateway } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';
import { signed, startReceiver } from './webhook-receiver.js';

let gw: ReassignGateway;
let hooks: WebhookRuntime;
let app: ReturnType<typeof appOverKafka>;
before(async () => {
  gw = await startReassignGateway({ simulator: { brokers: 4 }, reconcile: false });
  // The feed observes the store before its first read (as src/main.ts wires it).
  const changes = createReassignmentChangeFeed(gw.runtime.store);
  const config = loadWebhookConfig({
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_BACKOFF_BASE_MS: '50',
    WEBHOOK_BACKOFF_MAX_MS: '200',
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
  });
  // An app of its own (its own metrics registry) over the gateway's runtime, with webhooks.
  const metrics = createMetrics({ defaultMetrics: false });
  hooks = createWebhookRuntime({
    store: gw.runtime.store,
    changes,
    config,
    owner: 'test',
    stateTopic: gw.runtime.config.stateTopic,
    metrics: createWebhookMetrics(metrics.registry),
  });
  app = appOverKafka({ kafka: gw.kafka, metrics, validateResponses: true, reassignments: gw.runtime, changes, webhooks: hooks.service });
  hooks.delivery.start();
  gw.runtime.reconciler.start();
});
after(async () => {
  await hooks?.delivery.stop();
  await gw?.close();
});

describe('webhooks over a reassignment on the simulator', () => {
  it('the receiver gets every state change once by id, signed, after refusing the first two deliveries', async () => {
    const rx = await startReceiver((n) => (n <= 2 ? 503 : 200));
    try {
      const created = await request(app).post('/webhooks').send({ url: rx.url });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const secret = created.body.secret as string;
      const webhookId = created.body.webhook.id as string;

      const assignments = [
        [0, 1],
        [1, 2],
        [2, 3],
        [3, 0],
      ];
      await createTopics({ http: () => request(app) }, { name: 'hooked', assignments });
      for (let p = 0; p < assignments.length; p++) gw.sim.seedBytes('hooked', p, 60_000);
      const targets = assignments.map(([a, b], partition) => ({ topic: 'hooked', partition, replicas: [a, (b + 1) % 4] }));
      const res = await request(app)
        .post('/reassignments')
        .send({ partitions: targets, throttle: 100_000, concurrency: { perBroker: 1 } });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const id = res.body.id as string;
      const paused = await request(app).patch(`/reassignments/${id}`).send({ paused: true });
      assert.equal(paused.status, 200, JSON.stringify(paused.body));
      await eventually(async () => (rx.got.some((d) => d.headers['webhook-id'] === `${id}:started`) ? true : undefined), 20_000);
      const resumed = await request(app).patch(`/reassignments/${id}`).send({ paused: false });
      assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
      await eventually(
        async () => ((await request(app).get(`/reassignments/${id}`)).body.state === 'completed' ? true : undefined),
        60_000,
      );

      const expected = ['created', 'started', 'paused', 'resumed', 'completed'];
      const delivered = await eventually(async () => {
        const ok = rx.got.filter((d) => d.status === 200);
        return ok.length >= expected.length ? ok : undefined;
      }, 20_000);
      const ids = delivered.map((d) => String(d.headers['webhook-id']));
      assert.equal(new Set(ids).size, ids.length, `delivered once each: ${ids.join(' ')}`);
      const events = delivered.map(
        (d) =>
          JSON.parse(d.body) as {
            id: string;
            type: string;
            specversion: string;
            subject: string;
            time: string;
            data: { state: string; previousState: string | null; partitions: number };
          },
      );
      assert.deepEqual(
        events.map((e) => e.type),
        expected.map((t) => `io.kafka-admin-gateway.reassignment.${t}`),
        'every change, in order',
      );
      assert.deepEqual(
        events.map((e) => e.id),
        ids,
        'CloudEvents id = webhook-id',
      );
      assert.ok(
        events.every((e) => e.specversion === '1.0' && e.subject === id && e.data.partitions === 4 && !Number.isNaN(Date.parse(e.time))),
      );
      assert.deepEqual(
        events.map((e) => [e.data.state, e.data.previousState]),
        [
          ['pending', null],
          ['running', 'pending'],
          ['paused', 'running'],
          ['running', 'paused'],
          ['completed', 'running'],
        ],
      );
      assert.ok(
        rx.got.every((d) => signed(d, secret)),
        'every request signed',
      );
      assert.ok(rx.got.every((d) => d.headers['content-type'] === 'application/cloudevents+json; charset=utf-8'));
      // The two refused deliveries were the first change, tried again with the same id.
      assert.deepEqual(
        rx.got.slice(0, 3).map((d) => d.headers['webhook-id']),
        [`${id}:created`, `${id}:created`, `${id}:created`],
      );

      const lines = await request(app).get(`/webhooks/${webhookId}/deliveries`);
      assert.equal(lines.status, 200);
      assert.deepEqual(
        lines.body.deliveries.map((l: { type: string; status: string; attempts: number }) => [l.type, l.status, l.attempts]),
        [
          ['completed', 'delivered', 1],
          ['resumed', 'delivered', 1],
          ['paused', 'delivered', 1],
          ['started', 'delivered', 1],
          ['created', 'delivered', 3],
        ],
      );
      const metrics = (await request(app).get('/metrics')).text;
      assert.match(metrics, /kafka_gateway_webhook_deliveries_total\{outcome="delivered"\} 5/);
      assert.match(metrics, /kafka_gateway_webhook_attempts_total\{result="http-error"\} 2/);
      assert.equal((await request(app).delete(`/webhooks/${webhookId}`)).status, 204);
    } finally {
      await rx.close();
    }
  });
});
