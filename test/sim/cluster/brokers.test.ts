import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeModel, throwsKafka } from './helpers.js';

test('brokers: ids, racks, up state; controller is the lowest id', () => {
  const m = makeModel([
    { id: 5, rack: 'a' },
    { id: 2, rack: null },
    { id: 9, rack: 'b' },
  ]);
  assert.deepEqual(m.listBrokers(), [
    { id: 2, rack: null, up: true },
    { id: 5, rack: 'a', up: true },
    { id: 9, rack: 'b', up: true },
  ]);
  assert.equal(m.controllerId, 2);
  assert.equal(m.clusterId, 'test-cluster');
  throwsKafka(
    () =>
      makeModel([
        { id: 1, rack: null },
        { id: 1, rack: null },
      ]),
    42,
    'Duplicate broker id 1.',
  );
  throwsKafka(() => makeModel([{ id: -1, rack: null }]), 42);
  throwsKafka(() => m.stopBroker(77), 102);
});

test('controller moves to the lowest live broker, and back when all were down', () => {
  const m = makeModel(3);
  m.stopBroker(1);
  assert.equal(m.controllerId, 0);
  m.stopBroker(0);
  assert.equal(m.controllerId, 2);
  m.startBroker(0);
  assert.equal(m.controllerId, 2, 'a returning broker does not take the controller back');
  m.stopBroker(2);
  assert.equal(m.controllerId, 0);
  m.stopBroker(0);
  assert.equal(m.controllerId, -1);
  m.startBroker(1);
  assert.equal(m.controllerId, 1);
  assert.deepEqual(
    m.listBrokers().map((b) => b.up),
    [false, true, false],
  );
});

test('stopBroker: leaves ISRs, led partitions elect the next ISR replica, epochs bump', () => {
  const m = makeModel(3);
  m.createTopic({
    name: 't',
    assignments: [
      { partition: 0, brokerIds: [0, 1, 2] },
      { partition: 1, brokerIds: [1, 0, 2] },
    ],
  });
  m.stopBroker(0);
  let [p0, p1] = m.getTopic('t')!.partitions;
  assert.equal(p0.leader, 1);
  assert.equal(p0.leaderEpoch, 1);
  assert.deepEqual(p0.isr, [1, 2]);
  assert.deepEqual(p0.offlineReplicas, [0]);
  assert.equal(p1.leader, 1, 'leader unchanged');
  assert.equal(p1.leaderEpoch, 0, 'no leader change, no epoch bump');
  assert.deepEqual(p1.isr, [1, 2]);
  assert.equal(p1.partitionEpoch, 1, 'ISR change bumps the partition epoch');

  m.stopBroker(0); // idempotent
  assert.equal(m.getTopic('t')!.partitions[0].leaderEpoch, 1);

  m.stopBroker(1);
  [p0, p1] = m.getTopic('t')!.partitions;
  assert.equal(p0.leader, 2);
  assert.equal(p0.leaderEpoch, 2);
  assert.deepEqual(p0.isr, [2]);
  assert.equal(p1.leader, 2);
  assert.equal(p1.leaderEpoch, 1);

  // the last ISR member stays in the ISR, with no leader (KRaft without ELR)
  m.stopBroker(2);
  [p0] = m.getTopic('t')!.partitions;
  assert.equal(p0.leader, -1);
  assert.equal(p0.leaderEpoch, 3);
  assert.deepEqual(p0.isr, [2]);
  assert.deepEqual(p0.offlineReplicas, [0, 1, 2]);
  throwsKafka(() => m.append('t', 0, Buffer.alloc(0)), 5);
});

test('startBroker: rejoins ISRs, leaderless partitions get a leader from the ISR', () => {
  const m = makeModel(3);
  m.createTopic({ name: 't', assignments: [{ partition: 0, brokerIds: [0, 1, 2] }] });
  m.stopBroker(1);
  m.startBroker(1);
  let [p] = m.getTopic('t')!.partitions;
  assert.equal(p.leader, 0);
  // A replica that rejoins goes last (Partition.scala maybeExpandIsr appends it to the ISR).
  assert.deepEqual(p.isr, [0, 2, 1]);
  assert.equal(p.leaderEpoch, 0);

  m.stopBroker(0);
  m.stopBroker(1);
  m.stopBroker(2);
  [p] = m.getTopic('t')!.partitions;
  assert.equal(p.leader, -1);
  assert.deepEqual(p.isr, [2]);
  const epoch = p.leaderEpoch;

  // broker 0 is not in the ISR: no clean leader, it cannot rejoin without a leader
  m.startBroker(0);
  [p] = m.getTopic('t')!.partitions;
  assert.equal(p.leader, -1);
  assert.deepEqual(p.isr, [2]);

  // the last ISR member returns: it leads, and the live replica catches up at once
  m.startBroker(2);
  [p] = m.getTopic('t')!.partitions;
  assert.equal(p.leader, 2);
  assert.equal(p.leaderEpoch, epoch + 1);
  assert.deepEqual(p.isr, [2, 0]);
  m.startBroker(1);
  [p] = m.getTopic('t')!.partitions;
  assert.deepEqual(p.isr, [2, 0, 1]);
  assert.equal(p.leader, 2, 'no automatic preferred-leader election');
  assert.deepEqual(p.offlineReplicas, []);
});

test('unclean.leader.election.enable=true lets an out-of-sync replica lead', () => {
  const m = makeModel(2);
  m.createTopic({
    name: 'u',
    assignments: [{ partition: 0, brokerIds: [0, 1] }],
    configs: [{ name: 'unclean.leader.election.enable', value: 'true' }],
  });
  m.stopBroker(1);
  m.stopBroker(0);
  let [p] = m.getTopic('u')!.partitions;
  assert.equal(p.leader, -1);
  assert.deepEqual(p.isr, [0]);
  m.startBroker(1);
  [p] = m.getTopic('u')!.partitions;
  assert.equal(p.leader, 1);
  assert.deepEqual(p.isr, [1]);
  m.startBroker(0);
  [p] = m.getTopic('u')!.partitions;
  assert.deepEqual(p.isr, [1, 0], 'the returning replica goes after the leader');
});
