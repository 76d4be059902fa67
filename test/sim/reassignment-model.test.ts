// The cluster model's reassignments with a hand-driven clock: replica-set maths, exact copy
// progress with and without throttles, completion, cancel, re-targeting and stopped brokers.
// The wire behaviour (error codes and messages, the APIs' shapes) is in reassignment-wire.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildBatch, makeModel, ManualClock, throwsKafka } from './cluster/helpers.js';
import type { ClusterModel } from '../../src/sim/cluster/model.js';

const MiB = 1024 * 1024;
const SET = 0;
const TOPIC = 2;
const BROKER = 4;

function cluster(brokers = 3, opts: { bandwidth?: number } = {}): { m: ClusterModel; clock: ManualClock } {
  const clock = new ManualClock();
  const m = makeModel(brokers, { clock, replicationBytesPerSecond: opts.bandwidth });
  return { m, clock };
}

function topic(m: ClusterModel, name: string, replicas: number[][], bytesEach = 0): void {
  m.createTopic({ name, assignments: replicas.map((brokerIds, partition) => ({ partition, brokerIds })) });
  replicas.forEach((_, p) => bytesEach > 0 && m.seedBytes(name, p, bytesEach));
}

function setTopicConfig(m: ClusterModel, name: string, configs: Record<string, string>): void {
  m.incrementalAlterConfigs(
    { type: TOPIC, name },
    Object.entries(configs).map(([n, value]) => ({ name: n, op: SET, value })),
  );
}

function setBrokerConfig(m: ClusterModel, broker: string, configs: Record<string, string>): void {
  m.incrementalAlterConfigs(
    { type: BROKER, name: broker },
    Object.entries(configs).map(([n, value]) => ({ name: n, op: SET, value })),
  );
}

/** Bytes broker `b` holds of topic/partition per DescribeLogDirs (undefined = not hosted). */
function sizeOn(m: ClusterModel, b: number, name: string, partition = 0): number | undefined {
  return m
    .logDirSizes(b, null)
    .find((t) => t.topic === name)
    ?.partitions.find((p) => p.partition === partition)?.sizeBytes;
}

function moving(m: ClusterModel): string[] {
  return m.listPartitionReassignments(null).flatMap((t) => t.partitions.map((p) => `${t.name}-${p.partitionIndex}`));
}

const elapse = (clock: ManualClock, ms: number) => {
  clock.t += ms;
};

test('while moving, replicas = target ++ sorted(current - target), adding and removing sorted; the ISR is unchanged', () => {
  const { m } = cluster(6);
  topic(m, 't', [[5, 2, 0]], MiB);
  const before = m.getPartition('t', 0);
  m.alterPartitionReassignment('t', 0, [4, 0, 3]);
  const p = m.getPartition('t', 0);
  assert.deepEqual(p.replicas, [4, 0, 3, 2, 5]);
  assert.deepEqual(p.isr, [5, 2, 0], 'new replicas are not in sync yet');
  assert.equal(p.leader, 5);
  assert.equal(p.partitionEpoch, before.partitionEpoch + 1);
  assert.deepEqual(m.listPartitionReassignments(null), [
    { name: 't', partitions: [{ partitionIndex: 0, replicas: [4, 0, 3, 2, 5], addingReplicas: [3, 4], removingReplicas: [2, 5] }] },
  ]);
});

test('a pure reorder completes at once and keeps the leader; a removal with the rest in sync completes at once', () => {
  const { m } = cluster(3);
  topic(
    m,
    't',
    [
      [0, 1, 2],
      [0, 1, 2],
    ],
    MiB,
  );
  const before = m.getPartition('t', 0);
  m.alterPartitionReassignment('t', 0, [2, 1, 0]);
  const reordered = m.getPartition('t', 0);
  assert.deepEqual(reordered.replicas, [2, 1, 0]);
  assert.equal(reordered.leader, 0);
  assert.equal(reordered.leaderEpoch, before.leaderEpoch);
  assert.deepEqual(moving(m), []);

  m.alterPartitionReassignment('t', 1, [1, 2]);
  const shrunk = m.getPartition('t', 1);
  assert.deepEqual(shrunk.replicas, [1, 2]);
  assert.deepEqual(shrunk.isr, [1, 2]);
  assert.equal(shrunk.leader, 1, 'the old leader left: the first target replica in sync leads');
  assert.equal(shrunk.leaderEpoch, before.leaderEpoch + 1);
  assert.deepEqual(moving(m), []);
  assert.equal(sizeOn(m, 0, 't', 1), undefined, 'the removed replica is gone from its broker');
});

