// AlterPartitionReassignments (45), ListPartitionReassignments (46) and DescribeLogDirs (35)
// over real TCP: Kafka's error codes and messages in Kafka's order, what a failed item leaves
// (nothing), listing rules, per-broker log dir sizes under a hand-driven clock, ZooKeeper-mode
// NOT_CONTROLLER, and a round trip through @platformatic/kafka, the client the gateway uses.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Admin, alterPartitionReassignmentsV0, listPartitionReassignmentsV0, ResponseError } from '@platformatic/kafka';
import { ManualClock, startSimulator, type Simulator } from '../../src/sim/index.js';
import { request } from './wire.js';

const MiB = 1024 * 1024;
let sim: Simulator;
let clock: ManualClock;

before(async () => {
  clock = new ManualClock();
  // 3.9: the client's DescribeLogDirs (an old version 4.0 dropped, KIP-896) is sent here.
  sim = await startSimulator({ brokers: 4, clock, replicationBytesPerSecond: 10 * MiB, kafkaVersion: '3.9' });
});
after(async () => {
  await sim.close();
});

const port = (id: number): number => sim.endpoints().find((e) => e.id === id)!.port;

function createTopic(name: string, replicas: number[][], bytesEach = 0): void {
  sim.model.createTopic({ name, assignments: replicas.map((brokerIds, partition) => ({ partition, brokerIds })) });
  replicas.forEach((_, p) => bytesEach > 0 && sim.seedBytes(name, p, bytesEach));
}

type Target = { topic: string; partition: number; replicas: number[] | null };

function alter(targets: Target[], broker = 0): Promise<any> {
  const topics = [...new Set(targets.map((t) => t.topic))].map((name) => ({
    name,
    partitions: targets.filter((t) => t.topic === name).map((t) => ({ partitionIndex: t.partition, replicas: t.replicas })),
  }));
  return request(port(broker), 45, 0, { timeoutMs: 1000, topics });
}

function list(topics: { name: string; partitionIndexes: number[] }[] | null, broker = 0): Promise<any> {
  return request(port(broker), 46, 0, { timeoutMs: 1000, topics });
}

