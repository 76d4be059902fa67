// Properties of the planner on random clusters (fast-check): brokers, racks, topics, replication
// factors and skew vary; every plan keeps replicas distinct, reaches its goal when it is reachable,
// moves no more than it must (against the independently computed lower bound), and is
// deterministic.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { planReassignment, type Plan, type PlanCluster, type PlanRequest } from '../../../src/domain/plan/index.js';

interface Generated {
  cluster: PlanCluster;
  racks: number;
}

/** A random cluster: replicas drawn with a bias towards low broker ids (skew), optionally racks. */
const clusterArb: fc.Arbitrary<Generated> = fc
  .record({
    brokers: fc.integer({ min: 2, max: 10 }),
    racks: fc.integer({ min: 0, max: 4 }),
    skew: fc.integer({ min: 0, max: 3 }),
    topics: fc.array(fc.record({ partitions: fc.integer({ min: 1, max: 16 }), rf: fc.integer({ min: 1, max: 3 }) }), {
      minLength: 1,
      maxLength: 4,
    }),
    seed: fc.integer(),
  })
  .map(({ brokers, racks, skew, topics, seed }) => {
    let s = seed >>> 0;
    const rand = (n: number) => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return (s >>> 8) % n; // high bits: an LCG's low bits cycle
    };
    // Skew: draw from the first brokers more often.
    const draw = () => (skew > 0 && rand(skew + 1) > 0 ? rand(Math.max(1, Math.ceil(brokers / 2))) : rand(brokers));
    return {
      racks,
      cluster: {
        brokers: Array.from({ length: brokers }, (_, id) => ({ id, rack: racks > 0 ? `r${id % racks}` : null })),
        topics: topics.map((t, ti) => ({
          name: `t${ti}`,
          partitions: Array.from({ length: t.partitions }, (_, partition) => {
            const rf = Math.min(t.rf, brokers);
            const replicas: number[] = [];
            while (replicas.length < rf) {
              const b = draw();
              if (!replicas.includes(b)) replicas.push(b);
            }
            return { partition, replicas, bytes: 1 + rand(1000) };
          }),
        })),
      },
    };
  });

function plan(cluster: PlanCluster, request: PlanRequest): Plan {
  const result = planReassignment(cluster, request);
  assert.ok(result.ok, JSON.stringify(!result.ok && result.errors));
  return result.plan;
}

/** Target replica lists of every partition (unchanged ones keep theirs). */
function targets(cluster: PlanCluster, p: Plan): Map<string, readonly number[]> {
  const out = new Map<string, readonly number[]>();
  for (const t of cluster.topics) for (const x of t.partitions) out.set(`${t.name}-${x.partition}`, x.replicas);
  for (const x of p.partitions) out.set(`${x.topic}-${x.partition}`, x.targetReplicas);
  return out;
}

function assertCommon(cluster: PlanCluster, request: PlanRequest, p: Plan): void {
  const current = new Map<string, readonly number[]>();
  for (const t of cluster.topics) for (const x of t.partitions) current.set(`${t.name}-${x.partition}`, x.replicas);
  let moved = 0;
  for (const x of p.partitions) {
    assert.equal(
      new Set(x.targetReplicas).size,
      x.targetReplicas.length,
      `replicas distinct: ${x.topic}-${x.partition} ${x.targetReplicas.join(',')}`,
    );
    assert.deepEqual(x.currentReplicas, current.get(`${x.topic}-${x.partition}`));
    assert.notDeepEqual(x.targetReplicas, x.currentReplicas, 'only changed partitions are listed');
    moved += x.targetReplicas.filter((b) => !x.currentReplicas.includes(b)).length;
  }
  assert.equal(p.movedReplicas, moved);
  // The bound is for plans that reach the goal; a plan that cannot says so (GOAL_NOT_REACHED).
  const reached = !p.warnings.some((w) => w.code === 'GOAL_NOT_REACHED');
  if (reached)
    assert.ok(
      p.movedReplicas >= p.lowerBound.movedReplicas,
      `moved ${p.movedReplicas} below the lower bound ${p.lowerBound.movedReplicas}`,
    );
  // Deterministic: the same input gives the same plan.
  assert.deepEqual(plan(cluster, request), p);
}

const spread = (values: number[]) => Math.max(...values) - Math.min(...values);

/**
 * The fewest moves of a count rebalance of every topic and the totals, by exhaustive search (no
 * racks, all brokers live): it tries every way to give each topic its n mod k "one more" replicas
 * such that the totals end within one, broker by broker (memoised on what is left to give). For a
 * choice, the moves needed are Σ over topics and brokers of (count − end count)⁺ (every move
 * lowers one such excess by one, and within one topic a move from an over-full to an under-full
 * broker always exists). Independent of the planner and of lower-bound.ts; small clusters only.
 */
