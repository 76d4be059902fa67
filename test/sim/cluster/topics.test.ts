import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeModel, throwsKafka } from './helpers.js';
import { uuidToBytes, ZERO_UUID } from '../../../src/sim/cluster/uuid.js';

test('createTopic: defaults, leader = first replica, ISR = replicas, epochs 0, lookups by name and id', () => {
  const m = makeModel(3);
  const t = m.createTopic({ name: 'orders', numPartitions: 3, replicationFactor: 2 });
  assert.equal(t.numPartitions, 3);
  assert.equal(t.replicationFactor, 2);
  for (const p of t.partitions) {
    assert.equal(new Set(p.replicas).size, 2);
    assert.equal(p.leader, p.replicas[0]);
    assert.deepEqual(p.isr, p.replicas);
    assert.equal(p.leaderEpoch, 0);
    assert.deepEqual(p.offlineReplicas, []);
  }
  assert.deepEqual(
    t.partitions.map((p) => p.leader),
    [0, 1, 2],
  );
  assert.equal(m.getTopic('orders')?.topicId, t.topicId);
  assert.equal(m.getTopicById(t.topicId)?.name, 'orders');
  assert.equal(m.getTopicById(uuidToBytes(t.topicId)!)?.name, 'orders');
  assert.equal(t.topicId.length, 22);
  assert.deepEqual(
    m.listTopics().map((x) => x.name),
    ['orders'],
  );

  const d = m.createTopic({ name: 'dflt' });
  assert.equal(d.numPartitions, 1);
  assert.equal(d.replicationFactor, 1);
  const m2 = makeModel(3, { numPartitionsDefault: 4, defaultReplicationFactor: 3 });
  const d2 = m2.createTopic({ name: 'dflt', numPartitions: -1, replicationFactor: -1 });
  assert.equal(d2.numPartitions, 4);
  assert.equal(d2.replicationFactor, 3);
});

test('createTopic returns effective configs and stores only explicit ones', () => {
  const m = makeModel(1);
  const t = m.createTopic({ name: 'c', configs: [{ name: 'retention.ms', value: '1000' }] });
  const ret = t.configs.find((c) => c.name === 'retention.ms')!;
  assert.equal(ret.value, '1000');
  assert.equal(ret.source, 1);
  assert.equal(t.configs.find((c) => c.name === 'cleanup.policy')!.source, 5);
  assert.deepEqual(m.getTopic('c')!.configs, { 'retention.ms': '1000' });
});

test('topic name rules -> INVALID_TOPIC_EXCEPTION (17) with Kafka messages', () => {
  const m = makeModel(1);
  throwsKafka(() => m.createTopic({ name: '' }), 17, 'Topic name is invalid: the empty string is not allowed');
  throwsKafka(() => m.createTopic({ name: '.' }), 17, "Topic name is invalid: '.' is not allowed");
  throwsKafka(() => m.createTopic({ name: '..' }), 17, "Topic name is invalid: '..' is not allowed");
  const long = 'a'.repeat(250);
  throwsKafka(
    () => m.createTopic({ name: long }),
    17,
    `Topic name is invalid: the length of '${long}' is longer than the max allowed length 249`,
  );
  throwsKafka(
    () => m.createTopic({ name: 'a b' }),
    17,
    "Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
  );
  m.createTopic({ name: 'a'.repeat(249) });
  m.createTopic({ name: 'x.y' });
  throwsKafka(() => m.createTopic({ name: 'x_y' }), 17, "Topic 'x_y' collides with existing topic: x.y");
});

test('already exists -> 36', () => {
  const m = makeModel(1);
  m.createTopic({ name: 'x' });
  throwsKafka(() => m.createTopic({ name: 'x' }), 36, "Topic 'x' already exists.");
});

test('partition count and replication factor errors', () => {
  const m = makeModel(3);
  throwsKafka(() => m.createTopic({ name: 't', numPartitions: 0 }), 37, 'Number of partitions was set to an invalid non-positive value.');
  throwsKafka(() => m.createTopic({ name: 't', numPartitions: -2 }), 37, 'Number of partitions was set to an invalid non-positive value.');
  throwsKafka(
    () => m.createTopic({ name: 't', replicationFactor: 0 }),
    38,
    'Replication factor must be larger than 0, or -1 to use the default value.',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', replicationFactor: -5 }),
    38,
    'Replication factor must be larger than 0, or -1 to use the default value.',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', numPartitions: 1, replicationFactor: 4 }),
    38,
    'Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered.',
  );
  const d = makeModel(2, { defaultReplicationFactor: 3 });
  throwsKafka(
    () => d.createTopic({ name: 't' }),
    38,
    /^Unable to replicate the partition 3 time\(s\): The target replication factor of 3 cannot be reached because only 2 broker\(s\) are registered\.$/,
  );
  // stopped brokers stay registered: RF 3 with one broker down still works, the leader is live
  m.stopBroker(0);
  const t = m.createTopic({ name: 'withdown', numPartitions: 3, replicationFactor: 3 });
  for (const p of t.partitions) {
    assert.notEqual(p.leader, 0);
    assert.ok(!p.isr.includes(0));
    assert.deepEqual(p.offlineReplicas, [0]);
  }
  for (const p of m.createTopic({ name: 'rf2', numPartitions: 4, replicationFactor: 2 }).partitions) assert.ok(!p.replicas.includes(0));
  m.stopBroker(1);
  m.stopBroker(2);
  throwsKafka(
    () => m.createTopic({ name: 'none', replicationFactor: 1 }),
    38,
    'Unable to replicate the partition 1 time(s): All brokers are currently fenced.',
  );
  assert.equal(m.getTopic('t'), undefined);
});

