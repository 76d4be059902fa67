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
    topics: fc.array(fc.record({ partitions: fc.integer({ min: 1, max: 16 }), rf: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 4 }),
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
    assert.equal(new Set(x.targetReplicas).size, x.targetReplicas.length, `replicas distinct: ${x.topic}-${x.partition} ${x.targetReplicas}`);
    assert.deepEqual(x.currentReplicas, current.get(`${x.topic}-${x.partition}`));
    assert.notDeepEqual(x.targetReplicas, x.currentReplicas, 'only changed partitions are listed');
    moved += x.targetReplicas.filter((b) => !x.currentReplicas.includes(b)).length;
  }
  assert.equal(p.movedReplicas, moved);
  // The bound is for plans that reach the goal; a plan that cannot says so (GOAL_NOT_REACHED).
  const reached = !p.warnings.some((w) => w.code === 'GOAL_NOT_REACHED');
  if (reached) assert.ok(p.movedReplicas >= p.lowerBound.movedReplicas, `moved ${p.movedReplicas} below the lower bound ${p.lowerBound.movedReplicas}`);
  // Deterministic: the same input gives the same plan.
  assert.deepEqual(plan(cluster, request), p);
}

const spread = (values: number[]) => Math.max(...values) - Math.min(...values);

describe('planner properties (fast-check)', () => {
  it('decommission: moves exactly the replicas on the removed brokers, and empties them', () => {
    fc.assert(
      fc.property(clusterArb, fc.integer({ min: 0, max: 1000 }), fc.boolean(), ({ cluster }, pick, balanceLeaders) => {
        const maxRf = Math.max(...cluster.topics.flatMap((t) => t.partitions.map((x) => x.replicas.length)));
        const removable = cluster.brokers.length - maxRf;
        fc.pre(removable >= 1);
        const removed = cluster.brokers.map((b) => b.id).filter((id) => (pick >> id) % 3 === 0).slice(0, removable);
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

  it('rebalance without racks: every topic and the broker totals end within one, moving the lower bound for a single topic', () => {
    fc.assert(
      fc.property(clusterArb, fc.boolean(), ({ cluster }, balanceLeaders) => {
        const request: PlanRequest = { goal: 'rebalance', rackAware: false, balanceLeaders };
        const p = plan(cluster, request);
        assertCommon(cluster, request, p);
        const t = targets(cluster, p);
        const ids = cluster.brokers.map((b) => b.id);
        for (const topic of cluster.topics) {
          const counts = ids.map((b) => topic.partitions.filter((x) => t.get(`${topic.name}-${x.partition}`)!.includes(b)).length);
          assert.ok(spread(counts) <= 1, `topic ${topic.name} spread ${counts}`);
        }
        if (!p.warnings.some((w) => w.code === 'GOAL_NOT_REACHED')) assert.ok(spread(p.after.map((l) => l.replicas)) <= 1, `totals ${p.after.map((l) => l.replicas)}`);
        if (cluster.topics.length === 1) assert.equal(p.movedReplicas, p.lowerBound.movedReplicas);
        if (balanceLeaders && !p.warnings.some((w) => w.code === 'LEADERS_NOT_BALANCED')) assert.ok(spread(p.after.map((l) => l.leaders)) <= 1);
      }),
      { numRuns: 300 },
    );
  });

  it('rebalance with topics: only those topics move, each ends even, at the lower bound', () => {
    fc.assert(
      fc.property(clusterArb, ({ cluster }) => {
        const request: PlanRequest = { goal: 'rebalance', topics: ['t0'], rackAware: false, balanceLeaders: false };
        const p = plan(cluster, request);
        assertCommon(cluster, request, p);
        assert.ok(p.partitions.every((x) => x.topic === 't0'));
        assert.equal(p.movedReplicas, p.lowerBound.movedReplicas);
        const t = targets(cluster, p);
        const topic = cluster.topics[0]!;
        const counts = cluster.brokers.map((b) => topic.partitions.filter((x) => t.get(`t0-${x.partition}`)!.includes(b.id)).length);
        assert.ok(spread(counts) <= 1, `t0 spread ${counts}`);
      }),
      { numRuns: 200 },
    );
  });

  it('rebalance with racks never lowers a partition\'s rack count', () => {
    fc.assert(
      fc.property(clusterArb, ({ cluster, racks }) => {
        fc.pre(racks >= 2);
        const request: PlanRequest = { goal: 'rebalance' };
        const p = plan(cluster, request);
        assertCommon(cluster, request, p);
        const rackOf = new Map(cluster.brokers.map((b) => [b.id, b.rack]));
        for (const x of p.partitions) assert.ok(new Set(x.targetReplicas.map((b) => rackOf.get(b))).size >= new Set(x.currentReplicas.map((b) => rackOf.get(b))).size);
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
