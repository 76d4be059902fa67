import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { claimAt, claimValues, MAX_CLAIM_VALUES, roleFromClaims, type ClaimRoleRule } from '../../src/http/auth/claim-roles.js';

const ORDER = ['viewer', 'operator', 'admin'] as const;
type R = (typeof ORDER)[number];
const rule = (claims: string[], map: Record<string, R>, defaultRole?: R): ClaimRoleRule<R> => ({
  claims,
  map: new Map(Object.entries(map)),
  ...(defaultRole && { defaultRole }),
});

describe('claimAt / claimValues', () => {
  it('walks dotted paths through nested objects (Keycloak realm_access.roles, resource_access.<client>.roles)', () => {
    const claims = { realm_access: { roles: ['offline_access', 'kafka-admin'] }, resource_access: { gateway: { roles: ['ops'] } } };
    assert.deepEqual(claimValues(claims, 'realm_access.roles'), ['offline_access', 'kafka-admin']);
    assert.deepEqual(claimValues(claims, 'resource_access.gateway.roles'), ['ops']);
    assert.equal(claimAt(claims, 'realm_access.missing'), undefined);
    assert.equal(claimAt(claims, 'realm_access.roles.0'), undefined, 'arrays are not walked into');
  });

  it('a top-level claim whose name contains dots wins over the dotted walk (namespaced claims)', () => {
    const claims = { 'https://example.com/roles': ['admin'], https: { '//example': 'x' } };
    assert.deepEqual(claimValues(claims, 'https://example.com/roles'), ['admin']);
  });

  it('a string is one value; arrays keep their strings; other types give none', () => {
    assert.deepEqual(claimValues({ repository: 'org/deploy' }, 'repository'), ['org/deploy']);
    assert.deepEqual(claimValues({ groups: ['a', 1, null, 'b', { c: 1 }] }, 'groups'), ['a', 'b']);
    assert.deepEqual(claimValues({ groups: 7 }, 'groups'), []);
    assert.deepEqual(claimValues({ groups: { a: 1 } }, 'groups'), []);
    assert.deepEqual(claimValues(null, 'groups'), []);
    assert.deepEqual(claimValues('x', 'groups'), []);
  });

  it('inherited properties are not claims', () => {
    assert.equal(claimAt({}, 'toString'), undefined);
    assert.equal(claimAt({ a: {} }, 'a.constructor'), undefined);
    assert.deepEqual(claimValues({}, '__proto__'), []);
  });

  it('reads at most MAX_CLAIM_VALUES values of one claim', () => {
    const groups = Array.from({ length: MAX_CLAIM_VALUES + 5 }, (_, i) => `g${i}`);
    assert.equal(claimValues({ groups }, 'groups').length, MAX_CLAIM_VALUES);
  });
});

describe('roleFromClaims', () => {
  const groups = rule(['groups'], { 'kafka-viewers': 'viewer', 'kafka-operators': 'operator', 'kafka-admins': 'admin' });

  it('maps a claim value to its role, and says which claim and value', () => {
    assert.deepEqual(roleFromClaims({ groups: ['staff', 'kafka-operators'] }, groups, ORDER), {
      role: 'operator',
      source: { kind: 'claim', claim: 'groups', value: 'kafka-operators' },
    });
  });

  it('the highest mapped role wins, whatever the order of the values', () => {
    for (const values of [
      ['kafka-viewers', 'kafka-admins', 'kafka-operators'],
      ['kafka-admins', 'kafka-viewers'],
    ]) {
      assert.deepEqual(roleFromClaims({ groups: values }, groups, ORDER), {
        role: 'admin',
        source: { kind: 'claim', claim: 'groups', value: 'kafka-admins' },
      });
    }
  });

  it('several claims are read, the highest across them wins; ties keep the first found', () => {
    const r = rule(['roles', 'realm_access.roles'], { reader: 'viewer', 'kafka-admin': 'admin', also: 'viewer' });
    assert.deepEqual(roleFromClaims({ roles: ['reader'], realm_access: { roles: ['kafka-admin'] } }, r, ORDER).role, 'admin');
    assert.deepEqual(roleFromClaims({ roles: ['reader', 'also'] }, r, ORDER), {
      role: 'viewer',
      source: { kind: 'claim', claim: 'roles', value: 'reader' },
    });
  });

  it('matching is exact and case-sensitive', () => {
    assert.deepEqual(roleFromClaims({ groups: ['Kafka-Admins', ' kafka-admins', '/kafka-admins'] }, groups, ORDER), { role: undefined });
  });

  it('the default role applies only when nothing maps; without one there is no role', () => {
    const withDefault = rule(['groups'], { 'kafka-admins': 'admin' }, 'viewer');
    assert.deepEqual(roleFromClaims({ groups: ['staff'] }, withDefault, ORDER), { role: 'viewer', source: { kind: 'default' } });
    assert.deepEqual(roleFromClaims({}, withDefault, ORDER), { role: 'viewer', source: { kind: 'default' } });
    assert.equal(roleFromClaims({ groups: ['kafka-admins'] }, withDefault, ORDER).role, 'admin');
    assert.deepEqual(roleFromClaims({ groups: ['staff'] }, groups, ORDER), { role: undefined });
  });

  it('a single-string claim maps (GitHub Actions: repository, sub)', () => {
    const gh = rule(['sub'], { 'repo:org/deploy:ref:refs/heads/main': 'operator' });
    assert.equal(roleFromClaims({ sub: 'repo:org/deploy:ref:refs/heads/main' }, gh, ORDER).role, 'operator');
    assert.equal(roleFromClaims({ sub: 'repo:org/deploy:ref:refs/heads/feature' }, gh, ORDER).role, undefined);
  });

  it('property: the role is the maximum of the mapped values (or the default when none maps)', () => {
    const values = ['a', 'b', 'c', 'd', 'e', 'f'];
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...values), fc.constantFrom(...ORDER)),
        fc.array(fc.constantFrom(...values, 'unmapped'), { maxLength: 8 }),
        fc.option(fc.constantFrom(...ORDER), { nil: undefined }),
        (map, present, defaultRole) => {
          const decision = roleFromClaims({ groups: present }, rule(['groups'], map, defaultRole), ORDER);
          const mapped = present.map((v) => map[v]).filter((r): r is R => r !== undefined);
          const expected = mapped.length ? ORDER[Math.max(...mapped.map((r) => ORDER.indexOf(r)))] : defaultRole;
          assert.equal(decision.role, expected);
          if (decision.role !== undefined && decision.source.kind === 'claim') assert.equal(map[decision.source.value], decision.role);
        },
      ),
    );
  });
});
