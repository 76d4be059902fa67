// The memos and linear merges that keep the throttle sync cheap at 100k partitions
// (issue 8 follow-up): results must be exactly those of the plain computations, and every
// memo must be invalidated by a change of its inputs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';

import {
  PARSE_CACHE_MAX_CHARS,
  PARSE_CACHE_MAX_ENTRIES,
  mergeThrottleDemands,
  parseThrottledReplicas,
  reconcileReplicaList,
  sortedUnion,
  type ThrottleDemand,
} from '../../../src/domain/reassignment/index.js';

const longList = (n: number, broker = 1) => Array.from({ length: n }, (_, p) => `${p}:${broker}`).join(',');
const naiveUnion = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])].sort();
const entry = fc.tuple(fc.nat(300), fc.nat(12)).map(([p, b]) => `${p}:${b}`);

describe('parseThrottledReplicas memo', () => {
  it('answers the same frozen object for the same long value, a fresh parse for another', () => {
    const v = longList(50);
    const a = parseThrottledReplicas(v);
    const b = parseThrottledReplicas(`${v}`.slice(0)); // equal string
    assert.ok(a && !a.all);
    assert.equal(a, b);
    assert.ok(Object.isFrozen(a) && Object.isFrozen(a.entries));
    const c = parseThrottledReplicas(longList(51));
    assert.notEqual(c, a);
    assert.equal((c as { entries: readonly string[] }).entries.length, 51);
    assert.equal(parseThrottledReplicas(`${v},junk`), null); // invalid values are memoised as invalid
  });

  it('is bounded: the oldest value is dropped and parsed again (equal result, new object)', () => {
    const first = longList(40, 7);
    const a = parseThrottledReplicas(first);
    for (let i = 0; i < PARSE_CACHE_MAX_ENTRIES; i++) parseThrottledReplicas(`${longList(20, 8)},${1000 + i}:1`);
    const again = parseThrottledReplicas(first);
    assert.notEqual(again, a);
    assert.deepEqual(again, a);
  });

  it('keeps the values in use (least recently used dropped first)', () => {
    const kept = longList(30, 9);
    const a = parseThrottledReplicas(kept);
    for (let i = 0; i < PARSE_CACHE_MAX_ENTRIES * 2; i++) {
      parseThrottledReplicas(`${longList(20, 8)},${5000 + i}:1`);
      if (i % 100 === 0) parseThrottledReplicas(kept); // in use
    }
    assert.equal(parseThrottledReplicas(kept), a);
  });

  it('is bounded in characters too: huge values push the oldest out', () => {
    const first = longList(45, 7);
    const a = parseThrottledReplicas(first);
    const huge = Math.ceil(PARSE_CACHE_MAX_CHARS / 3);
    for (const c of ['x', 'y', 'z', 'w']) assert.equal(parseThrottledReplicas(c.repeat(huge)), null); // invalid: memoised as such
    const again = parseThrottledReplicas(first);
    assert.notEqual(again, a);
    assert.deepEqual(again, a);
  });
});

describe('sortedUnion', () => {
  it('equals Set + sort for any inputs, sorted or not', () => {
    fc.assert(
      fc.property(fc.array(entry), fc.array(entry), fc.boolean(), (a, b, sortFirst) => {
        const x = sortFirst ? naiveUnion(a, []) : a;
        const y = naiveUnion(b, []);
        assert.deepEqual([...sortedUnion(x, y)], naiveUnion(x, y));
      }),
    );
  });

  it('answers an input itself when the other adds nothing (identity lets callers skip work)', () => {
    const a = Object.freeze(['1:1', '2:1', '3:1']);
    assert.equal(sortedUnion(a, []), a);
    assert.equal(sortedUnion(a, ['2:1']), a);
    assert.equal(sortedUnion([], a), a);
    assert.deepEqual(sortedUnion(a, ['10:1']), ['10:1', '1:1', '2:1', '3:1']); // string order, as Kafka's
  });
});

