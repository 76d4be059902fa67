// The simulated cluster's broker-side client quota checks (src/sim/quota-entities.ts):
// AlterClientQuotas entity and value validation, applying an alteration to the quota table,
// and DescribeClientQuotas filters, mirroring Kafka's ClientQuotaControlManager and
// ClientQuotasImage.describe. These cases were written against src/domain/quota-entity.ts,
// which held this logic until the simulator got its own copy (issue 13); the gateway's side
// (precedence lookup, bucket identity) is still tested in test/domain/quota-entity.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  ERROR_INVALID_REQUEST,
  ERROR_UNSUPPORTED_VERSION,
  applyQuotaAlteration,
  entityFromComponents,
  entityKey,
  validateQuotaOps,
  validateQuotaValue,
  type QuotaEntity,
  type QuotaTable,
  type QuotaValues,
} from '../../src/sim/quota-entities.js';
import {
  compileDescribeFilter,
  describeClientQuotas,
  entityMatchesFilter,
  MATCH_TYPE_DEFAULT,
  MATCH_TYPE_EXACT,
  MATCH_TYPE_SPECIFIED,
  type FilterComponent,
} from '../../src/sim/quota-describe.js';
import { kafkaEntityComponents } from '../../src/sim/quotas.js';

const CMR = 'controller_mutation_rate' as const;

/** One entity of each of the 8 precedence levels, for user alice / client app. */
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

/** A quota table as the simulator keeps it: values keyed by entityKey. */
function quotaTable(entries: ReadonlyArray<readonly [QuotaEntity, QuotaValues]>): QuotaTable {
  return new Map(entries.map(([entity, values]) => [entityKey(entity), values] as const));
}

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
      [
        [
          { entityType: 'user', entityName: 'a' },
          { entityType: 'user', entityName: 'b' },
        ],
        /duplicate entity entry user/,
      ],
      [
        [
          { entityType: 'user', entityName: null },
          { entityType: 'user', entityName: null },
        ],
        /duplicate/,
      ],
      [[{ entityType: 'group', entityName: 'g' }], /Unhandled client quota entity type: group/],
      [
        [
          { entityType: 'ip', entityName: '1.2.3.4' },
          { entityType: 'user', entityName: 'u' },
        ],
        /IP entity shouldnot be combined with User or ClientId/,
      ],
      [
        [
          { entityType: 'ip', entityName: null },
          { entityType: 'client-id', entityName: null },
        ],
        /IP entity shouldnot be combined/,
      ],
      [[{ entityType: 'ip', entityName: 'no.such.host.invalid' }], /^no\.such\.host\.invalid is not a valid IP or resolvable host\.$/],
      [[{ entityType: 'ip', entityName: '' }], /Empty ip not supported/],
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

  it('kafkaEntityComponents puts client-id first (as Kafka does) and reads back', () => {
    assert.deepEqual(kafkaEntityComponents({ clientId: 'c', user: null }), [
      { entityType: 'client-id', entityName: 'c' },
      { entityType: 'user', entityName: null },
    ]);
    for (const [, e] of LEVELS) {
      const back = entityFromComponents(kafkaEntityComponents(e));
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
      assert.deepEqual(
        [...r.changes],
        [
          [CMR, 2.5],
          ['producer_byte_rate', 1048576],
          ['request_percentage', 12.5],
          ['consumer_byte_rate', null],
        ],
      );
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
      [
        [
          { key: CMR, value: 1 },
          { key: CMR, remove: true },
        ],
        /Duplicate quota key controller_mutation_rate/,
      ],
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

  it("LONG check uses Kafka's 1e-6 epsilon", () => {
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
    let r = applyQuotaAlteration(t, alice, [
      { key: CMR, value: 2 },
      { key: 'producer_byte_rate', value: 100 },
    ]);
    assert.ok(r.ok);
    t = r.table;
    assert.deepEqual(t.get('users/alice'), { [CMR]: 2, producer_byte_rate: 100 });

    r = applyQuotaAlteration(t, alice, [
      { key: CMR, value: 5 },
      { key: 'producer_byte_rate', remove: true },
    ]);
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
    const dup = applyQuotaAlteration(
      new Map(),
      [],
      [
        { key: 'x', value: 1 },
        { key: 'x', value: 2 },
      ],
    );
    assert.ok(!dup.ok && /Duplicate/.test(dup.message));
    const ent = applyQuotaAlteration(new Map(), [], [{ key: 'x', value: 1 }]);
    assert.ok(!ent.ok && /empty client quota entity/.test(ent.message));
    const val = applyQuotaAlteration(new Map(), alice, [{ key: 'x', value: 1 }]);
    assert.ok(!val.ok && /Invalid configuration key x/.test(val.message));
  });

  it('a failed alteration leaves nothing applied', () => {
    const t = quotaTable([[{ user: 'alice' }, { [CMR]: 2 }]]);
    const r = applyQuotaAlteration(t, alice, [
      { key: CMR, value: 9 },
      { key: 'producer_byte_rate', value: 0.5 },
    ]);
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

  it('an ip filter is valid and matches no user/client-id entity', () => {
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
