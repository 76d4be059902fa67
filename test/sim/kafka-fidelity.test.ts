// Where the simulator answers as Kafka's brokers and controller do, read from Kafka's source
// (issue 11's list of differences found against Kafka 3.9, its Java AdminClient and franz-go),
// each over the wire with raw requests so the exact fields are visible.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { request } from './wire.js';

const ZERO_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
let sim: Simulator;
before(async () => {
  // These check a 3.9 broker's answers (its features, its 36 topic configs).
  sim = await startSimulator({ brokers: 3, kafkaVersion: '3.9' });
});
after(async () => {
  await sim.close();
});

const port = (id = 0): number => sim.endpoints().find((e) => e.id === id)!.port;
const newTopic = (name: string, numPartitions = 1, replicationFactor = 1) => ({
  name,
  numPartitions,
  replicationFactor,
  assignments: [],
  configs: [],
});
const createV7 = (topics: unknown[], validateOnly = false) => request(port(), 19, 7, { topics, timeoutMs: 5000, validateOnly });
const topicNames = async (): Promise<string[]> =>
  (await request(port(), 3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })).topics
    .map((t: any) => t.name)
    .sort();

test('CreateTopics validateOnly answers a random topic id and the full resolved config list, and creates nothing', async () => {
  const a = await createV7([{ ...newTopic('dry', 2), configs: [{ name: 'retention.ms', value: '1000' }] }], true);
  const b = await createV7([newTopic('dry', 2)], true);
  const [ta, tb] = [a.topics[0], b.topics[0]];
  assert.equal(ta.errorCode, 0);
  assert.notEqual(ta.topicId, ZERO_ID);
  assert.notEqual(ta.topicId, tb.topicId, 'a fresh id each time, as Uuid.randomUuid() before the validateOnly check');
  const real = await createV7([newTopic('wet', 2)]);
  assert.deepEqual(
    ta.configs.map((c: any) => c.name),
    real.topics[0].configs.map((c: any) => c.name),
    'the same config names as a real creation',
  );
  assert.ok(ta.configs.length > 20);
  assert.deepEqual(
    ta.configs.find((c: any) => c.name === 'retention.ms'),
    { name: 'retention.ms', value: '1000', readOnly: false, configSource: 1, isSensitive: false },
  );
  assert.deepEqual(await topicNames(), ['wet']);
});

test('CreateTopics: a name given twice is answered once, after the others, with INVALID_REQUEST; __cluster_metadata is refused', async () => {
  const res = await createV7([newTopic('twice'), newTopic('once'), newTopic('twice'), newTopic('__cluster_metadata')]);
  assert.deepEqual(
    res.topics.map((t: any) => [t.name, t.errorCode, t.errorMessage]),
    [
      ['once', 0, null],
      ['twice', 42, 'Duplicate topic name.'],
      ['__cluster_metadata', 42, 'Creation of internal topic __cluster_metadata is prohibited.'],
    ],
  );
  assert.ok(!(await topicNames()).includes('twice'));
  assert.ok(!(await topicNames()).includes('__cluster_metadata'));
});