test('without a throttle a copy runs at the broker bandwidth (default 50 MiB/s) and completes exactly on time', () => {
  const { m, clock } = cluster(3);
  topic(m, 't', [[0]], 100 * MiB);
  m.alterPartitionReassignment('t', 0, [1]);
  assert.equal(sizeOn(m, 1, 't'), 0, 'a new replica starts empty');
  elapse(clock, 1000);
  assert.equal(sizeOn(m, 1, 't'), 50 * MiB);
  assert.equal(sizeOn(m, 0, 't'), 100 * MiB);
  assert.deepEqual(moving(m), ['t-0']);
  elapse(clock, 999);
  assert.deepEqual(moving(m), ['t-0']);
  elapse(clock, 1);
  assert.deepEqual(moving(m), []);
  const p = m.getPartition('t', 0);
  assert.deepEqual([p.replicas, p.isr, p.leader, p.leaderEpoch], [[1], [1], 1, 1]);
  assert.equal(sizeOn(m, 1, 't'), 100 * MiB);
  assert.equal(sizeOn(m, 0, 't'), undefined);
});

test('the bandwidth is a Simulator option, shared by the copies out of one broker', () => {
  const { m, clock } = cluster(3, { bandwidth: 4 * MiB });
  topic(m, 'a', [[0]], 100 * MiB);
  topic(m, 'b', [[0]], 100 * MiB);
  m.alterPartitionReassignment('a', 0, [1]);
  m.alterPartitionReassignment('b', 0, [2]);
  elapse(clock, 1000);
  assert.equal(sizeOn(m, 1, 'a'), 2 * MiB);
  assert.equal(sizeOn(m, 2, 'b'), 2 * MiB);
});

test('a 10 MiB partition under a 1 MiB/s leader throttle is 50% copied after 5 s and done after 10 s', () => {
  const { m, clock } = cluster(3);
  topic(m, 't', [[0]], 10 * MiB);
  setTopicConfig(m, 't', { 'leader.replication.throttled.replicas': '0:0', 'follower.replication.throttled.replicas': '0:1' });
  setBrokerConfig(m, '0', { 'leader.replication.throttled.rate': String(MiB) });
  m.alterPartitionReassignment('t', 0, [1]);
  elapse(clock, 5000);
  assert.equal(sizeOn(m, 1, 't'), 5 * MiB);
  elapse(clock, 4999);
  assert.deepEqual(moving(m), ['t-0']);
  assert.deepEqual(m.getPartition('t', 0).isr, [0]);
  elapse(clock, 1);
  assert.deepEqual(moving(m), []);
  assert.deepEqual(m.getPartition('t', 0).replicas, [1]);
});

test('a follower throttle limits the copy into that broker; the cluster-default rate applies to brokers without their own', () => {
  const { m, clock } = cluster(3);
  topic(m, 't', [[0]], 10 * MiB);
  setTopicConfig(m, 't', { 'follower.replication.throttled.replicas': '*' });
  setBrokerConfig(m, '', { 'follower.replication.throttled.rate': String(2 * MiB) });
  m.alterPartitionReassignment('t', 0, [1]);
  elapse(clock, 1000);
  assert.equal(sizeOn(m, 1, 't'), 2 * MiB);
  setBrokerConfig(m, '1', { 'follower.replication.throttled.rate': String(MiB) });
  elapse(clock, 1000);
  assert.equal(sizeOn(m, 1, 't'), 3 * MiB, 'the per-broker value wins over the default from the moment it is set');
});

