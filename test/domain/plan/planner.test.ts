// The planner goal by goal and error by error, on small clusters whose right answer can be read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assignReplicasToBrokers,
  lowerBound,
  planReassignment,
  rackAlternatedBrokerList,
  resolveTopicScope,
  seededRandom,
  unwrapPlanBody,
  type Plan,
  type PlanCluster,
  type PlanRequest,
} from '../../../src/domain/plan/index.js';

const racks = (...r: (string | null)[]) => r.map((rack, id) => ({ id, rack }));
const topic = (name: string, replicas: number[][], bytes = 100) => ({
  name,
  partitions: replicas.map((r, partition) => ({ partition, replicas: r, bytes })),
});

function ok(cluster: PlanCluster, request: PlanRequest): Plan {
  const r = planReassignment(cluster, request);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  return r.plan;
}
function errors(cluster: PlanCluster, request: PlanRequest): [string, string][] {
  const r = planReassignment(cluster, request);
  assert.ok(!r.ok, 'expected errors');
  return r.errors.map((e) => [e.path, e.code]);
}
const moves = (p: Plan) =>
  p.partitions.map((x) => `${x.topic}-${x.partition}:${x.currentReplicas.join(',')}>${x.targetReplicas.join(',')}`);

describe('decommission', () => {
  const cluster: PlanCluster = {
    brokers: racks('a', 'a', 'b', 'b'),
    topics: [
      topic('t', [
        [0, 2],
        [3, 0],
        [1, 3],
        [1, 2],
      ]),
    ],
  };

  it('moves exactly the replicas of the removed broker, to the same rack when that keeps the partition on two racks', () => {
    const p = ok(cluster, { goal: 'decommission', brokers: [3], balanceLeaders: false });
    assert.deepEqual(moves(p), ['t-1:3,0>2,0', 't-2:1,3>1,2']);
    assert.equal(p.movedReplicas, 2);
    assert.deepEqual(p.lowerBound, { movedReplicas: 2, movedBytes: 200 });
    assert.equal(p.after.find((l) => l.broker === 3)!.replicas, 0);
    assert.deepEqual(p.warnings, []);
  });

  it('decommissions a broker that is not alive (it still holds replicas)', () => {
    const dead: PlanCluster = {
      brokers: racks('a', 'a', 'b'),
      topics: [
        topic('t', [
          [0, 3],
          [3, 1],
        ]),
      ],
    };
    const p = ok(dead, { goal: 'decommission', brokers: [3], rackAware: false, balanceLeaders: false });
    assert.equal(p.movedReplicas, 2);
    assert.ok(p.partitions.every((x) => !x.targetReplicas.includes(3)));
    assert.equal(p.before.find((l) => l.broker === 3)!.live, false);
  });

  it('leaves partitions being moved now alone, and says so', () => {
    const moving: PlanCluster = {
      brokers: racks(null, null, null),
      topics: [
        {
          name: 't',
          partitions: [
            { partition: 0, replicas: [2, 0], bytes: 1, moving: true },
            { partition: 1, replicas: [2, 1], bytes: 1 },
          ],
        },
      ],
    };
    const p = ok(moving, { goal: 'decommission', brokers: [2] });
    assert.deepEqual(
      p.partitions.map((x) => x.partition),
      [1],
    );
    assert.deepEqual(p.warnings.map((w) => w.code).sort(), ['GOAL_NOT_REACHED', 'PARTITIONS_MOVING']);
  });

  it('errors: brokers missing, unknown broker, fewer brokers left than a replication factor', () => {
    assert.deepEqual(errors(cluster, { goal: 'decommission' }), [['/brokers', 'MISSING_FIELD']]);
    assert.deepEqual(errors(cluster, { goal: 'decommission', brokers: [3, 9] }), [['/brokers/1', 'UNKNOWN_BROKER']]);
    const rf3: PlanCluster = { brokers: racks(null, null, null, null), topics: [topic('three', [[0, 1, 2]]), topic('two', [[0, 1]])] };
    const e = planReassignment(rf3, { goal: 'decommission', brokers: [0, 1] });
    assert.ok(!e.ok);
    assert.deepEqual(
      e.errors.map((x) => [x.code, x.topic, x.kafkaError?.code]),
      [['NOT_ENOUGH_BROKERS', 'three', 38]],
    );
  });
});