async function metadata(): Promise<unknown> {
  const res = await request(port(1), 3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  return res.topics.map((t: any) => ({ name: t.name, partitions: t.partitions }));
}

test('every validation error carries Kafka’s code and message, in Kafka’s order, and changes nothing', async () => {
  createTopic(
    'v',
    [
      [0, 1],
      [1, 2],
    ],
    MiB,
  );
  const before = await metadata();
  const res = await alter([
    { topic: 'nope', partition: 0, replicas: [] },
    { topic: 'v', partition: 7, replicas: [] },
    { topic: 'v', partition: -1, replicas: [0] },
    { topic: 'v', partition: 0, replicas: [] },
    { topic: 'v', partition: 0, replicas: [9, 1] },
    { topic: 'v', partition: 0, replicas: [2, 2] },
    { topic: 'v', partition: 0, replicas: [9, 1, 1] },
    { topic: 'v', partition: 1, replicas: null },
  ]);
  assert.equal(res.errorCode, 0);
  assert.equal(res.errorMessage, null);
  const byTopic = Object.fromEntries(
    res.responses.map((r: any) => [r.name, r.partitions.map((p: any) => [p.partitionIndex, p.errorCode, p.errorMessage])]),
  );
  assert.deepEqual(byTopic.nope, [[0, 3, 'Unable to find a topic named nope.']]);
  assert.deepEqual(byTopic.v, [
    [7, 3, 'Unable to find partition v:7.'],
    [-1, 3, 'Unable to find partition v:-1.'],
    [0, 39, 'The manual partition assignment includes an empty replica list.'],
    [0, 39, 'The manual partition assignment includes broker 9, but no such broker is registered.'],
    [0, 39, 'The manual partition assignment includes the broker 2 more than once.'],
    // ids are checked in ascending order: the repeated 1 comes before the unknown 9
    [0, 39, 'The manual partition assignment includes the broker 1 more than once.'],
    [1, 85, null], // Kafka's controller sends 85 without a message
  ]);
  assert.deepEqual(await metadata(), before);
  assert.deepEqual((await list(null)).topics, []);
});

test('a good partition succeeds next to bad ones; List shows replicas, adding and removing', async () => {
  createTopic(
    'mix',
    [
      [0, 1],
      [0, 1],
      [2, 3],
    ],
    100 * MiB,
  );
  const res = await alter([
    { topic: 'mix', partition: 0, replicas: [3, 1] },
    { topic: 'mix', partition: 1, replicas: [0, 9] },
    { topic: 'mix', partition: 2, replicas: [3, 0] },
  ]);
  assert.deepEqual(
    res.responses[0].partitions.map((p: any) => p.errorCode),
    [0, 39, 0],
  );
  const all = await list(null, 2);
  assert.equal(all.errorCode, 0);
  assert.deepEqual(all.topics, [
    {
      name: 'mix',
      partitions: [
        { partitionIndex: 0, replicas: [3, 1, 0], addingReplicas: [3], removingReplicas: [0] },
        { partitionIndex: 2, replicas: [3, 0, 2], addingReplicas: [0], removingReplicas: [2] },
      ],
    },
  ]);
  // Named topics: request order, partitions not moving and unknown topics silently left out.
  const some = await list([
    { name: 'ghost', partitionIndexes: [0] },
    { name: 'mix', partitionIndexes: [2, 1, 0, 42] },
    { name: 'v', partitionIndexes: [0, 1] },
  ]);
  assert.deepEqual(
    some.topics.map((t: any) => [t.name, t.partitions.map((p: any) => p.partitionIndex)]),
    [['mix', [2, 0]]],
  );
  // Cancel both. Every entry is checked against the state before the request (as Kafka's
  // controller does), so the same cancel listed twice succeeds twice.
  const cancelled = await alter([
    { topic: 'mix', partition: 0, replicas: null },
    { topic: 'mix', partition: 2, replicas: null },
    { topic: 'mix', partition: 2, replicas: null },
  ]);
  assert.deepEqual(
    cancelled.responses[0].partitions.map((p: any) => p.errorCode),
    [0, 0, 0],
  );
  assert.deepEqual((await list(null)).topics, []);
});

test('DescribeLogDirs: each broker reports its own replicas; a new replica reports the bytes it has copied', async () => {
  createTopic('sizes', [[0], [1]], 20 * MiB);
  const ok = await alter([{ topic: 'sizes', partition: 0, replicas: [2] }]);
  assert.equal(ok.responses[0].partitions[0].errorCode, 0);
  clock.advance(1000); // 10 MiB/s bandwidth in this cluster
  const onlySizes = [{ topic: 'sizes', partitions: [0, 1, 5] }];
  const sizesOf = async (broker: number, version = 4) => {
    const res = await request(port(broker), 35, version, { topics: onlySizes });
    assert.equal(res.results.length, 1);
    assert.equal(res.results[0].errorCode, 0);
    assert.equal(res.results[0].logDir, `/var/lib/kafka/data-${broker}`);
    return res.results[0].topics.flatMap((t: any) =>
      t.partitions.map((p: any) => [t.name, p.partitionIndex, Number(p.partitionSize), Number(p.offsetLag), p.isFutureKey]),
    );
  };
  assert.deepEqual(await sizesOf(0), [['sizes', 0, 20 * MiB, 0, false]]);
  assert.deepEqual(await sizesOf(1, 0), [['sizes', 1, 20 * MiB, 0, false]]);
  assert.deepEqual(await sizesOf(2, 2), [['sizes', 0, 10 * MiB, 0, false]]);
  assert.deepEqual(await sizesOf(3), []);

  const v4 = await request(port(2), 35, 4, { topics: null });
  assert.equal(v4.errorCode, 0);
  const dir = v4.results[0];
  assert.ok(
    dir.topics.some((t: any) => t.name === 'sizes'),
    'topics null lists every replica',
  );
  const used = dir.topics.flatMap((t: any) => t.partitions).reduce((s: bigint, p: any) => s + p.partitionSize, 0n);
  assert.equal(dir.totalBytes - dir.usableBytes, used);

  clock.advance(1000);
  assert.deepEqual(await sizesOf(2), [['sizes', 0, 20 * MiB, 0, false]]);
  assert.deepEqual(await sizesOf(0), [], 'the move completed: broker 0 no longer hosts the partition');
});

test('a broker stopped mid-move stalls the copy; it completes after the broker returns', async () => {
  createTopic('stall', [[0]], 20 * MiB);
  await alter([{ topic: 'stall', partition: 0, replicas: [3] }]);
  clock.advance(500);
  await sim.stopBroker(3);
  clock.advance(60_000);
  const mid = await request(port(0), 35, 4, { topics: [{ topic: 'stall', partitions: [0] }] });
  assert.equal(Number(mid.results[0].topics[0].partitions[0].partitionSize), 20 * MiB, 'the leader still has it all');
  assert.equal((await list([{ name: 'stall', partitionIndexes: [0] }])).topics.length, 1);
  await sim.startBroker(3);
  const resumed = await request(port(3), 35, 4, { topics: [{ topic: 'stall', partitions: [0] }] });
  assert.equal(Number(resumed.results[0].topics[0].partitions[0].partitionSize), 5 * MiB);
  clock.advance(1500);
  assert.deepEqual((await list(null)).topics, []);
  const md = await request(port(0), 3, 12, {
    topics: [{ name: 'stall', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  const p = md.topics[0].partitions[0];
  assert.deepEqual([p.replicaNodes, p.isrNodes, p.leaderId], [[3], [3], 3]);
});

test('ZooKeeper mode: a broker that is not the controller answers NOT_CONTROLLER to 45 and 46', async () => {
  const zk = await startSimulator({ brokers: 2, notControllerErrors: true });
  try {
    zk.model.createTopic({ name: 'z', assignments: [{ partition: 0, brokerIds: [0] }] });
    const other = zk.endpoints().find((e) => e.id !== zk.model.controllerId)!;
    const body = { timeoutMs: 1000, topics: [{ name: 'z', partitions: [{ partitionIndex: 0, replicas: [1] }] }] };
    const refused = await request(other.port, 45, 0, body);
    assert.deepEqual(
      [refused.errorCode, refused.errorMessage, refused.responses],
      [41, 'This is not the correct controller for this cluster.', []],
    );
    const listed = await request(other.port, 46, 0, { timeoutMs: 1000, topics: null });
    assert.deepEqual([listed.errorCode, listed.topics], [41, []]);
    assert.deepEqual(zk.model.getPartition('z', 0).replicas, [0], 'nothing changed');
    const controller = zk.endpoints().find((e) => e.id === zk.model.controllerId)!;
    const ok = await request(controller.port, 45, 0, body);
    assert.equal(ok.responses[0].partitions[0].errorCode, 0);
  } finally {
    await zk.close();
  }
});

test('@platformatic/kafka: alter and list reassignments (v0), describeLogDirs on every broker, metadata after completion', async () => {
  createTopic('plt', [[0], [1]], 30 * MiB);
  const admin = new Admin({ clientId: 'reassign-test', bootstrapBrokers: sim.bootstrapServers, retries: 0 });
  try {
    const conns = await admin.connectToBrokers([0]);
    const conn = conns.get(0)!;
    const altered = await alterPartitionReassignmentsV0.api.async(conn, 30_000, false, [
      {
        name: 'plt',
        partitions: [
          { partitionIndex: 0, replicas: [2] },
          { partitionIndex: 1, replicas: [3] },
        ],
      },
    ]);
    assert.deepEqual(
      altered.responses[0].partitions.map((p) => p.errorCode),
      [0, 0],
    );

    const listed = await listPartitionReassignmentsV0.api.async(conn, 30_000, [{ name: 'plt', partitionIndexes: [0, 1] }]);
    assert.deepEqual(
      listed.topics[0].partitions.map((p) => [p.partitionIndex, p.replicas, p.addingReplicas, p.removingReplicas]),
      [
        [0, [2, 0], [2], [0]],
        [1, [3, 1], [3], [1]],
      ],
    );

    clock.advance(1500);
    const dirs = await admin.describeLogDirs({ topics: [{ name: 'plt', partitions: [0, 1] }] });
    const sizes = dirs
      .flatMap((b) =>
        b.results.flatMap((r) => r.topics.flatMap((t) => t.partitions.map((p) => [b.broker, p.partitionIndex, p.partitionSize]))),
      )
      .sort((a, b) => Number(a[0]) - Number(b[0]));
    assert.deepEqual(sizes, [
      [0, 0, BigInt(30 * MiB)],
      [1, 1, BigInt(30 * MiB)],
      [2, 0, BigInt(15 * MiB)],
      [3, 1, BigInt(15 * MiB)],
    ]);

    // A cancel (null replicas) through the client, and an error the client reports with Kafka's text.
    const cancelled = await alterPartitionReassignmentsV0.api.async(conn, 30_000, false, [
      { name: 'plt', partitions: [{ partitionIndex: 1, replicas: null }] },
    ]);
    assert.equal(cancelled.responses[0].partitions[0].errorCode, 0);
    await assert.rejects(
      alterPartitionReassignmentsV0.api.async(conn, 30_000, false, [{ name: 'plt', partitions: [{ partitionIndex: 1, replicas: null }] }]),
      (err: unknown) => {
        assert.ok(err instanceof ResponseError);
        const part = (err as any).response.responses[0].partitions[0];
        assert.deepEqual([part.errorCode, part.errorMessage], [85, null]);
        return true;
      },
    );

    clock.advance(1500);
    assert.deepEqual((await listPartitionReassignmentsV0.api.async(conn, 30_000, null as any)).topics, []);
    const md = await admin.metadata({ topics: ['plt'], forceUpdate: true });
    const partitions = md.topics.get('plt')!.partitions;
    assert.deepEqual([partitions[0].replicas, partitions[0].leader], [[2], 2]);
    assert.deepEqual([partitions[1].replicas, partitions[1].leader], [[1], 1]);
  } finally {
    await admin.close();
  }
});

test('a move of an empty partition completes one replication round trip after the request, not inside it', async () => {
  createTopic('empty-move', [[0, 1]]);
  const res = await alter([{ topic: 'empty-move', partition: 0, replicas: [2, 3] }]);
  assert.equal(res.responses[0].partitions[0].errorCode, 0);
  const moving = () => list([{ name: 'empty-move', partitionIndexes: [0] }]).then((r) => r.topics.length === 1);
  // Nothing to copy, but the new replicas still have to fetch and be added to the ISR.
  assert.equal(await moving(), true, 'still moving right after the response');
  clock.advance(9);
  assert.equal(await moving(), true, 'still moving before the round trip (10 ms by default)');
  const isr = async () => ((await metadata()) as any[]).find((t) => t.name === 'empty-move').partitions[0];
  assert.deepEqual((await isr()).isrNodes, [0, 1]);
  clock.advance(1);
  assert.equal(await moving(), false);
  const p = await isr();
  assert.deepEqual([p.replicaNodes, [...p.isrNodes].sort(), p.leaderId], [[2, 3], [2, 3], 2]);
  assert.equal(sim.reassignmentCompletedAt('empty-move', 0), clock.now());
});
