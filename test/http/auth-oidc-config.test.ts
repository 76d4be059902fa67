// OIDC configuration (GATEWAY_OIDC_*): a good one turns authentication on by itself; every
// bad one is refused at startup with a message naming the variable and the fix, all
// problems at once. No network here: the key set is fetched on the first token.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadAuthConfig } from '../../src/http/auth/config.js';
import { ASYMMETRIC_ALGORITHMS, parseOidcConfig, parseRoleMap } from '../../src/http/auth/oidc-config.js';

const GOOD = {
  GATEWAY_OIDC_ISSUER: 'https://sso.example.com/realms/platform',
  GATEWAY_OIDC_AUDIENCE: 'kafka-admin-gateway',
  GATEWAY_OIDC_JWKS_URL: 'https://sso.example.com/realms/platform/protocol/openid-connect/certs',
  GATEWAY_OIDC_ROLE_MAP: 'kafka-admins=admin',
};

function problemsOf(env: Record<string, string>): string[] {
  const problems: string[] = [];
  parseOidcConfig(env, problems);
  return problems;
}

describe('GATEWAY_OIDC_* configuration', () => {
  it('nothing set: no OIDC, nothing reported', () => {
    const problems: string[] = [];
    assert.equal(parseOidcConfig({ GATEWAY_TOKENS: 'x' }, problems), null);
    assert.deepEqual(problems, []);
  });

  it('the defaults: every asymmetric algorithm, 30 s tolerance, the roles claim, no default role, 30 s cooldown', () => {
    const problems: string[] = [];
    const c = parseOidcConfig(GOOD, problems);
    assert.deepEqual(problems, []);
    assert.ok(c);
    assert.deepEqual(c.algorithms, [...ASYMMETRIC_ALGORITHMS]);
    assert.ok(!c.algorithms.some((a) => /^HS|none/i.test(a)));
    assert.equal(c.clockToleranceSeconds, 30);
    assert.deepEqual(c.roleClaims, ['roles']);
    assert.equal(c.defaultRole, undefined);
    assert.equal(c.jwksCooldownMs, 30_000);
    assert.deepEqual(c.audiences, ['kafka-admin-gateway']);
  });

  it('turns authentication on by itself in front of a real cluster, and says so in the startup notice', () => {
    const auth = loadAuthConfig(GOOD, { externalKafka: true });
    assert.equal(auth.access.mode, 'enforced');
    assert.ok(auth.access.mode === 'enforced' && auth.access.oidc);
    const notice = auth.notices.find((n) => n.msg === 'authentication enabled');
    assert.equal((notice?.fields?.oidc as { issuer: string }).issuer, GOOD.GATEWAY_OIDC_ISSUER);
  });

  it('a partial configuration names what is missing', () => {
    assert.match(
      problemsOf({ GATEWAY_OIDC_ISSUER: GOOD.GATEWAY_OIDC_ISSUER, GATEWAY_OIDC_ROLE_MAP: 'a=admin' }).join('\n'),
      /also need GATEWAY_OIDC_AUDIENCE, GATEWAY_OIDC_JWKS_URL/,
    );
    assert.throws(
      () => loadAuthConfig({ GATEWAY_OIDC_AUDIENCE: 'x' }, { externalKafka: false }),
      /Invalid authentication configuration:[\s\S]*also need GATEWAY_OIDC_ISSUER/,
    );
  });

  it('alg none and HS* are refused, with why; unknown algorithms too', () => {
    const p = problemsOf({ ...GOOD, GATEWAY_OIDC_ALGORITHMS: 'RS256,none,HS256,XS999' }).join('\n');
    assert.match(p, /"none" \(unsigned tokens\) is never accepted/);
    assert.match(p, /HS256 is refused: symmetric \(shared-secret\) algorithms/);
    assert.match(p, /unknown algorithm "XS999"/);
    assert.deepEqual(parseOidcConfig({ ...GOOD, GATEWAY_OIDC_ALGORITHMS: 'ES256 EdDSA' }, [])?.algorithms, ['ES256', 'EdDSA']);
  });

  it('the clock tolerance is bounded (0-300 s)', () => {
    assert.match(
      problemsOf({ ...GOOD, GATEWAY_OIDC_CLOCK_TOLERANCE_SECONDS: '301' }).join(),
      /GATEWAY_OIDC_CLOCK_TOLERANCE_SECONDS must be an integer between 0 and 300/,
    );
    assert.match(problemsOf({ ...GOOD, GATEWAY_OIDC_CLOCK_TOLERANCE_SECONDS: '-5' }).join(), /between 0 and 300/);
    assert.equal(parseOidcConfig({ ...GOOD, GATEWAY_OIDC_CLOCK_TOLERANCE_SECONDS: '120' }, [])?.clockToleranceSeconds, 120);
  });

  it('the key set URL must be https, except on loopback', () => {
    assert.match(
      problemsOf({ ...GOOD, GATEWAY_OIDC_JWKS_URL: 'http://sso.example.com/certs' }).join(),
      /must be https \(http is accepted only on loopback\)/,
    );
    assert.match(problemsOf({ ...GOOD, GATEWAY_OIDC_JWKS_URL: 'not a url' }).join(), /is not a URL/);
    for (const ok of ['http://127.0.0.1:8081/certs', 'http://localhost/certs', 'http://[::1]:9/certs'])
      assert.deepEqual(problemsOf({ ...GOOD, GATEWAY_OIDC_JWKS_URL: ok }), [], ok);
  });

  it('no role map and no default role: refused (every token would be)', () => {
    const { GATEWAY_OIDC_ROLE_MAP: _, ...noMap } = GOOD;
    assert.match(problemsOf(noMap).join(), /maps no claim value to a role and GATEWAY_OIDC_DEFAULT_ROLE is not set/);
    assert.deepEqual(problemsOf({ ...noMap, GATEWAY_OIDC_DEFAULT_ROLE: 'viewer' }), []);
    assert.match(
      problemsOf({ ...GOOD, GATEWAY_OIDC_DEFAULT_ROLE: 'root' }).join(),
      /GATEWAY_OIDC_DEFAULT_ROLE must be one of viewer, operator, admin/,
    );
  });

  it('the cooldown cannot be set below 1 s (an unknown kid must not mean a fetch each time)', () => {
    assert.match(
      problemsOf({ ...GOOD, GATEWAY_OIDC_JWKS_COOLDOWN_MS: '0' }).join(),
      /GATEWAY_OIDC_JWKS_COOLDOWN_MS must be an integer between 1000/,
    );
  });

  it('GATEWAY_AUTH=none contradicts an OIDC issuer', () => {
    assert.throws(
      () => loadAuthConfig({ ...GOOD, GATEWAY_AUTH: 'none' }, { externalKafka: false }),
      /contradicts the tokens \/ client certificate roles \/ OIDC issuer/,
    );
  });
});

