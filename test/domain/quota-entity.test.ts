import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  bucketKey,
  desanitize,
  entityKey,
  parseBucketKey,
  parseEntityKey,
  precedenceLevel,
  quotaLimit,
  quotaMetricTags,
  quotaTable,
  resolveQuota,
  sanitize,
  type QuotaEntity,
  type QuotaTable,
} from '../../src/domain/quota-entity.js';

const CMR = 'controller_mutation_rate' as const;

/** The 8 levels for user alice / client app, each with a distinct rate = level number. */
const LEVELS: ReadonlyArray<[number, QuotaEntity]> = [
  [1, { user: 'alice', clientId: 'app' }],
  [2, { user: 'alice', clientId: null }],
  [3, { user: 'alice' }],
  [4, { user: null, clientId: 'app' }],
  [5, { user: null, clientId: null }],
  [6, { user: null }],
  [7, { clientId: 'app' }],
  [8, { clientId: null }],
];

const tableOf = (levels: readonly number[]): QuotaTable =>
  quotaTable(LEVELS.filter(([l]) => levels.includes(l)).map(([l, e]) => [e, { [CMR]: l }] as const));

describe('sanitize / canonical entity keys', () => {
  it('sanitize mirrors Kafka Sanitizer (URLEncoder + %20 + %2A)', () => {
    assert.equal(sanitize('alice'), 'alice');
    assert.equal(sanitize('a.b-c_d'), 'a.b-c_d');
    assert.equal(sanitize('User:CN=x y'), 'User%3ACN%3Dx%20y');
    assert.equal(sanitize("a*b!c'd(e)f~g"), 'a%2Ab%21c%27d%28e%29f%7Eg');
    assert.equal(sanitize('<default>'), '%3Cdefault%3E');
    assert.equal(sanitize('é/'), '%C3%A9%2F');
    assert.equal(desanitize(sanitize("a*b!c'd(e)f~g é/:")), "a*b!c'd(e)f~g é/:");
  });

  it('entityKey uses ZK-path shape with <default>', () => {
    assert.equal(entityKey({ user: 'alice', clientId: 'app' }), 'users/alice/clients/app');
    assert.equal(entityKey({ user: 'alice', clientId: null }), 'users/alice/clients/<default>');
    assert.equal(entityKey({ user: null }), 'users/<default>');
    assert.equal(entityKey({ clientId: 'app' }), 'clients/app');
    assert.equal(entityKey({ clientId: null }), 'clients/<default>');
    assert.equal(entityKey({ user: undefined, clientId: 'x' }), 'clients/x', 'undefined = absent');
    assert.equal(entityKey({ user: '<default>' }), 'users/%3Cdefault%3E', 'a user named <default> is not the default');
    assert.equal(entityKey({ clientId: 'a/b' }), 'clients/a%2Fb');
    assert.throws(() => entityKey({}), RangeError);
  });

  it('parseEntityKey inverts entityKey', () => {
    const entities: QuotaEntity[] = [...LEVELS.map(([, e]) => e), { user: '<default>', clientId: 'a/b:c' }, { user: 'User:CN=x y' }];
    for (const e of entities) assert.deepEqual(parseEntityKey(entityKey(e)), e);
    for (const bad of ['', 'users', 'clients/a/users/b', 'users/a/clients', 'groups/x', 'users/', 'users/<x>']) {
      assert.throws(() => parseEntityKey(bad), RangeError, bad);
    }
  });

  it('quotaTable merges values per entity and skips empty ones', () => {
    const t = quotaTable([
      [{ user: 'a' }, { [CMR]: 1 }],
      [{ user: 'a' }, { producer_byte_rate: 1024 }],
      [{ clientId: 'c' }, {}],
    ]);
    assert.deepEqual([...t.keys()], ['users/a']);
    assert.deepEqual(t.get('users/a'), { [CMR]: 1, producer_byte_rate: 1024 });
  });
});

describe('precedence: every level wins over all less specific ones', () => {
  for (const [level, entity] of LEVELS) {
    it(`level ${level} (${entityKey(entity)})`, () => {
      const table = tableOf(LEVELS.map(([l]) => l).filter((l) => l >= level));
      const r = resolveQuota(table, CMR, 'alice', 'app');
      assert.ok(r);
      assert.equal(r.value, level);
      assert.equal(r.level, level);
      assert.deepEqual(r.entity, entity);
      assert.equal(precedenceLevel(entity), level);
    });
  }

  it('only that level configured also resolves to it', () => {
    for (const [level] of LEVELS) {
      assert.equal(resolveQuota(tableOf([level]), CMR, 'alice', 'app')?.level, level);
    }
  });

  it('user quota beats client-id quota (level 3 over 7), default user beats client (6 over 7)', () => {
    assert.equal(resolveQuota(tableOf([3, 7]), CMR, 'alice', 'app')?.level, 3);
    assert.equal(resolveQuota(tableOf([6, 7]), CMR, 'alice', 'app')?.level, 6);
    assert.equal(resolveQuota(tableOf([4, 3]), CMR, 'alice', 'app')?.level, 3);
  });

  it('no matching entity -> undefined (unlimited)', () => {
    assert.equal(resolveQuota(new Map(), CMR, 'alice', 'app'), undefined);
    const others = quotaTable([
      [{ user: 'bob' }, { [CMR]: 1 }],
      [{ clientId: 'other' }, { [CMR]: 1 }],
      [{ user: 'alice', clientId: 'other' }, { [CMR]: 1 }],
    ]);
    assert.equal(resolveQuota(others, CMR, 'alice', 'app'), undefined);
  });

  it('only entities holding THIS quota key count (one quota manager per type)', () => {
    const t = quotaTable([
      [{ user: 'alice', clientId: 'app' }, { producer_byte_rate: 1000 }],
      [{ clientId: null }, { [CMR]: 8 }],
    ]);
    const r = resolveQuota(t, CMR, 'alice', 'app');
    assert.equal(r?.level, 8);
    assert.equal(resolveQuota(t, 'producer_byte_rate', 'alice', 'app')?.value, 1000);
    assert.equal(resolveQuota(t, 'consumer_byte_rate', 'alice', 'app'), undefined);
  });

  it('user names with special characters match configured raw names', () => {
    const t = quotaTable([[{ user: 'CN=a b,O=x' }, { [CMR]: 3 }]]);
    const r = resolveQuota(t, CMR, 'CN=a b,O=x', 'app');
    assert.equal(r?.value, 3);
    assert.deepEqual(r?.entity, { user: 'CN=a b,O=x' });
    assert.equal(r?.tags.user, 'CN%3Da%20b%2CO%3Dx');
  });
});

