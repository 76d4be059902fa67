// Every bad JWT is refused with a clear 401 (problem+json, and WWW-Authenticate with
// error="invalid_token" and an error_description saying why): expired, not yet valid, wrong
// audience, wrong issuer, unknown key, a forged signature, alg none, HS256 signed with the
// public key (algorithm confusion), no exp, malformed. Keys rotate without a restart, an
// unknown kid refetches at most once per cooldown, and an unreachable key set answers 503.
// Against a local JWKS served over HTTP and the real app on the simulator.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportSPKI, SignJWT, UnsecuredJWT } from 'jose';
import { loadAuthConfig } from '../../src/http/auth/config.js';
import type { AccessControlOptions } from '../../src/http/auth/access-control.js';
import { AUDIENCE, ISSUER, nowSeconds, signingKey, startIdp, token, type SigningKey, type TestIdp } from './auth-oidc-idp.js';
import { expectProblem, startGateway, type Gateway } from './helpers.js';

const COOLDOWN_MS = 1000;
const env = (jwksUrl: string): Record<string, string> => ({
  GATEWAY_OIDC_ISSUER: ISSUER,
  GATEWAY_OIDC_AUDIENCE: `${AUDIENCE},other-audience`,
  GATEWAY_OIDC_JWKS_URL: jwksUrl,
  GATEWAY_OIDC_ROLES_CLAIM: 'groups',
  GATEWAY_OIDC_ROLE_MAP: 'kafka-operators=operator',
  GATEWAY_OIDC_JWKS_COOLDOWN_MS: String(COOLDOWN_MS),
});
const authFor = (jwksUrl: string): AccessControlOptions => loadAuthConfig(env(jwksUrl), { externalKafka: true }).access;

let idp: TestIdp;
let k1: SigningKey;
let gw: Gateway;
const claims = { groups: ['kafka-operators'] };

before(async () => {
  k1 = await signingKey('k1');
  idp = await startIdp([k1]);
  gw = await startGateway({ app: { auth: authFor(idp.jwksUrl) } });
});
after(async () => {
  await gw?.close();
  await idp?.close();
});

const whoami = (t: string) => gw.http().get('/whoami').set('Authorization', `Bearer ${t}`);

/** 401 invalid-credentials, with the reason in the problem and in the challenge. */
async function expectRefused(t: string, why: RegExp): Promise<void> {
  const res = await whoami(t);
  expectProblem(res, 401, 'invalid-credentials');
  assert.match(res.body.detail, why);
  const challenge = res.headers['www-authenticate'] ?? '';
  assert.match(challenge, /^Bearer realm="kafka-admin-gateway", error="invalid_token", error_description="[^"\\]+"$/);
  assert.match(challenge, why);
}

