// Metadata auto-creation (auto.create.topics.enable=true), over the wire: raw Metadata requests
// of several versions, and kcat (librdkafka's producer asks for auto-creation) when installed.
// Kafka's behaviour (KafkaApis.handleTopicMetadataRequest / AutoTopicCreationManager): an
// unknown topic is created with num.partitions / default.replication.factor and answered
// LEADER_NOT_AVAILABLE (5) with no partitions in that response; KRaft only logs a failed
// creation (the client sees 5 again), ZooKeeper mode answers the failure's code.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { request } from './wire.js';

const ZERO_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const KCAT = '/usr/bin/kcat';
const kcatSkip = existsSync(KCAT) || process.env.CI === 'true' ? false : 'kcat is not installed (apt-get install kcat)';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 3, autoCreateTopicsEnable: true, numPartitions: 3, defaultReplicationFactor: 2 });
});
after(async () => {
  await sim.close();
});
const port = (): number => sim.endpoints()[0].port;

async function metadata(names: string[] | null, allow: boolean, version = 12): Promise<any> {
  const topics = names === null ? null : names.map((name) => (version >= 10 ? { name, topicId: ZERO_ID } : { name }));
  return request(port(), 3, version, { topics, allowAutoTopicCreation: allow, includeTopicAuthorizedOperations: false });
}
const topicNames = async (): Promise<string[]> => (await metadata(null, true)).topics.map((t: any) => t.name).sort();

test('the brokers report auto.create.topics.enable=true, num.partitions and default.replication.factor', async () => {
  const res = await request(port(), 32, 4, {
    resources: [
      {
        resourceType: 4,
        resourceName: '0',
        configurationKeys: ['auto.create.topics.enable', 'num.partitions', 'default.replication.factor'],
      },
    ],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  assert.deepEqual(res.results[0].configs.map((c: any) => [c.name, c.value]).sort(), [
    ['auto.create.topics.enable', 'true'],
    ['default.replication.factor', '2'],
    ['num.partitions', '3'],
  ]);
});

test('v12 with allow_auto_topic_creation: LEADER_NOT_AVAILABLE, no partitions; then the topic is there with the defaults', async () => {
  const md = await metadata(['auto-a'], true);
  assert.deepEqual(
    md.topics.map((t: any) => [t.name, t.errorCode, t.topicId, t.partitions.length]),
    [['auto-a', 5, ZERO_ID, 0]],
  );
  const again = await metadata(['auto-a'], true);
  const t = again.topics[0];
  assert.equal(t.errorCode, 0);
  assert.notEqual(t.topicId, ZERO_ID);
  assert.equal(t.partitions.length, 3, 'num.partitions');
  for (const p of t.partitions) {
    assert.equal(p.replicaNodes.length, 2, 'default.replication.factor');
    assert.equal(p.errorCode, 0);
    assert.ok(p.leaderId >= 0);
  }
});

test('allow_auto_topic_creation=false, a request for every topic, or by id: nothing is created', async () => {
  assert.equal((await metadata(['auto-no'], false)).topics[0].errorCode, 3);
  assert.ok(!(await topicNames()).includes('auto-no'));
  const byId = await request(port(), 3, 12, {
    topics: [{ name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }],
    allowAutoTopicCreation: true,
    includeTopicAuthorizedOperations: false,
  });
  assert.equal(byId.topics[0].errorCode, 100);
});

test('v1-v3 have no allow_auto_topic_creation field and always allow it', async () => {
  const md = await metadata(['auto-v1'], false, 1);
  assert.equal(md.topics[0].errorCode, 5);
  assert.ok((await topicNames()).includes('auto-v1'));
});

test('invalid names answer INVALID_TOPIC_EXCEPTION; internal topics are not auto-created', async () => {
  const md = await metadata(['bad name!', '__consumer_offsets'], true);
  assert.deepEqual(
    md.topics.map((t: any) => t.errorCode),
    [17, 3],
  );
  const names = await topicNames();
  assert.ok(!names.includes('__consumer_offsets'));
});

test('a creation Kafka refuses: KRaft answers 5 and creates nothing; ZooKeeper mode answers the error', async () => {
  for (const [notControllerErrors, code] of [
    [false, 5],
    [true, 38],
  ] as const) {
    const small = await startSimulator({ brokers: 1, autoCreateTopicsEnable: true, defaultReplicationFactor: 2, notControllerErrors });
    try {
      const p = small.endpoints()[0].port;
      const md = await request(p, 3, 12, {
        topics: [{ name: 'too-wide', topicId: ZERO_ID }],
        allowAutoTopicCreation: true,
        includeTopicAuthorizedOperations: false,
      });
      assert.equal(md.topics[0].errorCode, code, `notControllerErrors=${notControllerErrors}`);
      assert.equal(small.model.topicView({ name: 'too-wide' }), undefined);
    } finally {
      await small.close();
    }
  }
});

test('kcat (librdkafka producer) writes to a topic that does not exist yet: it is auto-created', { skip: kcatSkip }, async () => {
  const producer = execFile(KCAT, ['-b', sim.bootstrapServers.join(','), '-P', '-t', 'auto-kcat', '-p', '0'], { timeout: 20_000 });
  producer.stdin!.end('one\ntwo\n');
  await new Promise<void>((resolve, reject) =>
    producer.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`kcat -P exited ${code}`)))),
  );
  assert.equal(sim.model.topicView({ name: 'auto-kcat' })?.partitions.length, 3);
  assert.equal(sim.model.listOffset('auto-kcat', 0, -1).offset, 2);
});
