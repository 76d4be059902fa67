// The Kafka adapters of the reassignment feature against the simulator over TCP: the state
// topic (create, produce acks=-1, read back, tombstones), throttle configs (overrides only,
// IncrementalAlterConfigs per resource), reassignments (start, list, cancel, errors per
// partition) and replica sizes (DescribeLogDirs per broker).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { StateStore } from '../../src/state/store.js';
import { StateTopic } from '../../src/kafka/state-topic.js';
import { ManualClock, startSimulator, type Simulator } from '../../src/sim/index.js';
import { FAST_KAFKA_ENV } from '../http/helpers.js';

let sim: Simulator;
let kafka: PlatformaticKafkaGateway;
before(async () => {
  sim = await startSimulator({ brokers: 3, clock: new ManualClock() });
  kafka = createKafkaGateway(parseKafkaConfig({ ...FAST_KAFKA_ENV, KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') }));
  const [r] = await kafka.createTopics([
    {
      name: 'ad',
      assignments: [
        [0, 1],
        [1, 2],
      ],
    },
  ]);
  assert.ok(r?.ok);
});
after(async () => {
  await kafka?.close();
  await sim?.close();
});

describe('StateTopic', () => {
  it('creates a compacted single-partition topic with RF min(3, brokers), and reads back every write in order', async () => {
    const st = new StateTopic(kafka, { name: '_state_test' });
    await st.ensure();
    const t = await kafka.describeTopic('_state_test');
    assert.equal(t.partitions.length, 1);
    assert.equal(t.partitions[0].replicas.length, 3);
    assert.equal(t.configs.find((c) => c.name === 'cleanup.policy')?.value, 'compact');
    const first = await st.offsets();
    assert.deepEqual({ start: first.start, end: first.end }, { start: 0n, end: 0n });
    assert.equal(
      t.configs.find((c) => c.name === 'min.compaction.lag.ms')?.value,
      '900000',
      'compaction keeps claims at least as long as their longest lease',
    );
    assert.equal(
      await st.write([
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
      ]),
      0n,
    );
    assert.equal(await st.write([{ key: 'a', value: null }]), 2n);
    const { start, end } = await st.offsets();
    assert.deepEqual(await st.read(start, end), [
      { offset: 0n, key: 'a', value: '1' },
      { offset: 1n, key: 'b', value: '2' },
      { offset: 2n, key: 'a', value: null },
    ]);
    assert.deepEqual(await st.read(1n, 2n), [{ offset: 1n, key: 'b', value: '2' }]);
    // A second instance finds the topic instead of failing on TOPIC_ALREADY_EXISTS.
    await new StateTopic(kafka, { name: '_state_test' }).ensure();
  });
});

describe('claims on the state topic (two stores, over the wire)', () => {
  it('many concurrent claims of one resource: exactly one granted at a time, decided by log order', async () => {
    const a = new StateStore(new StateTopic(kafka, { name: '_state_claims' }));
    const b = new StateStore(new StateTopic(kafka, { name: '_state_claims' }));
    const storeOf = (i: number) => (i % 2 ? a : b);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => storeOf(i).claim(['partition/ad:0'], { purpose: 'test', owner: `w${i}`, ttlMs: 60_000 })),
    );
    const granted = results.filter((r) => r.granted);
    assert.equal(granted.length, 1, results.map((r) => r.granted).join());
    const winner = granted[0].granted ? granted[0].claim : undefined;
    for (const r of results) if (!r.granted) assert.equal(r.holder?.id, winner!.id);
    // Every other claim is tombstoned; both stores (and a fresh one) agree on the holder.
    const fresh = new StateStore(new StateTopic(kafka, { name: '_state_claims' }));
    for (const s of [a, b, fresh]) {
      await s.refresh();
      assert.deepEqual(
        s.claims().map((c) => c.id),
        [winner!.id],
      );
      assert.equal(s.holder('partition/ad:0')?.id, winner!.id);
    }
    await storeOf(Number(winner!.owner.slice(1))).release(winner!);
    await fresh.refresh();
    assert.equal(fresh.holder('partition/ad:0'), undefined);
    assert.equal((await fresh.claim(['partition/ad:0'], { purpose: 'test', owner: 'next', ttlMs: 60_000 })).granted, true);
  });
});

describe('throttle configs', () => {
  it('reads overrides only, writes per resource, and reports a bad resource on its own', async () => {
    const results = await kafka.incrementalAlterConfigs([
      { kind: 'broker', name: '1', ops: [{ name: 'leader.replication.throttled.rate', op: 'SET', value: '4096' }] },
      { kind: 'topic', name: 'ad', ops: [{ name: 'follower.replication.throttled.replicas', op: 'SET', value: '0:2' }] },
      { kind: 'topic', name: 'missing', ops: [{ name: 'follower.replication.throttled.replicas', op: 'SET', value: '0:2' }] },
    ]);
    assert.deepEqual(
      results.map((r) => [r.kind, r.name, r.ok ? 0 : r.error.code]),
      [
        ['topic', 'ad', 0],
        ['topic', 'missing', 3],
        ['broker', '1', 0],
      ],
    );
    const read = await kafka.describeConfigOverrides(
      [
        { kind: 'broker', name: '1' },
        { kind: 'broker', name: '2' },
        { kind: 'topic', name: 'ad' },
      ],
      ['leader.replication.throttled.rate', 'follower.replication.throttled.replicas'],
    );
    assert.deepEqual(
      read.map((r) => [r.name, r.ok && r.value]),
      [
        ['ad', { 'follower.replication.throttled.replicas': '0:2' }],
        ['1', { 'leader.replication.throttled.rate': '4096' }],
        ['2', {}],
      ],
    );
    await kafka.incrementalAlterConfigs([
      { kind: 'broker', name: '1', ops: [{ name: 'leader.replication.throttled.rate', op: 'DELETE' }] },
      { kind: 'topic', name: 'ad', ops: [{ name: 'follower.replication.throttled.replicas', op: 'DELETE' }] },
    ]);
  });
});

describe('reassignments and replica sizes', () => {
  it('starts, lists, sizes and cancels moves; answers errors per partition', async () => {
    sim.seedBytes('ad', 0, 10_000);
    const started = await kafka.alterPartitionReassignments([
      { topic: 'ad', partition: 0, replicas: [2, 1] },
      { topic: 'ad', partition: 5, replicas: [0] },
      { topic: 'ad', partition: 1, replicas: [9] },
    ]);
    assert.deepEqual(
      started.map((r) => [r.partition, r.ok ? 0 : r.error.code]),
      [
        [0, 0],
        [5, 3],
        [1, 39],
      ],
    );
    assert.deepEqual(await kafka.listPartitionReassignments(), [
      { topic: 'ad', partition: 0, replicas: [2, 1, 0], adding: [2], removing: [0] },
    ]);
    assert.deepEqual(await kafka.listPartitionReassignments([{ topic: 'ad', partition: 1 }]), []);
    const sizes = await kafka.describeReplicaSizes([0, 2], [{ topic: 'ad', partition: 0 }]);
    assert.deepEqual(
      sizes.map((s) => [s.broker, s.ok && s.sizes.get('ad:0')]),
      [
        [0, 10_000],
        [2, 0],
      ],
    );
    const cancelled = await kafka.alterPartitionReassignments([
      { topic: 'ad', partition: 0, replicas: null },
      { topic: 'ad', partition: 1, replicas: null },
    ]);
    assert.deepEqual(
      cancelled.map((r) => (r.ok ? 0 : r.error.code)),
      [0, 85],
    );
    assert.deepEqual(await kafka.listPartitionReassignments(), []);
  });
});