describe('refused tokens: 401 with the reason', () => {
  it('a good token passes (the refusals below are not the setup failing)', async () => {
    const res = await whoami(await token({ key: k1, claims }));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.role, 'operator');
  });

  it('expired, beyond the clock tolerance (30 s); within it, accepted', async () => {
    await expectRefused(
      await token({ key: k1, claims, exp: nowSeconds() - 120 }),
      /The token expired at \d{4}-\d\d-\d\dT[\d:.]+Z \(clock tolerance 30 s\)/,
    );
    assert.equal((await whoami(await token({ key: k1, claims, exp: nowSeconds() - 10 }))).status, 200);
  });

  it('not yet valid (nbf in the future beyond the tolerance); within it, accepted', async () => {
    await expectRefused(await token({ key: k1, claims, nbf: nowSeconds() + 120 }), /not valid before .* \(nbf, clock tolerance 30 s\)/);
    assert.equal((await whoami(await token({ key: k1, claims, nbf: nowSeconds() + 10 }))).status, 200);
  });

  it('wrong audience; any one of the configured audiences is accepted', async () => {
    await expectRefused(
      await token({ key: k1, claims, audience: 'some-other-api' }),
      /its audience \(aud\) is not kafka-admin-gateway or other-audience/,
    );
    assert.equal((await whoami(await token({ key: k1, claims, audience: ['x', 'other-audience'] }))).status, 200);
  });

  it('wrong issuer', async () => {
    await expectRefused(
      await token({ key: k1, claims, issuer: 'https://evil.example/realms/platform' }),
      /was not issued by https:\/\/sso\.test\.example\/realms\/platform/,
    );
  });

  it('no exp: tokens that never expire are refused; no sub: refused', async () => {
    await expectRefused(await token({ key: k1, claims, exp: null }), /no valid exp/);
    await expectRefused(await token({ key: k1, claims, subject: null }), /no sub/);
  });

  it('unknown key: signed by a key the IdP does not publish (its kid, or the kid of a published key)', async () => {
    const stranger = await signingKey('stranger');
    await expectRefused(await token({ key: stranger, claims }), /No key of the identity provider's key set matches the token/);
    // The published kid with a stranger's signature: the signature does not verify.
    await expectRefused(await token({ key: stranger, claims, header: { kid: 'k1' } }), /signature does not verify/);
  });

  it('a key carried in the token header (jwk, jku) is ignored: only the configured key set verifies', async () => {
    const attacker = await signingKey('k1'); // even reusing the published kid
    const forged = await token({ key: attacker, claims, header: { jwk: attacker.jwk, jku: 'https://evil.example/jwks' } });
    await expectRefused(forged, /signature does not verify/);
    const withOwnKid = await token({ key: attacker, claims, header: { kid: 'evil', jwk: attacker.jwk } });
    await expectRefused(withOwnKid, /No key of the identity provider's key set matches/);
  });

  it('alg none (unsigned) is never accepted', async () => {
    const unsigned = new UnsecuredJWT({ ...claims })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('admin')
      .setExpirationTime('5m')
      .encode();
    assert.match(unsigned, /\.$/, 'an unsigned JWT has an empty signature');
    await expectRefused(unsigned, /Unsigned tokens \(alg 'none'\) are never accepted|Unsigned tokens \(alg "none"\)/);
  });

  it('HS256 signed with the public key bytes (algorithm confusion) is refused', async () => {
    const pem = await exportSPKI(k1.publicKey);
    const forged = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('attacker')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(pem));
    await expectRefused(forged, /signed with HS256, which is not accepted \(accepted: RS256, /);
  });

  it('a JWT-shaped token that is not a JWT, and a garbled signature', async () => {
    await expectRefused('eyJub3QiOiJqc29u.eyJ4IjoxfQ.c2ln', /not a well-formed JWT|header has no alg/);
    await expectRefused('aaaa.bbbb.cccc', /not a well-formed JWT/);
    const good = await token({ key: k1, claims });
    const [h, p, s] = good.split('.') as [string, string, string];
    await expectRefused(`${h}.${p}.${s.slice(0, -4)}AAAA`, /signature does not verify/);
  });

  it('the error_description is in the challenge, the token never is', async () => {
    const t = await token({ key: k1, claims, exp: nowSeconds() - 600 });
    const res = await whoami(t);
    assert.ok(!JSON.stringify(res.headers).includes(t.split('.')[2]));
    assert.ok(!JSON.stringify(res.body).includes(t.split('.')[1]));
  });
});

describe('keys: rotation, cooldown', () => {
  it('a rotated key is picked up without a restart; unknown kids refetch at most once per cooldown', async () => {
    const k2 = await signingKey('k2', 'ES256');
    assert.equal((await whoami(await token({ key: k1, claims }))).status, 200);
    const fetchesBefore = idp.fetches;
    idp.published = [k2]; // the IdP rotates: k1 retired, k2 signs from now on
    const t2 = await token({ key: k2, claims });
    const started = Date.now();
    let status = 0;
    let attempts = 0;
    // Poll with a deadline: within the cooldown of the last fetch the new kid is unknown (401).
    while (Date.now() - started < 10_000) {
      attempts++;
      status = (await whoami(t2)).status;
      if (status === 200) break;
      assert.equal(status, 401);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 200, 'the new key is used within the deadline');
    const elapsed = Date.now() - started;
    const fetches = idp.fetches - fetchesBefore;
    assert.ok(fetches >= 1, 'the set was fetched again');
    assert.ok(
      fetches <= Math.ceil(elapsed / COOLDOWN_MS) + 1,
      `${fetches} fetches in ${elapsed} ms over ${attempts} attempts: the cooldown must bound them`,
    );
    // The retired key no longer verifies anything.
    const res = await whoami(await token({ key: k1, claims }));
    expectProblem(res, 401, 'invalid-credentials');
  });

  it('tokens with made-up kids, one after the other, do not hammer the IdP', async () => {
    const stranger = await signingKey('x');
    const tokens = await Promise.all(
      Array.from({ length: 40 }, (_, i) => token({ key: stranger, claims, header: { kid: `made-up-${i}` } })),
    );
    const before0 = idp.fetches;
    const started = Date.now();
    // Sequential on purpose: concurrent ones would share one fetch whatever the cooldown.
    for (const t of tokens) expectProblem(await whoami(t), 401, 'invalid-credentials');
    const elapsed = Date.now() - started;
    const fetches = idp.fetches - before0;
    assert.ok(fetches <= Math.ceil(elapsed / COOLDOWN_MS) + 1, `${fetches} fetches for 40 unknown kids in ${elapsed} ms`);
  });
});

describe('the key set cannot be fetched', () => {
  it('no key set ever fetched (IdP unreachable): 503 identity-provider-unavailable with Retry-After', async () => {
    const dead = await startIdp([k1]);
    const url = dead.jwksUrl;
    await dead.close(); // nothing listens there any more
    const gw2 = await startGateway({ app: { auth: authFor(url) } });
    try {
      const res = await gw2
        .http()
        .get('/whoami')
        .set('Authorization', `Bearer ${await token({ key: k1, claims })}`);
      expectProblem(res, 503, 'identity-provider-unavailable');
      assert.match(
        res.body.detail,
        /key set \(http:\/\/127\.0\.0\.1:\d+\/protocol\/openid-connect\/certs\) could not be fetched: .*retry later/,
      );
      assert.equal(res.headers['retry-after'], '1');
    } finally {
      await gw2.close();
    }
  });

  it('an IdP answering 500: 503, and the fetch is not retried within the cooldown', async () => {
    const failing = await startIdp([k1]);
    failing.failWith = 500;
    const gw2 = await startGateway({ app: { auth: authFor(failing.jwksUrl) } });
    try {
      const t = await token({ key: k1, claims });
      const started = Date.now();
      for (let i = 0; i < 5; i++)
        expectProblem(await gw2.http().get('/whoami').set('Authorization', `Bearer ${t}`), 503, 'identity-provider-unavailable');
      // One fetch, and no other until the cooldown after it has passed (slow machines included).
      assert.ok(
        failing.fetches >= 1 && failing.fetches <= 1 + Math.floor((Date.now() - started) / COOLDOWN_MS),
        `${failing.fetches} fetches`,
      );
    } finally {
      await gw2.close();
      await failing.close();
    }
  });

  it('keys fetched before the IdP went away keep verifying (a new kid then cannot be checked: 401)', async () => {
    const flaky = await startIdp([k1]);
    const gw2 = await startGateway({ app: { auth: authFor(flaky.jwksUrl) } });
    try {
      const t = await token({ key: k1, claims });
      assert.equal((await gw2.http().get('/whoami').set('Authorization', `Bearer ${t}`)).status, 200);
      flaky.failWith = 503;
      // An unknown kid makes the gateway try the IdP (which fails); known keys still verify.
      const stranger = await signingKey('new-kid');
      const started = Date.now();
      while (flaky.fetches < 2 && Date.now() - started < 10_000) {
        expectProblem(
          await gw2
            .http()
            .get('/whoami')
            .set('Authorization', `Bearer ${await token({ key: stranger, claims })}`),
          401,
          'invalid-credentials',
        );
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(flaky.fetches, 2, 'the refetch was tried and failed');
      assert.equal((await gw2.http().get('/whoami').set('Authorization', `Bearer ${t}`)).status, 200);
    } finally {
      await gw2.close();
      await flaky.close();
    }
  });
});
