// Webhook delivery over the state store (in-memory log), with a recording sender: order,
// signatures, retries with backoff, giving up, and a holder that dies mid-delivery (another
// instance takes over after the lease; receivers deduplicate by id).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { createReassignmentChangeFeed } from '../../src/events/reassignment-changes.js';
import { backoffMs, loadWebhookConfig, type WebhookConfig } from '../../src/events/webhook-config.js';
import { DELIVERY_CLAIM, fetchSender, WebhookDelivery, type WebhookSender } from '../../src/events/webhook-delivery.js';
import { cloudEventOf, newSecret, secretKey, verifySignature } from '../../src/events/webhook-message.js';
import { WebhookService } from '../../src/events/webhook-service.js';
import { RECORD_VERSION, type ReassignmentRecord } from '../../src/state/records.js';
import { StateStore } from '../../src/state/store.js';
import { loadSpec } from '../../src/http/spec.js';
import { MemoryLog } from '../state/memory-log.js';
import { startReceiver } from './webhook-receiver.js';

const CONFIG: WebhookConfig = {
  ...loadWebhookConfig({}),
  backoffBaseMs: 1000,
  backoffMaxMs: 8000,
  maxAttempts: 4,
  leaseMs: 20_000,
  attemptTimeoutMs: 1000,
};

function record(id: string, over: Partial<ReassignmentRecord> = {}): ReassignmentRecord {
  return {
    kind: 'reassignment',
    v: RECORD_VERSION,
    id,
    state: 'pending',
    partitions: [{ topic: 't', partition: 0, original: [0], target: [1], state: 'queued' }],
    concurrency: null,
    order: 'as-given',
    paused: false,
    throttle: null,
    autoRemoveThrottle: true,
    throttleDemand: null,
    owner: 'i',
    requestedBy: 'alice',
    createdAt: 10_000,
    startDeadline: 50_000,
    updatedAt: 10_000,
    ...over,
  };
}

interface Received {
  id: string;
  body: string;
  signed: boolean;
}

