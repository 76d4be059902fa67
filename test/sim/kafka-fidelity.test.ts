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
  sim = await startSimulator({ brokers: 3 });
});
after(async () => {
  await sim.close();
});

const port = (id = 0): number => sim.endpoints().find((e) => e.id === id)!.port;
const newTopic = (name: string, numPartitions = 1, replicationFactor = 1) => ({ name, numPartitions, replicationFactor, assignments: [], configs: [] });
const createV7 = (topics: unknown[], validateOnly = false) => request(port(), 19, 7, { topics, timeoutMs: 5000, validateOnly });
const topicNames = async (): Promise<string[]> =>
  (await request(port(), 3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })).topics.map((t: any) => t.name).sort();

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
  assert.deepEqual(ta.configs.find((c: any) => c.name === 'retention.ms'), { name: 'retention.ms', value: '1000', readOnly: false, configSource: 1, isSensitive: false });
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
  assert.deepEqual(res.results.map((r: any) => [r.name, r.errorCode, r.errorMessage]), [
    ['grow-x', 42, 'Duplicate topic name.'],
    ['grow-y', 0, null],
  ]);
  const md = await request(port(), 3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  const count = (name: string) => md.topics.find((t: any) => t.name === name).partitions.length;
  assert.deepEqual([count('grow-x'), count('grow-y')], [1, 2]);
});
