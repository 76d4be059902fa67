// Several log dirs per broker and AlterReplicaLogDirs (34), over the wire: DescribeLogDirs
// (35) lists each dir, a move copies into a future replica at
// replica.alter.log.dirs.io.max.bytes.per.second (ManualClock: exact byte counts), then swaps
// dirs; Kafka's error codes (ReplicaManager.alterReplicaLogDirs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { ManualClock } from '../../src/sim/clock.js';
import { request } from './wire.js';

const DIRS = ['/var/lib/kafka/data-0', '/var/lib/kafka/data-1'];
const clock = new ManualClock(1_000_000);
let sim: Simulator;
before(async () => {
  // 3.9: AlterReplicaLogDirs and DescribeLogDirs v0, which 4.0 dropped (KIP-896), are sent here.
  sim = await startSimulator({ brokers: 3, clock, logDirs: DIRS, seedBytes: 10_000, kafkaVersion: '3.9' });
  sim.model.createTopic(
    {
      name: 'jbod',
      numPartitions: -1,
      replicationFactor: -1,
      assignments: [
        { partition: 0, brokerIds: [1] },
        { partition: 1, brokerIds: [2] },
      ],
      configs: [],
    },
    { validateOnly: false },
  );
});
after(async () => {
  await sim.close();
});
const port = (id: number): number => sim.endpoints().find((e) => e.id === id)!.port;

async function describeDirs(broker: number, version = 4): Promise<any> {
  return request(port(broker), 35, version, { topics: [{ topic: 'jbod', partitions: [0, 1] }] });
}
/** dir -> ["topic-partition size lag future?"] */
async function layout(broker: number): Promise<Record<string, string[]>> {
  const res = await describeDirs(broker);
  const out: Record<string, string[]> = {};
  for (const r of res.results) {
    out[r.logDir] = r.topics.flatMap((t: any) =>
      t.partitions.map((p: any) => `${t.name}-${p.partitionIndex} ${p.partitionSize} ${p.offsetLag}${p.isFutureKey ? ' future' : ''}`),
    );
  }
  return out;
}
async function alterDirs(
  broker: number,
  dirs: { path: string; topics: { name: string; partitions: number[] }[] }[],
  version = 2,
): Promise<any> {
  return request(port(broker), 34, version, { dirs });
}
async function setThrottle(broker: number, value: string | null): Promise<void> {
  const res = await request(port(broker), 44, 1, {
    resources: [
      {
        resourceType: 4,
        resourceName: String(broker),
        configs: [{ name: 'replica.alter.log.dirs.io.max.bytes.per.second', configOperation: value === null ? 1 : 0, value }],
      },
    ],
    validateOnly: false,
  });
  assert.equal(res.responses[0].errorCode, 0, JSON.stringify(res.responses[0]));
}

