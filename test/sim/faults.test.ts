// Faults on demand (src/sim/faults.ts), over the wire: an error answered in each API's response
// shape (top-level and per-item error fields, items named as the request named them), the
// counters (after / times / broker / version), delays and dropped connections, and the same
// from another process through the control port (POST/GET/DELETE /faults).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { startControlServer } from '../../src/sim/control.js';
import { FaultSpecError, parseFaultSpec } from '../../src/sim/faults.js';
import { exchange, frame, request } from './wire.js';

const port = (sim: Simulator, id = 0): number => sim.endpoints().find((e) => e.id === id)!.port;

/** Every errorCode field anywhere in a decoded response. */
function errorCodes(v: unknown, out: number[] = []): number[] {
  if (Array.isArray(v)) for (const x of v) errorCodes(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'errorCode' && typeof x === 'number') out.push(x);
      else errorCodes(x, out);
    }
  }
  return out;
}

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

// [API, key, version, request body, what the error answer must name]
const SHAPES: [string, number, number, unknown, (res: any) => void][] = [
  [
    'Produce',
    0,
    9,
    { acks: -1, timeoutMs: 1000, topicData: [{ name: 'p', partitionData: [{ index: 2, records: null }] }] },
    (r) => {
      assert.equal(r.responses[0].name, 'p');
      assert.equal(r.responses[0].partitionResponses[0].index, 2);
    },
  ],
  [
    'Fetch',
    1,
    12,
    {
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1000,
      topics: [{ topic: 'f', partitions: [{ partition: 1, fetchOffset: 0n, partitionMaxBytes: 100 }] }],
    },
    (r) => {
      assert.equal(r.responses[0].topic, 'f');
      assert.equal(r.responses[0].partitions[0].partitionIndex, 1);
    },
  ],
  [
    'ListOffsets',
    2,
    7,
    { replicaId: -1, topics: [{ name: 'l', partitions: [{ partitionIndex: 3, timestamp: -1n }] }] },
    (r) => {
      assert.equal(r.topics[0].name, 'l');
      assert.equal(r.topics[0].partitions[0].partitionIndex, 3);
    },
  ],
  [
    'Metadata',
    3,
    12,
    { topics: [{ name: 'm', topicId: TOPIC_ID }], allowAutoTopicCreation: false },
    (r) => {
      assert.deepEqual([r.topics[0].name, r.topics[0].topicId], ['m', TOPIC_ID]);
    },
  ],
  [
    'CreateTopics',
    19,
    7,
    {
      topics: [
        { name: 'a', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] },
        { name: 'b', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
      ],
      timeoutMs: 1000,
    },
    (r) => {
      assert.deepEqual(
        r.topics.map((t: any) => t.name),
        ['a', 'b'],
      );
    },
  ],
  [
    'DeleteTopics v5',
    20,
    5,
    { topicNames: ['x', 'y'], timeoutMs: 1000 },
    (r) => {
      assert.deepEqual(
        r.responses.map((t: any) => t.name),
        ['x', 'y'],
      );
    },
  ],
  [
    'DeleteTopics v6',
    20,
    6,
    { topics: [{ name: 'x', topicId: TOPIC_ID }], timeoutMs: 1000 },
    (r) => {
      assert.deepEqual([r.responses[0].name, r.responses[0].topicId], ['x', TOPIC_ID]);
    },
  ],
  [
    'DescribeConfigs',
    32,
    4,
    { resources: [{ resourceType: 2, resourceName: 'c', configurationKeys: null }] },
    (r) => {
      assert.deepEqual([r.results[0].resourceType, r.results[0].resourceName, r.results[0].configs], [2, 'c', []]);
    },
  ],
  [
    'AlterConfigs',
    33,
    2,
    { resources: [{ resourceType: 2, resourceName: 'c', configs: [] }], validateOnly: false },
    (r) => {
      assert.deepEqual([r.responses[0].resourceType, r.responses[0].resourceName], [2, 'c']);
    },
  ],
  ['DescribeLogDirs', 35, 4, { topics: null }, (r) => assert.deepEqual(r.results, [])],
  [
    'CreatePartitions',
    37,
    3,
    { topics: [{ name: 'cp', count: 4, assignments: null }], timeoutMs: 1000, validateOnly: false },
    (r) => {
      assert.equal(r.results[0].name, 'cp');
    },
  ],
  [
    'IncrementalAlterConfigs',
    44,
    1,
    { resources: [{ resourceType: 4, resourceName: '0', configs: [] }], validateOnly: false },
    (r) => {
      assert.deepEqual([r.responses[0].resourceType, r.responses[0].resourceName], [4, '0']);
    },
  ],
  [
    'AlterPartitionReassignments',
    45,
    0,
    {
      timeoutMs: 1000,
      topics: [
        {
          name: 'r',
          partitions: [
            { partitionIndex: 0, replicas: [1, 2] },
            { partitionIndex: 5, replicas: null },
          ],
        },
      ],
    },
    (r) => {
      assert.equal(r.responses[0].name, 'r');
      assert.deepEqual(
        r.responses[0].partitions.map((p: any) => p.partitionIndex),
        [0, 5],
      );
    },
  ],
  ['ListPartitionReassignments', 46, 0, { timeoutMs: 1000, topics: null }, (r) => assert.deepEqual(r.topics, [])],
  ['DescribeClientQuotas', 48, 1, { components: [], strict: false }, (r) => assert.equal(r.entries, null)],
  [
    'AlterClientQuotas',
    49,
    1,
    { entries: [{ entity: [{ entityType: 'user', entityName: 'u' }], ops: [] }], validateOnly: false },
    (r) => {
      assert.deepEqual(r.entries[0].entity, [{ entityType: 'user', entityName: 'u' }]);
    },
  ],
  ['DescribeCluster', 60, 1, { includeClusterAuthorizedOperations: false, endpointType: 1 }, (r) => assert.deepEqual(r.brokers, [])],
  ['ApiVersions', 18, 3, { clientSoftwareName: 'wire', clientSoftwareVersion: '1' }, (r) => assert.deepEqual(r.apiKeys, [])],
];