/** A receiver: records what it got and whether the signature verifies; `answer` decides the status. */
function receiver(secret: () => string, clock: () => number, answer: (n: number, id: string) => number | Promise<number> = () => 200) {
  const got: Received[] = [];
  const send: WebhookSender = async ({ headers, body }) => {
    const signed = verifySignature(
      secret(),
      { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'] },
      body,
      clock(),
    );
    got.push({ id: headers['webhook-id'], body, signed });
    return { status: await answer(got.length, headers['webhook-id']) };
  };
  return { got, send };
}

/** One gateway instance: its own view of the log, change feed, service and delivery. */
function instance(log: MemoryLog, name: string, clock: { now: number; mono: number }, send: WebhookSender, config = CONFIG) {
  const store = new StateStore(log, { now: () => clock.now, monotonic: () => clock.mono });
  const changes = createReassignmentChangeFeed(store);
  const delivery = new WebhookDelivery({
    store,
    changes,
    config,
    owner: name,
    source: 'urn:test',
    send,
    now: () => clock.now,
    random: () => 0.5,
  });
  const service = new WebhookService({ store, changes, config, now: () => clock.now });
  return { store, changes, delivery, service };
}

describe('webhook message', () => {
  it('is a CloudEvent signed as Standard Webhooks sign; a tampered body or an old timestamp does not verify', () => {
    const secret = newSecret();
    assert.ok(secretKey(secret));
    assert.equal(secretKey('whsec_' + Buffer.alloc(16).toString('base64')), undefined, 'too short a key');
    assert.equal(secretKey('not-a-secret'), undefined);
    const change = {
      eventId: 'r:created',
      reassignmentId: 'r',
      type: 'created',
      state: 'pending',
      previousState: null,
      at: new Date(10_000).toISOString(),
      seq: 1,
      paused: false,
      partitions: 1,
      requestedBy: null,
      reason: null,
      rollbackOf: null,
    };
    const ev = cloudEventOf(change, 'urn:test');
    assert.deepEqual(
      [ev.specversion, ev.id, ev.type, ev.subject, ev.time],
      ['1.0', 'r:created', 'io.kafka-admin-gateway.reassignment.created', 'r', '1970-01-01T00:00:10.000Z'],
    );
    const body = JSON.stringify(ev);
    const ts = 1_700_000_000;
    const sig = `v1,${createHmac('sha256', secretKey(secret)!).update(`r:created.${ts}.${body}`).digest('base64')}`;
    assert.equal(verifySignature(secret, { id: 'r:created', timestamp: String(ts), signature: `v1,bogus ${sig}` }, body, ts * 1000), true);
    assert.equal(
      verifySignature(secret, { id: 'r:created', timestamp: String(ts), signature: sig }, body.replace('pending', 'running'), ts * 1000),
      false,
    );
    assert.equal(
      verifySignature(secret, { id: 'r:started', timestamp: String(ts), signature: sig }, body, ts * 1000),
      false,
      'the id is signed',
    );
    assert.equal(verifySignature(secret, { id: 'r:created', timestamp: String(ts), signature: sig }, body, (ts + 301) * 1000), false);
  });

  it('matches the contract: the CloudEvent is valid against openapi.yaml ReassignmentChangeEvent', () => {
    const require = createRequire(import.meta.url);
    const Ajv2020 = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js').default;
    const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(loadSpec().document, 'openapi.json');
    const validate = ajv.getSchema('openapi.json#/components/schemas/ReassignmentChangeEvent')!;
    const change = {
      eventId: 'r:held:5',
      reassignmentId: 'r',
      type: 'held',
      state: 'held',
      previousState: 'running',
      at: new Date(5).toISOString(),
      seq: 3,
      paused: false,
      partitions: null,
      requestedBy: 'ci',
      reason: 'held: offlinePartitions',
      rollbackOf: null,
    };
    assert.equal(validate(cloudEventOf(change, 'urn:kafka-admin-gateway:s')), true, JSON.stringify(validate.errors));
    assert.equal(validate({ ...cloudEventOf(change, 'urn:x'), extra: 1 }), false, 'the check can fail');
  });

  it('backs off exponentially, capped, with jitter between half and all of it', () => {
    const c = { backoffBaseMs: 1000, backoffMaxMs: 8000 };
    assert.deepEqual(
      [1, 2, 3, 4, 5, 9].map((n) => backoffMs(c, n, () => 1)),
      [1000, 2000, 4000, 8000, 8000, 8000],
    );
    assert.deepEqual(
      [1, 2, 3].map((n) => backoffMs(c, n, () => 0)),
      [500, 1000, 2000],
    );
  });
});

describe('WebhookDelivery', () => {
  it('delivers every change of a reassignment once, in order, signed, and records it in the state topic', async () => {
    const log = new MemoryLog();
    const clock = { now: 5_000, mono: 0 };
    let secret = '';
    const rx = receiver(
      () => secret,
      () => clock.now,
    );
    const a = instance(log, 'a', clock, rx.send);
    const created = await a.service.create({ url: 'http://127.0.0.1:9/hook' }, 'admin');
    assert.equal(created.kind, 'created');
    if (created.kind !== 'created') return;
    secret = created.secret!;
    let r = record('r1');
    await a.store.write([r]);
    await a.delivery.pass();
    r = { ...r, state: 'running', startedAt: 11_000, updatedAt: 11_000 };
    await a.store.write([r]);
    await a.store.write([{ ...r, state: 'completed', endedAt: 12_000, updatedAt: 12_000 }]);
    await a.delivery.pass();
    await a.delivery.pass();
    assert.deepEqual(
      rx.got.map((g) => g.id),
      ['r1:created', 'r1:started', 'r1:completed'],
    );
    assert.ok(rx.got.every((g) => g.signed));
    assert.equal(JSON.parse(rx.got[2].body).data.previousState, 'running');

    // Another instance reads the progress from the log: nothing left to send.
    const b = instance(log, 'b', clock, rx.send);
    await b.store.refresh();
    await b.delivery.pass();
    assert.equal(rx.got.length, 3);
    const lines = await b.service.deliveries(created.webhook.id);
    assert.deepEqual(
      lines?.map((l) => [l.eventId, l.status, l.attempts]),
      [
        ['r1:completed', 'delivered', 1],
        ['r1:started', 'delivered', 1],
        ['r1:created', 'delivered', 1],
      ],
    );
    assert.deepEqual((await b.service.get(created.webhook.id))?.deliveries, { pending: 0, delivered: 3, failed: 0 });
    assert.equal(a.store.claims().length, 0, 'the delivery claim is released after each pass');
  });

  it('retries a failing receiver with backoff (the retry state in the topic), then goes on; gives up after maxAttempts', async () => {
    const log = new MemoryLog();
    const clock = { now: 5_000, mono: 0 };
    // r1:created fails twice, r2:created always.
    const rx = receiver(
      () => secret,
      () => clock.now,
      (_n, id) => (id === 'r2:created' ? 500 : rx.got.filter((g) => g.id === id).length <= 2 ? 503 : 204),
    );
    const a = instance(log, 'a', clock, rx.send);
    const created = await a.service.create({ url: 'http://127.0.0.1:9/hook', events: ['created'] }, null);
    const secret = created.kind === 'created' ? created.secret! : '';
    const id = created.kind === 'created' ? created.webhook.id : '';
    await a.store.write([record('r1'), record('r2', { createdAt: 10_001, updatedAt: 10_001 })]);
    await a.delivery.pass();
    assert.deepEqual(
      rx.got.map((g) => g.id),
      ['r1:created'],
    );
    const retry = a.store.view().webhookDeliveries?.get(id)?.retry;
    assert.deepEqual([retry?.eventId, retry?.attempts, retry?.lastStatus, retry?.nextAttemptAt], ['r1:created', 1, 503, 5_000 + 750]);
    await a.delivery.pass();
    assert.equal(rx.got.length, 1, 'not before its backoff');
    // Another instance respects the backoff recorded in the topic too.
    const b = instance(log, 'b', clock, rx.send);
    await b.store.refresh();
    await b.delivery.pass();
    assert.equal(rx.got.length, 1);
    clock.now += 750;
    await b.delivery.pass();
    clock.now += 1500;
    await b.delivery.pass();
    assert.deepEqual(
      rx.got.map((g) => g.id),
      ['r1:created', 'r1:created', 'r1:created', 'r2:created'],
    );
    for (let i = 0; i < 5; i++) {
      clock.now += 10_000;
      await b.delivery.pass();
    }
    assert.equal(rx.got.filter((g) => g.id === 'r2:created').length, CONFIG.maxAttempts);
    const lines = await a.service.deliveries(id);
    assert.deepEqual(
      lines?.map((l) => [l.eventId, l.status, l.attempts, l.lastStatus]),
      [
        ['r2:created', 'failed', 4, 500],
        ['r1:created', 'delivered', 3, 204],
      ],
    );
  });

  it('a holder that dies mid-delivery: another instance takes over after the lease and sends what is not recorded', async () => {
    const log = new MemoryLog();
    const clockA = { now: 5_000, mono: 0 };
    const clockB = { now: 5_000, mono: 0 };
    let secret = '';
    // A's receiver call for r1:started never answers (A hangs there, holding the claim, then "dies").
    let release!: () => void;
    const hung = new Promise<number>((r) => (release = () => r(200)));
    const got: string[] = [];
    const a = instance(
      log,
      'a',
      clockA,
      async ({ headers }) => (got.push(headers['webhook-id']), { status: headers['webhook-id'] === 'r1:started' ? await hung : 200 }),
    );
    const b = instance(log, 'b', clockB, async ({ headers, body }) => {
      assert.ok(
        verifySignature(
          secret,
          { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'] },
          body,
          clockB.now,
        ),
      );
      got.push(headers['webhook-id']);
      return { status: 200 };
    });
    const created = await a.service.create({ url: 'http://127.0.0.1:9/hook' }, null);
    secret = created.kind === 'created' ? created.secret! : '';
    await a.store.write([record('r1'), record('r1', { state: 'running', startedAt: 11_000, updatedAt: 11_000 })]);
    const aPass = a.delivery.pass();
    // A sent r1:created and hangs on r1:started; B sees A's claim and leaves the work to it.
    for (let i = 0; i < 100 && got.length < 2; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(got, ['r1:created', 'r1:started']);
    await b.store.refresh();
    await b.delivery.pass();
    assert.equal(got.length, 2);
    assert.equal(b.store.holder(DELIVERY_CLAIM)?.owner, 'a');
    await b.store.write([record('r1', { state: 'completed', startedAt: 11_000, endedAt: 12_000, updatedAt: 12_000 })]);
    // B's clock passes A's lease: B takes over and sends what has no outcome.
    clockB.mono += CONFIG.leaseMs + 1;
    await b.delivery.pass();
    assert.deepEqual(got, ['r1:created', 'r1:started', 'r1:started', 'r1:completed']);
    // A wakes up: the receiver had its request; A's progress write is refused (its claim ended).
    clockA.mono += CONFIG.leaseMs + 1;
    release();
    await aPass;
    await b.delivery.pass();
    assert.equal(got.length, 4);
    assert.deepEqual([...new Set(got)], ['r1:created', 'r1:started', 'r1:completed'], 'after dedupe by id: each change exactly once');
    const lines = await b.service.deliveries(created.kind === 'created' ? created.webhook.id : '');
    assert.deepEqual(
      lines?.map((l) => l.status),
      ['delivered', 'delivered', 'delivered'],
    );
  });

  it('changes from before a webhook was created are not sent; a deleted webhook gets nothing more', async () => {
    const log = new MemoryLog();
    const clock = { now: 20_000, mono: 0 };
    const rx = receiver(
      () => '',
      () => clock.now,
    );
    const a = instance(log, 'a', clock, rx.send);
    await a.store.write([record('old')]); // createdAt 10,000: before the webhook
    const created = await a.service.create({ url: 'http://127.0.0.1:9/hook', secret: newSecret() }, null);
    assert.equal(created.kind === 'created' && created.secret, null, 'a given secret is not answered back');
    await a.delivery.pass();
    assert.equal(rx.got.length, 0);
    const id = created.kind === 'created' ? created.webhook.id : '';
    assert.equal(await a.service.delete(id), true);
    assert.equal(await a.service.delete(id), false);
    await a.store.write([record('new', { createdAt: 21_000, updatedAt: 21_000 })]);
    await a.delivery.pass();
    assert.equal(rx.got.length, 0);
    assert.equal(a.store.view().webhookDeliveries?.size, 0);
  });

  it('an attempt with no answer ends at the attempt timeout (fetch), recorded as the retry reason', async () => {
    const rx = await startReceiver(() => new Promise<number>(() => undefined)); // never answers
    try {
      const clock = { now: 5_000, mono: 0 };
      const a = instance(new MemoryLog(), 'a', clock, fetchSender, { ...CONFIG, attemptTimeoutMs: 200 });
      const created = await a.service.create({ url: rx.url }, null);
      const id = created.kind === 'created' ? created.webhook.id : '';
      await a.store.write([record('r1')]);
      const started = Date.now();
      await a.delivery.pass();
      assert.ok(Date.now() - started < 5000, 'bounded by the attempt timeout');
      assert.equal(rx.got.length, 0, 'no answer was sent');
      const retry = a.store.view().webhookDeliveries?.get(id)?.retry;
      assert.deepEqual(
        [retry?.eventId, retry?.attempts, retry?.lastStatus, retry?.lastError],
        ['r1:created', 1, null, 'no answer within 200 ms'],
      );
    } finally {
      await rx.close();
    }
  });

  it('refuses bad input: a non-http URL, credentials, an unknown change type, a short secret', async () => {
    const a = instance(new MemoryLog(), 'a', { now: 0, mono: 0 }, async () => ({ status: 200 }));
    const bad = await a.service.create(
      { url: 'ftp://x.example/', events: ['created', 'exploded'], secret: 'whsec_' + Buffer.alloc(8).toString('base64') },
      null,
    );
    assert.equal(bad.kind, 'invalid');
    assert.deepEqual(bad.kind === 'invalid' && bad.errors.map((e) => e.path), ['/url', '/events/1', '/secret']);
    const creds = await a.service.create({ url: 'https://user:pw@x.example/' }, null);
    assert.equal(creds.kind === 'invalid' && creds.errors[0].path, '/url');
    assert.deepEqual(await a.service.list(), []);
  });
});