describe('GATEWAY_OIDC_ROLE_MAP', () => {
  it('value=role pairs; the last = splits, so GitHub subjects and values with = map', () => {
    const problems: string[] = [];
    const m = parseRoleMap('kafka-admins=admin, repo:org/deploy:ref:refs/heads/main=operator a=b=viewer', problems);
    assert.deepEqual(problems, []);
    assert.deepEqual(Object.fromEntries(m), {
      'kafka-admins': 'admin',
      'repo:org/deploy:ref:refs/heads/main': 'operator',
      'a=b': 'viewer',
    });
  });

  it('a JSON object, for values with spaces or commas', () => {
    const problems: string[] = [];
    const m = parseRoleMap('{"Kafka Admins, EU": "admin", "/platform/ops": "operator"}', problems);
    assert.deepEqual(problems, []);
    assert.deepEqual(Object.fromEntries(m), { 'Kafka Admins, EU': 'admin', '/platform/ops': 'operator' });
  });

  it('refuses unknown roles, missing values, duplicates and bad JSON', () => {
    const p = (v: string) => {
      const problems: string[] = [];
      parseRoleMap(v, problems);
      return problems.join('\n');
    };
    assert.match(p('ops=root'), /"ops=root" is not <claim value>=<viewer\|operator\|admin>/);
    assert.match(p('=admin'), /is not <claim value>=/);
    assert.match(p('ops=admin,ops=viewer'), /"ops" is mapped twice/);
    assert.match(p('{"ops": 1}'), /is not <claim value>=/);
    assert.match(p('{nope'), /not a JSON object/);
  });
});