test('ApiVersions advertises AlterReplicaLogDirs v0-v2; broker configs list both dirs', async () => {
  const res = await request(port(0), 18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  assert.deepEqual(
    res.apiKeys.filter((k: any) => k.apiKey === 34).map((k: any) => [k.minVersion, k.maxVersion]),
    [[0, 2]],
  );
  const cfg = await request(port(1), 32, 4, {
    resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['log.dirs'] }],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  assert.equal(cfg.results[0].configs[0].value, DIRS.join(','));
});

test('a throttled intra-broker move: future replica in the target dir, exact progress, then the swap', async () => {
  const before = await layout(1);
  assert.deepEqual(Object.keys(before), DIRS, 'one result per log dir, in log.dirs order');
  const [from, to] = before[DIRS[0]].length === 1 ? DIRS : [DIRS[1], DIRS[0]];
  assert.deepEqual(before[from], ['jbod-0 10000 0']);
  assert.deepEqual(before[to], []);

  await setThrottle(1, '1000');
  const res = await alterDirs(1, [{ path: to, topics: [{ name: 'jbod', partitions: [0] }] }]);
  assert.deepEqual(res.results, [{ topicName: 'jbod', partitions: [{ partitionIndex: 0, errorCode: 0 }] }]);
  const started = await layout(1);
  assert.deepEqual(started[from], ['jbod-0 10000 0']);
  assert.deepEqual(started[to], ['jbod-0 0 0 future']);

  clock.advance(4_000); // 1000 B/s x 4 s
  const mid = await layout(1);
  assert.deepEqual(mid[from], ['jbod-0 10000 0']);
  assert.deepEqual(mid[to], ['jbod-0 4000 0 future']);
  const usable = (await describeDirs(1)).results.find((r: any) => r.logDir === to).usableBytes;
  assert.equal(BigInt(1024 ** 4) - usable, 4000n, 'the future replica takes space on its disk');
  // Asked about another topic only: nothing of jbod is listed, its bytes still count on their disks.
  const other = await request(port(1), 35, 4, { topics: [{ topic: 'no-such-topic', partitions: [0] }] });
  assert.deepEqual(
    other.results.map((r: any) => [r.logDir, r.topics, BigInt(1024 ** 4) - r.usableBytes]),
    [
      [from, [], 10_000n],
      [to, [], 4000n],
    ].sort((a, b) => DIRS.indexOf(a[0] as string) - DIRS.indexOf(b[0] as string)),
  );

  clock.advance(6_000);
  const done = await layout(1);
  assert.deepEqual(done[from], []);
  assert.deepEqual(done[to], ['jbod-0 10000 0']);
  await setThrottle(1, null);
});

test('unthrottled: the move is done at once; to the current dir: a no-op', async () => {
  const where = async (): Promise<string> => Object.entries(await layout(2)).find(([, v]) => v.length > 0)![0];
  const start = await where();
  const other = DIRS.find((d) => d !== start)!;
  assert.equal((await alterDirs(2, [{ path: start, topics: [{ name: 'jbod', partitions: [1] }] }])).results[0].partitions[0].errorCode, 0);
  assert.equal(await where(), start);
  assert.equal(
    (await alterDirs(2, [{ path: other, topics: [{ name: 'jbod', partitions: [1] }] }], 0)).results[0].partitions[0].errorCode,
    0,
  );
  assert.deepEqual((await layout(2))[other], ['jbod-1 10000 0']);
});

test("Kafka's errors: LOG_DIR_NOT_FOUND, REPLICA_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION, KAFKA_STORAGE_ERROR", async () => {
  // Not the dir broker 1 would pick for jbod-1 by itself, so the preferred dir below shows.
  const preferred = DIRS.find((d) => d !== sim.logDirs.dirOf(1, 'jbod', 1))!;
  const res = await alterDirs(1, [
    { path: '/nowhere', topics: [{ name: 'jbod', partitions: [0] }] },
    {
      path: preferred,
      topics: [
        { name: 'jbod', partitions: [1] },
        { name: 'nope', partitions: [0] },
      ],
    },
    { path: DIRS[1], topics: [{ name: 'jbod', partitions: [7] }] },
  ]);
  assert.deepEqual(res.results, [
    {
      topicName: 'jbod',
      partitions: [
        { partitionIndex: 0, errorCode: 57 },
        { partitionIndex: 1, errorCode: 9 },
        { partitionIndex: 7, errorCode: 3 },
      ],
    },
    { topicName: 'nope', partitions: [{ partitionIndex: 0, errorCode: 3 }] },
  ]);
  // The 9 for jbod-1 on broker 1 remembered its preferred dir: a reassignment that adds the
  // replica to broker 1 creates it there (as kafka-reassign-partitions.sh expects).
  const moved = await request(port(0), 45, 0, {
    timeoutMs: 5000,
    topics: [{ name: 'jbod', partitions: [{ partitionIndex: 1, replicas: [2, 1] }] }],
  });
  assert.equal(moved.responses[0].partitions[0].errorCode, 0);
  assert.equal(sim.logDirs.dirOf(1, 'jbod', 1), preferred);
  assert.ok(
    (await layout(1))[preferred].some((r) => r.startsWith('jbod-1 ')),
    'listed in the preferred dir',
  );

  sim.logDirs.setOffline(1, DIRS[1], true);
  try {
    assert.equal(
      (await alterDirs(1, [{ path: DIRS[1], topics: [{ name: 'jbod', partitions: [0] }] }])).results[0].partitions[0].errorCode,
      56,
    );
    const offline = (await describeDirs(1)).results.find((r: any) => r.logDir === DIRS[1]);
    assert.deepEqual([offline.errorCode, offline.topics, offline.totalBytes], [56, [], -1n]);
  } finally {
    sim.logDirs.setOffline(1, DIRS[1], false);
  }
});
