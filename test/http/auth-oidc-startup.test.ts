// OIDC on the real entry point (src/main.ts as a child process): a bad GATEWAY_OIDC_*
// configuration stops the start with the reason; a good one fetches the IdP's keys at
// startup (logged) and lets a JWT through to a real route, audited with its subject.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { AUDIENCE, ISSUER, signingKey, startIdp, token, type SigningKey, type TestIdp } from './auth-oidc-idp.js';
import { spawnGateway } from './gateway-process.js';

let sim: Simulator;
let idp: TestIdp;
let key: SigningKey;
before(async () => {
  sim = await startSimulator({ brokers: 1 });
  key = await signingKey('k1', 'PS256');
  idp = await startIdp([key]);
});
after(async () => {
  await sim?.close();
  await idp?.close();
});

const oidcEnv = () => ({
  KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
  GATEWAY_OIDC_ISSUER: ISSUER,
  GATEWAY_OIDC_AUDIENCE: AUDIENCE,
  GATEWAY_OIDC_JWKS_URL: idp.jwksUrl,
  GATEWAY_OIDC_ROLES_CLAIM: 'realm_access.roles',
  GATEWAY_OIDC_ROLE_MAP: 'kafka-operator=operator',
});

it('a bad OIDC configuration: refuses to start, saying why', async () => {
  const gw = spawnGateway({ ...oidcEnv(), GATEWAY_OIDC_ALGORITHMS: 'HS256', GATEWAY_OIDC_CLOCK_TOLERANCE_SECONDS: '3600' });
  assert.equal(await gw.exited, 1);
  assert.match(gw.output(), /HS256 is refused: symmetric/);
  assert.match(gw.output(), /GATEWAY_OIDC_CLOCK_TOLERANCE_SECONDS must be an integer between 0 and 300/);
});

it('OIDC alone is authentication in front of a real cluster: keys fetched at startup, a JWT creates a topic, audited with its subject', async () => {
  const gw = spawnGateway(oidcEnv());
  try {
    const url = await gw.url;
    assert.equal((await fetch(`${url}/topics`)).status, 401);
    const t = await token({ key, claims: { realm_access: { roles: ['kafka-operator'] }, azp: 'ci' }, subject: 'svc-ci' });
    const created = await fetch(`${url}/topics`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'from-oidc', partitions: 1, replicationFactor: 1 }),
    });
    assert.equal(created.status, 201, await created.text());
    gw.child.kill('SIGTERM');
    await gw.exited;
    assert.ok(
      gw.logs.some((l) => l.msg === 'OIDC key set fetched' && l.keys === 1),
      gw.output(),
    );
    const audit = gw.logs.find((l) => l.type === 'audit');
    assert.deepEqual(audit?.principal, { id: 'oidc:svc-ci', role: 'operator', subject: 'svc-ci', client: 'ci', issuer: ISSUER });
    assert.ok(!gw.output().includes(t.split('.')[2]), 'the token is never logged');
  } finally {
    if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
  }
});
