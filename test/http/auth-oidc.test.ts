// OIDC callers on the real app (simulator + real Kafka layer): a JWT from a test identity
// provider (local JWKS over HTTP, tokens signed here with jose) gets the role its claims map
// to, on real routes; its identity reaches /whoami, the audit line and the per-caller Kafka
// client id; static tokens keep working beside it; no log line holds a token.
// The refusals (expired, wrong audience, unknown key, alg none, ...) are in
// auth-oidc-refusals.test.ts.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadAuthConfig } from '../../src/http/auth/config.js';
import { generateToken, sha256Hex } from '../../src/http/auth/tokens.js';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import { AUDIENCE, ISSUER, signingKey, startIdp, token, type SigningKey, type TestIdp } from './auth-oidc-idp.js';
import { expectProblem, startGateway, type Gateway } from './helpers.js';

const ROLE_MAP = 'kafka-viewers=viewer,kafka-operators=operator,kafka-admins=admin';
const STATIC_ADMIN = generateToken();

let idp: TestIdp;
let key: SigningKey;
let gw: Gateway;
const raw: string[] = [];
const lines: Record<string, unknown>[] = [];
const issued: string[] = [];
const audits = () => lines.filter((l) => l.type === 'audit');

function capture(): Logger {
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) {
        raw.push(l);
        lines.push(JSON.parse(l));
      }
      cb();
    },
  });
  return createLogger({ destination });
}

/** A token signed by the IdP's key, remembered so the log check below covers it. */
async function jwt(claims: Record<string, unknown>, subject?: string): Promise<string> {
  const t = await token({ key, claims, ...(subject && { subject }) });
  issued.push(t);
  return t;
}
const bearer = (t: string) => `Bearer ${t}`;

before(async () => {
  key = await signingKey('k1');
  idp = await startIdp([key]);
  const auth = loadAuthConfig(
    {
      GATEWAY_OIDC_ISSUER: ISSUER,
      GATEWAY_OIDC_AUDIENCE: AUDIENCE,
      GATEWAY_OIDC_JWKS_URL: idp.jwksUrl,
      GATEWAY_OIDC_ROLES_CLAIM: 'groups,realm_access.roles',
      GATEWAY_OIDC_ROLE_MAP: ROLE_MAP,
      GATEWAY_TOKENS: `platform-admin:admin:${sha256Hex(STATIC_ADMIN)}`,
    },
    { externalKafka: true },
  );
  gw = await startGateway({
    app: { auth: auth.access, logger: capture(), quota: { config: { clientIdPattern: 'kafka-admin-gateway/{principal}' } } },
  });
});
after(async () => {
  await gw?.close();
  await idp?.close();
});

