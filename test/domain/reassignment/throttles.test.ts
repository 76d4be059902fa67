import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  calculateFollowerThrottles,
  calculateLeaderThrottles,
  calculateProposedMoveMap,
  calculateReassigningBrokers,
  computeReassignmentThrottles,
  formatThrottledReplicas,
  parseReplicaEntry,
  parseThrottledReplicas,
  reassignmentThrottleConfigs,
  replicaEntry,
  type ProposedMove,
  type RunningMove,
} from '../../../src/domain/reassignment/index.js';

/** Kafka's ReassignPartitionsUnitTest.testMoveMap, verbatim data. */
const KAFKA_RUNNING: RunningMove[] = [
  { topic: 'foo', partition: 0, replicas: [1, 2, 3, 4], adding: [4] },
  { topic: 'foo', partition: 1, replicas: [4, 5, 6, 7, 8], adding: [7, 8] },
  { topic: 'foo', partition: 2, replicas: [1, 2, 3, 4], adding: [3, 4] },
  { topic: 'foo', partition: 3, replicas: [1, 2, 3, 4], adding: [3, 4] },
  { topic: 'foo', partition: 4, replicas: [1, 2, 3, 4], adding: [3, 4] },
  { topic: 'foo', partition: 5, replicas: [1, 2, 3, 4], adding: [3, 4] },
];
const KAFKA_CURRENT: Record<string, number[]> = {
  'foo-0': [1, 2, 3, 4],
  'foo-1': [4, 5, 6, 7, 8],
  'foo-2': [1, 2, 3, 4],
  'foo-3': [1, 2, 3, 4],
  'foo-4': [1, 2, 3, 4],
  'foo-5': [1, 2, 3, 4],
  'bar-0': [2, 3, 4],
  'baz-0': [1, 2, 3],
};
const KAFKA_PROPOSED: ProposedMove[] = (
  [
    ['foo', 0, [1, 2, 5]],
    ['foo', 2, [3, 4]],
    ['foo', 3, [5, 6]],
    ['foo', 4, [3]],
    ['foo', 5, [3, 4, 5, 6]],
    ['bar', 0, [1, 2, 3]],
  ] as const
).map(([topic, partition, target]) => ({
  topic,
  partition,
  targetReplicas: [...target],
  currentReplicas: KAFKA_CURRENT[`${topic}-${partition}`],
}));

function sets(moves: ReturnType<typeof calculateProposedMoveMap>, topic: string): Record<number, [number[], number[]]> {
  const out: Record<number, [number[], number[]]> = {};
  for (const [p, m] of moves.topic(topic) ?? []) {
    out[p] = [[...m.sources].sort((a, b) => a - b), [...m.destinations].sort((a, b) => a - b)];
  }
  return out;
}