test('manual assignments', () => {
  const m = makeModel(3);
  const a = (partition: number, brokerIds: number[]) => ({ partition, brokerIds });
  throwsKafka(
    () => m.createTopic({ name: 't', replicationFactor: 2, assignments: [a(0, [0])] }),
    42,
    'A manual partition assignment was specified, but replication factor was not set to -1.',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', numPartitions: 1, assignments: [a(0, [0])] }),
    42,
    'A manual partition assignment was specified, but numPartitions was not set to -1.',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', assignments: [a(0, [])] }),
    39,
    'The manual partition assignment includes an empty replica list.',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', assignments: [a(0, [0, 7])] }),
    39,
    'The manual partition assignment includes broker 7, but no such broker is registered.',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', assignments: [a(0, [1, 0, 1])] }),
    39,
    'The manual partition assignment includes the broker 1 more than once.',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', assignments: [a(0, [0, 1]), a(1, [2])] }),
    39,
    'The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s).',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', assignments: [a(0, [0]), a(0, [1])] }),
    39,
    'Found multiple manual partition assignments for partition 0',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', assignments: [a(0, [0]), a(2, [1])] }),
    39,
    'partitions should be a consecutive 0-based integer sequence',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', assignments: [a(1, [0])] }),
    39,
    'partitions should be a consecutive 0-based integer sequence',
  );
  m.stopBroker(2);
  throwsKafka(
    () => m.createTopic({ name: 't', assignments: [a(0, [2])] }),
    39,
    'All brokers specified in the manual partition assignment for partition 0 are fenced or in controlled shutdown.',
  );
  const t = m.createTopic({ name: 't', assignments: [a(1, [1, 2]), a(0, [2, 0])] });
  assert.deepEqual(
    t.partitions.map((p) => [p.replicas, p.leader, p.isr]),
    [
      [[2, 0], 0, [0]],
      [[1, 2], 1, [1]],
    ],
  );
});

test('config validation on create -> 40', () => {
  const m = makeModel(1);
  throwsKafka(() => m.createTopic({ name: 't', configs: [{ name: 'no.such', value: '1' }] }), 40, 'Unknown topic config name: no.such');
  throwsKafka(
    () => m.createTopic({ name: 't', configs: [{ name: 'retention.ms', value: 'soon' }] }),
    40,
    'Invalid value soon for configuration retention.ms: Not a number of type LONG',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', configs: [{ name: 'retention.ms', value: '-5' }] }),
    40,
    'Invalid value -5 for configuration retention.ms: Value must be at least -1',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', configs: [{ name: 'retention.ms', value: null }] }),
    40,
    'Null value not supported for topic configs: retention.ms',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', configs: [{ name: 'cleanup.policy', value: 'compact,foo' }] }),
    40,
    'Invalid value foo for configuration cleanup.policy: String must be one of: compact, delete',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', configs: [{ name: 'min.insync.replicas', value: '0' }] }),
    40,
    'Invalid value 0 for configuration min.insync.replicas: Value must be at least 1',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', configs: [{ name: 'segment.bytes', value: '13' }] }),
    40,
    'Invalid value 13 for configuration segment.bytes: Value must be at least 14',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', configs: [{ name: 'min.cleanable.dirty.ratio', value: '1.5' }] }),
    40,
    'Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', configs: [{ name: 'preallocate', value: 'yes' }] }),
    40,
    'Invalid value yes for configuration preallocate: Expected value to be either true or false',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', configs: [{ name: 'segment.bytes', value: '3000000000' }] }),
    40,
    'Invalid value 3000000000 for configuration segment.bytes: Not a number of type INT',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', configs: [{ name: 'compression.type', value: 'brotli' }] }),
    40,
    'Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer',
  );
  throwsKafka(
    () => m.createTopic({ name: 't', configs: [{ name: 'leader.replication.throttled.replicas', value: '0:1,x' }] }),
    40,
    "Invalid value [0:1, x] for configuration leader.replication.throttled.replicas: leader.replication.throttled.replicas must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...",
  );
  throwsKafka(() => m.createTopic({ name: 't', configs: [{ name: 'follower.replication.throttled.replicas', value: '-1:0' }] }), 40);
  for (const v of ['*', '', '0:1,1:2', '10:1, 2:1']) {
    m.createTopic({ name: `ok${v.length}`, configs: [{ name: 'leader.replication.throttled.replicas', value: v }] });
  }
  assert.equal(m.listTopics().length, 4);
});