describe('a JWT gets the role its claims map to, on real routes', () => {
  it('viewer (groups claim): reads, and is refused a change with 403', async () => {
    const t = await jwt({ groups: ['staff', 'kafka-viewers'] }, 'viewer-sub');
    const list = await gw.http().get('/topics').set('Authorization', bearer(t));
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const create = await gw
      .http()
      .post('/topics')
      .set('Authorization', bearer(t))
      .send({ name: 'by-viewer', partitions: 1, replicationFactor: 1 });
    expectProblem(create, 403, 'insufficient-role');
    assert.match(create.body.detail, /requires the operator role; oidc:viewer-sub has viewer/);
    assert.equal(gw.sim.model.getTopic('by-viewer'), undefined);
  });

  it('operator (Keycloak realm_access.roles): creates a topic; the audit line names subject, client and issuer', async () => {
    const t = await jwt({ realm_access: { roles: ['offline_access', 'kafka-operators'] }, azp: 'deploy-pipeline' }, 'svc-deploy');
    const res = await gw
      .http()
      .post('/topics')
      .set('Authorization', bearer(t))
      .send({ name: 'by-oidc', partitions: 2, replicationFactor: 1 });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const line = audits().find((l) => l.operationId === 'createTopics' && (l.result as { status: number }).status === 201);
    assert.ok(line, 'an audit line for the create');
    assert.deepEqual(line.principal, {
      id: 'oidc:svc-deploy',
      role: 'operator',
      subject: 'svc-deploy',
      client: 'deploy-pipeline',
      issuer: ISSUER,
    });
  });

  it('the highest mapped role wins: viewer and admin groups make an admin, who may delete', async () => {
    const t = await jwt({ groups: ['kafka-viewers', 'kafka-admins', 'kafka-operators'] }, 'lead');
    const me = await gw.http().get('/whoami').set('Authorization', bearer(t));
    assert.equal(me.status, 200);
    assert.equal(me.body.role, 'admin');
    assert.deepEqual(me.body.oidc.roleSource, { kind: 'claim', claim: 'groups', value: 'kafka-admins' });
    assert.equal((await gw.http().delete('/topics/by-oidc').set('Authorization', bearer(t))).status, 204);
    assert.equal(gw.sim.model.getTopic('by-oidc'), undefined);
  });

  it('GET /whoami shows the identity, the client (client_id when there is no azp) and where the role came from', async () => {
    const t = await jwt({ groups: ['kafka-operators'], client_id: 'ci-runner' }, 'repo:org/deploy:ref:refs/heads/main');
    const me = await gw.http().get('/whoami').set('Authorization', bearer(t));
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.deepEqual(me.body, {
      id: 'oidc:repo:org/deploy:ref:refs/heads/main',
      role: 'operator',
      authentication: 'enforced',
      oidc: {
        issuer: ISSUER,
        subject: 'repo:org/deploy:ref:refs/heads/main',
        client: 'ci-runner',
        roleSource: { kind: 'claim', claim: 'groups', value: 'kafka-operators' },
      },
    });
  });

  it('a valid token whose claims map to no role: 403 that says why, nothing done', async () => {
    const t = await jwt({ groups: ['staff', 'Kafka-Admins'] }, 'nobody');
    for (const req of [
      gw.http().get('/whoami'),
      gw.http().get('/topics'),
      gw.http().post('/topics').send({ name: 'by-nobody', partitions: 1, replicationFactor: 1 }),
    ]) {
      const res = await req.set('Authorization', bearer(t));
      expectProblem(res, 403, 'insufficient-role');
      assert.match(
        res.body.detail,
        /oidc:nobody is valid, but no value of its groups, realm_access.roles claim is mapped to a role \(GATEWAY_OIDC_ROLE_MAP\)/,
      );
    }
    assert.equal(gw.sim.model.getTopic('by-nobody'), undefined);
    const denied = lines.filter(
      (l) => l.type === 'access-denied' && l.status === 403 && (l.principal as { id?: string } | undefined)?.id === 'oidc:nobody',
    );
    assert.equal(denied.length, 3);
  });

  it("a large token (many groups, over the 1 KiB of the gateway's own tokens) is accepted", async () => {
    const groups = [...Array.from({ length: 150 }, (_, i) => `/department-${i}/team`), 'kafka-viewers'];
    const t = await jwt({ groups }, 'big');
    assert.ok(t.length > 4000);
    const res = await gw.http().get('/whoami').set('Authorization', bearer(t));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.role, 'viewer');
  });
});

describe('beside the static tokens and the per-caller Kafka client id', () => {
  it('the static token still works and still answers /whoami as before', async () => {
    const me = await gw.http().get('/whoami').set('Authorization', bearer(STATIC_ADMIN));
    assert.deepEqual(me.body, { id: 'platform-admin', role: 'admin', authentication: 'enforced' });
  });

  it("an OIDC caller's mutations carry its own client id (KAFKA_CLIENT_ID_PATTERN with oidc:<sub>)", async () => {
    const put = await gw
      .http()
      .put('/quotas')
      .set('Authorization', bearer(STATIC_ADMIN))
      .send({ entity: { clientId: null }, controllerMutationRate: 1000 });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const t = await jwt({ groups: ['kafka-operators'] }, 'quota-caller');
    assert.equal(
      (await gw.http().post('/topics').set('Authorization', bearer(t)).send({ name: 'charged', partitions: 3, replicationFactor: 1 }))
        .status,
      201,
    );
    assert.ok(
      gw.sim.mutationQuotas.bucketKeys().includes(':kafka-admin-gateway/oidc%3Aquota-caller'),
      JSON.stringify(gw.sim.mutationQuotas.bucketKeys()),
    );
  });
});

describe('logs', () => {
  it('no log line holds a token', () => {
    assert.ok(issued.length >= 6 && raw.length >= 5, 'the check must not be vacuous');
    const all = raw.join('\n');
    for (const t of [...issued, STATIC_ADMIN]) {
      assert.ok(!all.includes(t), 'a log line contains a token');
      // Nor the signature alone (a token split across fields would still leak it).
      assert.ok(!all.includes(t.split('.')[2] ?? STATIC_ADMIN), 'a log line contains a signature');
    }
  });
});
