import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  ERROR_INVALID_REQUEST,
  ERROR_UNSUPPORTED_VERSION,
  MATCH_TYPE_DEFAULT,
  MATCH_TYPE_EXACT,
  MATCH_TYPE_SPECIFIED,
  applyQuotaAlteration,
  bucketKey,
  compileDescribeFilter,
  describeClientQuotas,
  desanitize,
  entityFromComponents,
  entityKey,
  entityMatchesFilter,
  entityToComponents,
  parseBucketKey,
  parseEntityKey,
  precedenceLevel,
  quotaLimit,
  quotaMetricTags,
  quotaTable,
  resolveQuota,
  sanitize,
  validateQuotaOps,
  validateQuotaValue,
  type FilterComponent,
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
    const entities: QuotaEntity[] = [
      ...LEVELS.map(([, e]) => e),
      { user: '<default>', clientId: 'a/b:c' },
      { user: 'User:CN=x y' },
    ];
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

  it('/users/<default>: one bucket per user, shared across that user\'s client ids', () => {
    const t = tableOf([6]);
    assert.equal(resolveQuota(t, CMR, 'alice', 'c1')?.bucketKey, 'alice:');
    assert.equal(resolveQuota(t, CMR, 'alice', 'c2')?.bucketKey, 'alice:');
    assert.equal(resolveQuota(t, CMR, 'bob', 'c1')?.bucketKey, 'bob:');
  });

  it('/users/<default>/clients/<default>: one bucket per (user, client id)', () => {
    const t = tableOf([5]);
    const keys = new Set(
      [['alice', 'c1'], ['alice', 'c2'], ['bob', 'c1']].map(([u, c]) => resolveQuota(t, CMR, u, c)?.bucketKey),
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

describe('entity components (AlterClientQuotas entity validation)', () => {
  it('parses user, client-id, defaults', () => {
    assert.deepEqual(
      entityFromComponents([
        { entityType: 'user', entityName: 'alice' },
        { entityType: 'client-id', entityName: null },
      ]),
      { ok: true, entity: { user: 'alice', clientId: null } },
    );
    assert.deepEqual(entityFromComponents([{ entityType: 'client-id', entityName: 'app' }]), {
      ok: true,
      entity: { clientId: 'app' },
    });
  });

  it('rejects empty, duplicate, unknown types and empty names with INVALID_REQUEST', () => {
    const cases: Array<[Parameters<typeof entityFromComponents>[0], RegExp]> = [
      [[], /empty client quota entity/],
      [[{ entityType: 'user', entityName: 'a' }, { entityType: 'user', entityName: 'b' }], /duplicate entity entry user/],
      [[{ entityType: 'user', entityName: null }, { entityType: 'user', entityName: null }], /duplicate/],
      [[{ entityType: 'group', entityName: 'g' }], /Unhandled client quota entity type: group/],
      [[{ entityType: 'ip', entityName: '1.2.3.4' }], /Unhandled/],
      [[{ entityType: 'user', entityName: '' }], /Empty user not supported/],
      [[{ entityType: 'client-id', entityName: '' }], /Empty client-id not supported/],
    ];
    for (const [components, message] of cases) {
      const r = entityFromComponents(components);
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.errorCode, ERROR_INVALID_REQUEST);
        assert.match(r.message, message);
      }
    }
  });

  it('entityToComponents puts user first', () => {
    assert.deepEqual(entityToComponents({ clientId: 'c', user: null }), [
      { entityType: 'user', entityName: null },
      { entityType: 'client-id', entityName: 'c' },
    ]);
    for (const [, e] of LEVELS) {
      const back = entityFromComponents(entityToComponents(e));
      assert.deepEqual(back, { ok: true, entity: e });
    }
  });
});

describe('quota ops validation', () => {
  it('accepts known keys and removals', () => {
    const r = validateQuotaOps([
      { key: CMR, value: 2.5 },
      { key: 'producer_byte_rate', value: 1048576 },
      { key: 'request_percentage', value: 12.5 },
      { key: 'consumer_byte_rate', remove: true },
    ]);
    assert.equal(r.ok, true);
    if (r.ok) {
      assert.deepEqual([...r.changes], [
        [CMR, 2.5],
        ['producer_byte_rate', 1048576],
        ['request_percentage', 12.5],
        ['consumer_byte_rate', null],
      ]);
    }
  });

  it('removal is not key-checked (Kafka ignores removing an unset key)', () => {
    assert.equal(validateQuotaOps([{ key: 'nonsense', remove: true }]).ok, true);
    assert.equal(validateQuotaOps([{ key: 'nonsense', value: null }]).ok, true);
  });

  it('rejects unknown keys, duplicates, non-integral LONGs, rate <= 0', () => {
    const bad: Array<[Parameters<typeof validateQuotaOps>[0], RegExp]> = [
      [[{ key: 'connection_creation_rate', value: 5 }], /Invalid configuration key connection_creation_rate/],
      [[{ key: 'foo', value: 1 }], /Invalid configuration key foo/],
      [[{ key: CMR, value: 1 }, { key: CMR, remove: true }], /Duplicate quota key controller_mutation_rate/],
      [[{ key: 'producer_byte_rate', value: 10.5 }], /must be a Long value/],
      [[{ key: CMR, value: 0 }], /must be greater than 0/],
      [[{ key: CMR, value: -1 }], /must be greater than 0/],
      [[{ key: CMR, value: Number.NaN }], /finite/],
      [[{ key: 'request_percentage', value: Number.POSITIVE_INFINITY }], /finite/],
    ];
    for (const [ops, message] of bad) {
      const r = validateQuotaOps(ops);
      assert.equal(r.ok, false, JSON.stringify(ops));
      if (!r.ok) {
        assert.equal(r.errorCode, ERROR_INVALID_REQUEST);
        assert.match(r.message, message);
      }
    }
  });

  it('LONG check uses Kafka\'s 1e-6 epsilon', () => {
    assert.equal(validateQuotaValue('producer_byte_rate', 1024.0000001), undefined);
    assert.equal(validateQuotaValue('producer_byte_rate', 1023.9999999), undefined);
    assert.match(validateQuotaValue('producer_byte_rate', 1024.001) ?? '', /Long/);
    assert.equal(validateQuotaValue('request_percentage', 0), undefined, 'only controller_mutation_rate must be > 0');
    assert.equal(validateQuotaValue(CMR, 0.001), undefined);
  });
});

describe('applyQuotaAlteration', () => {
  const alice = [{ entityType: 'user', entityName: 'alice' }] as const;

  it('sets, updates and removes keys; drops the entity when empty', () => {
    let t: QuotaTable = new Map();
    let r = applyQuotaAlteration(t, alice, [{ key: CMR, value: 2 }, { key: 'producer_byte_rate', value: 100 }]);
    assert.ok(r.ok);
    t = r.table;
    assert.deepEqual(t.get('users/alice'), { [CMR]: 2, producer_byte_rate: 100 });

    r = applyQuotaAlteration(t, alice, [{ key: CMR, value: 5 }, { key: 'producer_byte_rate', remove: true }]);
    assert.ok(r.ok);
    assert.deepEqual(r.table.get('users/alice'), { [CMR]: 5 });
    assert.deepEqual(t.get('users/alice'), { [CMR]: 2, producer_byte_rate: 100 }, 'input table untouched');
    t = r.table;

    r = applyQuotaAlteration(t, alice, [{ key: CMR, remove: true }]);
    assert.ok(r.ok);
    assert.equal(r.table.has('users/alice'), false);
    assert.equal(r.table.size, 0);
  });

  it('checks duplicates before the entity, and the entity before values (Kafka order)', () => {
    const dup = applyQuotaAlteration(new Map(), [], [{ key: 'x', value: 1 }, { key: 'x', value: 2 }]);
    assert.ok(!dup.ok && /Duplicate/.test(dup.message));
    const ent = applyQuotaAlteration(new Map(), [], [{ key: 'x', value: 1 }]);
    assert.ok(!ent.ok && /empty client quota entity/.test(ent.message));
    const val = applyQuotaAlteration(new Map(), alice, [{ key: 'x', value: 1 }]);
    assert.ok(!val.ok && /Invalid configuration key x/.test(val.message));
  });

  it('a failed alteration leaves nothing applied', () => {
    const t = quotaTable([[{ user: 'alice' }, { [CMR]: 2 }]]);
    const r = applyQuotaAlteration(t, alice, [{ key: CMR, value: 9 }, { key: 'producer_byte_rate', value: 0.5 }]);
    assert.equal(r.ok, false);
    assert.deepEqual(t.get('users/alice'), { [CMR]: 2 });
  });
});

describe('DescribeClientQuotas filters', () => {
  const table = quotaTable([
    [{ user: 'alice', clientId: 'app' }, { [CMR]: 1 }],
    [{ user: 'alice', clientId: null }, { [CMR]: 2 }],
    [{ user: 'alice' }, { [CMR]: 3 }],
    [{ user: null, clientId: 'app' }, { [CMR]: 4 }],
    [{ user: null, clientId: null }, { [CMR]: 5 }],
    [{ user: null }, { [CMR]: 6 }],
    [{ clientId: 'app' }, { [CMR]: 7 }],
    [{ clientId: null }, { [CMR]: 8 }],
    [{ user: 'bob' }, { producer_byte_rate: 100 }],
  ]);

  const run = (components: FilterComponent[], strict: boolean): string[] => {
    const r = describeClientQuotas(table, components, strict);
    assert.ok(r.ok, JSON.stringify(r));
    return r.entries.map((e) => entityKey(e.entity));
  };

  it('match type constants', () => {
    assert.deepEqual([MATCH_TYPE_EXACT, MATCH_TYPE_DEFAULT, MATCH_TYPE_SPECIFIED], [0, 1, 2]);
  });

  it('no components: all (non-strict) or nothing (strict)', () => {
    assert.equal(run([], false).length, 9);
    assert.deepEqual(run([], true), []);
  });

  it('EXACT user', () => {
    const c = [{ entityType: 'user', matchType: MATCH_TYPE_EXACT, match: 'alice' }];
    assert.deepEqual(run(c, false), ['users/alice', 'users/alice/clients/<default>', 'users/alice/clients/app']);
    assert.deepEqual(run(c, true), ['users/alice']);
  });

  it('DEFAULT user', () => {
    const c = [{ entityType: 'user', matchType: MATCH_TYPE_DEFAULT, match: null }];
    assert.deepEqual(run(c, false), ['users/<default>', 'users/<default>/clients/<default>', 'users/<default>/clients/app']);
    assert.deepEqual(run(c, true), ['users/<default>']);
  });

  it('SPECIFIED user matches named and default users', () => {
    const c = [{ entityType: 'user', matchType: MATCH_TYPE_SPECIFIED }];
    assert.equal(run(c, false).length, 7);
    assert.deepEqual(run(c, true), ['users/<default>', 'users/alice', 'users/bob']);
  });

  it('SPECIFIED client-id', () => {
    const c = [{ entityType: 'client-id', matchType: MATCH_TYPE_SPECIFIED, match: null }];
    assert.equal(run(c, false).length, 6);
    assert.deepEqual(run(c, true), ['clients/<default>', 'clients/app']);
  });

  it('EXACT client-id + DEFAULT user', () => {
    const c = [
      { entityType: 'client-id', matchType: MATCH_TYPE_EXACT, match: 'app' },
      { entityType: 'user', matchType: MATCH_TYPE_DEFAULT },
    ];
    assert.deepEqual(run(c, false), ['users/<default>/clients/app']);
    assert.deepEqual(run(c, true), ['users/<default>/clients/app']);
  });

  it('EXACT user + SPECIFIED client-id', () => {
    const c = [
      { entityType: 'user', matchType: MATCH_TYPE_EXACT, match: 'alice' },
      { entityType: 'client-id', matchType: MATCH_TYPE_SPECIFIED },
    ];
    assert.deepEqual(run(c, true), ['users/alice/clients/<default>', 'users/alice/clients/app']);
  });

  it('EXACT does not match the default entity and vice versa', () => {
    assert.deepEqual(run([{ entityType: 'client-id', matchType: MATCH_TYPE_EXACT, match: 'nope' }], false), []);
    const f = compileDescribeFilter([{ entityType: 'user', matchType: MATCH_TYPE_EXACT, match: 'alice' }], false);
    assert.ok(f.ok);
    assert.equal(entityMatchesFilter({ user: null }, f.filter), false);
    assert.equal(entityMatchesFilter({ clientId: 'alice' }, f.filter), false);
  });

  it('an ip filter is valid and matches nothing here', () => {
    assert.deepEqual(run([{ entityType: 'ip', matchType: MATCH_TYPE_SPECIFIED }], false), []);
  });

  it('returns the entity values', () => {
    const r = describeClientQuotas(table, [{ entityType: 'user', matchType: MATCH_TYPE_EXACT, match: 'bob' }], true);
    assert.ok(r.ok);
    assert.deepEqual(r.entries, [{ entity: { user: 'bob' }, values: { producer_byte_rate: 100 } }]);
  });

  it('validation errors mirror ClientQuotasImage.describe', () => {
    const bad: Array<[FilterComponent[], number, RegExp]> = [
      [[{ entityType: '', matchType: 0, match: 'x' }], ERROR_INVALID_REQUEST, /empty entity type/],
      [
        [
          { entityType: 'user', matchType: 0, match: 'a' },
          { entityType: 'user', matchType: 2 },
        ],
        ERROR_INVALID_REQUEST,
        /cannot appear more than once/,
      ],
      [[{ entityType: 'group', matchType: 2 }], ERROR_UNSUPPORTED_VERSION, /Unsupported entity type group/],
      [[{ entityType: 'user', matchType: 0, match: null }], ERROR_INVALID_REQUEST, /MATCH_TYPE_EXACT/],
      [[{ entityType: 'user', matchType: 0 }], ERROR_INVALID_REQUEST, /MATCH_TYPE_EXACT/],
      [[{ entityType: 'user', matchType: 1, match: 'a' }], ERROR_INVALID_REQUEST, /MATCH_TYPE_DEFAULT/],
      [[{ entityType: 'user', matchType: 2, match: 'a' }], ERROR_INVALID_REQUEST, /MATCH_TYPE_SPECIFIED/],
      [[{ entityType: 'user', matchType: 3 }], ERROR_INVALID_REQUEST, /Unknown match type 3/],
      [
        [
          { entityType: 'ip', matchType: 1 },
          { entityType: 'client-id', matchType: 2 },
        ],
        ERROR_INVALID_REQUEST,
        /IP filter component should not be used/,
      ],
    ];
    for (const [components, code, message] of bad) {
      const r = describeClientQuotas(table, components, false);
      assert.equal(r.ok, false, JSON.stringify(components));
      if (!r.ok) {
        assert.equal(r.errorCode, code);
        assert.match(r.message, message);
      }
    }
  });
});
