import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  formatPartitionList,
  validateReassignment,
  type ClusterSnapshot,
  type PartitionAssignment,
  type PartitionError,
  type ReassignmentPlan,
} from '../../../src/domain/reassignment/index.js';

const cluster: ClusterSnapshot = {
  liveBrokers: [0, 1, 2, 3, 4],
  topics: [
    {
      name: 'orders',
      partitions: [
        { partition: 0, replicas: [0, 1, 2], leader: 0 },
        { partition: 1, replicas: [1, 2, 3], leader: 1 },
        // moving under gateway reassignment r-1: [2,3,4] -> [3,4,0]
        { partition: 2, replicas: [3, 4, 0, 2], leader: 2 },
      ],
    },
    {
      name: 'audit',
      partitions: [
        { partition: 0, replicas: [0, 1], leader: -1 },
        // moving, started outside the gateway: [1,2] -> [2,3]
        { partition: 1, replicas: [2, 3, 1], leader: 1 },
      ],
    },
    {
      name: 'wide',
      partitions: Array.from({ length: 12 }, (_, partition) => ({ partition, replicas: [partition % 5, (partition + 1) % 5] })),
    },
  ],
  ongoing: [
    { topic: 'orders', partition: 2, replicas: [3, 4, 0, 2], adding: [0], removing: [2], reassignmentId: 'r-1' },
    { topic: 'audit', partition: 1, replicas: [2, 3, 1], adding: [3], removing: [1], reassignmentId: null },
  ],
};

const p = (topic: string, partition: number, replicas: number[]): PartitionAssignment => ({ topic, partition, replicas });

function plan(partitions: PartitionAssignment[], addToExisting = false, snapshot = cluster, reassignmentId?: string): ReassignmentPlan {
  const r = validateReassignment(snapshot, { partitions, addToExisting }, reassignmentId ? { reassignmentId } : {});
  assert.ok(r.ok, `expected a plan, got ${JSON.stringify(!r.ok && r.errors)}`);
  return r.plan;
}

function errors(partitions: PartitionAssignment[], addToExisting = false, snapshot = cluster): readonly PartitionError[] {
  const r = validateReassignment(snapshot, { partitions, addToExisting });
  assert.ok(!r.ok, 'expected errors');
  return r.errors;
}

describe('validateReassignment: plans', () => {
  it('a simple move: current, target, adding, removing, leader; rollback = current', () => {
    const result = plan([p('orders', 0, [1, 2, 3])]);
    assert.deepEqual(result.partitions, [
      {
        topic: 'orders',
        partition: 0,
        currentReplicas: [0, 1, 2],
        targetReplicas: [1, 2, 3],
        adding: [3],
        removing: [0],
        leader: 0,
        noOp: false,
        alreadyMoving: null,
      },
    ]);
    assert.deepEqual(result.rollback, [{ topic: 'orders', partition: 0, replicas: [0, 1, 2] }]);
    assert.deepEqual(result.warnings, []);
    assert.deepEqual(result.replicationFactorChanges, []);
  });

  it('keeps request order and reports unknown leaders (-1) as null', () => {
    const result = plan([p('audit', 0, [1, 2]), p('orders', 1, [3, 2, 1])]);
    assert.deepEqual(
      result.partitions.map((x) => `${x.topic}-${x.partition}`),
      ['audit-0', 'orders-1'],
    );
    assert.equal(result.partitions[0].leader, null);
    assert.deepEqual(result.partitions[1].adding, [], 'a reorder adds nothing');
    assert.deepEqual(result.partitions[1].removing, []);
    assert.equal(result.partitions[1].noOp, false);
  });

  it('a no-op is allowed but flagged', () => {
    const result = plan([p('orders', 0, [0, 1, 2])]);
    assert.equal(result.partitions[0].noOp, true);
    assert.deepEqual(
      result.warnings.map((w) => w.code),
      ['NO_OP'],
    );
    assert.match(result.warnings[0].message, /orders-0 already has replicas 0,1,2/);
  });

  it('a target on a registered broker that is down is allowed with a warning', () => {
    const snapshot = { ...cluster, liveBrokers: [0, 1, 2, 3], registeredBrokers: [0, 1, 2, 3, 4, 9] };
    const result = plan([p('orders', 0, [9, 4, 0])], false, snapshot);
    assert.deepEqual(
      result.warnings.map((w) => [w.code, w.message]),
      [['BROKER_NOT_LIVE', 'Brokers 9,4 (target of orders-0) are not alive: the copy waits until it returns.']],
    );
  });

  it('without registeredBrokers, brokers named in replica lists count as registered', () => {
    const snapshot = { ...cluster, liveBrokers: [0, 1, 2, 3] }; // 4 is down but hosts replicas
    assert.equal(plan([p('orders', 0, [4, 1, 2])], false, snapshot).warnings[0].code, 'BROKER_NOT_LIVE');
    assert.equal(errors([p('orders', 0, [5, 1, 2])], false, snapshot)[0].code, 'UNKNOWN_BROKER');
  });
});

