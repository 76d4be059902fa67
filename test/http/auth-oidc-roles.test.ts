// The roles a JWT's claims map to, on EVERY operation of openapi.yaml (read at test time,
// as auth.test.ts does for the static tokens): each role below x-required-role gets 403,
// the required role and above get past access control. The cluster is unchanged at the end.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Test } from 'supertest';
import { loadAuthConfig } from '../../src/http/auth/config.js';
import { PUBLIC, ROLES, roleAtLeast, type Role } from '../../src/http/auth/roles.js';
import { AUDIENCE, ISSUER, signingKey, startIdp, token, type TestIdp } from './auth-oidc-idp.js';
import { samplePath, specOperations } from './auth-helpers.js';
import { expectProblem, startGateway, type Gateway } from './helpers.js';

const ACCESS_SLUGS = new Set(
  ['authentication-required', 'invalid-credentials', 'insufficient-role'].map((s) => `https://kafka-admin-gateway.dev/problems/${s}`),
);
const GROUP: Record<Role, string> = { viewer: 'kafka-viewers', operator: 'kafka-operators', admin: 'kafka-admins' };

let idp: TestIdp;
let gw: Gateway;
const jwt = {} as Record<Role, string>;
let before0: unknown;

function call(method: string, path: string, role: Role): Test {
  const t = gw.http()[method.toLowerCase() as 'get'](path).set('Authorization', `Bearer ${jwt[role]}`);
  return method === 'GET' || method === 'HEAD' ? t : t.set('Content-Type', 'application/json').send('{}');
}

async function snapshot(): Promise<unknown> {
  const list = await gw.http().get('/topics').set('Authorization', `Bearer ${jwt.admin}`);
  assert.equal(list.status, 200);
  const details: Record<string, unknown> = {};
  for (const t of list.body.topics as { name: string }[])
    details[t.name] = (await gw.http().get(`/topics/${t.name}`).set('Authorization', `Bearer ${jwt.admin}`)).body;
  return { topics: list.body, details };
}

before(async () => {
  const key = await signingKey('k1', 'ES256');
  idp = await startIdp([key]);
  const auth = loadAuthConfig(
    {
      GATEWAY_OIDC_ISSUER: ISSUER,
      GATEWAY_OIDC_AUDIENCE: AUDIENCE,
      GATEWAY_OIDC_JWKS_URL: idp.jwksUrl,
      GATEWAY_OIDC_ROLES_CLAIM: 'groups',
      GATEWAY_OIDC_ROLE_MAP: Object.entries(GROUP)
        .map(([role, group]) => `${group}=${role}`)
        .join(','),
    },
    { externalKafka: true },
  );
  for (const role of ROLES)
    jwt[role] = await token({
      key,
      claims: { groups: ['staff', GROUP[role]] },
      subject: `${role}-sub`,
      exp: Math.floor(Date.now() / 1000) + 3600,
    });
  gw = await startGateway({ app: { auth: auth.access } });
  const created = await gw
    .http()
    .post('/topics')
    .set('Authorization', `Bearer ${jwt.operator}`)
    .send({ name: 'orders', partitions: 2, replicationFactor: 2 });
  assert.equal(created.status, 201);
  before0 = await snapshot();
});
after(async () => {
  await gw?.close();
  await idp?.close();
});

describe('every operation in openapi.yaml, with JWTs', () => {
  const operations = specOperations().filter((op) => op.requiredRole !== PUBLIC);

  it('the spec has operations to check', () => assert.ok(operations.length >= 10));

  for (const op of operations) {
    const path = samplePath(op);
    const requiredRole = op.requiredRole as Role;
    for (const role of ROLES) {
      const allowed = roleAtLeast(role, requiredRole);
      it(`${op.method} ${op.route} (${op.operationId}, ${op.requiredRole}): a ${role} JWT is ${allowed ? 'let through' : 'refused with 403'}`, async () => {
        const res = await call(op.method, path, role);
        if (allowed) {
          assert.ok(!ACCESS_SLUGS.has(res.body?.type), `${role}: ${res.status} ${JSON.stringify(res.body)}`);
          assert.ok(![401, 403].includes(res.status) || res.body?.kafkaError, `${role}: ${res.status} ${JSON.stringify(res.body)}`);
        } else {
          expectProblem(res, 403, 'insufficient-role');
          assert.match(res.body.detail, new RegExp(`requires the ${requiredRole} role; oidc:${role}-sub has ${role}`));
        }
      });
    }
  }

  it('nothing above changed the cluster', async () => {
    assert.deepEqual(await snapshot(), before0);
  });
});
