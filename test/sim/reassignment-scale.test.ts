// The simulator at the size of issue 8 and what its tests need to measure it: the clock time
// Kafka finished each move (completedAt, onReassignmentCompleted), Metadata views that follow
// every change though cached, and a 20,000-partition move through the model from start to end.
// Speed is measured by bench/sim-scale.ts, not here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeModel, ManualClock } from './cluster/helpers.js';
import { startSimulator, type CompletedReassignment } from '../../src/sim/index.js';
import { request } from './wire.js';

const MiB = 1024 * 1024;

test('completedAt is the moment the last new replica caught up, however late the simulator is asked', () => {
  const clock = new ManualClock();
  const m = makeModel(3, { clock });
  m.createTopic({
    name: 't',
    assignments: [
      { partition: 0, brokerIds: [0] },
      { partition: 1, brokerIds: [0] },
    ],
  });
  m.seedBytes('t', 0, 100 * MiB);
  m.seedBytes('t', 1, 50 * MiB);
  const heard: CompletedReassignment[] = [];
  const unsubscribe = m.onReassignmentCompleted((c) => heard.push(c));
  const start = clock.t;
  m.alterPartitionReassignment('t', 0, [1]);
  m.alterPartitionReassignment('t', 1, [2]);
  assert.equal(m.reassignmentCompletedAt('t', 0), null, 'nothing completed yet');
  clock.t += 60_000; // nobody looked for a minute
  // Out of broker 0 at 50 MiB/s shared: 25 MiB/s each until t1 is done at 2 s, then 50 MiB/s: t0 done at 3 s.
  assert.deepEqual(
    heard.map((c) => [c.topic, c.partition, c.replicas, c.completedAt - start]),
    [],
    'copies advance lazily: nothing is heard before the model is read',
  );
  assert.equal(m.reassignmentCompletedAt('t', 1), start + 2000);
  assert.equal(m.reassignmentCompletedAt('t', 0), start + 3000);
  assert.deepEqual(
    heard.map((c) => [c.topic, c.partition, c.replicas, c.completedAt - start]),
    [
      ['t', 1, [2], 2000],
      ['t', 0, [1], 3000],
    ],
  );
  // A move with nothing to copy completes at once, at the request's time; a cancel is no completion.
  m.createTopic({ name: 'r', assignments: [{ partition: 0, brokerIds: [0, 1] }] });
  m.seedBytes('r', 0, MiB);
  m.alterPartitionReassignment('r', 0, [2, 1]);
  m.alterPartitionReassignment('r', 0, null);
  m.alterPartitionReassignment('r', 0, [1, 0]);
  assert.equal(m.reassignmentCompletedAt('r', 0), clock.t);
  assert.equal(heard.length, 3);
  unsubscribe();
  m.alterPartitionReassignment('r', 0, [0, 1]);
  assert.equal(heard.length, 3, 'unsubscribed');
});

test('with the system clock the simulator settles copies on its own: the completion is heard without a request', async () => {
  const sim = await startSimulator({ brokers: 2, replicationBytesPerSecond: 50 * MiB });
  try {
    sim.model.createTopic({ name: 'quick', assignments: [{ partition: 0, brokerIds: [0] }] });
    sim.seedBytes('quick', 0, 5 * MiB); // 100 ms at 50 MiB/s
    const heard = new Promise<CompletedReassignment>((resolve) => sim.onReassignmentCompleted(resolve));
    const started = Date.now();
    sim.model.alterPartitionReassignment('quick', 0, [1]);
    const done = await heard;
    assert.deepEqual([done.topic, done.partition, done.replicas], ['quick', 0, [1]]);
    assert.ok(
      done.completedAt >= started + 99 && done.completedAt <= Date.now(),
      `completedAt ${done.completedAt - started} ms after the start`,
    );
    assert.equal(sim.reassignmentCompletedAt('quick', 0), done.completedAt);
  } finally {
    await sim.close();
  }
});