describe('validateReassignment: each error', () => {
  it('empty partition list', () => {
    assert.deepEqual(errors([]), [
      {
        topic: null,
        partition: null,
        index: null,
        code: 'EMPTY_PARTITION_LIST',
        message: 'Partition reassignment list cannot be empty.',
        kafkaError: null,
      },
    ]);
  });

  it('duplicate partitions: reported once, at the first occurrence, with the count', () => {
    const errs = errors([p('orders', 0, [1, 2, 3]), p('audit', 0, [1, 2]), p('orders', 0, [2, 3, 4]), p('orders', 0, [0, 1, 2])]);
    assert.deepEqual(
      errs.map((e) => [e.code, e.topic, e.partition, e.index]),
      [['DUPLICATE_PARTITION', 'orders', 0, 0]],
    );
    assert.match(errs[0].message, /orders-0 appears 3 times/);
    assert.equal(errs[0].kafkaError, null);
  });

  it("unknown topic -> UNKNOWN_TOPIC_OR_PARTITION with Kafka's message", () => {
    const [e] = errors([p('nope', 0, [1])]);
    assert.deepEqual(e, {
      topic: 'nope',
      partition: 0,
      index: 0,
      code: 'UNKNOWN_TOPIC',
      message: 'Unable to find a topic named nope.',
      kafkaError: { code: 3, name: 'UNKNOWN_TOPIC_OR_PARTITION' },
    });
  });

  it('unknown partition -> UNKNOWN_TOPIC_OR_PARTITION', () => {
    const [e] = errors([p('orders', 3, [1])]);
    assert.equal(e.code, 'UNKNOWN_PARTITION');
    assert.equal(e.kafkaError?.code, 3);
    assert.match(e.message, /orders-3: topic orders has 3 partition/);
  });

  it('empty replica list -> INVALID_REPLICA_ASSIGNMENT', () => {
    const [e] = errors([p('orders', 0, [])]);
    assert.equal(e.code, 'EMPTY_REPLICA_LIST');
    assert.deepEqual(e.kafkaError, { code: 39, name: 'INVALID_REPLICA_ASSIGNMENT' });
  });

  it('unknown brokers are all named -> INVALID_REPLICA_ASSIGNMENT', () => {
    const [e] = errors([p('orders', 0, [0, 7, 8, 7])]);
    assert.equal(e.code, 'UNKNOWN_BROKER');
    assert.equal(e.message, 'Unknown broker ids 7,8 in the replicas of orders-0.');
    assert.equal(e.kafkaError?.code, 39);
  });

  it("duplicate broker -> INVALID_REPLICA_ASSIGNMENT with Kafka's wording", () => {
    const [e] = errors([p('orders', 0, [1, 2, 1])]);
    assert.equal(e.code, 'DUPLICATE_BROKER');
    assert.equal(e.message, 'Partition replica lists may not contain duplicate entries: orders-0 contains multiple entries for 1.');
    assert.equal(e.kafkaError?.code, 39);
  });

  it('every problem at once, per partition, in request order', () => {
    const errs = errors([p('orders', 0, [1, 2, 3]), p('nope', 1, [9]), p('audit', 5, [1, 1]), p('orders', 1, [])]);
    assert.deepEqual(
      errs.map((e) => [e.index, e.code]),
      [
        [1, 'UNKNOWN_TOPIC'],
        [1, 'UNKNOWN_BROKER'],
        [2, 'UNKNOWN_PARTITION'],
        [2, 'DUPLICATE_BROKER'],
        [3, 'EMPTY_REPLICA_LIST'],
      ],
    );
  });
});