function fewestRebalanceMoves(cluster: PlanCluster, topicNames?: readonly string[]): number {
  const ids = cluster.brokers.map((b) => b.id);
  const k = ids.length;
  const topics = cluster.topics
    .filter((t) => !topicNames || topicNames.includes(t.name))
    .map((t) => {
      const c = ids.map((b) => t.partitions.filter((x) => x.replicas.includes(b)).length);
      const n = c.reduce((a, b) => a + b, 0);
      return { c, floor: Math.floor(n / k), r: n % k };
    });
  let base = 0;
  for (const t of topics) for (const x of t.c) base += Math.max(0, x - t.floor);
  if (topicNames) {
    // Topics alone: each keeps its r ceil slots on brokers above floor, as many as there are.
    return base - topics.reduce((a, t) => a + Math.min(t.r, t.c.filter((x) => x > t.floor).length), 0);
  }
  const sumR = topics.reduce((a, t) => a + t.r, 0);
  const q = Math.floor(sumR / k);
  const R = sumR % k;
  const memo = new Map<string, number>();
  const best = (b: number, left: number[], high: number): number => {
    if (b === k) return left.every((x) => x === 0) && high === R ? 0 : -Infinity;
    const key = `${b}|${left.join(',')}|${high}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let out = -Infinity;
    for (let mask = 0; mask < 1 << topics.length; mask++) {
      const next = [...left];
      let given = 0;
      let kept = 0;
      let possible = true;
      for (let t = 0; t < topics.length && possible; t++) {
        if (!((mask >> t) & 1)) continue;
        if (next[t] === 0) possible = false;
        next[t]--;
        given++;
        if (topics[t].c[b] > topics[t].floor) kept++;
      }
      if (!possible || (given !== q && given !== q + 1)) continue;
      const h = high + (given === q + 1 ? 1 : 0);
      if (h > R) continue;
      out = Math.max(out, kept + best(b + 1, next, h));
    }
    memo.set(key, out);
    return out;
  };
  return (
    base -
    best(
      0,
      topics.map((t) => t.r),
      0,
    )
  );
}

/** Rebalance without rack constraints: every topic even, totals even, exactly the fewest moves. */
function checkRebalance(cluster: PlanCluster, request: PlanRequest): Plan {
  const p = plan(cluster, request);
  assertCommon(cluster, request, p);
  const t = targets(cluster, p);
  const ids = cluster.brokers.map((b) => b.id);
  const names = request.topics;
  assert.ok(!p.warnings.some((w) => w.code === 'GOAL_NOT_REACHED'), JSON.stringify(p.warnings));
  for (const topic of cluster.topics) {
    const counts = ids.map((b) => topic.partitions.filter((x) => t.get(`${topic.name}-${x.partition}`)!.includes(b)).length);
    if (!names || names.includes(topic.name)) assert.ok(spread(counts) <= 1, `topic ${topic.name} spread ${counts.join(',')}`);
  }
  if (names)
    assert.ok(
      p.partitions.every((x) => names.includes(x.topic)),
      'only the topics named move',
    );
  else assert.ok(spread(p.after.map((l) => l.replicas)) <= 1, `totals ${p.after.map((l) => l.replicas).join(',')}`);
  const fewest = fewestRebalanceMoves(cluster, names);
  assert.equal(p.lowerBound.movedReplicas, fewest, 'the lower bound is the exact minimum');
  assert.equal(p.movedReplicas, fewest, `moved ${p.movedReplicas}, fewest possible ${fewest}`);
  return p;
}

const rebalanceWithoutRacks = fc.property(clusterArb, fc.boolean(), ({ cluster }, balanceLeaders) => {
  const request: PlanRequest = { goal: 'rebalance', rackAware: false, balanceLeaders };
  const p = checkRebalance(cluster, request);
  if (balanceLeaders && !p.warnings.some((w) => w.code === 'LEADERS_NOT_BALANCED')) assert.ok(spread(p.after.map((l) => l.leaders)) <= 1);
});

const rebalanceNoRacks = fc.property(clusterArb, ({ cluster, racks }) => {
  fc.pre(racks === 0);
  checkRebalance(cluster, { goal: 'rebalance' });
});

/** k brokers without racks; topics as replica lists per partition (100 bytes each). */
const small = (k: number, topics: number[][][]): PlanCluster => ({
  brokers: Array.from({ length: k }, (_, id) => ({ id, rack: null })),
  topics: topics.map((ps, i) => ({ name: `t${i}`, partitions: ps.map((replicas, partition) => ({ partition, replicas, bytes: 100 })) })),
});
/** One single-replica partition per replica, `counts[b]` of them on broker b. */
const fromCounts = (counts: number[]): number[][] => counts.flatMap((c, b) => Array.from({ length: c }, () => [b]));

describe('multi-topic rebalance regressions (counterexamples found before the exact ceil-slot choice)', () => {
  // The old bound, max(Σ per-topic excess, totals excess), was below the real minimum (21% of
  // random clusters moved more than it); the old planner's greedy choice of the "one more"
  // replicas moved more than the minimum on about 4%.
  const cases: [string, PlanCluster, number][] = [
    [
      'old bound 1 below the minimum (3 brokers)',
      small(3, [[[2]], [[0], [0], [1]], [[2], [2], [0], [2], [2], [1], [2], [0], [1], [2]]]),
      4,
    ],
    [
      'old planner moved 8 of 7 (8 brokers)',
      small(8, [
        [[5], [6], [6]],
        [[0], [5], [3], [1], [3], [3], [4], [0], [3], [5], [3], [5], [0], [5]],
      ]),
      7,
    ],
    [
      'old planner moved 7 of 6 (5 brokers, RF 2)',
      small(5, [
        [
          [0, 1],
          [2, 1],
          [2, 3],
          [2, 1],
          [2, 1],
          [2, 1],
          [3, 0],
          [0, 3],
          [0, 1],
          [0, 3],
          [1, 2],
          [2, 0],
          [2, 1],
        ],
        [[1, 0]],
      ]),
      6,
    ],
    // Counting only the kept slots (a flow over brokers already above floor) says 8 here: a topic
    // needing 5 of 6 brokers forces a slot that keeps nothing.
    [
      'kept slots alone are not enough (6 brokers)',
      small(6, [
        fromCounts([1, 0, 1, 4, 4, 1]),
        fromCounts([3, 6, 3, 4, 1, 5]),
        fromCounts([0, 1, 0, 1, 0, 0]),
        fromCounts([0, 1, 0, 0, 0, 1]),
      ]),
      9,
    ],
  ];
  for (const [name, cluster, fewest] of cases) {
    it(name, () => {
      assert.equal(fewestRebalanceMoves(cluster), fewest);
      const p = checkRebalance(cluster, { goal: 'rebalance' });
      assert.equal(p.movedReplicas, fewest);
    });
  }

  it('replays the fast-check seeds of those counterexamples', () => {
    fc.assert(rebalanceWithoutRacks, { seed: 822362552, path: '8:1:1:1:2:5:2:4:6:2:2:4:0:0:4:2:6:6:4:4:5:6', endOnFailure: true });
    fc.assert(rebalanceWithoutRacks, { seed: 1729105031, path: '1:2:1:5:1:8:7:5:7:7', endOnFailure: true });
    fc.assert(rebalanceNoRacks, { seed: -115257129, path: '6:8:4:2:1:1:4:8:8:7:5', endOnFailure: true });
    fc.assert(rebalanceNoRacks, { seed: 810334882, path: '95:10:11:11:3', endOnFailure: true });
  });
});

describe('planner properties (fast-check)', () => {
  it('decommission: moves exactly the replicas on the removed brokers, and empties them', () => {
    fc.assert(
      fc.property(clusterArb, fc.integer({ min: 0, max: 1000 }), fc.boolean(), ({ cluster }, pick, balanceLeaders) => {
        const maxRf = Math.max(...cluster.topics.flatMap((t) => t.partitions.map((x) => x.replicas.length)));
        const removable = cluster.brokers.length - maxRf;
        fc.pre(removable >= 1);
        const removed = cluster.brokers
          .map((b) => b.id)
          .filter((id) => (pick >> id) % 3 === 0)
          .slice(0, removable);
        fc.pre(removed.length >= 1);
        const request: PlanRequest = { goal: 'decommission', brokers: removed, balanceLeaders };
        const p = plan(cluster, request);
        assertCommon(cluster, request, p);
        let onRemoved = 0;
        for (const t of cluster.topics) for (const x of t.partitions) onRemoved += x.replicas.filter((b) => removed.includes(b)).length;
        assert.equal(p.movedReplicas, onRemoved);
        assert.equal(p.lowerBound.movedReplicas, onRemoved);
        assert.equal(p.movedBytes, p.lowerBound.movedBytes);
        for (const l of p.after) if (removed.includes(l.broker)) assert.equal(l.replicas, 0);
        // Nothing else moves: a partition without a replica on a removed broker at most changes order.
        for (const x of p.partitions) {
          const added = x.targetReplicas.filter((b) => !x.currentReplicas.includes(b));
          assert.equal(added.length, x.currentReplicas.filter((b) => removed.includes(b)).length);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('rebalance without racks: every topic and the broker totals end within one, moving exactly the lower bound (= the exhaustive minimum)', () => {
    fc.assert(rebalanceWithoutRacks, { numRuns: 400 });
  });

  it('rebalance of brokers without racks (rackAware defaults to false): the same, exactly the lower bound', () => {
    fc.assert(rebalanceNoRacks, { numRuns: 100 });
  });

  it('rebalance with topics: only those topics move, each ends even, exactly the lower bound', () => {
    fc.assert(
      fc.property(clusterArb, fc.integer({ min: 1, max: 15 }), ({ cluster }, mask) => {
        const names = cluster.topics.map((t) => t.name).filter((_, i) => (mask >> i) & 1);
        fc.pre(names.length > 0);
        checkRebalance(cluster, { goal: 'rebalance', topics: names, rackAware: false, balanceLeaders: false });
      }),
      { numRuns: 300 },
    );
  });

  it("rebalance with racks never lowers a partition's rack count", () => {
    fc.assert(
      fc.property(clusterArb, ({ cluster, racks }) => {
        fc.pre(racks >= 2);
        const request: PlanRequest = { goal: 'rebalance' };
        const p = plan(cluster, request);
        assertCommon(cluster, request, p);
        const rackOf = new Map(cluster.brokers.map((b) => [b.id, b.rack]));
        for (const x of p.partitions)
          assert.ok(new Set(x.targetReplicas.map((b) => rackOf.get(b))).size >= new Set(x.currentReplicas.map((b) => rackOf.get(b))).size);
      }),
      { numRuns: 200 },
    );
  });

  it('replication-factor: every partition reaches the factor, keeps its replicas (up) or its leader (down), at the lower bound', () => {
    fc.assert(
      fc.property(clusterArb, fc.integer({ min: 1, max: 4 }), ({ cluster }, rf) => {
        fc.pre(rf <= cluster.brokers.length);
        const request: PlanRequest = { goal: 'replication-factor', topics: ['/.*/'], replicationFactor: rf, balanceLeaders: false };
        const p = plan(cluster, request);
        assertCommon(cluster, request, p);
        assert.equal(p.movedReplicas, p.lowerBound.movedReplicas);
        assert.equal(p.movedBytes, p.lowerBound.movedBytes);
        const t = targets(cluster, p);
        for (const topic of cluster.topics) {
          for (const x of topic.partitions) {
            const target = t.get(`${topic.name}-${x.partition}`)!;
            assert.equal(target.length, rf);
            if (rf >= x.replicas.length) assert.deepEqual(target.slice(0, x.replicas.length), x.replicas);
            else assert.ok(target.every((b) => x.replicas.includes(b)) && target[0] === x.replicas[0]);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('rack-repair: one move per fix, every partition on as many racks as it can be', () => {
    fc.assert(
      fc.property(clusterArb, ({ cluster, racks }) => {
        fc.pre(racks >= 2);
        const request: PlanRequest = { goal: 'rack-repair', balanceLeaders: false };
        const p = plan(cluster, request);
        assertCommon(cluster, request, p);
        assert.equal(p.movedReplicas, p.lowerBound.movedReplicas);
        const rackOf = new Map(cluster.brokers.map((b) => [b.id, b.rack]));
        const allRacks = new Set(rackOf.values()).size;
        const t = targets(cluster, p);
        for (const [, replicas] of t) assert.equal(new Set(replicas.map((b) => rackOf.get(b))).size, Math.min(replicas.length, allRacks));
      }),
      { numRuns: 200 },
    );
  });

  it('bytes rebalance: never above the lower bound of what must leave, and the spread does not grow', () => {
    fc.assert(
      fc.property(clusterArb, ({ cluster }) => {
        const request: PlanRequest = { goal: 'rebalance', weight: 'bytes', rackAware: false, balanceLeaders: false };
        const p = plan(cluster, request);
        assertCommon(cluster, request, p);
        assert.ok(p.movedBytes >= p.lowerBound.movedBytes);
        assert.ok(spread(p.after.map((l) => l.bytes)) <= spread(p.before.map((l) => l.bytes)));
      }),
      { numRuns: 200 },
    );
  });
});