describe('bucket identity (metric tags)', () => {
  const expectedTags: Record<number, { user: string; clientId: string }> = {
    1: { user: 'alice', clientId: 'app' },
    2: { user: 'alice', clientId: 'app' },
    3: { user: 'alice', clientId: '' },
    4: { user: 'alice', clientId: 'app' },
    5: { user: 'alice', clientId: 'app' },
    6: { user: 'alice', clientId: '' },
    7: { user: '', clientId: 'app' },
    8: { user: '', clientId: 'app' },
  };
  for (const [level] of LEVELS) {
    it(`level ${level} tags use the actual user/client-id values`, () => {
      const r = resolveQuota(tableOf([level]), CMR, 'alice', 'app');
      assert.deepEqual(r?.tags, expectedTags[level]);
      assert.equal(r?.bucketKey, `${expectedTags[level].user}:${expectedTags[level].clientId}`);
    });
  }

  it('/clients/<default>: each client id gets its own bucket, shared across users', () => {
    const t = tableOf([8]);
    const a = resolveQuota(t, CMR, 'alice', 'c1')?.bucketKey;
    const b = resolveQuota(t, CMR, 'alice', 'c2')?.bucketKey;
    const c = resolveQuota(t, CMR, 'bob', 'c1')?.bucketKey;
    assert.equal(a, ':c1');
    assert.equal(b, ':c2');
    assert.equal(c, a);
  });

  it("/users/<default>: one bucket per user, shared across that user's client ids", () => {
    const t = tableOf([6]);
    assert.equal(resolveQuota(t, CMR, 'alice', 'c1')?.bucketKey, 'alice:');
    assert.equal(resolveQuota(t, CMR, 'alice', 'c2')?.bucketKey, 'alice:');
    assert.equal(resolveQuota(t, CMR, 'bob', 'c1')?.bucketKey, 'bob:');
  });

  it('/users/<default>/clients/<default>: one bucket per (user, client id)', () => {
    const t = tableOf([5]);
    const keys = new Set(
      [
        ['alice', 'c1'],
        ['alice', 'c2'],
        ['bob', 'c1'],
      ].map(([u, c]) => resolveQuota(t, CMR, u, c)?.bucketKey),
    );
    assert.equal(keys.size, 3);
  });

  it('quotaMetricTags falls back to client-id tags when nothing at levels 1-6 exists', () => {
    assert.deepEqual(quotaMetricTags(new Map(), CMR, 'alice', 'app'), { user: '', clientId: 'app' });
  });

  it('quotaLimit maps tag shapes to their levels', () => {
    const t = tableOf([1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(quotaLimit(t, CMR, { user: 'alice', clientId: 'app' })?.level, 1);
    assert.equal(quotaLimit(t, CMR, { user: 'alice', clientId: '' })?.level, 3);
    assert.equal(quotaLimit(t, CMR, { user: '', clientId: 'app' })?.level, 7);
    assert.equal(quotaLimit(t, CMR, { user: '', clientId: '' }), undefined);
    assert.equal(quotaLimit(tableOf([2, 5]), CMR, { user: 'zed', clientId: 'x' })?.level, 5);
  });

  it('Kafka quirk: empty client id with a user/<default> client quota is unlimited', () => {
    const r = resolveQuota(tableOf([2]), CMR, 'alice', '');
    assert.equal(r, undefined);
    assert.equal(resolveQuota(tableOf([2, 3]), CMR, 'alice', '')?.level, 3);
  });

  it('bucket keys round-trip, client ids may contain ":"', () => {
    assert.deepEqual(parseBucketKey(bucketKey({ user: 'a%3Ab', clientId: 'x:y' })), { user: 'a%3Ab', clientId: 'x:y' });
    assert.deepEqual(parseBucketKey(':app'), { user: '', clientId: 'app' });
    assert.throws(() => parseBucketKey('nocolon'), RangeError);
  });

  it('precedenceLevel rejects the empty entity', () => {
    assert.throws(() => precedenceLevel({}), RangeError);
  });
});