describe('validateReassignment: replication-factor changes', () => {
  it('allowed when every partition of the topic gets the same new length', () => {
    const result = plan([p('audit', 0, [0, 1, 2])].concat(p('audit', 1, [1, 2, 3])), true);
    assert.deepEqual(result.replicationFactorChanges, [{ topic: 'audit', from: [2], to: 3 }]);
  });

  it('refused when partitions of the topic are missing: the message names them', () => {
    const errs = errors([p('wide', 0, [0, 1, 2]), p('wide', 5, [0, 1, 2]), p('wide', 8, [0, 1, 2])]);
    assert.equal(errs.length, 1);
    assert.deepEqual(
      [errs[0].code, errs[0].topic, errs[0].partition, errs[0].kafkaError?.code],
      ['INCOMPLETE_REPLICATION_FACTOR_CHANGE', 'wide', null, 38],
    );
    assert.match(errs[0].message, /all|every one of its 12 partitions/);
    assert.match(errs[0].message, /missing: 1-4, 6-7, 9-11\.$/);
  });

  it('refused when the new lengths differ: the message says which partitions get which length', () => {
    const partitions = Array.from({ length: 12 }, (_, i) => p('wide', i, i === 3 ? [0, 1, 2, 3] : [0, 1, 2]));
    const errs = errors(partitions);
    assert.deepEqual(
      errs.map((e) => e.code),
      ['INCONSISTENT_REPLICATION_FACTOR'],
    );
    assert.match(errs[0].message, /3 replicas for 0-2, 4-11; 4 replicas for 3\.$/);
  });

  it('both problems together', () => {
    const errs = errors([p('orders', 0, [0, 1]), p('orders', 1, [0, 1, 2, 3])]);
    assert.deepEqual(
      errs.map((e) => e.code),
      ['INCOMPLETE_REPLICATION_FACTOR_CHANGE', 'INCONSISTENT_REPLICATION_FACTOR'],
    );
    assert.match(errs[0].message, /missing: 2\.$/);
  });

  it('same-length moves of some partitions are not a replication-factor change', () => {
    assert.deepEqual(plan([p('wide', 11, [3, 4])]).replicationFactorChanges, []);
  });

  it('formatPartitionList: ranges, summarised after 50 numbers', () => {
    assert.equal(formatPartitionList([0, 1, 2, 3, 7, 9, 10, 11, 12]), '0-3, 7, 9-12');
    assert.equal(formatPartitionList([]), '');
    const many = Array.from({ length: 200 }, (_, i) => i * 2);
    assert.match(formatPartitionList(many), /^0, 2, 4, .*, 98 and 150 more$/);
  });
});

describe('validateReassignment: partitions already moving', () => {
  it('under another gateway reassignment -> conflict (409 via REASSIGNMENT_IN_PROGRESS)', () => {
    const [e] = errors([p('orders', 2, [0, 1, 2])]);
    assert.equal(e.code, 'REASSIGNMENT_CONFLICT');
    assert.deepEqual(e.kafkaError, { code: 60, name: 'REASSIGNMENT_IN_PROGRESS' });
    assert.equal(e.conflictingReassignmentId, 'r-1');
    assert.match(
      e.message,
      /orders-2 is already moving under reassignment r-1 \(replicas 3,4,0,2, adding 0, removing 2\)\. Set addToExisting/,
    );
  });

  it('started outside the gateway -> conflict too', () => {
    const [e] = errors([p('audit', 1, [0, 1])]);
    assert.equal(e.conflictingReassignmentId, null);
    assert.match(e.message, /outside the gateway/);
  });

  it('with addToExisting: planned from the ORIGINAL replicas, the running move replaced', () => {
    const result = plan([p('orders', 2, [0, 1, 2])], true);
    const move = result.partitions[0];
    // replicas - adding, in the mid-move order, as Kafka's controller derives the original.
    assert.deepEqual(move.currentReplicas, [3, 4, 2]);
    assert.deepEqual(move.adding, [0, 1]);
    assert.deepEqual(move.removing, [3, 4]);
    assert.equal(move.alreadyMoving?.reassignmentId, 'r-1');
    assert.deepEqual(result.rollback, [{ topic: 'orders', partition: 2, replicas: [3, 4, 2] }]);
    assert.equal(result.warnings[0].code, 'REPLACES_ONGOING_MOVE');
    assert.match(result.warnings[0].message, /moving to 3,4,0; that move is replaced by 0,1,2/);
  });

  it('with addToExisting: back to the original replicas (any order) = revert; the same target = no-op', () => {
    assert.equal(plan([p('orders', 2, [2, 3, 4])], true).warnings[0].code, 'REVERTS_ONGOING_MOVE');
    assert.equal(plan([p('orders', 2, [3, 4, 2])], true).warnings[0].code, 'REVERTS_ONGOING_MOVE');
    const same = plan([p('orders', 2, [3, 4, 0])], true);
    assert.equal(same.partitions[0].noOp, true);
    assert.equal(same.warnings[0].code, 'NO_OP');
  });

  it("the reassignment's own partitions are not conflicts (reassignmentId option)", () => {
    const result = plan([p('orders', 2, [2, 3, 4])], false, cluster, 'r-1');
    assert.equal(result.partitions[0].alreadyMoving?.reassignmentId, 'r-1');
    assert.equal(errors([p('orders', 2, [2, 3, 4])])[0].code, 'REASSIGNMENT_CONFLICT');
  });
});