test('a throttle rate is shared equally by the throttled copies through a broker; unlisted partitions are not throttled', () => {
  const { m, clock } = cluster(3);
  topic(m, 't', [[0], [0], [0]], 100 * MiB);
  setTopicConfig(m, 't', { 'leader.replication.throttled.replicas': '0:0,1:0' });
  setBrokerConfig(m, '0', { 'leader.replication.throttled.rate': String(MiB) });
  for (const p of [0, 1, 2]) m.alterPartitionReassignment('t', p, [p === 2 ? 2 : 1]);
  elapse(clock, 4000);
  assert.equal(sizeOn(m, 1, 't', 0), 2 * MiB, 'half of 1 MiB/s for 4 s');
  assert.equal(sizeOn(m, 1, 't', 1), 2 * MiB);
  // Partition 2 is not listed: only the bandwidth (50 MiB/s out of broker 0, shared by 3 copies) limits it.
  assert.equal(sizeOn(m, 2, 't', 2), Math.floor(((50 * MiB) / 3) * 4));
});

test('a throttle listing another broker does not apply; changing the rate mid-copy integrates the old rate first', () => {
  const { m, clock } = cluster(3);
  topic(m, 't', [[0]], 100 * MiB);
  setTopicConfig(m, 't', { 'leader.replication.throttled.replicas': '0:2' });
  setBrokerConfig(m, '0', { 'leader.replication.throttled.rate': String(MiB) });
  m.alterPartitionReassignment('t', 0, [1]);
  elapse(clock, 1000);
  assert.equal(sizeOn(m, 1, 't'), 50 * MiB, 'broker 0 is not the listed leader');
  setTopicConfig(m, 't', { 'leader.replication.throttled.replicas': '0:0' });
  elapse(clock, 2000);
  assert.equal(sizeOn(m, 1, 't'), 52 * MiB);
  setBrokerConfig(m, '0', { 'leader.replication.throttled.rate': String(3 * MiB) });
  elapse(clock, 2000);
  assert.equal(sizeOn(m, 1, 't'), 58 * MiB);
});

test('data produced during a move must be copied too', () => {
  const { m, clock } = cluster(3, { bandwidth: MiB });
  topic(m, 't', [[0]], MiB);
  m.alterPartitionReassignment('t', 0, [1]);
  elapse(clock, 500);
  m.seedBytes('t', 0, MiB);
  const batch = buildBatch(['hello', 'world']);
  m.append('t', 0, batch);
  elapse(clock, 1000);
  assert.deepEqual(moving(m), ['t-0'], '1.5 MiB of 2 MiB + a batch copied');
  assert.equal(sizeOn(m, 1, 't'), 1.5 * MiB);
  elapse(clock, 500);
  assert.deepEqual(moving(m), ['t-0'], 'the batch is still missing');
  elapse(clock, Math.ceil((batch.length / MiB) * 1000));
  assert.deepEqual(moving(m), []);
  assert.equal(sizeOn(m, 1, 't'), 2 * MiB + batch.length);
  assert.equal(m.logOffsets('t', 0).logEndOffset, 2);
});

test('a move adding two replicas completes when the last one is in sync; the first joins the ISR on its own', () => {
  const { m, clock } = cluster(4);
  topic(m, 't', [[0]], 10 * MiB);
  setTopicConfig(m, 't', { 'follower.replication.throttled.replicas': '0:2' });
  setBrokerConfig(m, '2', { 'follower.replication.throttled.rate': String(MiB) });
  m.alterPartitionReassignment('t', 0, [1, 2]);
  elapse(clock, 1000); // broker 1 copies at 25 MiB/s (50 MiB/s out of broker 0 for two copies)
  const mid = m.getPartition('t', 0);
  assert.deepEqual(mid.isr, [0, 1], 'the replica that caught up goes last (Partition.scala maybeExpandIsr appends it)');
  assert.deepEqual(mid.replicas, [1, 2, 0]);
  assert.deepEqual(moving(m), ['t-0']);
  elapse(clock, 9000);
  const done = m.getPartition('t', 0);
  assert.deepEqual([done.replicas, done.isr, done.leader], [[1, 2], [1, 2], 1]);
});

