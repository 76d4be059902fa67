// The gateway's AlterReplicaLogDirs v2 module (KafkaAdmin.alterReplicaLogDirs) against the
// simulator over TCP, brokers with two log dirs: moves are sent to the broker of each replica,
// answered per move in request order with Kafka's error codes, and DescribeLogDirs (the
// gateway's describeReplicaSizes) keeps reporting the replica's size while it moves.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator } from '../../src/sim/index.js';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';

const DIRS = ['/var/lib/kafka/data-0', '/var/lib/kafka/data-1'];
let sim: Awaited<ReturnType<typeof startSimulator>>;
let gw: PlatformaticKafkaGateway;

before(async () => {
  sim = await startSimulator({ brokers: 3, logDirs: DIRS, seedBytes: 5000 });
  sim.model.createTopic(
    {
      name: 'disks',
      numPartitions: -1,
      replicationFactor: -1,
      assignments: [
        { partition: 0, brokerIds: [0, 1] },
        { partition: 1, brokerIds: [1, 2] },
      ],
      configs: [],
    },
    { validateOnly: false },
  );
  gw = createKafkaGateway(
    parseKafkaConfig({
      KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
      KAFKA_REQUEST_TIMEOUT_MS: '5000',
      KAFKA_CONNECT_TIMEOUT_MS: '1000',
    }),
  );
});
after(async () => {
  await gw?.close();
  await sim?.close();
});

test("moves go to each replica's broker; results per move, in order, with Kafka's errors", async () => {
  const other = (broker: number, partition: number): string => DIRS.find((d) => d !== sim.logDirs.dirOf(broker, 'disks', partition))!;
  const moves = [
    { broker: 1, topic: 'disks', partition: 0, logDir: other(1, 0) },
    { broker: 2, topic: 'disks', partition: 1, logDir: other(2, 1) },
    { broker: 0, topic: 'disks', partition: 1, logDir: DIRS[0] }, // broker 0 does not host disks-1
    { broker: 0, topic: 'disks', partition: 0, logDir: '/mnt/elsewhere' },
    { broker: 1, topic: 'gone', partition: 0, logDir: DIRS[1] },
  ];
  const results = await gw.alterReplicaLogDirs(moves);
  assert.deepEqual(
    results.map((r) => [r.broker, r.topic, r.partition, r.ok ? 'ok' : r.error.name]),
    [
      [1, 'disks', 0, 'ok'],
      [2, 'disks', 1, 'ok'],
      [0, 'disks', 1, 'REPLICA_NOT_AVAILABLE'],
      [0, 'disks', 0, 'LOG_DIR_NOT_FOUND'],
      [1, 'gone', 0, 'UNKNOWN_TOPIC_OR_PARTITION'],
    ],
  );
  // Unthrottled, the copies are done at once: the replicas are in their new dirs.
  assert.equal(sim.logDirs.dirOf(1, 'disks', 0), moves[0].logDir);
  assert.equal(sim.logDirs.dirOf(2, 'disks', 1), moves[1].logDir);
  const sizes = await gw.describeReplicaSizes(
    [1, 2],
    [
      { topic: 'disks', partition: 0 },
      { topic: 'disks', partition: 1 },
    ],
  );
  assert.deepEqual(
    sizes.map((s) => (s.ok ? [s.broker, [...s.sizes].sort()] : [s.broker, s.error.name])),
    [
      [
        1,
        [
          ['disks:0', 5000],
          ['disks:1', 5000],
        ],
      ],
      [2, [['disks:1', 5000]]],
    ],
  );
});

test('an offline dir answers KAFKA_STORAGE_ERROR', async () => {
  sim.logDirs.setOffline(2, DIRS[0], true);
  try {
    const [r] = await gw.alterReplicaLogDirs([{ broker: 2, topic: 'disks', partition: 1, logDir: DIRS[0] }]);
    assert.equal(r.ok ? 'ok' : r.error.name, 'KAFKA_STORAGE_ERROR');
  } finally {
    sim.logDirs.setOffline(2, DIRS[0], false);
  }
});
