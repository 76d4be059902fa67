// removalsOnly: what a removal-only pass (state topic unreadable) may send. Only operations
// that take away: DELETE, a rate back to the ledger's prior, a list shrinking (or the gateway's
// own `*` given back). Anything that adds or raises a throttle is dropped.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { reconcileThrottles, type ThrottleLedger } from '../../src/domain/reassignment/index.js';
import { removalsOnly } from '../../src/reconcile/throttle-sync.js';

const ledger: ThrottleLedger = {
  topics: { t: { follower: { prior: '0:3', added: ['0:1'] } }, s: { leader: { prior: null, added: ['*'] } } },
  brokers: { '1': { leaderRate: { prior: '5555', values: ['1000'] }, followerRate: { prior: null, values: ['1000'] } } },
};

it('keeps the removals of ended demands: list shrinks, prior rate restored, DELETEs', () => {
  const current = {
    topics: { t: { leader: null, follower: '0:1,0:3' }, s: { leader: '*', follower: null } },
    brokers: { '1': { leaderRate: '1000', followerRate: '1000' } },
  };
  const plan = reconcileThrottles(current, { topics: {}, brokers: {} }, ledger);
  const kept = removalsOnly(plan.alterations, current, ledger);
  assert.deepEqual(kept, plan.alterations, 'nothing demanded: every operation is a removal');
  assert.ok(kept.length === 3, JSON.stringify(kept));
});

it('drops what would add or raise: a new entry, a new rate, a `*`', () => {
  const current = {
    topics: { t: { leader: null, follower: '0:3' }, s: { leader: null, follower: null } },
    brokers: { '1': { leaderRate: null, followerRate: null } },
  };
  const demand = {
    topics: { t: { follower: ['0:1'] }, s: { leader: '*' as const } },
    brokers: { '1': { leaderRate: 1000, followerRate: 1000 } },
  };
  const plan = reconcileThrottles(current, demand, { topics: {}, brokers: {} });
  assert.ok(plan.alterations.length > 0);
  assert.deepEqual(removalsOnly(plan.alterations, current, { topics: {}, brokers: {} }), []);
});
