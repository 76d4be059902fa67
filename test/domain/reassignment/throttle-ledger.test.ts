import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';

import {
  EMPTY_THROTTLE_DEMAND,
  EMPTY_THROTTLE_LEDGER,
  computeReassignmentThrottles,
  mergeThrottleDemands,
  parseThrottledReplicas,
  rateOwner,
  reconcileThrottles,
  replicaListOwnership,
  throttleDemandFor,
  throttleDemandForSteps,
  throttleResourcesToRead,
  type ResourceAlteration,
  type ThrottleConfigValues,
  type ThrottleDemand,
  type ThrottleLedger,
} from '../../../src/domain/reassignment/index.js';

type Mutable = {
  topics: Record<string, { leader?: string | null; follower?: string | null }>;
  brokers: Record<string, { leaderRate?: string | null; followerRate?: string | null }>;
};

const FIELD: Record<string, string> = {
  'leader.replication.throttled.replicas': 'leader',
  'follower.replication.throttled.replicas': 'follower',
  'leader.replication.throttled.rate': 'leaderRate',
  'follower.replication.throttled.rate': 'followerRate',
};

/** What IncrementalAlterConfigs would leave behind. */
function apply(current: ThrottleConfigValues, alterations: readonly ResourceAlteration[]): ThrottleConfigValues {
  const next: Mutable = structuredClone(current);
  for (const a of alterations) {
    const group = a.resourceType === 'topic' ? next.topics : next.brokers;
    const resource = (group[a.resourceName] ??= {}) as Record<string, string | null>;
    for (const c of a.configs) {
      if (c.operation === 'SET') resource[FIELD[c.name]] = c.value;
      else delete resource[FIELD[c.name]];
    }
  }
  return next;
}

/** Current values with every resource the reconciliation may look at present (= read). */
function read(values: Partial<ThrottleConfigValues>, demand: ThrottleDemand, ledger: ThrottleLedger): ThrottleConfigValues {
  const out: Mutable = { topics: { ...(values.topics ?? {}) }, brokers: { ...(values.brokers ?? {}) } };
  const { topics, brokers } = throttleResourcesToRead(demand, ledger);
  for (const t of topics) out.topics[t] ??= {};
  for (const b of brokers) out.brokers[String(b)] ??= {};
  return out;
}

function entriesOf(value: string | null): readonly string[] {
  const parsed = parseThrottledReplicas(value);
  assert.ok(parsed && !parsed.all, `expected a list, got ${value}`);
  return parsed.entries;
}

/** Reconcile and apply, as the gateway's reconciler does (ledger before, ops, ledger after). */
function step(current: Partial<ThrottleConfigValues>, demand: ThrottleDemand, ledger: ThrottleLedger) {
  const r = reconcileThrottles(read(current, demand, ledger), demand, ledger);
  return { ...r, current: apply(read(current, demand, ledger), r.alterations), ledger: r.ledgerAfterOps };
}

const move01to12 = computeReassignmentThrottles([], [{ topic: 't', partition: 0, currentReplicas: [0, 1], targetReplicas: [1, 2] }]);
const demandA = throttleDemandFor(move01to12, 1048576);