describe('rebalance', () => {
  it('fills a new broker with the fewest moves, each topic and the totals within one', () => {
    const cluster: PlanCluster = {
      brokers: racks(null, null, null, null),
      topics: [
        topic('a', [
          [0, 1],
          [1, 2],
          [2, 0],
          [0, 1],
          [1, 2],
          [2, 0],
        ]),
        topic('b', [
          [0, 1],
          [1, 2],
          [2, 0],
        ]),
      ],
    };
    const p = ok(cluster, { goal: 'rebalance' });
    assert.equal(p.movedReplicas, p.lowerBound.movedReplicas);
    assert.equal(p.lowerBound.movedReplicas, 4); // 18 replicas over 4 brokers: the new one needs 4 (floor 4, ceil 5)
    const counts = p.after.map((l) => l.replicas);
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, String(counts));
  });

  it('with topics: only those move, and only to even each of them', () => {
    const cluster: PlanCluster = { brokers: racks(null, null, null), topics: [topic('a', [[0], [0], [0]]), topic('b', [[0], [0], [0]])] };
    const p = ok(cluster, { goal: 'rebalance', topics: ['a'], balanceLeaders: false });
    assert.deepEqual(moves(p), ['a-0:0>1', 'a-1:0>2']);
    assert.equal(p.lowerBound.movedReplicas, 2);
  });

  it('among the fewest moves, the extra ones forced by even totals fall on the lighter topic', () => {
    // Brokers 2 and 3 are new. Each topic: 6 replicas over 4 brokers, floor 1, two "one more"
    // slots; even totals allow one slot per broker, so two of the four slots keep nothing. Any
    // split moves 6 replicas; the light topic taking both new-broker slots moves 2 heavy + 4 light.
    const rf1 = (name: string, bytes: number) => ({
      name,
      partitions: [0, 0, 0, 1, 1, 1].map((b, partition) => ({ partition, replicas: [b], bytes })),
    });
    for (const [light, heavy] of [
      ['a', 'b'],
      ['b', 'a'],
    ] as const) {
      const cluster: PlanCluster = { brokers: racks(null, null, null, null), topics: [rf1(light, 1), rf1(heavy, 1000)] };
      const p = ok(cluster, { goal: 'rebalance', balanceLeaders: false });
      assert.equal(p.movedReplicas, 6);
      assert.equal(p.lowerBound.movedReplicas, 6);
      assert.equal(p.movedBytes, 2 * 1000 + 4 * 1, `light ${light}: ${moves(p).join(',')}`);
    }
  });

  it('moves the smallest partitions of an over-full broker (fewest bytes)', () => {
    const cluster: PlanCluster = {
      brokers: racks(null, null),
      topics: [
        {
          name: 't',
          partitions: [
            { partition: 0, replicas: [0], bytes: 900 },
            { partition: 1, replicas: [0], bytes: 10 },
          ],
        },
      ],
    };
    const p = ok(cluster, { goal: 'rebalance', balanceLeaders: false });
    assert.deepEqual(moves(p), ['t-1:0>1']);
    assert.deepEqual(p.lowerBound, { movedReplicas: 1, movedBytes: 10 });
  });

  it('warns when racks forbid an even spread', () => {
    // Every partition spans both racks; rack a has one broker, so it must hold every partition.
    const cluster: PlanCluster = {
      brokers: racks('a', 'b', 'b'),
      topics: [
        topic('t', [
          [0, 1],
          [0, 2],
          [0, 1],
          [0, 2],
        ]),
      ],
    };
    const p = ok(cluster, { goal: 'rebalance', balanceLeaders: false });
    assert.equal(p.movedReplicas, 0);
    assert.ok(
      p.warnings.some((w) => w.code === 'GOAL_NOT_REACHED'),
      JSON.stringify(p.warnings),
    );
    assert.ok(p.movedReplicas < p.lowerBound.movedReplicas);
  });

  it('by bytes: evens bytes per broker to within the largest partition', () => {
    const cluster: PlanCluster = {
      brokers: racks(null, null),
      topics: [{ name: 't', partitions: [100, 200, 300, 400].map((bytes, partition) => ({ partition, replicas: [0], bytes })) }],
    };
    const p = ok(cluster, { goal: 'rebalance', weight: 'bytes', balanceLeaders: false });
    const [b0, b1] = p.after.map((l) => l.bytes);
    assert.ok(Math.abs(b0 - b1) <= 400, `${b0} ${b1}`);
    assert.ok(p.movedBytes >= p.lowerBound.movedBytes);
  });

  it('errors: a broker that is not live', () => {
    const cluster: PlanCluster = { brokers: racks(null, null), topics: [topic('t', [[0]])] };
    assert.deepEqual(errors(cluster, { goal: 'rebalance', brokers: [0, 5] }), [['/brokers/1', 'UNKNOWN_BROKER']]);
  });
});