describe("Kafka's move map (ReassignPartitionsUnitTest.testMoveMap)", () => {
  const moves = calculateProposedMoveMap(KAFKA_RUNNING, KAFKA_PROPOSED);

  it('sources and destinations per partition, running moves merged with proposed ones', () => {
    assert.deepEqual(sets(moves, 'foo'), {
      0: [[1, 2, 3], [5]],
      1: [
        [4, 5, 6],
        [7, 8],
      ],
      2: [
        [1, 2],
        [3, 4],
      ],
      3: [
        [1, 2],
        [5, 6],
      ],
      4: [[1, 2], [3]],
      5: [
        [1, 2],
        [3, 4, 5, 6],
      ],
    });
    assert.deepEqual(sets(moves, 'bar'), { 0: [[2, 3, 4], [1]] });
    assert.equal(moves.topic('baz'), undefined, 'a topic neither moving nor proposed gets nothing');
  });

  it('leader and follower throttles are the exact strings Kafka expects', () => {
    assert.deepEqual(Object.fromEntries(calculateLeaderThrottles(moves)), {
      foo: '0:1,0:2,0:3,1:4,1:5,1:6,2:1,2:2,3:1,3:2,4:1,4:2,5:1,5:2',
      bar: '0:2,0:3,0:4',
    });
    assert.deepEqual(Object.fromEntries(calculateFollowerThrottles(moves)), {
      foo: '0:5,1:7,1:8,2:3,2:4,3:5,3:6,4:3,5:3,5:4,5:5,5:6',
      bar: '0:1',
    });
    assert.deepEqual(calculateReassigningBrokers(moves), [1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('computeReassignmentThrottles', () => {
  it('one partition moving from 0,1 to 1,2: leader on sources, follower on the new replica', () => {
    const t = computeReassignmentThrottles([], [{ topic: 't', partition: 0, currentReplicas: [0, 1], targetReplicas: [1, 2] }]);
    assert.deepEqual(t, { topics: [{ topic: 't', leader: '0:0,0:1', follower: '0:2' }], brokers: [0, 1, 2] });
  });

  it('multi-partition, multi-topic: one entry per topic, topics sorted, brokers = sources ∪ destinations', () => {
    const t = computeReassignmentThrottles(
      [],
      [
        { topic: 'orders', partition: 1, currentReplicas: [3, 4], targetReplicas: [4, 5] },
        { topic: 'audit', partition: 0, currentReplicas: [0], targetReplicas: [7] },
        { topic: 'orders', partition: 0, currentReplicas: [1, 2], targetReplicas: [2, 3] },
      ],
    );
    assert.deepEqual(t.topics, [
      { topic: 'audit', leader: '0:0', follower: '0:7' },
      { topic: 'orders', leader: '0:1,0:2,1:3,1:4', follower: '0:3,1:5' },
    ]);
    assert.deepEqual(t.brokers, [0, 1, 2, 3, 4, 5, 7]);
  });

  it('partition numbers >= 10 sort AS STRINGS (10:1 before 2:1), and broker ids too (1:10 before 1:2)', () => {
    const proposed = [2, 10, 1, 11].map((partition) => ({ topic: 't', partition, currentReplicas: [1], targetReplicas: [1, 2] }));
    proposed.push({ topic: 't', partition: 3, currentReplicas: [10], targetReplicas: [2] });
    const t = computeReassignmentThrottles([], proposed);
    assert.equal(t.topics[0].leader, '10:1,11:1,1:1,2:1,3:10');
    assert.equal(t.topics[0].follower, '10:2,11:2,1:2,2:2,3:2');
  });

  it('a pure reorder or a no-op still throttles its sources (as Kafka does); the follower list is empty', () => {
    const t = computeReassignmentThrottles([], [{ topic: 't', partition: 0, currentReplicas: [1, 2], targetReplicas: [2, 1] }]);
    assert.deepEqual(t.topics, [{ topic: 't', leader: '0:1,0:2', follower: '' }]);
    assert.deepEqual(t.brokers, [1, 2]);
  });

  it('moves added to one in progress: running moves of other partitions and topics are included', () => {
    const running = [
      { topic: 't', partition: 5, replicas: [2, 3, 1], adding: [2, 3] }, // 1 -> 2,3 running
      { topic: 'other', partition: 0, replicas: [4, 9], adding: [4] }, // started elsewhere
    ];
    const t = computeReassignmentThrottles(running, [{ topic: 't', partition: 0, currentReplicas: [1], targetReplicas: [6] }]);
    assert.deepEqual(t.topics, [
      { topic: 'other', leader: '0:9', follower: '0:4' },
      { topic: 't', leader: '0:1,5:1', follower: '0:6,5:2,5:3' },
    ]);
    assert.deepEqual(t.brokers, [1, 2, 3, 4, 6, 9]);
  });

  it('re-targeting a partition that is moving keeps its in-progress sources (not the mid-move replicas)', () => {
    // 1,2 -> 3,4 running: replicas 3,4,1,2 adding 3,4. New target 5,1: sources stay {1,2}.
    const running = [{ topic: 't', partition: 0, replicas: [3, 4, 1, 2], adding: [3, 4] }];
    const t = computeReassignmentThrottles(running, [{ topic: 't', partition: 0, currentReplicas: [3, 4, 1, 2], targetReplicas: [5, 1] }]);
    assert.deepEqual(t.topics, [{ topic: 't', leader: '0:1,0:2', follower: '0:5' }]);
    assert.deepEqual(t.brokers, [1, 2, 5], 'the abandoned destinations 3 and 4 are no longer throttled');
  });

  it('refuses a partition with no replicas at all (Kafka throws too)', () => {
    assert.throws(
      () => computeReassignmentThrottles([], [{ topic: 't', partition: 0, currentReplicas: [], targetReplicas: [1] }]),
      /0 replicas/,
    );
  });

  it('reassignmentThrottleConfigs: both rates on every broker, both lists on every topic', () => {
    const t = computeReassignmentThrottles([], [{ topic: 't', partition: 0, currentReplicas: [0], targetReplicas: [1] }]);
    assert.deepEqual(reassignmentThrottleConfigs(t, 1048576), [
      {
        resourceType: 'broker',
        resourceName: '0',
        configs: [
          { name: 'leader.replication.throttled.rate', value: '1048576' },
          { name: 'follower.replication.throttled.rate', value: '1048576' },
        ],
      },
      {
        resourceType: 'broker',
        resourceName: '1',
        configs: [
          { name: 'leader.replication.throttled.rate', value: '1048576' },
          { name: 'follower.replication.throttled.rate', value: '1048576' },
        ],
      },
      {
        resourceType: 'topic',
        resourceName: 't',
        configs: [
          { name: 'leader.replication.throttled.replicas', value: '0:0' },
          { name: 'follower.replication.throttled.replicas', value: '0:1' },
        ],
      },
    ]);
  });
});

describe('partition:broker lists', () => {
  it('replicaEntry / parseReplicaEntry', () => {
    assert.equal(replicaEntry(12, 3), '12:3');
    assert.deepEqual(parseReplicaEntry(' 12:3 '), { partition: 12, broker: 3 });
    for (const bad of ['', '1', '1:', ':1', '-1:2', '1:2:3', 'a:b', '1.5:2', '*']) assert.equal(parseReplicaEntry(bad), null, bad);
  });

  it('parse: *, lists with whitespace and empty items, null/empty = nothing; canonical and deduplicated', () => {
    assert.deepEqual(parseThrottledReplicas('*'), { all: true });
    assert.deepEqual(parseThrottledReplicas(' * '), { all: true });
    assert.deepEqual(parseThrottledReplicas(null), { all: false, entries: [] });
    assert.deepEqual(parseThrottledReplicas(''), { all: false, entries: [] });
    assert.deepEqual(parseThrottledReplicas('0:1, 1:2,,07:1,0:1'), { all: false, entries: ['0:1', '1:2', '7:1'] });
  });

  it('parse rejects what Kafka rejects: * mixed with entries, garbage', () => {
    assert.equal(parseThrottledReplicas('*,0:1'), null);
    assert.equal(parseThrottledReplicas('0:1,x'), null);
    assert.equal(parseThrottledReplicas('0-1'), null);
  });

  it('format: deduplicated and sorted as strings', () => {
    assert.equal(formatThrottledReplicas(['2:1', '10:1', '1:10', '1:2', '2:1']), '10:1,1:10,1:2,2:1');
    assert.equal(formatThrottledReplicas([]), '');
  });
});