test('an error answer in every API’s shape: top-level and per-item error fields, items as the request named them', async () => {
  const sim = await startSimulator({ brokers: 1 });
  try {
    for (const [name, apiKey, version, body, names] of SHAPES) {
      sim.faults.clear();
      const fault = sim.faults.add({ apiKey, times: 1, error: { code: 29, message: `denied ${name}`, throttleTimeMs: 1234 } });
      const res = await request(port(sim), apiKey, version, body);
      // Metadata v12 has no top-level error_code (v13's, KIP-1102): the codec gives the absent field its default.
      const codes = errorCodes(apiKey === 3 && version < 13 ? { ...res, errorCode: undefined } : res);
      assert.ok(codes.length > 0, `${name}: some error field`);
      assert.ok(
        codes.every((c) => c === 29),
        `${name}: every error field is 29, got ${codes.join(',')}`,
      );
      if ('throttleTimeMs' in res) assert.equal(res.throttleTimeMs, 1234, name);
      names(res);
      assert.equal(sim.faults.get(fault.id)?.applied, 1, name);
      // The budget is spent: the same request is handled normally again.
      const normal = await request(port(sim), apiKey, version, body);
      assert.ok(!errorCodes(normal).includes(29), `${name}: handled normally after the fault`);
    }
  } finally {
    await sim.close();
  }
});