describe('reconcileThrottles: a reassignment on a cluster without throttles', () => {
  it('sets exactly what Kafka would, and owns it with prior = nothing', () => {
    const r = reconcileThrottles(read({}, demandA, EMPTY_THROTTLE_LEDGER), demandA, EMPTY_THROTTLE_LEDGER);
    assert.deepEqual(r.alterations, [
      ...[0, 1, 2].map((b) => ({
        resourceType: 'broker',
        resourceName: String(b),
        configs: [
          { name: 'leader.replication.throttled.rate', operation: 'SET', value: '1048576' },
          { name: 'follower.replication.throttled.rate', operation: 'SET', value: '1048576' },
        ],
      })),
      {
        resourceType: 'topic',
        resourceName: 't',
        configs: [
          { name: 'leader.replication.throttled.replicas', operation: 'SET', value: '0:0,0:1' },
          { name: 'follower.replication.throttled.replicas', operation: 'SET', value: '0:2' },
        ],
      },
    ]);
    assert.deepEqual(r.ledgerBeforeOps.topics.t, {
      leader: { prior: null, added: ['0:0', '0:1'] },
      follower: { prior: null, added: ['0:2'] },
    });
    assert.deepEqual(r.ledgerBeforeOps.brokers['1'], {
      leaderRate: { prior: null, values: ['1048576'] },
      followerRate: { prior: null, values: ['1048576'] },
    });
    assert.deepEqual(r.ledgerAfterOps, r.ledgerBeforeOps);
    assert.deepEqual(r.overridden, []);
  });

  it('when the reassignment ends, DELETEs everything it set (nothing was there before)', () => {
    const s1 = step({}, demandA, EMPTY_THROTTLE_LEDGER);
    const s2 = step(s1.current, EMPTY_THROTTLE_DEMAND, s1.ledger);
    for (const a of s2.alterations) for (const c of a.configs) assert.equal(c.operation, 'DELETE', `${a.resourceName} ${c.name}`);
    assert.equal(s2.alterations.length, 4);
    assert.deepEqual(s2.ledgerAfterOps, EMPTY_THROTTLE_LEDGER);
    assert.deepEqual(s2.ledgerBeforeOps, s1.ledger, 'ownership is kept until the deletes are done');
    assert.deepEqual(s2.current, { topics: { t: {} }, brokers: { 0: {}, 1: {}, 2: {} } });
  });

  it('re-running with the same inputs is a no-op (idempotent)', () => {
    const s1 = step({}, demandA, EMPTY_THROTTLE_LEDGER);
    const again = step(s1.current, demandA, s1.ledger);
    assert.deepEqual(again.alterations, []);
    assert.deepEqual(again.ledger, s1.ledger);
    const s2 = step(s1.current, EMPTY_THROTTLE_DEMAND, s1.ledger);
    assert.deepEqual(step(s2.current, EMPTY_THROTTLE_DEMAND, s2.ledger).alterations, []);
  });
});

