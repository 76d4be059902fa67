// Differences from Kafka found by independent implementations (issue 29, part 6), each over the
// wire with raw requests so the exact fields are visible: authorized operations when asked for,
// SASL requests on a listener without SASL, a config resource named twice, a failed acks=0
// produce. (ISR order is checked by controller-vectors.test.ts; topic config defaults by
// topic-config-defaults.test.ts.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { frame, request } from './wire.js';
import { buildBatch } from './cluster/helpers.js';

const ZERO_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const OMITTED = -2147483648;
/** AuthHelper.authorizedOperations without an authorizer: every operation the resource supports. */
const TOPIC_OPS = 3576;
const CLUSTER_OPS = 8096;
let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 3 });
  const res = await request(port(), 19, 7, {
    topics: [
      { name: 'known', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [0] }], configs: [] },
    ],
    timeoutMs: 5000,
    validateOnly: false,
  });
  assert.equal(res.topics[0].errorCode, 0);
});
after(async () => {
  await sim.close();
});

const port = (id = 0): number => sim.endpoints().find((e) => e.id === id)!.port;

test('Metadata v8-v10 answers the authorized operations asked for: 3576 per topic (known or not), 8096 for the cluster', async () => {
  const topics = [
    { name: 'known', topicId: ZERO_ID },
    { name: 'missing', topicId: ZERO_ID },
  ];
  for (const version of [8, 10]) {
    const asked = await request(port(), 3, version, {
      topics,
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: true,
      includeTopicAuthorizedOperations: true,
    });
    assert.deepEqual(
      asked.topics.map((t: any) => [t.name, t.errorCode, t.topicAuthorizedOperations]),
      [
        ['known', 0, TOPIC_OPS],
        ['missing', 3, TOPIC_OPS],
      ],
      `v${version}`,
    );
    assert.equal(asked.clusterAuthorizedOperations, CLUSTER_OPS, `v${version}`);
    const not = await request(port(), 3, version, {
      topics,
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    assert.deepEqual(
      not.topics.map((t: any) => t.topicAuthorizedOperations),
      [OMITTED, OMITTED],
      `v${version}: not asked`,
    );
    assert.equal(not.clusterAuthorizedOperations, OMITTED);
  }
  // v11+ has no cluster field (KIP-700); topics still answer, by name and by id.
  const md = await request(port(), 3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true });
  const id = md.topics.find((t: any) => t.name === 'known').topicId;
  assert.deepEqual(
    md.topics.map((t: any) => t.topicAuthorizedOperations),
    [TOPIC_OPS],
  );
  const byId = await request(port(), 3, 12, {
    topics: [
      { name: null, topicId: id },
      { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' },
    ],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: true,
  });
  assert.deepEqual(
    byId.topics.map((t: any) => [t.errorCode, t.topicAuthorizedOperations]),
    [
      [0, TOPIC_OPS],
      [100, OMITTED],
    ],
    'an unknown id keeps the default',
  );
});

test('DescribeCluster answers 8096 when include_cluster_authorized_operations asks; DescribeTopicPartitions always 3576', async () => {
  for (const version of [0, 1]) {
    const asked = await request(port(), 60, version, { includeClusterAuthorizedOperations: true, endpointType: 1 });
    assert.deepEqual([asked.errorCode, asked.clusterAuthorizedOperations], [0, CLUSTER_OPS], `v${version}`);
    const not = await request(port(), 60, version, { includeClusterAuthorizedOperations: false, endpointType: 1 });
    assert.equal(not.clusterAuthorizedOperations, OMITTED, `v${version}: not asked`);
  }
  const dtp = await request(port(), 75, 0, { topics: [{ name: 'known' }, { name: 'missing' }], responsePartitionLimit: 100, cursor: null });
  assert.deepEqual(
    dtp.topics.map((t: any) => [t.name, t.errorCode, t.topicAuthorizedOperations]),
    [
      ['known', 0, TOPIC_OPS],
      ['missing', 3, TOPIC_OPS],
    ],
  );
});

test("SaslHandshake on a listener without SASL → ILLEGAL_SASL_STATE (34), no mechanisms; SaslAuthenticate → 34 with Kafka's message", async () => {
  for (const mechanism of ['PLAIN', 'SCRAM-SHA-256', 'GSSAPI']) {
    const res = await request(port(), 17, 1, { mechanism });
    assert.deepEqual([res.errorCode, res.mechanisms], [34, []], mechanism);
  }
  const auth = await request(port(), 36, 2, { authBytes: Buffer.from('\u0000u\u0000p') });
  assert.deepEqual([auth.errorCode, auth.errorMessage], [34, 'SaslAuthenticate request received after successful authentication']);
});

test('IncrementalAlterConfigs / AlterConfigs: a resource named twice → INVALID_REQUEST for each occurrence, none applied', async () => {
  const retention = async () => {
    const res = await request(port(), 32, 4, {
      resources: [{ resourceType: 2, resourceName: 'known', configurationKeys: ['retention.ms'] }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    return res.results[0].configs[0].value;
  };
  const set = (value: string) => ({
    resourceType: 2,
    resourceName: 'known',
    configs: [{ name: 'retention.ms', configOperation: 0, value }],
  });
  const other = {
    resourceType: 4,
    resourceName: '0',
    configs: [{ name: 'leader.replication.throttled.rate', configOperation: 0, value: '1000' }],
  };
  const res = await request(port(), 44, 1, { resources: [set('1000'), other, set('2000')], validateOnly: false });
  assert.deepEqual(
    res.responses.map((r: any) => [r.resourceType, r.resourceName, r.errorCode, r.errorMessage]),
    [
      [2, 'known', 42, 'Each resource must appear at most once.'],
      [4, '0', 0, null],
      [2, 'known', 42, 'Each resource must appear at most once.'],
    ],
  );
  assert.equal(await retention(), '604800000');
  const legacy = { resourceType: 2, resourceName: 'known', configs: [{ name: 'retention.ms', value: '3000' }] };
  const old = await request(port(), 33, 2, { resources: [legacy, legacy], validateOnly: false });
  assert.deepEqual(
    old.responses.map((r: any) => [r.errorCode, r.errorMessage]),
    [
      [42, 'Each resource must appear at most once.'],
      [42, 'Each resource must appear at most once.'],
    ],
  );
  assert.equal(await retention(), '604800000');
});

/** Writes the frames on one connection; resolves with the correlation ids answered before it closed. */
function answeredBeforeClose(frames: Buffer[]): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port(), '127.0.0.1');
    const seen: number[] = [];
    let acc = Buffer.alloc(0);
    socket.on('connect', () => socket.write(Buffer.concat(frames)));
    socket.on('data', (d) => {
      acc = Buffer.concat([acc, d]);
      while (acc.length >= 4 && acc.length >= 4 + acc.readInt32BE(0)) {
        seen.push(acc.readInt32BE(4));
        acc = acc.subarray(4 + acc.readInt32BE(0));
      }
      // The last frame (ApiVersions) answered: the connection stayed open.
      if (seen.includes(frames.length)) socket.end();
    });
    socket.on('close', () => resolve(seen));
    socket.on('error', reject);
  });
}

test('Produce with acks=0: a failure closes the connection (no response is possible); a success keeps it open', async () => {
  const produce = (topic: string, id: number) =>
    frame(
      0,
      9,
      {
        transactionalId: null,
        acks: 0,
        timeoutMs: 1000,
        topicData: [{ name: topic, partitionData: [{ index: 0, records: buildBatch(['v']) }] }],
      },
      id,
    );
  const apiVersions = (id: number) => frame(18, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' }, id);
  assert.deepEqual(
    await answeredBeforeClose([produce('known', 1), apiVersions(2)]),
    [2],
    'no answer to acks=0; the next request is answered',
  );
  assert.equal(sim.model.logOffsets('known', 0).logEndOffset, 1);
  assert.deepEqual(
    await answeredBeforeClose([produce('missing', 1), apiVersions(2)]),
    [],
    'UNKNOWN_TOPIC_OR_PARTITION: closed, nothing after it answered',
  );
});
