// The throttle sync's memos: the ledger view (ledgerOf), the plan (PlanCache) and the
// ledger comparison (sameJson). Each is reused only while its inputs are unchanged.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { reconcileThrottles, type ThrottleConfigValues, type ThrottleDemand } from '../../src/domain/reassignment/index.js';
import { PlanCache, sameConfigValues, sameJson } from '../../src/reconcile/throttle-sync.js';
import { ledgerOf } from '../../src/reconcile/ownership.js';
import type { LedgerRecord } from '../../src/state/records.js';

const rec = (id: string, body: Partial<LedgerRecord>): LedgerRecord => ({ kind: 'ledger', v: 1, id, updatedAt: 0, ...body });

it('ledgerOf: the same record objects give the same ledger object; a new record a new ledger', () => {
  const a = rec('topic/t', { topic: { leader: { prior: null, added: ['0:1'] } } });
  const b = rec('broker/1', { broker: { leaderRate: { prior: null, values: ['10'] } } });
  const l1 = ledgerOf([a, b]);
  assert.equal(
    ledgerOf(
      new Map([
        ['x', a],
        ['y', b],
      ]).values(),
    ),
    l1,
  );
  const a2 = rec('topic/t', { topic: { leader: { prior: null, added: ['0:1', '1:1'] } } });
  const l2 = ledgerOf([a2, b]);
  assert.notEqual(l2, l1);
  assert.deepEqual(l2.topics.t.leader!.added, ['0:1', '1:1']);
  assert.deepEqual(ledgerOf([b]).topics, {});
});

it('PlanCache: reused only for the same demand and ledger objects and equal config values', () => {
  const cache = new PlanCache();
  const demand: ThrottleDemand = {
    topics: { t: { leader: ['0:1'], follower: ['0:2'] } },
    brokers: { '1': { leaderRate: 10, followerRate: 10 } },
  };
  const ledger = ledgerOf([]);
  const values = (leader: string | null): ThrottleConfigValues => ({
    topics: { t: { leader, follower: null } },
    brokers: { '1': { leaderRate: null, followerRate: null } },
  });
  const p1 = cache.plan(values(null), demand, ledger);
  assert.deepEqual(p1, reconcileThrottles(values(null), demand, ledger));
  assert.equal(cache.plan(values(null), demand, ledger), p1); // fresh but equal read
  assert.equal(cache.hits, 1);
  // Invalidation: a config value changed (someone else, or our own write landed)...
  const p2 = cache.plan(values('0:1'), demand, ledger);
  assert.notEqual(p2, p1);
  assert.deepEqual(p2, reconcileThrottles(values('0:1'), demand, ledger));
  // ...a new demand object, a new ledger object, a resource more or less.
  const demand2: ThrottleDemand = { ...demand, brokers: {} };
  assert.deepEqual(cache.plan(values('0:1'), demand2, ledger), reconcileThrottles(values('0:1'), demand2, ledger));
  const ledger2 = ledgerOf([rec('topic/t', { topic: { leader: { prior: null, added: ['0:1'] } } })]);
  assert.deepEqual(cache.plan(values('0:1'), demand2, ledger2), reconcileThrottles(values('0:1'), demand2, ledger2));
  const fewer: ThrottleConfigValues = { topics: {}, brokers: {} };
  assert.deepEqual(cache.plan(fewer, demand2, ledger2), reconcileThrottles(fewer, demand2, ledger2));
  assert.equal(cache.hits, 1);
});

it('sameConfigValues and sameJson compare like their JSON (undefined keys absent)', () => {
  const v = (t: Record<string, { leader?: string | null; follower?: string | null }>): ThrottleConfigValues => ({ topics: t, brokers: {} });
  assert.ok(sameConfigValues(v({ t: { leader: 'a', follower: null } }), v({ t: { leader: 'a' } })));
  assert.ok(!sameConfigValues(v({ t: { leader: 'a' } }), v({ t: { leader: 'b' } })));
  assert.ok(!sameConfigValues(v({ t: { leader: 'a' } }), v({ u: { leader: 'a' } })));
  assert.ok(!sameConfigValues(v({ t: {} }), v({})));
  assert.ok(sameJson({ a: [1, { b: 'x' }], c: undefined }, { a: [1, { b: 'x' }] }));
  assert.ok(!sameJson({ a: [1, 2] }, { a: [2, 1] }));
  assert.ok(!sameJson({ a: null }, {}));
  assert.ok(!sameJson(undefined, {}));
  assert.ok(!sameJson([], {}));
  const x = { leader: { prior: null, added: ['1:1'] } };
  assert.ok(sameJson(x, x));
  assert.ok(sameJson(x, JSON.parse(JSON.stringify(x))));
});

it('reconcileThrottlesPaced: the same plan as reconcileThrottles, topic by topic with yields between', async () => {
  const { reconcileThrottlesPaced } = await import('../../src/reconcile/throttle-sync.js');
  const fc = (await import('fast-check')).default;
  const topicNames = ['a', 'b', 'c', 'd'];
  const entries = fc.uniqueArray(fc.constantFrom('0:1', '0:2', '1:1', '1:3', '2:2'), { maxLength: 4 }).map((xs) => [...xs].sort());
  const list = fc.oneof(entries, fc.constant('*' as const));
  const value = fc.option(
    fc.oneof(
      entries.map((xs) => xs.join(',')),
      fc.constant('*'),
      fc.constant('bad value'),
    ),
    { nil: null },
  );
  const rate = fc.option(fc.constantFrom('100', '200', '300'), { nil: null });
  const topicDemand = fc.record({ leader: list, follower: list }, { requiredKeys: [] });
  const owned = fc.record({
    prior: value,
    added: fc.oneof(
      entries,
      entries.map((xs) => [...xs, '*'].sort()),
    ),
  });
  const arb = fc.record({
    demand: fc.record({
      topics: fc.dictionary(fc.constantFrom(...topicNames), topicDemand),
      brokers: fc.dictionary(
        fc.constantFrom('1', '2'),
        fc.record({ leaderRate: fc.constantFrom(100, 200), followerRate: fc.constantFrom(100, 200) }, { requiredKeys: [] }),
      ),
    }),
    ledger: fc.record({
      topics: fc.dictionary(fc.constantFrom(...topicNames), fc.record({ leader: owned, follower: owned }, { requiredKeys: [] })),
      brokers: fc.dictionary(
        fc.constantFrom('1', '2', '3'),
        fc.record(
          { leaderRate: fc.record({ prior: rate, values: fc.array(fc.constantFrom('100', '200'), { maxLength: 2 }) }) },
          { requiredKeys: [] },
        ),
      ),
    }),
    current: fc.record({
      topics: fc.dictionary(fc.constantFrom(...topicNames), fc.record({ leader: value, follower: value })),
      brokers: fc.dictionary(fc.constantFrom('1', '2', '3'), fc.record({ leaderRate: rate, followerRate: rate })),
    }),
  });
  let yields = 0;
  await fc.assert(
    fc.asyncProperty(arb, async ({ demand, ledger, current }) => {
      const expected = reconcileThrottles(current, demand, ledger);
      const paced = await reconcileThrottlesPaced(current, demand, ledger, async () => void yields++);
      assert.deepEqual(paced, expected);
    }),
    { numRuns: 300 },
  );
  assert.ok(yields > 0, 'it yielded between topics');
});