describe('reconcileThrottles: never touching what others set', () => {
  it('foreign entries present before are kept, and the prior value comes back verbatim', () => {
    const before = { topics: { t: { leader: '0:9, 1:9', follower: null } } };
    const s1 = step(before, demandA, EMPTY_THROTTLE_LEDGER);
    assert.equal(s1.current.topics.t.leader, '0:0,0:1,0:9,1:9');
    assert.deepEqual(s1.ledger.topics.t.leader, { prior: '0:9, 1:9', added: ['0:0', '0:1'] });
    const s2 = step(s1.current, EMPTY_THROTTLE_DEMAND, s1.ledger);
    assert.equal(s2.current.topics.t.leader, '0:9, 1:9', 'restored exactly as it was written');
    assert.equal(s2.current.topics.t.follower, undefined);
  });

  it('an entry that was already there is not owned, so it survives the removal', () => {
    const s1 = step({ topics: { t: { leader: '0:1' } } }, demandA, EMPTY_THROTTLE_LEDGER);
    assert.deepEqual(s1.ledger.topics.t.leader?.added, ['0:0']);
    const s2 = step(s1.current, EMPTY_THROTTLE_DEMAND, s1.ledger);
    assert.equal(s2.current.topics.t.leader, '0:1');
  });

  it('entries someone else adds after the gateway stay; only the gateway entries go', () => {
    const s1 = step({}, demandA, EMPTY_THROTTLE_LEDGER);
    const meddled = apply(s1.current, [
      {
        resourceType: 'topic',
        resourceName: 't',
        configs: [{ name: 'leader.replication.throttled.replicas', operation: 'SET', value: '0:0,0:1,3:3' }],
      },
    ]);
    const s2 = step(meddled, EMPTY_THROTTLE_DEMAND, s1.ledger);
    assert.equal(s2.current.topics.t.leader, '3:3');
    assert.equal(s2.current.topics.t.follower, undefined);
  });

  it('a topic with a foreign * gets nothing added and keeps its *', () => {
    const s1 = step({ topics: { t: { leader: '*', follower: '*' } } }, demandA, EMPTY_THROTTLE_LEDGER);
    assert.equal(s1.alterations.filter((a) => a.resourceType === 'topic').length, 0);
    assert.equal(s1.ledger.topics.t, undefined, 'nothing owned');
    const s2 = step(s1.current, EMPTY_THROTTLE_DEMAND, s1.ledger);
    assert.deepEqual(s2.current.topics.t, { leader: '*', follower: '*' });
  });

  it('a rate that existed before is restored; one changed by someone else since is left alone', () => {
    const s1 = step({ brokers: { 0: { leaderRate: '5000' }, 1: { leaderRate: '6000' } } }, demandA, EMPTY_THROTTLE_LEDGER);
    assert.equal(s1.current.brokers['0'].leaderRate, '1048576');
    assert.deepEqual(s1.ledger.brokers['0'].leaderRate, { prior: '5000', values: ['1048576'] });
    const meddled = apply(s1.current, [
      {
        resourceType: 'broker',
        resourceName: '1',
        configs: [{ name: 'leader.replication.throttled.rate', operation: 'SET', value: '7777' }],
      },
    ]);
    const mid = step(meddled, demandA, s1.ledger);
    assert.deepEqual(mid.alterations, [], 'the override is respected while the reassignment runs');
    assert.deepEqual(mid.overridden, [
      { resourceType: 'broker', resourceName: '1', name: 'leader.replication.throttled.rate', value: '7777' },
    ]);
    const s2 = step(mid.current, EMPTY_THROTTLE_DEMAND, mid.ledger);
    assert.equal(s2.current.brokers['0'].leaderRate, '5000');
    assert.equal(s2.current.brokers['1'].leaderRate, '7777');
    assert.equal(s2.current.brokers['2'].leaderRate, undefined);
    assert.deepEqual(s2.ledgerAfterOps, EMPTY_THROTTLE_LEDGER);
  });

  it('a rate that someone else deleted after the gateway set it stays deleted', () => {
    const s1 = step({ brokers: { 0: { leaderRate: '5000' } } }, demandA, EMPTY_THROTTLE_LEDGER);
    const meddled = apply(s1.current, [
      {
        resourceType: 'broker',
        resourceName: '0',
        configs: [{ name: 'leader.replication.throttled.rate', operation: 'DELETE', value: null }],
      },
    ]);
    assert.equal(step(meddled, demandA, s1.ledger).alterations.length, 0);
    const s2 = step(meddled, EMPTY_THROTTLE_DEMAND, s1.ledger);
    assert.equal(s2.current.brokers['0'].leaderRate, undefined);
  });

  it('a rate equal to the demand set by someone else is not taken over', () => {
    const s1 = step({ brokers: { 0: { leaderRate: '1048576' } } }, demandA, EMPTY_THROTTLE_LEDGER);
    assert.equal(s1.ledger.brokers['0']?.leaderRate, undefined);
    const s2 = step(s1.current, EMPTY_THROTTLE_DEMAND, s1.ledger);
    assert.equal(s2.current.brokers['0'].leaderRate, '1048576');
  });

  it('invalid list values are reported and left alone', () => {
    const r = reconcileThrottles(
      read({ topics: { t: { leader: 'garbage' } } }, demandA, EMPTY_THROTTLE_LEDGER),
      demandA,
      EMPTY_THROTTLE_LEDGER,
    );
    assert.deepEqual(r.invalid, [
      { resourceType: 'topic', resourceName: 't', name: 'leader.replication.throttled.replicas', value: 'garbage' },
    ]);
    assert.ok(!r.alterations.some((a) => a.resourceType === 'topic' && a.configs.some((c) => c.name.startsWith('leader'))));
  });

  it('resources not read are skipped, their ownership kept', () => {
    const s1 = step({}, demandA, EMPTY_THROTTLE_LEDGER);
    const r = reconcileThrottles({ topics: {}, brokers: {} }, EMPTY_THROTTLE_DEMAND, s1.ledger);
    assert.deepEqual(r.alterations, []);
    assert.deepEqual(r.unread, { topics: ['t'], brokers: [0, 1, 2] });
    assert.deepEqual(r.ledgerAfterOps, s1.ledger);
  });
});