test('validateOnly changes nothing', () => {
  const m = makeModel(3);
  const r = m.createTopic({ name: 'v', numPartitions: 2, replicationFactor: 3 }, { validateOnly: true });
  assert.equal(r.partitions.length, 2);
  assert.equal(m.getTopic('v'), undefined);
  assert.equal(m.getTopicById(r.topicId), undefined);
  m.createTopic({ name: 'v', numPartitions: 2, replicationFactor: 3 });
  m.createPartitions('v', 5, null, { validateOnly: true });
  assert.equal(m.getTopic('v')!.partitions.length, 2);
});

test('createPartitions', () => {
  const m = makeModel(3);
  m.createTopic({ name: 't', numPartitions: 2, replicationFactor: 2 });
  throwsKafka(() => m.createPartitions('nope', 3), 3, 'This server does not host this topic-partition.');
  throwsKafka(() => m.createPartitions('t', 2), 37, 'Topic already has 2 partition(s).');
  throwsKafka(() => m.createPartitions('t', 1), 37, 'The topic t currently has 2 partition(s); 1 would not be an increase.');
  throwsKafka(
    () => m.createPartitions('t', 5, [[0, 1]]),
    39,
    'Attempted to add 3 additional partition(s), but only 1 assignment(s) were specified.',
  );
  throwsKafka(
    () => m.createPartitions('t', 3, [[0]]),
    39,
    'The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s).',
  );
  throwsKafka(() => m.createPartitions('t', 3, [[0, 0]]), 39, 'The manual partition assignment includes the broker 0 more than once.');
  throwsKafka(
    () => m.createPartitions('t', 3, [[0, 9]]),
    39,
    'The manual partition assignment includes broker 9, but no such broker is registered.',
  );
  throwsKafka(() => m.createPartitions('t', 3, [[]]), 39, 'The manual partition assignment includes an empty replica list.');
  // a failed validation in a later list leaves nothing behind
  throwsKafka(
    () =>
      m.createPartitions('t', 4, [
        [0, 1],
        [1, 1],
      ]),
    39,
  );
  assert.equal(m.getTopic('t')!.partitions.length, 2);

  const added = m.createPartitions('t', 4, [
    [2, 0],
    [1, 2],
  ]);
  assert.deepEqual(
    added.partitions.map((p) => [p.partition, p.leader, p.replicas]),
    [
      [2, 2, [2, 0]],
      [3, 1, [1, 2]],
    ],
  );
  const auto = m.createPartitions('t', 7);
  assert.equal(auto.partitions.length, 3);
  for (const p of auto.partitions) assert.equal(new Set(p.replicas).size, 2);
  assert.deepEqual(
    m.getTopic('t')!.partitions.map((p) => p.partition),
    [0, 1, 2, 3, 4, 5, 6],
  );
  assert.equal(m.sizeBytes('t', 6), 0);
});

test('deleteTopic / deleteTopicById', () => {
  const m = makeModel(1);
  const t = m.createTopic({ name: 'd', numPartitions: 2 });
  throwsKafka(() => m.deleteTopic('nope'), 3, 'This server does not host this topic-partition.');
  throwsKafka(() => m.deleteTopicById('AAAAAAAAAAAAAAAAAAAAAQ'), 100, 'This server does not host this topic ID.');
  throwsKafka(() => m.deleteTopicById(ZERO_UUID), 42);
  assert.deepEqual(m.deleteTopic('d'), { name: 'd', topicId: t.topicId, numPartitions: 2 });
  assert.equal(m.getTopic('d'), undefined);
  assert.equal(m.getTopicById(t.topicId), undefined);
  throwsKafka(() => m.sizeBytes('d', 0), 3);
  const t2 = m.createTopic({ name: 'd' });
  assert.notEqual(t2.topicId, t.topicId);
  assert.equal(m.deleteTopicById(t2.topicId).name, 'd');
  assert.deepEqual(m.listTopics(), []);
  const off = makeModel(1, { deleteTopicEnable: false });
  off.createTopic({ name: 'x' });
  throwsKafka(() => off.deleteTopic('x'), 73, 'Topic deletion is disabled.');
});

test('returned topic views are copies', () => {
  const m = makeModel(2);
  m.createTopic({ name: 'c', numPartitions: 1, replicationFactor: 2 });
  const v = m.getTopic('c')!;
  v.partitions[0].isr.pop();
  v.partitions[0].leader = 99;
  assert.deepEqual(m.getTopic('c')!.partitions[0].isr, [0, 1]);
  assert.equal(m.getTopic('c')!.partitions[0].leader, 0);
});
