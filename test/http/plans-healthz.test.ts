// POST /plans on a large cluster does not block the event loop: /healthz answers while the plan
// is being computed. The simulator holds 24,000 partitions (12 brokers, three of them empty);
// the gateway reads them over TCP and plans a rebalance. Ordering is observed through the
// planner's slice events (diagnostics channel kafka-admin-gateway:plans), not through sleeps:
// at the first slice of the plan a /healthz request goes out on a warm keep-alive connection,
// and its answer must arrive before the plan's last slice. The only timing assertion is a
// generous bound on the longest slice.
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { loadSpec } from '../../src/http/spec.js';
import { PLAN_CHANNEL, type PlanRunEvent } from '../../src/plan/sliced.js';
import { startReassignGateway, type ReassignGateway } from './reassignment-helpers.js';

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js').default;
const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;

const BROKERS = 12;
const TOPICS = 24;
const PARTITIONS = 1_000;

let gw: ReassignGateway;
let server: http.Server;
let port: number;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

before(async () => {
  gw = await startReassignGateway({ simulator: { brokers: BROKERS }, reconcile: false });
  // Replicas on brokers 0..8 only (3..11 after adding brokers, say): the rebalance has work to do.
  for (let t = 0; t < TOPICS; t++) {
    gw.sim.model.createTopic({
      name: `big-${String(t).padStart(2, '0')}`,
      assignments: Array.from({ length: PARTITIONS }, (_, p) => ({
        partition: p,
        brokerIds: [(p + t) % 9, (p + t + 1) % 9, (p + t + 3) % 9],
      })),
    });
  }
  server = gw.app.listen(0);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  agent.destroy();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await gw?.close();
});

function call(method: string, path: string, body?: object): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = body ? JSON.stringify(body) : undefined;
    const req = http.request(
      {
        port,
        path,
        method,
        agent,
        headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('POST /plans on 24,000 partitions', () => {
  it('/healthz answers while the plan is being computed', async () => {
    // A warm connection for /healthz (the plan goes on its own socket).
    const health = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const healthz = () =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        http
          .get({ port, path: '/healthz', agent: health }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
          })
          .on('error', reject);
      });
    assert.equal((await healthz()).status, 200);

    const events: PlanRunEvent[] = [];
    const probe: { answered: Promise<{ status: number; body: any; slicesBefore: number; done: boolean }> | null } = { answered: null };
    let planSlices = 0;
    let planDone = false;
    const onEvent = (message: unknown) => {
      const e = message as PlanRunEvent;
      events.push(e);
      if (e.label !== 'plan') return;
      if (e.type === 'done') planDone = true;
      if (e.type !== 'slice') return;
      planSlices++;
      // First slice of the plan: ask /healthz now, while the planner has only just begun.
      if (!probe.answered) probe.answered = healthz().then((r) => ({ ...r, slicesBefore: planSlices, done: planDone }));
    };
    subscribe(PLAN_CHANNEL, onEvent);
    try {
      const planned = await call('POST', '/plans', { goal: 'rebalance' });
      assert.equal(planned.status, 200, JSON.stringify(planned.body).slice(0, 500));
      assert.ok(probe.answered, 'the plan ran in slices');
      const h = await probe.answered;
      assert.equal(h.status, 200);
      assert.deepEqual(h.body, { status: 'ok' });
      const done = events.find((e): e is Extract<PlanRunEvent, { type: 'done' }> => e.type === 'done' && e.label === 'plan')!;
      assert.ok(!h.done, `/healthz answered only after the plan was done (${done.slices} slices)`);
      assert.ok(h.slicesBefore < done.slices, `/healthz answered after slice ${h.slicesBefore} of ${done.slices}`);
      // Generous: the target is ~50 ms at 100,000 partitions; CI machines are slow and shared.
      assert.ok(done.maxSliceMs < 1_000, `longest slice ${done.maxSliceMs} ms`);

      // Large answers are written in slices (not through res.json, where responses are
      // validated): the same schema holds.
      assert.ok(planned.body.partitions.length > 2_000, `${planned.body.partitions.length} partitions: the sliced writer was used`);
      const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
      addFormats(ajv);
      ajv.addSchema(structuredClone(loadSpec().document), 'openapi.json');
      const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/PlanResponse' });
      const valid = (v: unknown): boolean => validate(v);
      assert.ok(valid(planned.body), ajv.errorsText(validate.errors));
      assert.deepEqual(
        planned.body.reassignment.partitions.map((p: any) => [p.topic, p.partition, p.replicas]),
        planned.body.partitions.map((p: any) => [p.topic, p.partition, p.targetReplicas]),
      );

      // And the plan is the right one: no racks, so exactly the lower bound, every broker even.
      assert.equal(planned.body.movedReplicas, planned.body.lowerBound.movedReplicas);
      assert.ok(planned.body.movedReplicas > 0);
      const counts = planned.body.after.map((l: { replicas: number }) => l.replicas);
      assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `totals ${counts}`);
    } finally {
      unsubscribe(PLAN_CHANNEL, onEvent);
      health.destroy();
    }
  });
});
