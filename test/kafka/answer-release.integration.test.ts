// Answers larger than a socket chunk have their bytes freed as soon as they are decoded
// (src/kafka/wire/reader.ts, src/release-memory.ts). Over TCP from the simulator: many such
// answers at once on the same connections, interleaved with small ones, each decoded as the
// first one was (a chunk freed too early, or one holding the next message's bytes, would
// corrupt or stall a later answer on the same connection).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';

const PARTITIONS = 4000;

describe('large answers, released when decoded', () => {
  let sim: Simulator;
  let gw: PlatformaticKafkaGateway;
  before(async () => {
    sim = await startSimulator({ brokers: 3 });
    gw = createKafkaGateway(
      parseKafkaConfig({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), KAFKA_REQUEST_TIMEOUT_MS: '20000' }),
    );
    const created = await gw.createTopics([{ name: 'wide', partitions: PARTITIONS, replicationFactor: 2 }]);
    assert.equal(created[0].ok, true);
  });
  after(async () => {
    await gw?.close();
    await sim?.close();
  });

  test('Metadata, DescribeLogDirs and small requests, many at once, read as the first one', async () => {
    const [placement] = await gw.describePartitions(['wide']);
    assert.equal(placement.partitions.length, PARTITIONS);
    const refs = placement.partitions.map((p) => ({ topic: 'wide', partition: p.partition }));
    const sizes = await gw.describeReplicaSizes([0, 1, 2], refs);
    const held = sizes.reduce((n, b) => n + (b.ok ? b.sizes.size : 0), 0);
    assert.equal(held, PARTITIONS * 2);
    const rounds = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const [p, s, c] = await Promise.all([
          gw.describePartitions(['wide']),
          gw.describeReplicaSizes([0, 1, 2], refs),
          gw.describeCluster(),
        ]);
        return { p, s, c };
      }),
    );
    for (const r of rounds) {
      assert.deepEqual(r.p, [placement]);
      assert.deepEqual(r.s, sizes);
      assert.equal(r.c.brokers.length, 3);
    }
  });
});