describe('reconcileThrottles: several reassignments and explicit throttles', () => {
  const moveB = computeReassignmentThrottles([], [{ topic: 't', partition: 1, currentReplicas: [1, 3], targetReplicas: [3, 4] }]);
  const demandB = throttleDemandFor(moveB, 2048);

  it('entries and rates still needed by a running reassignment stay when another ends', () => {
    const both = mergeThrottleDemands([demandA, demandB]);
    assert.equal(both.brokers['1'].leaderRate, 2048, 'the lowest rate wins on a shared broker');
    const s1 = step({}, both, EMPTY_THROTTLE_LEDGER);
    assert.equal(s1.current.topics.t.leader, '0:0,0:1,1:1,1:3');
    assert.equal(s1.current.topics.t.follower, '0:2,1:4');

    const s2 = step(s1.current, demandB, s1.ledger); // A finished
    assert.equal(s2.current.topics.t.leader, '1:1,1:3');
    assert.equal(s2.current.topics.t.follower, '1:4');
    assert.equal(s2.current.brokers['0'].leaderRate, undefined, 'broker 0 only served A');
    assert.equal(s2.current.brokers['2'].leaderRate, undefined);
    assert.equal(s2.current.brokers['1'].leaderRate, '2048');
    assert.equal(s2.current.brokers['4'].followerRate, '2048');

    const s3 = step(s2.current, EMPTY_THROTTLE_DEMAND, s2.ledger); // B finished
    assert.deepEqual(s3.current.topics.t, {});
    assert.ok(Object.values(s3.current.brokers).every((b) => Object.keys(b).length === 0));
    assert.deepEqual(s3.ledger, EMPTY_THROTTLE_LEDGER);
  });

  it('PATCH of the rate: SET the new value; a crash before the write still converges', () => {
    const s1 = step({}, demandA, EMPTY_THROTTLE_LEDGER);
    const patched = throttleDemandFor(move01to12, 4096);
    const r = reconcileThrottles(read(s1.current, patched, s1.ledger), patched, s1.ledger);
    assert.equal(r.alterations.filter((a) => a.resourceType === 'broker').length, 3);
    assert.deepEqual(r.ledgerBeforeOps.brokers['0'].leaderRate, { prior: null, values: ['1048576', '4096'] });
    assert.deepEqual(r.ledgerAfterOps.brokers['0'].leaderRate, { prior: null, values: ['4096'] });
    // Crash: ledgerBeforeOps persisted, the writes never happened. The next run redoes them.
    const retry = step(s1.current, patched, r.ledgerBeforeOps);
    assert.equal(retry.current.brokers['0'].leaderRate, '4096');
    // And if it ended meanwhile, the old value (also ours) is removed.
    const ended = step(s1.current, EMPTY_THROTTLE_DEMAND, r.ledgerBeforeOps);
    assert.equal(ended.current.brokers['0'].leaderRate, undefined);
  });

  it('crash after the ledger write but before the throttle write: nothing to remove, nothing left', () => {
    const prior = { topics: { t: { leader: '5:5' } }, brokers: { 0: { leaderRate: '100' } } };
    const r = reconcileThrottles(read(prior, demandA, EMPTY_THROTTLE_LEDGER), demandA, EMPTY_THROTTLE_LEDGER);
    const cleanup = step(prior, EMPTY_THROTTLE_DEMAND, r.ledgerBeforeOps);
    assert.deepEqual(cleanup.alterations, []);
    assert.deepEqual(cleanup.ledger, EMPTY_THROTTLE_LEDGER);
    // ...or the reassignment did start: the reconciler completes the throttle write instead.
    const resumed = step(prior, demandA, r.ledgerBeforeOps);
    assert.equal(resumed.current.topics.t.leader, '0:0,0:1,5:5');
    assert.equal(resumed.current.brokers['0'].leaderRate, '1048576');
    assert.deepEqual(resumed.ledger.brokers['0'].leaderRate, { prior: '100', values: ['1048576'] });
  });

  it('crash after the throttle write but before ledgerAfterOps: the next run only drops the ledger', () => {
    const s1 = step({}, demandA, EMPTY_THROTTLE_LEDGER);
    const removal = reconcileThrottles(read(s1.current, EMPTY_THROTTLE_DEMAND, s1.ledger), EMPTY_THROTTLE_DEMAND, s1.ledger);
    const removed = apply(s1.current, removal.alterations);
    const again = step(removed, EMPTY_THROTTLE_DEMAND, removal.ledgerBeforeOps);
    assert.deepEqual(again.alterations, []);
    assert.deepEqual(again.ledger, EMPTY_THROTTLE_LEDGER);
  });

  it('an explicit * replaces the value; when it goes, the prior value plus what is still demanded returns', () => {
    const all: ThrottleDemand = { topics: { t: { leader: '*' } }, brokers: {} };
    const s1 = step({ topics: { t: { leader: '9:9' } } }, mergeThrottleDemands([all, demandA]), EMPTY_THROTTLE_LEDGER);
    assert.equal(s1.current.topics.t.leader, '*');
    assert.deepEqual(s1.ledger.topics.t.leader, { prior: '9:9', added: ['*'] });
    const s2 = step(s1.current, demandA, s1.ledger); // the * throttle expired, A still runs
    assert.equal(s2.current.topics.t.leader, '0:0,0:1,9:9');
    assert.deepEqual(s2.ledger.topics.t.leader, { prior: '9:9', added: ['0:0', '0:1'] });
    const s3 = step(s2.current, EMPTY_THROTTLE_DEMAND, s2.ledger);
    assert.equal(s3.current.topics.t.leader, '9:9');
  });

  it('mergeThrottleDemands: entries united and sorted, * wins, lowest rate wins', () => {
    const merged = mergeThrottleDemands([
      { topics: { t: { leader: ['1:1'], follower: ['2:2'] } }, brokers: { 1: { leaderRate: 300 } } },
      { topics: { t: { leader: ['0:1'], follower: '*' }, u: { leader: [] } }, brokers: { 1: { leaderRate: 200, followerRate: 900 } } },
    ]);
    assert.deepEqual(merged, {
      topics: { t: { leader: ['0:1', '1:1'], follower: '*' }, u: { leader: [] } },
      brokers: { 1: { leaderRate: 200, followerRate: 900 } },
    });
  });

  it('throttleDemandFor without a rate demands the lists only', () => {
    assert.deepEqual(throttleDemandFor(move01to12, null), { topics: { t: { leader: ['0:0', '0:1'], follower: ['0:2'] } }, brokers: {} });
  });
});

