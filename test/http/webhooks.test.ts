// /webhooks over HTTP (responses validated against openapi.yaml): create, list (never the
// secret), get, delete, deliveries; 400 for bad input, 404 for an unknown id, 403 below admin,
// an audit line per create/delete with the secret redacted. The state store runs on an
// in-memory log (the delivery is covered in test/events and webhooks.integration.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { createReassignmentChangeFeed } from '../../src/events/reassignment-changes.js';
import { loadWebhookConfig } from '../../src/events/webhook-config.js';
import { newSecret } from '../../src/events/webhook-message.js';
import { WebhookService } from '../../src/events/webhook-service.js';
import { appOverKafka } from './app-over-kafka.js';
import { StateStore } from '../../src/state/store.js';
import { MemoryLog } from '../state/memory-log.js';
import { roleTokens } from './auth-helpers.js';
import { FakeKafka } from './fake-kafka.js';

function setup(env: Record<string, string> = {}) {
  const store = new StateStore(new MemoryLog());
  const changes = createReassignmentChangeFeed(store);
  const service = new WebhookService({ store, changes, config: loadWebhookConfig(env) });
  const roles = roleTokens();
  const audits: Record<string, unknown>[] = [];
  const audit = { info: (_m: string, f?: Record<string, unknown>) => void (f?.type === 'audit' && audits.push(f)), warn() {}, error() {} };
  const app = appOverKafka({ kafka: new FakeKafka(), validateResponses: true, auth: roles.auth, auditLogger: audit, webhooks: service });
  const as = (role: 'viewer' | 'operator' | 'admin') => ({
    get: (path: string) => request(app).get(path).set('authorization', `Bearer ${roles.token[role]}`),
    post: (path: string, body: unknown) =>
      request(app)
        .post(path)
        .set('authorization', `Bearer ${roles.token[role]}`)
        .send(body as object),
    delete: (path: string) => request(app).delete(path).set('authorization', `Bearer ${roles.token[role]}`),
  });
  return { store, app, audits, as };
}

describe('/webhooks', () => {
  it('creates (secret answered once, when generated), lists and gets without the secret, deletes', async () => {
    const { as, store, audits } = setup();
    const admin = as('admin');
    const created = await admin.post('/webhooks', {
      url: 'https://ci.example.com/hooks/kafka',
      events: ['completed', 'failed'],
      description: 'CI',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.webhook.id as string;
    assert.match(id, /^wh_[0-9a-f]{16}$/);
    assert.equal(created.headers.location, `/webhooks/${id}`);
    assert.match(created.body.secret, /^whsec_/);
    assert.equal(store.view().webhooks?.get(id)?.secret, created.body.secret, 'kept in the state topic');
    assert.deepEqual(created.body.webhook.deliveries, { pending: 0, delivered: 0, failed: 0 });

    const given = await admin.post('/webhooks', { url: 'http://127.0.0.1:8080/hook', secret: newSecret() });
    assert.equal(given.status, 201);
    assert.equal(given.body.secret, null, 'a secret the caller gave is not echoed');

    const list = await admin.get('/webhooks');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.webhooks.map((w: { id: string }) => w.id),
      [id, given.body.webhook.id],
    );
    assert.ok(!JSON.stringify(list.body).includes('whsec_'), 'no secret in the list');
    const one = await admin.get(`/webhooks/${id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(
      [one.body.url, one.body.events, one.body.createdBy],
      ['https://ci.example.com/hooks/kafka', ['completed', 'failed'], 'admin-caller'],
    );
    assert.ok(!('secret' in one.body));
    const deliveries = await admin.get(`/webhooks/${id}/deliveries?limit=5`);
    assert.deepEqual([deliveries.status, deliveries.body], [200, { webhookId: id, deliveries: [] }]);

    assert.equal((await admin.delete(`/webhooks/${id}`)).status, 204);
    assert.equal((await admin.get(`/webhooks/${id}`)).status, 404);
    assert.equal((await admin.delete(`/webhooks/${id}`)).status, 404);
    assert.equal(store.view().webhooks?.has(id), false);

    // One audit line per create and delete (GETs are not audited); the secret redacted.
    const lines = audits.filter((l) => String(l.route).startsWith('/webhooks'));
    assert.deepEqual(
      lines.map((l) => [l.operationId, l.outcome]),
      [
        ['createWebhook', 'success'],
        ['createWebhook', 'success'],
        ['deleteWebhook', 'success'],
        ['deleteWebhook', 'failure'],
      ],
    );
    assert.ok(!JSON.stringify(audits).includes('whsec_'), 'the secret is redacted in the audit trail');
  });

  it('bad input is a 400 and creates nothing', async () => {
    const { as, store } = setup();
    const admin = as('admin');
    const cases: unknown[] = [
      { url: 'ftp://example.com/x' },
      { url: 'https://user:pw@example.com/x' },
      { url: 'not a url at all' },
      { url: 'https://example.com/#frag' },
      { url: 'https://example.com/x', events: ['exploded'] },
      { url: 'https://example.com/x', events: [] },
      { url: 'https://example.com/x', secret: 'short' },
      { url: 'https://example.com/x', secret: 'whsec_' + Buffer.alloc(16).toString('base64') },
      { url: 'https://example.com/x', extra: 1 },
      {},
    ];
    for (const body of cases) {
      const res = await admin.post('/webhooks', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    }
    assert.equal(store.view().webhooks?.size ?? 0, 0);
    assert.equal((await admin.get('/webhooks/not-an-id')).status, 400);
    assert.equal((await admin.get('/webhooks/wh_0000000000000000')).status, 404);
    assert.equal((await admin.get('/webhooks/wh_0000000000000000/deliveries')).status, 404);
    assert.equal((await admin.get('/webhooks/wh_0000000000000000/deliveries?limit=0')).status, 400);
  });

  it('viewer and operator get 403 on every /webhooks operation; WEBHOOK_MAX_COUNT answers 409', async () => {
    const { as } = setup({ WEBHOOK_MAX_COUNT: '1' });
    for (const role of ['viewer', 'operator'] as const) {
      const c = as(role);
      assert.equal((await c.get('/webhooks')).status, 403);
      assert.equal((await c.post('/webhooks', { url: 'https://example.com/x' })).status, 403);
      assert.equal((await c.get('/webhooks/wh_0000000000000000')).status, 403);
      assert.equal((await c.delete('/webhooks/wh_0000000000000000')).status, 403);
      assert.equal((await c.get('/webhooks/wh_0000000000000000/deliveries')).status, 403);
    }
    const admin = as('admin');
    assert.equal((await admin.post('/webhooks', { url: 'https://example.com/a' })).status, 201);
    const full = await admin.post('/webhooks', { url: 'https://example.com/b' });
    assert.equal(full.status, 409);
    assert.equal(full.body.type, 'https://kafka-admin-gateway.dev/problems/webhook-limit');
  });
});