describe('replication-factor', () => {
  const cluster: PlanCluster = { brokers: racks('a', 'a', 'b', 'b'), topics: [topic('t', [[0], [1]]), topic('u', [[0, 1, 2]])] };

  it('adds replicas on another rack first (then the least loaded broker), keeping the existing ones', () => {
    const p = ok(cluster, { goal: 'replication-factor', topics: ['t'], replicationFactor: 2, balanceLeaders: false });
    // Brokers 2 and 3 are both on rack b; 2 already holds u-0, so t-0 goes to 3, then t-1 to 2.
    assert.deepEqual(moves(p), ['t-0:0>0,3', 't-1:1>1,2']);
    assert.deepEqual(p.lowerBound, { movedReplicas: 2, movedBytes: 200 });
  });

  it('drops replicas that share a rack, never the preferred leader, copying nothing', () => {
    const p = ok(cluster, { goal: 'replication-factor', topics: ['u'], replicationFactor: 2, balanceLeaders: false });
    assert.deepEqual(moves(p), ['u-0:0,1,2>0,2']);
    assert.equal(p.movedReplicas, 0);
  });

  it('errors: topics and replicationFactor missing, factor above the brokers, unknown topic', () => {
    assert.deepEqual(errors(cluster, { goal: 'replication-factor' }), [
      ['/replicationFactor', 'MISSING_FIELD'],
      ['/topics', 'MISSING_FIELD'],
    ]);
    assert.deepEqual(errors(cluster, { goal: 'replication-factor', topics: ['t'], replicationFactor: 5 }), [
      ['/replicationFactor', 'REPLICATION_FACTOR_TOO_LARGE'],
    ]);
    assert.deepEqual(errors(cluster, { goal: 'replication-factor', topics: ['nope'], replicationFactor: 2 }), [
      ['/topics/0', 'UNKNOWN_TOPIC'],
    ]);
  });
});

describe('rack-repair', () => {
  it('moves one replica per partition that shares a rack while another rack has room', () => {
    const cluster: PlanCluster = {
      brokers: racks('a', 'a', 'b', 'c'),
      topics: [
        topic('t', [
          [0, 1],
          [0, 2],
          [0, 1, 2],
        ]),
      ],
    };
    const p = ok(cluster, { goal: 'rack-repair', balanceLeaders: false });
    assert.deepEqual(moves(p), ['t-0:0,1>0,3', 't-2:0,1,2>0,3,2']);
    assert.equal(p.movedReplicas, 2);
    assert.equal(p.lowerBound.movedReplicas, 2);
  });

  it('says so when the brokers have no racks', () => {
    const p = ok({ brokers: racks(null, null), topics: [topic('t', [[0, 1]])] }, { goal: 'rack-repair' });
    assert.equal(p.movedReplicas, 0);
    assert.ok(p.warnings.some((w) => w.code === 'NO_RACKS'));
  });
});

