import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JavaRandom, placeReplicas, placeReplicasClassic, ZERO_RANDOM } from '../../../src/sim/cluster/placement.js';
import { makeModel, throwsKafka } from './helpers.js';

const nodes = (n: number, rack: (i: number) => string | null = () => null) =>
  Array.from({ length: n }, (_, id) => ({ id, rack: rack(id), fenced: false }));

test('JavaRandom matches java.util.Random', () => {
  // new Random(42): nextInt(10) x5 = 0, 3, 8, 4, 0 ; nextInt(16) (power of two path) = ...
  const r = new JavaRandom(42);
  assert.deepEqual(
    [0, 0, 0, 0, 0].map(() => r.nextInt(10)),
    [0, 3, 8, 4, 0],
  );
});

test('striped placement without racks: distinct brokers, leaders spread round-robin', () => {
  const out = placeReplicas(nodes(3), 3, 3, ZERO_RANDOM);
  assert.deepEqual(out, [
    [0, 1, 2],
    [1, 2, 0],
    [2, 0, 1],
  ]);
  const six = placeReplicas(nodes(3), 6, 2);
  for (const reps of six) assert.equal(new Set(reps).size, 2);
  const leaders = six.map((r) => r[0]);
  for (const b of [0, 1, 2]) assert.equal(leaders.filter((l) => l === b).length, 2);
});

test('striped (KRaft) rack-aware: every partition spans both racks', () => {
  const rackOf = (id: number) => (id % 2 === 0 ? 'a' : 'b');
  for (const reps of placeReplicas(nodes(4, rackOf), 8, 2)) {
    assert.equal(new Set(reps).size, 2);
    assert.notEqual(rackOf(reps[0]), rackOf(reps[1]));
  }
});

test('classic rack-aware: 4 brokers on 2 racks, every partition spans both racks, leaders spread', () => {
  const rackOf = (id: number) => (id % 2 === 0 ? 'a' : 'b');
  const out = placeReplicasClassic(nodes(4, rackOf), 8, 2);
  for (const reps of out) {
    assert.equal(new Set(reps).size, 2);
    assert.notEqual(rackOf(reps[0]), rackOf(reps[1]), `partition ${reps.join(',')} must span racks`);
  }
  const leaders = out.map((r) => r[0]);
  for (const b of [0, 1, 2, 3]) assert.equal(leaders.filter((l) => l === b).length, 2, `leaders ${leaders.join(',')}`);
});

test('rack-aware with a seeded JavaRandom is deterministic and still valid', () => {
  const rackOf = (id: number) => (id < 2 ? 'r1' : 'r2');
  const a = placeReplicas(nodes(4, rackOf), 12, 2, new JavaRandom(7));
  const b = placeReplicas(nodes(4, rackOf), 12, 2, new JavaRandom(7));
  assert.deepEqual(a, b);
  for (const reps of a) assert.notEqual(rackOf(reps[0]), rackOf(reps[1]));
});

test('leaders are never fenced brokers; followers use fenced ones only if needed', () => {
  const brokers = [
    { id: 0, rack: null, fenced: true },
    { id: 1, rack: null, fenced: false },
    { id: 2, rack: null, fenced: false },
  ];
  for (const reps of placeReplicas(brokers, 6, 2)) {
    assert.notEqual(reps[0], 0);
    assert.ok(!reps.includes(0), reps.join(','));
  }
  for (const reps of placeReplicas(brokers, 6, 3)) assert.notEqual(reps[0], 0);
});

test('classic: 6 brokers on 3 racks, RF 3 covers all racks; without racks RF 3 on 3 brokers', () => {
  const rackOf = (id: number) => `r${id % 3}`;
  const out = placeReplicasClassic(nodes(6, rackOf), 6, 3);
  for (const reps of out) assert.equal(new Set(reps.map(rackOf)).size, 3);
  assert.deepEqual(
    out.map((r) => r[0]),
    [0, 1, 2, 3, 4, 5],
  );
  assert.deepEqual(placeReplicasClassic(nodes(3), 3, 3), [
    [0, 1, 2],
    [1, 2, 0],
    [2, 0, 1],
  ]);
});

test('classic: leaders only on live brokers, fenced ones fill follower slots only when needed', () => {
  const brokers = nodes(3).map((b) => ({ ...b, fenced: b.id === 0 }));
  for (const reps of placeReplicasClassic(brokers, 4, 2)) assert.ok(!reps.includes(0));
  for (const reps of placeReplicasClassic(brokers, 4, 3)) {
    assert.notEqual(reps[0], 0);
    assert.equal(reps[2], 0);
  }
  throwsKafka(
    () =>
      placeReplicasClassic(
        brokers.map((b) => ({ ...b, fenced: true })),
        1,
        1,
      ),
    38,
    'All brokers are currently fenced.',
  );
  throwsKafka(
    () => placeReplicasClassic(brokers, 1, 4),
    38,
    'The target replication factor of 4 cannot be reached because only 3 broker(s) are registered.',
  );
});

test('placement errors', () => {
  throwsKafka(
    () => placeReplicas(nodes(2), 1, 3),
    38,
    'The target replication factor of 3 cannot be reached because only 2 broker(s) are registered.',
  );
  throwsKafka(
    () =>
      placeReplicas(
        nodes(2).map((b) => ({ ...b, fenced: true })),
        1,
        1,
      ),
    38,
    'All brokers are currently fenced.',
  );
  throwsKafka(() => placeReplicas(nodes(2), 1, 0), 38, 'Invalid replication factor 0: the replication factor must be positive.');
});

test('model placement over 4 brokers / 2 racks', () => {
  const m = makeModel([
    { id: 1, rack: 'east' },
    { id: 2, rack: 'west' },
    { id: 3, rack: 'east' },
    { id: 4, rack: 'west' },
  ]);
  const t = m.createTopic({ name: 't', numPartitions: 4, replicationFactor: 2 });
  const rack = (id: number) => (id % 2 === 1 ? 'east' : 'west');
  for (const p of t.partitions) {
    assert.notEqual(rack(p.replicas[0]), rack(p.replicas[1]));
    assert.equal(p.leader, p.replicas[0]);
    assert.deepEqual(p.isr, p.replicas);
  }
  assert.equal(new Set(t.partitions.map((p) => p.leader)).size, 4);
});
