// Plan goal `leaders` (src/domain/plan/leaders-goal.ts): re-orders only. Properties checked with
// fast-check: the same replica sets (only the order changes, zero bytes), the rest of each list
// keeps its order, preferred leaders even (max - min <= 1) whenever some assignment of the same
// replica sets achieves it (brute force on small clusters), and a balanced plan is stable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { planReassignment, type PlanCluster, type Plan } from '../../../src/domain/plan/index.js';

const cluster = (brokers: number, partitions: number[][], moving: boolean[] = []): PlanCluster => ({
  brokers: Array.from({ length: brokers }, (_, id) => ({ id, rack: null })),
  topics: [
    {
      name: 't',
      partitions: partitions.map((replicas, partition) => ({ partition, replicas, bytes: 1000, moving: moving[partition] ?? false })),
    },
  ],
});

function plan(c: PlanCluster, brokers?: number[]): Plan {
  const r = planReassignment(c, { goal: 'leaders', ...(brokers && { brokers }) });
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  return r.plan;
}

/** Preferred leaders per broker after the plan. */
function leadersAfter(c: PlanCluster, p: Plan, k: number): number[] {
  const target = new Map(p.partitions.map((x) => [x.partition, x.targetReplicas]));
  const counts = new Array<number>(k).fill(0);
  for (const part of c.topics[0].partitions) counts[(target.get(part.partition) ?? part.replicas)[0]]++;
  return counts;
}

/** Whether some choice of one replica per partition gives max - min <= 1 (exhaustive). */
function balanceAchievable(partitions: number[][], k: number): boolean {
  const counts = new Array<number>(k).fill(0);
  const go = (i: number): boolean => {
    if (i === partitions.length) return Math.max(...counts) - Math.min(...counts) <= 1;
    for (const b of new Set(partitions[i])) {
      counts[b]++;
      if (go(i + 1)) return true;
      counts[b]--;
    }
    return false;
  };
  return go(0);
}

/** A replica list: distinct broker ids in [0, k), in a random order. */
const replicaList = (k: number, maxRf: number) =>
  fc.uniqueArray(fc.integer({ min: 0, max: k - 1 }), { minLength: 1, maxLength: Math.min(k, maxRf) });
const smallCluster = fc
  .integer({ min: 1, max: 4 })
  .chain((k) => fc.tuple(fc.constant(k), fc.array(replicaList(k, 3), { minLength: 1, maxLength: 7 })));

describe('plan goal leaders', () => {
  it('only re-orders: same replica sets, zero bytes, the other replicas keep their order', () => {
    fc.assert(
      fc.property(smallCluster, ([k, partitions]) => {
        const p = plan(cluster(k, partitions));
        assert.equal(p.goal, 'leaders');
        assert.equal(p.movedReplicas, 0);
        assert.equal(p.movedBytes, 0);
        assert.deepEqual(p.lowerBound, { movedReplicas: 0, movedBytes: 0 });
        for (const x of p.partitions) {
          assert.deepEqual([...x.targetReplicas].sort(), [...x.currentReplicas].sort());
          assert.deepEqual(x.adding, []);
          assert.deepEqual(x.removing, []);
          assert.notEqual(x.targetReplicas[0], x.currentReplicas[0], 'a listed partition changes its preferred leader');
          assert.deepEqual(
            x.targetReplicas.slice(1),
            x.currentReplicas.filter((b) => b !== x.targetReplicas[0]),
          );
        }
        // Replica counts and bytes per broker are those of before.
        assert.deepEqual(
          p.after.map((l) => [l.broker, l.replicas, l.bytes]),
          p.before.map((l) => [l.broker, l.replicas, l.bytes]),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('max - min preferred leaders per broker <= 1 whenever the replica sets allow it (exhaustive check)', () => {
    fc.assert(
      fc.property(smallCluster, ([k, partitions]) => {
        const p = plan(cluster(k, partitions));
        const counts = leadersAfter(cluster(k, partitions), p, k);
        const spread = Math.max(...counts) - Math.min(...counts);
        if (balanceAchievable(partitions, k)) {
          assert.ok(spread <= 1, `counts ${counts.join(',')} for ${JSON.stringify(partitions)}`);
          assert.ok(!p.warnings.some((w) => w.code === 'LEADERS_NOT_BALANCED'));
        } else {
          assert.ok(
            p.warnings.some((w) => w.code === 'LEADERS_NOT_BALANCED'),
            'says so when it cannot',
          );
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a balanced plan is stable: planning its result changes nothing', () => {
    fc.assert(
      fc.property(smallCluster, ([k, partitions]) => {
        const first = plan(cluster(k, partitions));
        const target = new Map(first.partitions.map((x) => [x.partition, [...x.targetReplicas]]));
        const applied = partitions.map((r, i) => target.get(i) ?? r);
        const again = plan(cluster(k, applied));
        if (!first.warnings.some((w) => w.code === 'LEADERS_NOT_BALANCED')) {
          const counts = leadersAfter(cluster(k, applied), again, k);
          assert.ok(Math.max(...counts) - Math.min(...counts) <= 1);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('fully replicated partitions balance exactly; moving partitions are left alone', () => {
    // Every partition on all 3 brokers, all led by 0: 9 partitions -> 3 each.
    const all = Array.from({ length: 9 }, () => [0, 1, 2]);
    const p = plan(cluster(3, all));
    assert.deepEqual(leadersAfter(cluster(3, all), p, 3), [3, 3, 3]);
    assert.equal(p.partitions.length, 6);
    const withMoving = plan(cluster(3, all, [true, true, true, true, true, true, true, true, false]));
    assert.ok(withMoving.partitions.every((x) => x.partition === 8));
    assert.ok(withMoving.warnings.some((w) => w.code === 'PARTITIONS_MOVING'));
  });

  it('chains: a shift through a third broker when no direct one helps', () => {
    // Broker 0 leads 3, broker 2 none; 0's partitions are only shared with 1, and 1's with 2.
    const partitions = [
      [0, 1],
      [0, 1],
      [0, 1],
      [1, 2],
    ];
    const p = plan(cluster(3, partitions));
    const counts = leadersAfter(cluster(3, partitions), p, 3);
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, String(counts));
  });

  it('a preferred leader on a dead broker goes to a live replica; brokers may be restricted; unknown ones refused', () => {
    const c: PlanCluster = {
      brokers: [
        { id: 0, rack: null },
        { id: 1, rack: null },
      ],
      topics: [{ name: 't', partitions: [{ partition: 0, replicas: [5, 1], bytes: 10 }] }],
    };
    const p = plan(c);
    assert.deepEqual(
      p.partitions.map((x) => x.targetReplicas),
      [[1, 5]],
    );
    const r = planReassignment(cluster(2, [[0, 1]]), { goal: 'leaders', brokers: [7] });
    assert.ok(!r.ok);
    assert.equal(r.errors[0].code, 'UNKNOWN_BROKER');
  });

  it('100,000 partitions on 100 brokers, all preferred on 10 of them: even, in linear-ish time', () => {
    const k = 100;
    const parts: number[][] = [];
    for (let i = 0; i < 100_000; i++)
      parts.push([i % 10, 10 + (i % 90), (i * 7) % k === i % 10 ? (i + 1) % k : (i * 7) % k].filter((b, j, a) => a.indexOf(b) === j));
    const started = performance.now();
    const p = plan(cluster(k, parts));
    const ms = performance.now() - started;
    const counts = leadersAfter(cluster(k, parts), p, k);
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `spread ${Math.max(...counts) - Math.min(...counts)}`);
    assert.ok(ms < 20_000, `${ms} ms`);
  });
});