describe('mergeThrottleDemands memo', () => {
  const d1: ThrottleDemand = {
    topics: { t: { leader: ['1:1', '0:2'], follower: ['0:3'] } },
    brokers: { '1': { leaderRate: 10, followerRate: 10 } },
  };
  const d2: ThrottleDemand = { topics: { t: { leader: ['0:2', '5:5'] }, u: { leader: '*' } }, brokers: { '1': { leaderRate: 5 } } };

  it('the same demand objects give the same result object; a changed demand a new, correct one', () => {
    const a = mergeThrottleDemands([d1, d2]);
    assert.equal(mergeThrottleDemands([d1, d2]), a);
    assert.deepEqual(a, {
      topics: { t: { leader: ['0:2', '1:1', '5:5'], follower: ['0:3'] }, u: { leader: '*' } },
      brokers: { '1': { leaderRate: 5, followerRate: 10 } },
    });
    // Invalidation: a new object (even with equal content) and a different order are recomputed.
    const d2b: ThrottleDemand = { ...d2, topics: { ...d2.topics, t: { leader: ['9:9'] } } };
    const b = mergeThrottleDemands([d1, d2b]);
    assert.notEqual(b, a);
    assert.deepEqual(b.topics.t.leader, ['0:2', '1:1', '9:9']);
    assert.notEqual(mergeThrottleDemands([d2, d1]), b);
    assert.deepEqual(mergeThrottleDemands([d1]).topics.t, { leader: ['0:2', '1:1'], follower: ['0:3'] });
  });

  it('never hands out (or freezes) an input list, even for a single sorted contributor', () => {
    const list = ['0:1', '1:1'];
    const d: ThrottleDemand = { topics: { t: { leader: list } }, brokers: {} };
    const m = mergeThrottleDemands([d]);
    assert.notEqual(m.topics.t.leader, list);
    assert.deepEqual(m.topics.t.leader, list);
    assert.ok(!Object.isFrozen(list));
  });

  it('equals the plain union of every demand (property)', () => {
    const demand = fc.record({
      leader: fc.option(fc.oneof(fc.constant('*' as const), fc.array(entry)), { nil: undefined }),
      follower: fc.option(fc.array(entry), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.constantFrom('a', 'b', 'c'), demand), { maxLength: 4 }), (topicsList) => {
        const demands: ThrottleDemand[] = topicsList.map((topics) => ({ topics, brokers: {} }));
        const merged = mergeThrottleDemands(demands);
        for (const topic of ['a', 'b', 'c']) {
          for (const field of ['leader', 'follower'] as const) {
            const parts = demands.map((d) => d.topics[topic]?.[field]).filter((x) => x !== undefined);
            const want = parts.length === 0 ? undefined : parts.includes('*') ? '*' : naiveUnion(parts.flat(), []);
            const got = merged.topics[topic]?.[field];
            assert.deepEqual(got === undefined || got === '*' ? got : [...got], want);
          }
        }
      }),
    );
  });
});

describe('identity kept across re-reads, and the per-list memo', () => {
  const demandOf = (n: number): ThrottleDemand => ({
    topics: { t: { leader: Array.from({ length: n }, (_, p) => `${p}:1`).sort() } },
    brokers: {},
  });

  it('a demand re-read with the same content (new objects) merges to the very same lists', () => {
    const a = mergeThrottleDemands([demandOf(500)]);
    const b = mergeThrottleDemands([JSON.parse(JSON.stringify(demandOf(500))) as ThrottleDemand]);
    assert.notEqual(b, a);
    assert.equal(b.topics.t.leader, a.topics.t.leader);
    const c = mergeThrottleDemands([demandOf(501)]); // changed content: a new list
    assert.notEqual(c.topics.t.leader, a.topics.t.leader);
    assert.equal((c.topics.t.leader as readonly string[]).length, 501);
  });

  it('reconcileReplicaList answers the same result for the same list, value and ledger entry; recomputes on any change', () => {
    const want = mergeThrottleDemands([demandOf(300)]).topics.t.leader!;
    const value = (want as readonly string[]).slice(0, 200).join(',');
    const owned = { prior: null, added: (want as readonly string[]).slice(0, 100) };
    const r1 = reconcileReplicaList(value, want, owned);
    assert.equal(reconcileReplicaList(`${value}`, want, owned), r1);
    const r2 = reconcileReplicaList(`${value},299:1`, want, owned); // the config changed
    assert.notEqual(r2, r1);
    assert.ok(!r2.op?.value?.includes('299:1,299:1'));
    const r3 = reconcileReplicaList(value, want, { ...owned }); // a new ledger entry
    assert.notEqual(r3, r1);
    assert.deepEqual(r3, r1);
    // The memoised answer is the plain computation's (a non-frozen copy of the list is not memoised).
    assert.deepEqual(reconcileReplicaList(value, [...(want as readonly string[])], owned), r1);
  });

  it('a list object shared by two topics (equal lists) is memoised per ledger entry: neither evicts the other', () => {
    const shared = mergeThrottleDemands([demandOf(260)]).topics.t.leader!;
    const value = (shared as readonly string[]).join(',');
    const ownedT = { prior: null, added: (shared as readonly string[]).slice(0, 10) };
    const ownedU = { prior: '0:9', added: (shared as readonly string[]).slice(0, 20) };
    const t1 = reconcileReplicaList(value, shared, ownedT);
    const u1 = reconcileReplicaList(value, shared, ownedU);
    assert.equal(reconcileReplicaList(value, shared, ownedT), t1);
    assert.equal(reconcileReplicaList(value, shared, ownedU), u1);
    assert.notDeepEqual(t1, u1);
  });
});
