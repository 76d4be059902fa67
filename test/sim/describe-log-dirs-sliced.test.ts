// DescribeLogDirs naming more than HEAVY_ITEMS partitions is answered a topic at a time in slices
// (src/sim/handlers/35_describe_log_dirs.ts): the answer is the one the model gives for the whole
// request at once (topics by name, partitions sorted without repeats, unknown ones left out), and
// the dir's usable bytes are those of a request naming one partition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator } from '../../src/sim/index.js';
import { ManualClock } from '../../src/sim/clock.js';
import { HEAVY_ITEMS } from '../../src/sim/request-turns.js';
import { request } from './wire.js';

test('a DescribeLogDirs of thousands of partitions, answered in slices, is the answer to the whole request', async () => {
  // A manual clock: nothing changes between slices, so the answers can be compared exactly.
  const sim = await startSimulator({ brokers: 2, clock: new ManualClock(1_000_000) });
  try {
    for (const name of ['c', 'a', 'b']) {
      sim.model.createTopic({
        name,
        assignments: Array.from({ length: 1500 }, (_, p) => ({ partition: p, brokerIds: [p % 2, (p + 1) % 2] })),
      });
      for (let p = 0; p < 1500; p += 3) sim.model.seedBytes(name, p, 1000 + p * 7 + name.charCodeAt(0));
    }
    const evens = Array.from({ length: 750 }, (_, i) => 2 * i);
    const filter = [
      { topic: 'b', partitions: Array.from({ length: 700 }, (_, i) => 1499 - i) }, // out of order
      { topic: 'a', partitions: Array.from({ length: 1500 }, (_, i) => i) },
      { topic: 'nope', partitions: [0, 1] },
      { topic: 'b', partitions: [...Array.from({ length: 800 }, (_, i) => i), 5, 5, 1499, 99_999] }, // repeats, unknown partition
      { topic: 'c', partitions: evens },
    ];
    assert.ok(filter.reduce((n, f) => n + f.partitions.length, 0) > HEAVY_ITEMS);
    const port = sim.endpoints().find((e) => e.id === 1)!.port;
    const res = await request(port, 35, 4, { topics: filter });
    const expected = sim.model
      .logDirSizes(1, filter)
      .map((t) => ({ name: t.topic, partitions: t.partitions.map((p) => [p.partition, BigInt(p.sizeBytes)]) }));
    assert.deepEqual(
      expected.map((t) => t.name),
      ['a', 'b', 'c'],
    );
    assert.equal(expected[1].partitions.length, 1500, 'b: the partitions of both entries, once each');
    assert.deepEqual(
      res.results[0].topics.map((t: any) => ({
        name: t.name,
        partitions: t.partitions.map((p: any) => [p.partitionIndex, p.partitionSize]),
      })),
      expected,
    );
    const one = await request(port, 35, 4, { topics: [{ topic: 'a', partitions: [0] }] });
    assert.equal(res.results[0].usableBytes, one.results[0].usableBytes);
    assert.ok(res.results[0].usableBytes < res.results[0].totalBytes, 'the seeded bytes are counted');
  } finally {
    await sim.close();
  }
});