describe('preferred leaders', () => {
  it('are evened by reordering replicas, without moving data', () => {
    const cluster: PlanCluster = {
      brokers: racks(null, null),
      topics: [
        topic('t', [
          [0, 1],
          [0, 1],
          [0, 1],
          [0, 1],
        ]),
      ],
    };
    const p = ok(cluster, { goal: 'rebalance' });
    assert.equal(p.movedReplicas, 0);
    assert.deepEqual(
      p.after.map((l) => l.leaders),
      [2, 2],
    );
    assert.ok(p.partitions.every((x) => x.adding.length === 0 && x.removing.length === 0));
    assert.equal(ok(cluster, { goal: 'rebalance', balanceLeaders: false }).partitions.length, 0);
  });
});

describe('topic scope', () => {
  it('takes names and /regex/, excludes, and warns about patterns that match nothing', () => {
    const s = resolveTopicScope(
      ['orders', 'orders-eu', 'payments', '__consumer_offsets'],
      ['/^orders/', 'payments', '/^x/'],
      ['orders-eu'],
    );
    assert.deepEqual(s.topics, ['orders', 'payments']);
    assert.deepEqual(
      s.warnings.map((w) => w.code),
      ['PATTERN_MATCHES_NOTHING'],
    );
    assert.deepEqual(resolveTopicScope(['a'], undefined, ['/^__/']).topics, ['a']);
  });

  it('reports unknown names and invalid patterns per item', () => {
    const s = resolveTopicScope(['a'], ['b', '/(/'], ['c']);
    assert.deepEqual(s.errors.map((e) => [e.path, e.code]).sort(), [
      ['/excludeTopics/0', 'UNKNOWN_TOPIC'],
      ['/topics/0', 'UNKNOWN_TOPIC'],
      ['/topics/1', 'INVALID_TOPIC_PATTERN'],
    ]);
  });
});

describe('lower bound', () => {
  it('for one topic counts the excess over an even spread', () => {
    const b = lowerBound({
      goal: 'rebalance',
      weight: 'replicas',
      partitions: [0, 0, 0, 0, 1].map((x) => ({ topic: 0, replicas: [x], bytes: 1 })),
      removed: new Set(),
      brokers: [0, 1, 2],
      evenTotals: true,
    });
    assert.equal(b.movedReplicas, 2); // 5 over 3 brokers: 2,2,1 -> broker 0 sheds 2
  });
});

describe("--generate baseline (Kafka's AdminUtils assignment)", () => {
  it('alternates racks and spreads replicas like Kafka', () => {
    assert.deepEqual(rackAlternatedBrokerList(racks('a', 'a', 'b', 'c', 'c')), [0, 2, 3, 1, 4]);
    const a = assignReplicasToBrokers(racks('a', 'b', 'a', 'b'), 8, 2, seededRandom(1));
    for (const r of a) assert.notEqual(r[0] % 2, r[1] % 2, 'two racks per partition');
    const counts = [0, 0, 0, 0];
    for (const r of a) for (const b of r) counts[b]++;
    assert.deepEqual(counts, [4, 4, 4, 4]);
  });
});

describe('POST /reassignments {"plan": …}', () => {
  it("unwraps the plan's reassignment, keeps the options, passes other bodies through", () => {
    const reassignment = { version: 1, partitions: [{ topic: 't', partition: 0, replicas: [1], log_dirs: ['any'] }] };
    assert.deepEqual(unwrapPlanBody({ plan: { reassignment, movedReplicas: 1 }, throttle: 2048, concurrency: 5 }), {
      throttle: 2048,
      concurrency: 5,
      partitions: reassignment.partitions,
    });
    const plain = { partitions: [] };
    assert.equal(unwrapPlanBody(plain), plain);
  });
});