test('DeleteTopics v6: a name and an id together → INVALID_REQUEST; neither → INVALID_REQUEST; duplicates answered once', async () => {
  await createV7([newTopic('del-a'), newTopic('del-b'), newTopic('del-c')]);
  const md = await request(port(), 3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  const idOf = (name: string) => md.topics.find((t: any) => t.name === name).topicId;
  const res = await request(port(), 20, 6, {
    topics: [
      { name: 'del-a', topicId: ZERO_ID },
      { name: 'del-b', topicId: idOf('del-b') },
      { name: null, topicId: ZERO_ID },
      { name: 'del-a', topicId: ZERO_ID },
      { name: null, topicId: idOf('del-c') },
      { name: null, topicId: idOf('del-c') },
    ],
    timeoutMs: 5000,
  });
  assert.deepEqual(
    res.responses.map((r: any) => [r.name, r.topicId === ZERO_ID ? 'zero' : r.topicId, r.errorCode, r.errorMessage]),
    [
      ['del-b', idOf('del-b'), 42, 'You may not specify both topic name and topic id.'],
      [null, 'zero', 42, 'Neither topic name nor id were specified.'],
      ['del-a', 'zero', 42, 'Duplicate topic name.'],
      [null, idOf('del-c'), 42, 'Duplicate topic id.'],
    ],
  );
  const left = await topicNames();
  for (const name of ['del-a', 'del-b', 'del-c']) assert.ok(left.includes(name), `${name} must still exist`);
});

test('CreatePartitions: a topic named twice is answered once, first, with INVALID_REQUEST, and does not grow', async () => {
  await createV7([newTopic('grow-x'), newTopic('grow-y')]);
  const res = await request(port(), 37, 3, {
    topics: [
      { name: 'grow-x', count: 2, assignments: null },
      { name: 'grow-y', count: 2, assignments: null },
      { name: 'grow-x', count: 3, assignments: null },
    ],
    timeoutMs: 5000,
    validateOnly: false,
  });
  assert.deepEqual(
    res.results.map((r: any) => [r.name, r.errorCode, r.errorMessage]),
    [
      ['grow-x', 42, 'Duplicate topic name.'],
      ['grow-y', 0, null],
    ],
  );
  const md = await request(port(), 3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  const count = (name: string) => md.topics.find((t: any) => t.name === name).partitions.length;
  assert.deepEqual([count('grow-x'), count('grow-y')], [1, 2]);
});

const incremental = (
  broker: number,
  resourceType: number,
  resourceName: string,
  configs: { name: string; configOperation: number; value: string | null }[],
) => request(port(broker), 44, 1, { resources: [{ resourceType, resourceName, configs }], validateOnly: false });
const describeBroker = async (broker: number, keys: string[] | null = null) =>
  (
    await request(port(broker), 32, 4, {
      resources: [{ resourceType: 4, resourceName: String(broker), configurationKeys: keys }],
      includeSynonyms: false,
      includeDocumentation: false,
    })
  ).results[0];

test('IncrementalAlterConfigs: a BROKER resource sent to another broker → INVALID_REQUEST; APPEND/SUBTRACT on a non-list → 40; `*` mixed with entries is refused', async () => {
  const rate = [{ name: 'leader.replication.throttled.rate', configOperation: 0, value: '1000' }];
  const other = (await incremental(0, 4, '1', rate)).responses[0];
  assert.deepEqual([other.errorCode, other.errorMessage], [42, 'Unexpected broker id, expected 0, but received 1']);
  assert.equal((await incremental(1, 4, '1', rate)).responses[0].errorCode, 0, 'to the broker itself');
  assert.equal((await incremental(0, 4, '', rate)).responses[0].errorCode, 0, 'the cluster default, to any broker');
  const unset = [{ name: 'leader.replication.throttled.rate', configOperation: 1, value: null }];
  await incremental(2, 4, '', unset);
  await incremental(1, 4, '1', unset);

  for (const [op, verb] of [
    [2, 'APPEND'],
    [3, 'SUBTRACT'],
  ] as const) {
    const b = (await incremental(0, 4, '0', [{ name: 'log.cleaner.threads', configOperation: op, value: '2' }])).responses[0];
    assert.deepEqual([b.errorCode, b.errorMessage], [40, `Can't ${verb} to key log.cleaner.threads because its type is not LIST.`]);
  }
  await createV7([newTopic('throttled', 2)]);
  const t = (await incremental(0, 2, 'throttled', [{ name: 'retention.ms', configOperation: 2, value: '5' }])).responses[0];
  assert.deepEqual([t.errorCode, t.errorMessage], [40, "Can't APPEND to key retention.ms because its type is not LIST."]);

  const mixed = (
    await incremental(0, 2, 'throttled', [{ name: 'follower.replication.throttled.replicas', configOperation: 0, value: '*,0:1' }])
  ).responses[0];
  assert.deepEqual(
    [mixed.errorCode, mixed.errorMessage],
    [
      40,
      "Invalid value [*, 0:1] for configuration follower.replication.throttled.replicas: follower.replication.throttled.replicas must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...",
    ],
  );
  for (const ok of ['*', ' * ', '0:1,1:2', '']) {
    const r = (await incremental(0, 2, 'throttled', [{ name: 'follower.replication.throttled.replicas', configOperation: 0, value: ok }]))
      .responses[0];
    assert.equal(r.errorCode, 0, `${JSON.stringify(ok)}: ${r.errorMessage}`);
  }
});

test('broker DescribeConfigs: throttle rates absent until set; the configs operators read are listed, with their values', async () => {
  const names = (r: any): string[] => r.configs.map((c: any) => c.name);
  const before = await describeBroker(2);
  assert.equal(before.errorCode, 0);
  for (const n of [
    'leader.replication.throttled.rate',
    'follower.replication.throttled.rate',
    'replica.alter.log.dirs.io.max.bytes.per.second',
  ]) {
    assert.ok(!names(before).includes(n), `${n} must be absent until set`);
  }
  const value = (r: any, n: string) => r.configs.find((c: any) => c.name === n)?.value;
  assert.equal(value(before, 'log.dirs'), '/var/lib/kafka/data-2');
  assert.equal(value(before, 'num.partitions'), '1');
  assert.equal(value(before, 'default.replication.factor'), '1');
  assert.equal(value(before, 'min.insync.replicas'), '1');
  assert.equal(value(before, 'auto.create.topics.enable'), 'false', 'auto-creation is off by default, and the brokers say so');
  for (const n of ['quota.window.num', 'controller.quota.window.num', 'replication.quota.window.num']) assert.equal(value(before, n), '11');
  for (const n of ['quota.window.size.seconds', 'controller.quota.window.size.seconds', 'replication.quota.window.size.seconds'])
    assert.equal(value(before, n), '1');

  assert.equal(
    (await incremental(2, 4, '2', [{ name: 'follower.replication.throttled.rate', configOperation: 0, value: '4096' }])).responses[0]
      .errorCode,
    0,
  );
  const after = await describeBroker(2, ['follower.replication.throttled.rate', 'leader.replication.throttled.rate']);
  assert.deepEqual(
    after.configs.map((c: any) => [c.name, c.value, c.configSource]),
    [['follower.replication.throttled.rate', '4096', 2]],
  );
  await incremental(2, 4, '2', [{ name: 'follower.replication.throttled.rate', configOperation: 1, value: null }]);
  assert.deepEqual((await describeBroker(2, ['follower.replication.throttled.rate'])).configs, []);
});

test('Metadata never auto-creates a topic by default (auto.create.topics.enable=false), whatever the client asks', async () => {
  const md = await request(port(), 3, 12, {
    topics: [{ name: 'auto-please', topicId: ZERO_ID }],
    allowAutoTopicCreation: true,
    includeTopicAuthorizedOperations: false,
  });
  assert.equal(md.topics[0].errorCode, 3);
  assert.ok(!(await topicNames()).includes('auto-please'));
});

test('ApiVersions v3+: an empty or malformed client software name or version → INVALID_REQUEST; features reported at v3+', async () => {
  for (const [name, version] of [
    ['', '1.0'],
    ['kag', ''],
    ['@platformatic/kafka', '1.0'],
    ['kag', '1.0-'],
  ]) {
    const res = await request(port(), 18, 3, { clientSoftwareName: name, clientSoftwareVersion: version });
    assert.deepEqual([res.errorCode, res.apiKeys], [42, []], `${JSON.stringify(name)} ${JSON.stringify(version)}`);
  }
  const ok = await request(port(), 18, 4, { clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '3.9.0' });
  assert.equal(ok.errorCode, 0);
  assert.ok(ok.apiKeys.length > 10);
  assert.deepEqual(ok.finalizedFeatures, [{ name: 'metadata.version', maxVersionLevel: 21, minVersionLevel: 21 }]);
  assert.ok(ok.supportedFeatures.some((f: any) => f.name === 'metadata.version' && f.maxVersion === 21));
  assert.ok(ok.finalizedFeaturesEpoch >= 0);
  // v0-v2 carry no client software fields: nothing to check.
  assert.equal((await request(port(), 18, 2, {})).errorCode, 0);
});

test('Produce with acks other than -1, 0 and 1 → INVALID_REQUIRED_ACKS for every partition, nothing appended', async () => {
  await createV7([newTopic('acks', 2)]);
  const leader = async (p: number) =>
    (
      await request(port(), 3, 12, {
        topics: [{ name: 'acks', topicId: ZERO_ID }],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      })
    ).topics[0].partitions[p].leaderId;
  const res = await request(port(await leader(0)), 0, 9, {
    transactionalId: null,
    acks: 2,
    timeoutMs: 1000,
    topicData: [
      {
        name: 'acks',
        partitionData: [
          { index: 0, records: null },
          { index: 1, records: null },
        ],
      },
    ],
  });
  assert.deepEqual(
    res.responses[0].partitionResponses.map((p: any) => [p.index, p.errorCode]),
    [
      [0, 21],
      [1, 21],
    ],
  );
  assert.equal(sim.model.logOffsets('acks', 0).logEndOffset, 0);
});

test('DescribeCluster v1: endpoint type 2 → MISMATCHED_ENDPOINT_TYPE (114); an unknown type → 115; v0 → INVALID_REQUEST', async () => {
  const ask = (version: number, endpointType?: number) =>
    request(port(), 60, version, { includeClusterAuthorizedOperations: false, ...(endpointType !== undefined && { endpointType }) });
  const ctl = await ask(1, 2);
  assert.deepEqual(
    [ctl.errorCode, ctl.errorMessage, ctl.brokers],
    [114, 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER', []],
  );
  const odd = await ask(1, 7);
  assert.deepEqual([odd.errorCode, odd.errorMessage], [115, 'Unsupported endpoint type 7']);
  const ok = await ask(1, 1);
  assert.deepEqual([ok.errorCode, ok.brokers.length], [0, 3]);
});

test('the reported controller id is a random live broker, as KRaft brokers report it; it follows stopped brokers', async () => {
  const seen = new Set<number>();
  for (let i = 0; i < 200 && seen.size < 3; i++) {
    const md = await request(port(), 3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    seen.add(md.controllerId);
    seen.add((await request(port(), 60, 1, { includeClusterAuthorizedOperations: false, endpointType: 1 })).controllerId);
  }
  assert.deepEqual([...seen].sort(), [0, 1, 2]);
  await sim.stopBroker(1);
  try {
    for (let i = 0; i < 30; i++) {
      const md = await request(port(), 3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      assert.notEqual(md.controllerId, 1, 'never a stopped broker');
    }
  } finally {
    await sim.startBroker(1);
  }
});

test('DescribeTopicPartitions (75): topics by name, unknown ones with 3, paged by the partition limit with a cursor', async () => {
  await createV7([newTopic('dtp-b', 3), newTopic('dtp-a', 2)]);
  const ask = (topics: string[], responsePartitionLimit: number, cursor: { topicName: string; partitionIndex: number } | null = null) =>
    request(port(), 75, 0, { topics: topics.map((name) => ({ name })), responsePartitionLimit, cursor });
  const brief = (r: any) => ({
    topics: r.topics.map((t: any) => [t.name, t.errorCode, t.partitions.map((p: any) => p.partitionIndex)]),
    next: r.nextCursor,
  });
  // Sorted by name, each topic once; an unknown one answers 3.
  assert.deepEqual(brief(await ask(['dtp-b', 'nope', 'dtp-a', 'dtp-b'], 100)), {
    topics: [
      ['dtp-a', 0, [0, 1]],
      ['dtp-b', 0, [0, 1, 2]],
      ['nope', 3, []],
    ],
    next: null,
  });
  // Pages of 2 partitions, following the cursor.
  const p1 = await ask(['dtp-a', 'dtp-b'], 2);
  assert.deepEqual(brief(p1), { topics: [['dtp-a', 0, [0, 1]]], next: { topicName: 'dtp-b', partitionIndex: 0 } });
  const p2 = await ask(['dtp-a', 'dtp-b'], 2, p1.nextCursor);
  assert.deepEqual(brief(p2), { topics: [['dtp-b', 0, [0, 1]]], next: { topicName: 'dtp-b', partitionIndex: 2 } });
  const p3 = await ask(['dtp-a', 'dtp-b'], 2, p2.nextCursor);
  assert.deepEqual(brief(p3), { topics: [['dtp-b', 0, [2]]], next: null });
  // The partition fields match Metadata's.
  const md = await request(port(), 3, 12, {
    topics: [{ name: 'dtp-b', topicId: ZERO_ID }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  const all = (await ask(['dtp-b'], 0)).topics[0]; // a limit below 1 counts as 1
  assert.equal(all.partitions.length, 1);
  assert.equal(all.topicId, md.topics[0].topicId);
  const mp = md.topics[0].partitions[0];
  assert.deepEqual(
    [
      all.partitions[0].leaderId,
      all.partitions[0].leaderEpoch,
      all.partitions[0].replicaNodes,
      all.partitions[0].isrNodes,
      all.partitions[0].eligibleLeaderReplicas,
    ],
    [mp.leaderId, mp.leaderEpoch, mp.replicaNodes, mp.isrNodes, []],
  );
  // topics [] = every topic.
  assert.ok((await ask([], 2000)).topics.some((t: any) => t.name === 'dtp-a'));
});
