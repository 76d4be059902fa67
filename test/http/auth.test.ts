// Authentication and roles on EVERY operation of openapi.yaml, read at test time: a
// route added to the spec is tested here without editing this file. For each one:
// no token and a wrong token → 401 with WWW-Authenticate (public operations excepted),
// each role below x-required-role → 403, the required role → past access control.
// Against the simulator + the real Kafka layer; the cluster is unchanged at the end.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Test } from 'supertest';
import { PUBLIC, ROLES, roleAtLeast } from '../../src/http/auth/roles.js';
import { roleTokens, samplePath, specOperations, type RoleTokens } from './auth-helpers.js';
import { createTopics, expectProblem, startGateway, type Gateway } from './helpers.js';

const ACCESS_SLUGS = new Set(
  ['authentication-required', 'invalid-credentials', 'insufficient-role'].map((s) => `https://kafka-admin-gateway.dev/problems/${s}`),
);

let gw: Gateway;
let tokens: RoleTokens;
let before0: unknown;

function call(method: string, path: string): Test {
  const t = gw.http()[method.toLowerCase() as 'get'](path);
  // A body for every method that may carry one: access control must answer before it is read.
  return method === 'GET' || method === 'HEAD' ? t : t.set('Content-Type', 'application/json').send('{}');
}

before(async () => {
  tokens = roleTokens();
  gw = await startGateway({ app: { auth: tokens.auth } });
  // Snapshots go through the API: give the helper an admin token.
  await createTopics(await asAdmin(gw), { name: 'orders', partitions: 2, replicationFactor: 2 });
  before0 = await snapshotAsAdmin();
});
after(() => gw?.close());

/** A Gateway view whose http() sends the admin token (for helpers that call the API). */
async function asAdmin(g: Gateway): Promise<Gateway> {
  return { ...g, http: () => withToken(g, tokens.token.admin) };
}
function withToken(g: Gateway, token: string) {
  const agent = g.http();
  const wrap = (m: 'get' | 'post' | 'put' | 'patch' | 'delete') => (url: string) => agent[m](url).set('Authorization', `Bearer ${token}`);
  return { get: wrap('get'), post: wrap('post'), put: wrap('put'), patch: wrap('patch'), delete: wrap('delete') } as unknown as ReturnType<
    Gateway['http']
  >;
}
async function snapshotAsAdmin(): Promise<unknown> {
  const list = await withToken(gw, tokens.token.admin).get('/topics');
  assert.equal(list.status, 200);
  const details: Record<string, unknown> = {};
  for (const t of list.body.topics as { name: string }[])
    details[t.name] = (await withToken(gw, tokens.token.admin).get(`/topics/${t.name}`)).body;
  return { topics: list.body, details };
}

describe('every operation in openapi.yaml', () => {
  const operations = specOperations();

  it('the spec has operations and every one declares a role (see auth-roles.test.ts)', () => {
    assert.ok(operations.length >= 10);
  });

  for (const op of operations) {
    const path = samplePath(op);
    const name = `${op.method} ${op.route} (${op.operationId}, ${op.requiredRole})`;

    if (op.requiredRole === PUBLIC) {
      it(`${name}: reachable without credentials`, async () => {
        const res = await call(op.method, path);
        assert.ok(!ACCESS_SLUGS.has(res.body?.type), `${res.status} ${JSON.stringify(res.body)}`);
        assert.notEqual(res.status, 401);
      });
      continue;
    }

    it(`${name}: 401 without a token, with a wrong or malformed one`, async () => {
      const none = await call(op.method, path);
      expectProblem(none, 401, 'authentication-required');
      assert.equal(none.headers['www-authenticate'], 'Bearer realm="kafka-admin-gateway"');

      const wrong = await call(op.method, path).set('Authorization', `Bearer ${tokens.token.admin}x`);
      expectProblem(wrong, 401, 'invalid-credentials');
      assert.equal(wrong.headers['www-authenticate'], 'Bearer realm="kafka-admin-gateway", error="invalid_token"');

      for (const header of ['Basic YWRtaW46YWRtaW4=', 'Bearer', `Bearer ${tokens.token.admin} extra`, 'Bearer "quoted"']) {
        const malformed = await call(op.method, path).set('Authorization', header);
        expectProblem(malformed, 401, 'invalid-credentials');
        assert.match(malformed.headers['www-authenticate'] ?? '', /error="invalid_request"/);
      }
    });

    for (const role of ROLES) {
      const allowed = roleAtLeast(role, op.requiredRole);
      it(`${name}: ${role} is ${allowed ? 'let through' : 'refused with 403'}`, async () => {
        const res = await call(op.method, path).set('Authorization', `Bearer ${tokens.token[role]}`);
        if (allowed) {
          assert.ok(!ACCESS_SLUGS.has(res.body?.type), `${role}: ${res.status} ${JSON.stringify(res.body)}`);
          assert.ok(![401, 403].includes(res.status) || res.body?.kafkaError, `${role}: ${res.status} ${JSON.stringify(res.body)}`);
        } else {
          expectProblem(res, 403, 'insufficient-role');
          assert.match(res.body.detail, new RegExp(`requires the ${op.requiredRole} role`));
        }
      });
    }
  }

  it('nothing above changed the cluster', async () => {
    assert.deepEqual(await snapshotAsAdmin(), before0);
  });
});

describe('principal and scheme details', () => {
  it('the Bearer scheme is case-insensitive (RFC 7235)', async () => {
    const res = await gw.http().get('/topics').set('Authorization', `bearer ${tokens.token.viewer}`);
    assert.equal(res.status, 200);
  });

  it('unknown routes need credentials too (no route discovery without a token)', async () => {
    expectProblem(await gw.http().get('/no/such/route'), 401, 'authentication-required');
    expectProblem(await gw.http().get('/no/such/route').set('Authorization', `Bearer ${tokens.token.viewer}`), 404, 'route-not-found');
  });

  it('a wrong method on a known route: 401 first, then 405 for an authenticated caller', async () => {
    expectProblem(await gw.http().put('/topics'), 401, 'authentication-required');
    const res = await gw.http().put('/topics').set('Authorization', `Bearer ${tokens.token.admin}`).send({});
    assert.ok(res.status === 405 || res.status === 415, `${res.status}`);
  });

  it('HEAD needs what GET needs (then the validator decides: HEAD is not in the spec)', async () => {
    assert.equal((await gw.http().head('/topics')).status, 401);
    assert.ok(![401, 403].includes((await gw.http().head('/topics').set('Authorization', `Bearer ${tokens.token.viewer}`)).status));
  });

  it('without auth options every caller is the anonymous admin (the demo)', async () => {
    const demo = await startGateway();
    try {
      const res = await demo.http().post('/topics').send({ name: 'demo-topic', partitions: 1, replicationFactor: 1 });
      assert.equal(res.status, 201);
    } finally {
      await demo.close();
    }
  });
});
