// The pacer's "lists already cover the wave" test (pacer.ts coversDemand): a wave starts without
// a config change only when every list entry and every broker rate it needs is in place.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { coversDemand } from '../../src/reconcile/pacer.js';

const have = {
  topics: { a: { leader: ['0:1', '1:2'], follower: ['0:3'] }, b: { leader: '*' as const, follower: ['2:4'] } },
  brokers: { '1': { leaderRate: 10, followerRate: 10 }, '3': { leaderRate: 10, followerRate: 10 } },
};

it('covers: subsets of the lists, `*`, same rates on the same brokers', () => {
  assert.ok(coversDemand(have, { topics: {}, brokers: {} }));
  assert.ok(
    coversDemand(have, { topics: { a: { leader: ['1:2'], follower: [] } }, brokers: { '3': { leaderRate: 10, followerRate: 10 } } }),
  );
  assert.ok(coversDemand(have, { topics: { b: { leader: ['7:1'], follower: ['2:4'] } }, brokers: {} }));
});

it('does not cover: a missing entry, topic, broker, a different rate, `*` needed', () => {
  assert.ok(!coversDemand(have, { topics: { a: { leader: ['0:1', '5:5'] } }, brokers: {} }));
  assert.ok(!coversDemand(have, { topics: { c: { follower: ['0:1'] } }, brokers: {} }));
  assert.ok(!coversDemand(have, { topics: {}, brokers: { '2': { leaderRate: 10, followerRate: 10 } } }));
  assert.ok(!coversDemand(have, { topics: {}, brokers: { '1': { leaderRate: 20, followerRate: 20 } } }));
  assert.ok(!coversDemand(have, { topics: { a: { follower: '*' } }, brokers: {} }));
});