test('an error answer changes nothing and carries the message where the response has one', async () => {
  const sim = await startSimulator({ brokers: 1 });
  try {
    sim.faults.add({ apiKey: 19, error: { code: 29, message: 'Authorization failed.' } });
    const res = await request(port(sim), 19, 7, {
      topics: [{ name: 'denied', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 1000,
    });
    assert.deepEqual([res.topics[0].errorCode, res.topics[0].errorMessage], [29, 'Authorization failed.']);
    assert.equal(sim.model.getTopic('denied'), undefined, 'the request was never handled');

    sim.faults.add({ apiKey: 60, error: { code: 31 } });
    const cluster = await request(port(sim), 60, 0, { includeClusterAuthorizedOperations: false });
    assert.deepEqual([cluster.errorCode, cluster.errorMessage], [31, null], 'no message: null, clients use Kafka’s text');
  } finally {
    await sim.close();
  }
});

test('after, times, broker and version select the requests; counters tell what happened', async () => {
  const sim = await startSimulator({ brokers: 2 });
  try {
    const body = { includeClusterAuthorizedOperations: false };
    const f = sim.faults.add({ apiKey: 60, brokerId: 1, version: 0, after: 1, times: 2, error: { code: 7 } });
    const codes = async (broker: number, version: number) => (await request(port(sim, broker), 60, version, body)).errorCode;
    assert.equal(await codes(1, 0), 0, 'the first matching request passes (after: 1)');
    assert.equal(await codes(0, 0), 0, 'other broker: not matched');
    assert.equal(await codes(1, 1), 0, 'other version: not matched');
    assert.equal(await codes(1, 0), 7);
    assert.equal(await codes(1, 0), 7);
    assert.equal(await codes(1, 0), 0, 'budget spent (times: 2)');
    assert.deepEqual(sim.faults.get(f.id), { ...f, matched: 3, applied: 2, remaining: 0 });

    // The first active fault wins; an exhausted one lets the next take over.
    sim.faults.clear();
    const first = sim.faults.add({ apiKey: 60, times: 1, error: { code: 41 } });
    const second = sim.faults.add({ apiKey: 60, error: { code: 31 } });
    assert.equal(await codes(0, 0), 41);
    assert.equal(await codes(0, 0), 31);
    assert.deepEqual([sim.faults.get(first.id)?.applied, sim.faults.get(second.id)?.applied], [1, 1]);
    assert.equal(sim.faults.remove(second.id), true);
    assert.equal(sim.faults.remove(second.id), false);
    assert.equal(await codes(0, 0), 0);
  } finally {
    await sim.close();
  }
});

test('delay holds exactly the matching requests; drop closes the connection before or after applying', async () => {
  const sim = await startSimulator({ brokers: 1 });
  try {
    // A delayed CreateTopics is still unanswered when a later request on another connection
    // has been answered: ordering, not a clock, proves the delay.
    const slow = sim.faults.add({ apiKey: 19, delayMs: 600_000 });
    const socket = net.connect(port(sim), '127.0.0.1');
    let answered = false;
    socket.on('data', () => (answered = true));
    socket.on('error', () => {});
    socket.write(
      frame(19, 7, { topics: [{ name: 'slow', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000 }),
    );
    await sim.faults.waitApplied(slow.id);
    const md = await request(port(sim), 3, 12, { topics: null, allowAutoTopicCreation: false });
    assert.equal(md.brokers.length, 1, 'other APIs are not delayed');
    assert.equal(answered, false);
    assert.equal(sim.model.getTopic('slow'), undefined);
    socket.destroy();
    sim.faults.clear();

    const createBody = (name: string) =>
      frame(19, 7, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000 });
    sim.faults.add({ apiKey: 19, times: 1, drop: 'before' });
    assert.equal(await exchange(port(sim), createBody('dropped-before')), 'closed');
    assert.equal(sim.model.getTopic('dropped-before'), undefined, 'dropped before: never applied');
    sim.faults.add({ apiKey: 19, times: 1, drop: 'after' });
    assert.equal(await exchange(port(sim), createBody('dropped-after')), 'closed');
    assert.ok(sim.model.getTopic('dropped-after'), 'dropped after: applied, answer lost');
    // Delay then error.
    sim.faults.add({ apiKey: 19, times: 1, delayMs: 10, error: { code: 41 } });
    const res = await request(port(sim), 19, 7, {
      topics: [{ name: 'late', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 1000,
    });
    assert.equal(res.topics[0].errorCode, 41);
  } finally {
    await sim.close();
  }
});

test('fault specs are validated', () => {
  const bad: [unknown, RegExp][] = [
    [null, /JSON object/],
    [{}, /apiKey is required/],
    [{ apiKey: 19 }, /needs error, drop or delayMs/],
    [{ apiKey: 19, error: 0 }, /code 0 is no error/],
    [{ apiKey: 19, error: { code: 29, extra: 1 } }, /unknown error field/],
    [{ apiKey: 19, error: 29, drop: 'before' }, /not both/],
    [{ apiKey: 19, drop: 'sometimes' }, /drop must be/],
    [{ apiKey: 19.5, error: 29 }, /apiKey must be an integer/],
    [{ apiKey: 19, times: 0, error: 29 }, /times must be an integer from 1/],
    [{ apiKey: 19, error: 29, topic: 'a' }, /unknown field\(s\): topic/],
  ];
  for (const [spec, message] of bad)
    assert.throws(
      () => parseFaultSpec(spec),
      (e: unknown) => e instanceof FaultSpecError && message.test(e.message),
      JSON.stringify(spec),
    );
  assert.deepEqual(parseFaultSpec({ apiKey: 19, error: 29 }), { apiKey: 19, error: { code: 29 } });
});

test('the control port: POST /faults (API by name or key), GET, DELETE one and all, refusals', async () => {
  const sim = await startSimulator({ brokers: 1 });
  const control = await startControlServer(sim);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${control.url}${path}`, { method, ...(body !== undefined && { body: JSON.stringify(body) }) });
    return { status: res.status, body: await res.json() };
  };
  try {
    const added = await call('POST', '/faults', { apiKey: 'createtopics', times: 1, error: { code: 73, message: 'no' } });
    assert.equal(added.status, 201);
    assert.deepEqual(added.body, {
      apiKey: 19,
      times: 1,
      error: { code: 73, message: 'no' },
      id: added.body.id,
      matched: 0,
      applied: 0,
      remaining: 1,
    });
    const res = await request(port(sim), 19, 7, {
      topics: [{ name: 'a', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 1000,
    });
    assert.equal(res.topics[0].errorCode, 73);
    assert.equal((await call('GET', `/faults/${added.body.id}`)).body.applied, 1);

    const second = await call('POST', '/faults', { apiKey: 3, delayMs: 5 });
    assert.deepEqual(
      (await call('GET', '/faults')).body.faults.map((f: any) => f.id),
      [added.body.id, second.body.id],
    );
    assert.deepEqual((await call('DELETE', `/faults/${second.body.id}`)).body.id, second.body.id);
    assert.equal((await call('DELETE', `/faults/${second.body.id}`)).status, 404);
    assert.deepEqual((await call('DELETE', '/faults')).body, { removed: 1 });
    assert.deepEqual((await call('GET', '/faults')).body, { faults: [] });

    for (const [body, message] of [
      [{ apiKey: 'NoSuchApi', error: 29 }, /unknown API 'NoSuchApi'/],
      [{ apiKey: 19, error: 29, drop: 'after' }, /not both/],
      [undefined, /JSON object/],
    ] as const) {
      const r = await call('POST', '/faults', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.error, message);
    }
    assert.equal((await call('GET', '/faults/x')).status, 400);
    assert.equal((await call('PUT', '/faults')).status, 405);
    assert.deepEqual(sim.faults.list(), [], 'no refusal added a fault');
  } finally {
    await control.close();
    await sim.close();
  }
});
