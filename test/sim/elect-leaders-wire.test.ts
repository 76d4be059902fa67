// ElectLeaders (43) over real TCP, every version (v0-v2) and every answer Kafka's controller
// gives (ReplicationControlManager.electLeaders / PartitionChangeBuilder): elected (epoch bumped),
// ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE,
// UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST for an unknown type, null = all partitions (those
// needing no election left out), and ZooKeeper mode's NOT_CONTROLLER.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock, startSimulator, type Simulator } from '../../src/sim/index.js';
import { exchange, frame, request } from './wire.js';

let sim: Simulator;

before(async () => {
  sim = await startSimulator({ brokers: 3, clock: new ManualClock() });
});
after(async () => {
  await sim.close();
});

const anyPort = (): number => sim.endpoints().find((e) => e.up)!.port;

function createTopic(name: string, replicas: number[][]): void {
  sim.model.createTopic({ name, assignments: replicas.map((brokerIds, partition) => ({ partition, brokerIds })) });
}

function elect(
  version: number,
  topicPartitions: { topic: string; partitions: number[] }[] | null,
  electionType = 0,
  at = anyPort(),
): Promise<any> {
  return request(at, 43, version, { electionType, topicPartitions, timeoutMs: 1000 });
}

const rows = (res: any) =>
  res.replicaElectionResults.flatMap((t: any) => t.partitionResult.map((p: any) => [t.topic, p.partitionId, p.errorCode, p.errorMessage]));

/** Moves leadership of topic-partition away from its first replica: stop and restart that broker. */
async function displaceLeader(topic: string, partition: number): Promise<void> {
  const preferred = sim.model.getPartition(topic, partition).replicas[0];
  await sim.stopBroker(preferred);
  await sim.startBroker(preferred);
  const p = sim.model.getPartition(topic, partition);
  assert.notEqual(p.leader, preferred);
  assert.ok(p.isr.includes(preferred), 'the restarted replica is back in the ISR');
}