test('Metadata answers from cached topic views that follow every change: moves, new partitions, stopped brokers', async () => {
  const clock = new ManualClock();
  const sim = await startSimulator({ brokers: 3, clock: clock, replicationBytesPerSecond: 10 * MiB });
  const port = sim.endpoints()[0].port;
  const metadata = async () => {
    const res = await request(port, 3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    return res.topics.map((t: any) => [
      t.name,
      t.partitions.map((p: any) => [p.partitionIndex, p.leaderId, p.replicaNodes, p.isrNodes, p.offlineReplicas]),
    ]);
  };
  try {
    sim.model.createTopic({ name: 'a', assignments: [{ partition: 0, brokerIds: [0, 1] }] });
    sim.model.createTopic({ name: 'b', assignments: [{ partition: 0, brokerIds: [1] }] });
    sim.seedBytes('a', 0, 10 * MiB);
    assert.deepEqual(await metadata(), [
      ['a', [[0, 0, [0, 1], [0, 1], []]]],
      ['b', [[0, 1, [1], [1], []]]],
    ]);
    sim.model.alterPartitionReassignment('a', 0, [2, 1]);
    assert.deepEqual((await metadata())[0], ['a', [[0, 0, [2, 1, 0], [0, 1], []]]]);
    clock.t += 1000;
    // ISR [0, 1] + 2 (appended as it caught up), less the removed 0: [1, 2].
    assert.deepEqual((await metadata())[0], ['a', [[0, 2, [2, 1], [1, 2], []]]], 'the move completed: the first new replica in sync leads');
    sim.model.createPartitions('b', 2, [[0]]);
    assert.deepEqual((await metadata())[1], [
      'b',
      [
        [0, 1, [1], [1], []],
        [1, 0, [0], [0], []],
      ],
    ]);
    await sim.stopBroker(1);
    assert.deepEqual(await metadata(), [
      ['a', [[0, 2, [2, 1], [2], [1]]]],
      [
        'b',
        [
          [0, -1, [1], [1], [1]],
          [1, 0, [0], [0], []],
        ],
      ], // KRaft keeps the last ISR member, leaderless
    ]);
    sim.model.createTopic({ name: 'c', assignments: [{ partition: 0, brokerIds: [2] }] });
    sim.model.deleteTopic('b');
    assert.deepEqual(
      (await metadata()).map((t: any) => t[0]),
      ['a', 'c'],
    );
  } finally {
    await sim.close();
  }
});

test('20,000 partitions move at once: listed, sized per broker, and all complete in time order', () => {
  const clock = new ManualClock();
  const brokers = 12;
  const m = makeModel(brokers, { clock, seedBytes: (_t, p) => (1 + (p % 7)) * MiB });
  const replicas = (i: number) => [i % brokers, (i + 1) % brokers, (i + 2) % brokers];
  for (let t = 0; t < 20; t++) {
    m.createTopic({
      name: `big-${t}`,
      assignments: Array.from({ length: 1000 }, (_, p) => ({ partition: p, brokerIds: replicas(t * 1000 + p) })),
    });
  }
  const heard: CompletedReassignment[] = [];
  m.onReassignmentCompleted((c) => heard.push(c));
  for (let t = 0; t < 20; t++) {
    for (let p = 0; p < 1000; p++) {
      const r = replicas(t * 1000 + p);
      m.alterPartitionReassignment(`big-${t}`, p, [r[0], r[1], (r[2] + 1) % brokers]);
    }
  }
  assert.equal(m.movingPartitionCount(), 20_000);
  const listed = m.listPartitionReassignments(null);
  assert.equal(listed.length, 20);
  assert.deepEqual(
    listed.map((t) => t.name),
    [...listed.map((t) => t.name)].sort(),
  );
  assert.ok(
    listed.every(
      (t) => t.partitions.length === 1000 && t.partitions.every((p, i) => p.partitionIndex === i && p.addingReplicas.length === 1),
    ),
  );
  // Broker 3 gains partitions i with (i + 3) % 12 === 3, i.e. i % 12 === 0: 1,667 of them, empty so far.
  const onThree = m.logDirSizes(3, null).flatMap((t) => t.partitions.map((p) => [t.topic, p.partition, p.sizeBytes] as const));
  const adding = onThree.filter(([t, p]) => (Number(t.slice(4)) * 1000 + p) % brokers === 0);
  assert.equal(adding.length, 1667);
  assert.ok(adding.every(([, , size]) => size === 0));
  assert.equal(
    m.logDirUsedBytes(3),
    onThree.reduce((s, [, , size]) => s + size, 0),
  );

  clock.t += 3600_000;
  assert.equal(m.movingPartitionCount(), 0);
  assert.equal(heard.length, 20_000);
  assert.ok(
    heard.every((c, i) => i === 0 || c.completedAt >= heard[i - 1].completedAt),
    'completions in time order',
  );
  assert.ok(heard[heard.length - 1].completedAt < clock.t, 'each at the time it finished, not when it was noticed');
  assert.deepEqual(m.getPartition('big-0', 0).replicas, [0, 1, 3]);
});