describe('ownership views (GET /throttles)', () => {
  it('rateOwner', () => {
    assert.equal(rateOwner(null, undefined), null);
    assert.equal(rateOwner('10', undefined), 'external');
    assert.equal(rateOwner('10', { prior: null, values: ['10'] }), 'gateway');
    assert.equal(rateOwner('11', { prior: null, values: ['10'] }), 'external');
  });

  it('replicaListOwnership splits entries', () => {
    const owned = { prior: '0:9', added: ['0:0', '0:1'] };
    assert.deepEqual(replicaListOwnership('0:0,0:1,0:9', owned), { all: null, gateway: ['0:0', '0:1'], external: ['0:9'], owner: 'mixed' });
    assert.deepEqual(replicaListOwnership('0:0', owned).owner, 'gateway');
    assert.deepEqual(replicaListOwnership('0:9', owned).owner, 'external');
    assert.deepEqual(replicaListOwnership(null, owned).owner, null);
    assert.deepEqual(replicaListOwnership('*', { prior: null, added: ['*'] }), {
      all: 'gateway',
      gateway: [],
      external: [],
      owner: 'gateway',
    });
    assert.deepEqual(replicaListOwnership('*', undefined).all, 'external');
  });
});

describe('reconcileThrottles properties', () => {
  const entry = (brokers: number[]) => fc.tuple(fc.integer({ min: 0, max: 12 }), fc.constantFrom(...brokers)).map(([p, b]) => `${p}:${b}`);
  const ownDemand = fc.record({
    leader: fc.uniqueArray(entry([0, 1, 2, 3]), { maxLength: 6 }),
    follower: fc.uniqueArray(entry([0, 1, 2, 3]), { maxLength: 6 }),
    rate: fc.option(fc.integer({ min: 1024, max: 5000 }), { nil: null }),
  });
  const toDemand = (d: { leader: string[]; follower: string[]; rate: number | null }): ThrottleDemand => ({
    topics: { t: { leader: d.leader, follower: d.follower } },
    brokers: d.rate === null ? {} : { 0: { leaderRate: d.rate, followerRate: d.rate }, 1: { leaderRate: d.rate } },
  });

  it('after any sequence of demands, demanding nothing restores the prior values plus foreign additions, and is a fixed point', () => {
    fc.assert(
      fc.property(
        fc.option(
          fc.uniqueArray(entry([7, 8, 9]), { maxLength: 4 }).map((e) => e.join(',')),
          { nil: null },
        ),
        fc.option(fc.constantFrom('500', '600'), { nil: null }),
        fc.array(ownDemand, { minLength: 1, maxLength: 5 }),
        fc.option(entry([7, 8, 9]), { nil: null }),
        (priorLeader, priorRate, demands, foreignAddition) => {
          let current: ThrottleConfigValues = read(
            { topics: { t: { leader: priorLeader } }, brokers: { 0: { leaderRate: priorRate } } },
            EMPTY_THROTTLE_DEMAND,
            EMPTY_THROTTLE_LEDGER,
          );
          let ledger: ThrottleLedger = EMPTY_THROTTLE_LEDGER;
          for (const [i, d] of demands.entries()) {
            const demand = toDemand(d);
            const s = step(current, demand, ledger);
            current = s.current;
            ledger = s.ledger;
            // Every demanded entry is in place.
            const leader = parseThrottledReplicas(current.topics.t.leader ?? null);
            assert.ok(leader && !leader.all);
            for (const e of d.leader) assert.ok(leader.entries.includes(e));
            if (d.rate !== null) assert.equal(current.brokers['0'].leaderRate, String(d.rate));
            if (i === 0 && foreignAddition && !leader.entries.includes(foreignAddition)) {
              const value = [...leader.entries, foreignAddition].join(',');
              current = apply(current, [
                {
                  resourceType: 'topic',
                  resourceName: 't',
                  configs: [{ name: 'leader.replication.throttled.replicas', operation: 'SET', value }],
                },
              ]);
            }
          }
          const end = step(current, EMPTY_THROTTLE_DEMAND, ledger);
          const expected = new Set(entriesOf(priorLeader));
          if (foreignAddition) expected.add(foreignAddition);
          assert.deepEqual(new Set(entriesOf(end.current.topics.t.leader ?? null)), expected);
          if (!foreignAddition || (priorLeader ?? '').split(',').includes(foreignAddition)) {
            assert.equal(end.current.topics.t.leader ?? null, priorLeader === null ? null : priorLeader, 'prior value restored verbatim');
          }
          assert.equal(end.current.brokers['0'].leaderRate ?? null, priorRate);
          assert.equal(end.current.topics.t.follower ?? null, null);
          assert.deepEqual(end.ledger, EMPTY_THROTTLE_LEDGER);
          assert.deepEqual(step(end.current, EMPTY_THROTTLE_DEMAND, end.ledger).alterations, []);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('throttleDemandForSteps (a start computes its demand in slices)', () => {
  it('yields once per topic and ends with what throttleDemandFor answers', () => {
    const moves = Array.from({ length: 40 }, (_, i) => ({
      topic: `t${i % 4}`,
      partition: i,
      currentReplicas: [0, 1],
      targetReplicas: [1, 2],
    }));
    const throttles = computeReassignmentThrottles([], moves);
    assert.equal(throttles.topics.length, 4);
    const steps = throttleDemandForSteps(throttles, 1000);
    let yields = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) yields++;
    assert.equal(yields, 4);
    assert.deepEqual(r.value, throttleDemandFor(throttles, 1000));
    assert.deepEqual(Object.keys(r.value.topics).sort(), ['t0', 't1', 't2', 't3']);
    assert.deepEqual(r.value.brokers['2'], { leaderRate: 1000, followerRate: 1000 });
  });
});