test('ApiVersions advertises ElectLeaders v0-v2', async () => {
  const res = await request(anyPort(), 18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  assert.deepEqual(
    res.apiKeys.filter((k: any) => k.apiKey === 43).map((k: any) => [k.minVersion, k.maxVersion]),
    [[0, 2]],
  );
});

for (const version of [0, 1, 2]) {
  test(`v${version}: a preferred election moves leadership back to the first replica and bumps the leader epoch`, async () => {
    const topic = `pref-v${version}`;
    createTopic(topic, [
      [0, 1, 2],
      [1, 2, 0],
    ]);
    await displaceLeader(topic, 0);
    const before = sim.model.getPartition(topic, 0);
    const res = await elect(version, [{ topic, partitions: [0, 1] }]);
    if (version > 0) assert.equal(res.errorCode, 0);
    assert.deepEqual(rows(res), [
      [topic, 0, 0, null],
      [topic, 1, 84, 'Leader election not needed for topic partition.'],
    ]);
    const after = sim.model.getPartition(topic, 0);
    assert.equal(after.leader, 0);
    assert.equal(after.leaderEpoch, before.leaderEpoch + 1);
    assert.deepEqual(after.replicas, [0, 1, 2], 'an election changes no replica list');
    // A second time: nothing to do.
    assert.deepEqual(rows(await elect(version, [{ topic, partitions: [0] }])), [
      [topic, 0, 84, 'Leader election not needed for topic partition.'],
    ]);
  });

  test(`v${version}: unknown topics and partitions answer UNKNOWN_TOPIC_OR_PARTITION with KRaft's messages`, async () => {
    createTopic(`known-v${version}`, [[0, 1]]);
    const res = await elect(version, [
      { topic: 'no-such-topic', partitions: [0] },
      { topic: `known-v${version}`, partitions: [5, -1] },
    ]);
    assert.deepEqual(rows(res), [
      ['no-such-topic', 0, 3, 'No such topic as no-such-topic'],
      [`known-v${version}`, 5, 3, `No such partition as known-v${version}-5`],
      [`known-v${version}`, -1, 3, `No such partition as known-v${version}--1`],
    ]);
  });
}

test('v0 bytes: throttle_time_ms then the results array, no top-level error code; v1 has one', async () => {
  createTopic('bytes', [[0, 1]]);
  const body = { electionType: 0, topicPartitions: [{ topic: 'bytes', partitions: [0] }], timeoutMs: 1000 };
  const v0 = (await exchange(anyPort(), frame(43, 0, body))) as Buffer;
  // correlation id (4), throttle_time_ms (4), then INT32 count of topics = 1
  assert.equal(v0.readInt32BE(8), 1);
  const v1 = (await exchange(anyPort(), frame(43, 1, body))) as Buffer;
  assert.equal(v1.readInt16BE(8), 0); // error_code
  assert.equal(v1.readInt32BE(10), 1);
});

test('preferred election with the first replica down: PREFERRED_LEADER_NOT_AVAILABLE, nothing changes', async () => {
  createTopic('pref-down', [[2, 0, 1]]);
  await sim.stopBroker(2);
  try {
    const before = sim.model.getPartition('pref-down', 0);
    assert.notEqual(before.leader, 2);
    const res = await elect(2, [{ topic: 'pref-down', partitions: [0] }]);
    assert.deepEqual(rows(res), [['pref-down', 0, 80, 'The preferred leader was not available.']]);
    assert.deepEqual(sim.model.getPartition('pref-down', 0), before);
  } finally {
    await sim.startBroker(2);
  }
  // Back and in the ISR: now it can lead again.
  assert.deepEqual(rows(await elect(2, [{ topic: 'pref-down', partitions: [0] }])), [['pref-down', 0, 0, null]]);
  assert.equal(sim.model.getPartition('pref-down', 0).leader, 2);
});

test('unclean election: not needed while there is a leader; elects an out-of-ISR replica when none is left; 83 when no replica is up', async () => {
  createTopic('unclean', [
    [0, 1],
    [0, 1],
  ]);
  assert.deepEqual(rows(await elect(1, [{ topic: 'unclean', partitions: [0] }], 1)), [
    ['unclean', 0, 84, 'Leader election not needed for topic partition.'],
  ]);
  // 1 leaves the ISR, then 0 (the last ISR member) stops: no leader. 1 comes back outside the ISR.
  await sim.stopBroker(1);
  await sim.stopBroker(0);
  try {
    const offline = sim.model.getPartition('unclean', 0);
    assert.equal(offline.leader, -1);
    assert.deepEqual(offline.isr, [0]);
    // No replica up at all: nothing can be elected, even uncleanly.
    assert.deepEqual(rows(await elect(2, [{ topic: 'unclean', partitions: [0] }], 1)), [
      ['unclean', 0, 83, 'Eligible topic partition leaders are not available.'],
    ]);
    await sim.startBroker(1);
    assert.equal(sim.model.getPartition('unclean', 0).leader, -1, 'unclean.leader.election.enable is false: no automatic unclean election');
    // A preferred election cannot help: the preferred replica is down and no ISR member is up.
    assert.deepEqual(rows(await elect(2, [{ topic: 'unclean', partitions: [0] }], 0)), [
      ['unclean', 0, 80, 'The preferred leader was not available.'],
    ]);
    const res = await elect(2, [{ topic: 'unclean', partitions: [0, 1] }], 1);
    assert.equal(res.errorCode, 0);
    assert.deepEqual(rows(res), [
      ['unclean', 0, 0, null],
      ['unclean', 1, 0, null],
    ]);
    const after = sim.model.getPartition('unclean', 0);
    assert.equal(after.leader, 1);
    assert.deepEqual(after.isr, [1], 'an unclean leader is the whole ISR');
    assert.equal(after.leaderEpoch, offline.leaderEpoch + 1);
  } finally {
    await sim.startBroker(0);
    await sim.startBroker(1);
  }
});

test('an unknown election type: INVALID_REQUEST at the top level and for every partition (getErrorResponse)', async () => {
  createTopic('bad-type', [[0, 1]]);
  for (const version of [1, 2]) {
    const res = await elect(version, [{ topic: 'bad-type', partitions: [0] }], 7);
    assert.equal(res.errorCode, 42);
    assert.deepEqual(rows(res), [['bad-type', 0, 42, 'Unknown election type 7']]);
    const all = await elect(version, null, 7);
    assert.equal(all.errorCode, 42);
    assert.deepEqual(all.replicaElectionResults, []);
  }
});

test('null topic_partitions elects every partition that needs it and leaves out the others (every topic is listed)', async () => {
  createTopic('all-a', [
    [0, 1],
    [1, 0],
    [2, 0],
  ]);
  createTopic('all-b', [[1, 2]]);
  await displaceLeader('all-a', 0); // stops broker 0: all-a-0 moves to 1
  // Every other partition of the cluster is led by its preferred replica now? Elect once to settle.
  const settle = await elect(2, null);
  const settled = rows(settle).filter((r: any) => r[0] === 'all-a' || r[0] === 'all-b');
  assert.deepEqual(settled, [['all-a', 0, 0, null]]);
  assert.ok(
    settle.replicaElectionResults.some((t: any) => t.topic === 'all-b' && t.partitionResult.length === 0),
    'KRaft lists a topic with nothing elected',
  );
  assert.equal(sim.model.getPartition('all-a', 0).leader, 0);
  for (const version of [0, 1, 2]) {
    const again = await elect(version, null);
    assert.deepEqual(rows(again), [], `v${version}: nothing left to elect`);
  }
});

test('ZooKeeper mode: a broker that is not the controller answers NOT_CONTROLLER per partition; the controller elects', async () => {
  const zk = await startSimulator({ brokers: 2, clock: new ManualClock(), notControllerErrors: true });
  try {
    zk.model.createTopic({ name: 'z', assignments: [{ partition: 0, brokerIds: [1, 0] }] });
    const zkPort = (id: number) => zk.endpoints().find((e) => e.id === id)!.port;
    await zk.stopBroker(1);
    await zk.startBroker(1);
    const controller = zk.model.controllerId;
    const other = controller === 0 ? 1 : 0;
    const refused = await request(zkPort(other), 43, 2, {
      electionType: 0,
      topicPartitions: [{ topic: 'z', partitions: [0] }],
      timeoutMs: 1000,
    });
    assert.equal(refused.errorCode, 0);
    assert.deepEqual(rows(refused), [['z', 0, 41, null]]);
    const unknown = await request(zkPort(controller), 43, 2, {
      electionType: 0,
      topicPartitions: [{ topic: 'nope', partitions: [0] }],
      timeoutMs: 1000,
    });
    assert.deepEqual(rows(unknown), [['nope', 0, 3, 'The partition does not exist.']]);
    const done = await request(zkPort(controller), 43, 2, { electionType: 0, topicPartitions: null, timeoutMs: 1000 });
    assert.deepEqual(rows(done), [['z', 0, 0, null]]);
    const none = await request(zkPort(controller), 43, 2, { electionType: 0, topicPartitions: null, timeoutMs: 1000 });
    assert.deepEqual(none.replicaElectionResults, [], 'ZooKeeper mode leaves out topics with nothing to report');
  } finally {
    await zk.close();
  }
});
