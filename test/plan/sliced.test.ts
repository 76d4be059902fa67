// The sliced runner (src/plan/sliced.ts): it returns what the steps return, lets other work run
// between slices, and the planner run in slices gives the same plan as run in one go.
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, it } from 'node:test';
import {
  assignReplicasToBrokers,
  planReassignment,
  planReassignmentSteps,
  seededRandom,
  type PlanCluster,
} from '../../src/domain/plan/index.js';
import type { Steps } from '../../src/domain/steps.js';
import { PLAN_CHANNEL, runSliced, type PlanRunEvent } from '../../src/plan/sliced.js';

function cluster(): PlanCluster {
  const random = seededRandom(7);
  const brokers = Array.from({ length: 12 }, (_, id) => ({ id, rack: `r${id % 3}` }));
  const old = brokers.slice(0, 9);
  return {
    brokers,
    topics: Array.from({ length: 40 }, (_, t) => ({
      name: `t${t}`,
      partitions: assignReplicasToBrokers(old, 50, 3, random).map((replicas, partition) => ({
        partition,
        replicas,
        bytes: 1 + random(1000),
      })),
    })),
  };
}

describe('runSliced', () => {
  it('returns the value of the steps and lets the event loop run between slices', async () => {
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    // Steps that each take ~1 ms of busy work: with 0 ms slices every step is a slice.
    function* busy(n: number): Steps<number> {
      for (let i = 0; i < n; i++) {
        const end = performance.now() + 1;
        while (performance.now() < end);
        yield;
      }
      return n * 2;
    }
    const events: PlanRunEvent[] = [];
    const on = (e: unknown) => events.push(e as PlanRunEvent);
    subscribe(PLAN_CHANNEL, on);
    try {
      const turnsBefore = turns;
      assert.equal(await runSliced(busy(20), { sliceMs: 0, label: 'busy' }), 40);
      ticking = false;
      assert.ok(turns - turnsBefore >= 10, `the loop turned ${turns - turnsBefore} times during 21 slices`);
      const mine = events.filter((e) => e.label === 'busy');
      assert.equal(mine.filter((e) => e.type === 'slice').length, 21);
      const done = mine.find((e) => e.type === 'done');
      assert.ok(done && done.type === 'done' && done.slices === 21);
    } finally {
      unsubscribe(PLAN_CHANNEL, on);
      ticking = false;
    }
  });

  it('the planner in slices gives the same plan as in one go', async () => {
    const c = cluster();
    for (const request of [
      { goal: 'rebalance' as const },
      { goal: 'decommission' as const, brokers: [4] },
      { goal: 'rebalance' as const, weight: 'bytes' as const },
    ]) {
      assert.deepEqual(await runSliced(planReassignmentSteps(c, request), { sliceMs: 0 }), planReassignment(c, request));
    }
  });
});