test('cancel (null) reverts to the original replica set and drops the partial copy; 85 when nothing moves', () => {
  const { m, clock } = cluster(3);
  topic(m, 't', [[0, 1]], 100 * MiB);
  const before = m.getPartition('t', 0);
  m.alterPartitionReassignment('t', 0, [2, 1]);
  elapse(clock, 1000);
  assert.equal(sizeOn(m, 2, 't'), 50 * MiB);
  m.alterPartitionReassignment('t', 0, null);
  const p = m.getPartition('t', 0);
  // KRaft reverts to replicas - adding: the original set, in the moving list's order.
  assert.deepEqual([p.replicas, p.isr, p.leader], [[1, 0], before.isr, before.leader]);
  assert.deepEqual(moving(m), []);
  assert.equal(sizeOn(m, 2, 't'), undefined);
  elapse(clock, 10_000);
  assert.deepEqual(m.getPartition('t', 0).replicas, [1, 0], 'nothing resumes');
  assert.equal(throwsKafka(() => m.alterPartitionReassignment('t', 0, null), 85).wireMessage, null); // sent without a message
});

test('a new target for a moving partition replaces the reassignment, computed from the replicas as they are (KRaft)', () => {
  const { m, clock } = cluster(4);
  topic(m, 't', [[0]], 100 * MiB);
  m.alterPartitionReassignment('t', 0, [1]);
  elapse(clock, 1000);
  m.alterPartitionReassignment('t', 0, [2]);
  assert.deepEqual(m.listPartitionReassignments(null)[0].partitions[0], {
    partitionIndex: 0,
    replicas: [2, 0, 1],
    addingReplicas: [2],
    removingReplicas: [0, 1],
  });
  elapse(clock, 1000);
  assert.equal(sizeOn(m, 1, 't'), 50 * MiB, 'a replica being removed stops copying');
  assert.equal(sizeOn(m, 2, 't'), 50 * MiB);
  elapse(clock, 1000);
  const p = m.getPartition('t', 0);
  assert.deepEqual([p.replicas, p.isr, p.leader], [[2], [2], 2]);
  assert.equal(sizeOn(m, 1, 't'), undefined);
});

test('re-targeting to keep a replica that is still copying waits for it before completing', () => {
  const { m, clock } = cluster(4);
  topic(m, 't', [[0]], 100 * MiB);
  m.alterPartitionReassignment('t', 0, [1]);
  elapse(clock, 1000);
  m.alterPartitionReassignment('t', 0, [1, 2]); // current [1, 0]: adding [2], removing [0]
  assert.deepEqual(m.listPartitionReassignments(null)[0].partitions[0].addingReplicas, [2]);
  elapse(clock, 1000); // 1 needs 50 MiB more, 2 needs 100 MiB; they share broker 0's 50 MiB/s
  assert.equal(sizeOn(m, 1, 't'), 75 * MiB);
  assert.equal(sizeOn(m, 2, 't'), 25 * MiB);
  elapse(clock, 1000);
  assert.deepEqual(m.getPartition('t', 0).isr, [0, 1], 'broker 1 caught up and joined the ISR, last');
  elapse(clock, 1000);
  const p = m.getPartition('t', 0);
  assert.deepEqual([p.replicas, p.isr, p.leader], [[1, 2], [1, 2], 1]);
});

test('a stopped destination broker stalls its copy, which resumes where it was when the broker returns', () => {
  const { m, clock } = cluster(3);
  topic(m, 't', [[0]], 100 * MiB);
  m.alterPartitionReassignment('t', 0, [1]);
  elapse(clock, 1000);
  m.stopBroker(1);
  elapse(clock, 60_000);
  assert.equal(sizeOn(m, 1, 't'), 50 * MiB);
  assert.deepEqual(moving(m), ['t-0']);
  m.startBroker(1);
  assert.deepEqual(m.getPartition('t', 0).isr, [0], 'a returning replica that is still copying stays out of the ISR');
  elapse(clock, 999);
  assert.deepEqual(moving(m), ['t-0']);
  elapse(clock, 1);
  assert.deepEqual(m.getPartition('t', 0).replicas, [1]);
});

test('a returning broker rejoins the ISR last; the members keep their order (Partition.scala maybeExpandIsr appends)', () => {
  const { m } = cluster(3);
  topic(m, 't', [[0, 1, 2]]);
  m.stopBroker(0);
  assert.deepEqual([m.getPartition('t', 0).isr, m.getPartition('t', 0).leader], [[1, 2], 1]);
  m.startBroker(0);
  assert.deepEqual([m.getPartition('t', 0).isr, m.getPartition('t', 0).leader], [[1, 2, 0], 1]);
});

test('a stopped source leader stalls the copy; it resumes from the next leader in sync, or when the broker returns', () => {
  const { m, clock } = cluster(4);
  topic(m, 'one', [[0]], 100 * MiB);
  topic(m, 'two', [[2, 3]], 100 * MiB);
  m.alterPartitionReassignment('one', 0, [1]);
  m.alterPartitionReassignment('two', 0, [1, 3]);
  elapse(clock, 1000); // both copy into broker 1: 25 MiB/s each
  m.stopBroker(0);
  m.stopBroker(2);
  assert.equal(m.getPartition('one', 0).leader, -1);
  assert.equal(m.getPartition('two', 0).leader, 3, 'broker 3 took over and serves the copy');
  elapse(clock, 1000);
  assert.equal(sizeOn(m, 1, 'one'), 25 * MiB, 'no leader, no copy');
  assert.equal(sizeOn(m, 1, 'two'), 75 * MiB);
  elapse(clock, 1000);
  assert.deepEqual(m.getPartition('two', 0).replicas, [1, 3]);
  m.startBroker(0);
  assert.equal(m.getPartition('one', 0).leader, 0);
  elapse(clock, 1500);
  assert.deepEqual(m.getPartition('one', 0).replicas, [1]);
});

test('cancelling when only new replicas are in sync needs an unclean election: 39 unless the topic allows it', () => {
  const { m, clock } = cluster(3);
  topic(m, 't', [[0]], MiB);
  m.stopBroker(2);
  m.alterPartitionReassignment('t', 0, [1, 2]);
  elapse(clock, 1000); // broker 1 caught up; broker 2 is down, so the move cannot complete
  m.stopBroker(0);
  assert.deepEqual(m.getPartition('t', 0).isr, [1]);
  const before = m.getPartition('t', 0);
  throwsKafka(
    () => m.alterPartitionReassignment('t', 0, null),
    39,
    'Unable to revert partition assignment for t:0 because it would require an unclean leader election.',
  );
  assert.deepEqual(m.getPartition('t', 0), before, 'a refused cancel changes nothing');
  setTopicConfig(m, 't', { 'unclean.leader.election.enable': 'true' });
  m.alterPartitionReassignment('t', 0, null);
  const p = m.getPartition('t', 0);
  assert.deepEqual([p.replicas, p.isr, p.leader], [[0], [0], -1]);
});

test('deleting a moving topic forgets its move; seedBytes option sizes new partitions', () => {
  const clock = new ManualClock();
  const m = makeModel(2, { clock, seedBytes: (t, p) => (t === 'big' ? (p + 1) * MiB : 0) });
  topic(m, 'big', [[0], [0]]);
  assert.equal(m.sizeBytes('big', 1), 2 * MiB);
  m.alterPartitionReassignment('big', 0, [1]);
  m.deleteTopic('big');
  assert.deepEqual(m.listPartitionReassignments(null), []);
  topic(m, 'big', [[0]]);
  assert.deepEqual(m.listPartitionReassignments(null), [], 'a new topic of the same name is not moving');
  assert.equal(sizeOn(m, 1, 'big'), undefined);
});

test('an ISR join due within an advance is settled by that advance, even when the catch-up behind it happened in the same advance', () => {
  // 1,000 bytes at 1 MiB/s catch up after ~1 ms, the join comes one round trip (10 ms) after the
  // copy started: one read 10 ms later must see the move complete, not the read after it.
  const { m, clock } = cluster(3, { bandwidth: MiB });
  topic(m, 't', [[0]], 1000);
  m.alterPartitionReassignment('t', 0, [1]);
  elapse(clock, 10);
  assert.deepEqual(moving(m), [], 'complete at the first read');
  assert.deepEqual(m.getPartition('t', 0).replicas, [1]);
});
