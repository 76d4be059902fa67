// The gateway's modules at the newest versions Kafka 4.2 accepts (Produce v13, Fetch v18,
// ListOffsets v11, Metadata v13, DescribeCluster v2, AlterPartitionReassignments v1), against the
// simulator over real TCP: at 4.2 each goes at its newest; at 4.1, 4.0 and 3.9 the negotiation picks
// the lower version that release has; no request outside the release's range. Which version went
// is counted by the simulator (a fault that matches one API at one version and is never applied).
// The encoders and decoders are checked against the simulator's codec (generated from Kafka's specs)
// field by field.
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { StateTopic } from '../../src/kafka/state-topic.js';
import {
  alterPartitionReassignments,
  decodeAlterPartitionReassignmentsAnswer,
  encodeAlterPartitionReassignmentsRequest,
} from '../../src/kafka/apis/alter-partition-reassignments.js';
import { decodeDescribeClusterV2Answer, encodeDescribeClusterV2Request } from '../../src/kafka/apis/describe-cluster.js';
import { encodeListOffsetsRequest } from '../../src/kafka/apis/list-offsets.js';
import { decodeMetadata } from '../../src/kafka/apis/metadata.js';
import { decodeProduceAnswer, encodeProduceRequest, produceRecords } from '../../src/kafka/apis/produce.js';
import { GATEWAY_APIS } from '../../src/kafka/apis/versions.js';
import { WireReader } from '../../src/kafka/wire/reader.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { Reader } from '../../src/sim/protocol/buffers.js';
import { decode, encode } from '../../src/sim/protocol/codec.js';
import {
  AlterPartitionReassignmentsRequestSchema,
  AlterPartitionReassignmentsResponseSchema,
  DescribeClusterRequestSchema,
  DescribeClusterResponseSchema,
  ListOffsetsRequestSchema,
  MetadataResponseSchema,
  ProduceRequestSchema,
  ProduceResponseSchema,
  type AlterPartitionReassignmentsRequest,
  type DescribeClusterRequest,
  type ListOffsetsRequest,
  type ProduceRequest,
} from '../../src/sim/protocol/messages.generated.js';

const APIS = ['Produce', 'Fetch', 'ListOffsets', 'Metadata', 'DescribeCluster', 'AlterPartitionReassignments'] as const;
type Api = (typeof APIS)[number];

/** The version each release's table makes the highest both sides speak. */
const EXPECTED: Record<string, Record<Api, number>> = {
  '4.2': { Produce: 13, Fetch: 18, ListOffsets: 11, Metadata: 13, DescribeCluster: 2, AlterPartitionReassignments: 1 },
  '4.1': { Produce: 13, Fetch: 18, ListOffsets: 10, Metadata: 13, DescribeCluster: 2, AlterPartitionReassignments: 1 },
  '4.0': { Produce: 12, Fetch: 17, ListOffsets: 10, Metadata: 13, DescribeCluster: 2, AlterPartitionReassignments: 0 },
  '3.9': { Produce: 11, Fetch: 17, ListOffsets: 9, Metadata: 12, DescribeCluster: 1, AlterPartitionReassignments: 0 },
};

/** Counts the requests of `api` at `version` the simulator gets (a fault never applied: `after` is never reached). */
function counter(sim: Simulator, api: Api, version: number): () => number {
  const { id } = sim.faults.add({ apiKey: GATEWAY_APIS[api].key, version, after: 2 ** 31 - 1, delayMs: 1 });
  return () => sim.faults.get(id)!.matched;
}

async function withGateway(kafkaVersion: string, fn: (sim: Simulator, gw: PlatformaticKafkaGateway) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ brokers: 3, kafkaVersion });
  const gw = createKafkaGateway(
    parseKafkaConfig({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), KAFKA_RETRIES: '2', KAFKA_RETRY_BACKOFF_MS: '20' }),
  );
  try {
    await fn(sim, gw);
    assert.deepEqual(sim.outOfRange, [], 'no request outside the release range');
  } finally {
    await gw.close();
    await sim.close();
  }
}

for (const [release, versions] of Object.entries(EXPECTED)) {
  test(`Kafka ${release}: each API at the highest version both speak (${APIS.map((a) => `${a} v${versions[a]}`).join(', ')})`, async () => {
    await withGateway(release, async (sim, gw) => {
      const sent = Object.fromEntries(APIS.map((a) => [a, counter(sim, a, versions[a])])) as Record<Api, () => number>;
      assert.equal((await gw.describeCluster()).brokers.length, 3);
      const [created] = await gw.createTopics([{ name: 'moved', partitions: 1, replicationFactor: 2 }]);
      assert.equal(created.ok, true, JSON.stringify(created));
      const before = (await gw.describeTopic('moved')).partitions[0].replicas;
      const target = [0, 1, 2].filter((b) => !before.includes(b)).concat(before[0]);
      assert.deepEqual(await gw.alterPartitionReassignments([{ topic: 'moved', partition: 0, replicas: target }]), [
        { topic: 'moved', partition: 0, ok: true },
      ]);
      // The state topic: Produce (by topic id at v13), ListOffsets, Fetch.
      const st = new StateTopic(gw, { name: '_newest_state' });
      await st.ensure();
      await st.write([
        { key: 'a', value: '1' },
        { key: 'b', value: null },
      ]);
      const { start, end } = await st.offsets();
      assert.deepEqual(
        (await st.read(start, end)).map((r) => [r.key, r.value]),
        [
          ['a', '1'],
          ['b', null],
        ],
      );
      for (const api of APIS) assert.ok(sent[api]() > 0, `${api} sent at v${versions[api]}`);
    });
  });
}

test('Kafka 4.2: a Produce v13 naming a topic id the broker does not know answers UNKNOWN_TOPIC_ID (100); without an id, v12 by name', async () => {
  await withGateway('4.2', async (sim, gw) => {
    await gw.createTopics([{ name: 'p', partitions: 1, replicationFactor: 1 }]);
    const leader = sim.model.getPartition('p', 0).leader;
    await assert.rejects(
      produceRecords(gw, leader, 'p', 0, [{ key: 'k', value: 'v' }], 1000, 'ab'.repeat(16)),
      (err: unknown) => err instanceof KafkaRequestError && err.kind === 'kafka' && err.kafka.code === 100,
    );
    const v12 = counter(sim, 'Produce', 12);
    assert.equal(await produceRecords(gw, leader, 'p', 0, [{ key: 'k', value: 'v' }], 1000), 0n);
    assert.equal(v12(), 1);
    const id = Buffer.from(sim.model.getTopic('p')!.topicId, 'base64url').toString('hex');
    assert.equal(await produceRecords(gw, leader, 'p', 0, [{ key: 'k', value: 'v' }], 1000, id), 1n);
  });
});

test('AlterPartitionReassignments with allowReplicationFactorChange false: 4.2 (v1) refuses an RF change with Kafka error 38 and message, moves the rest; 4.0 (v0 only): UNSUPPORTED_VERSION, nothing sent', async () => {
  await withGateway('4.2', async (sim, gw) => {
    await gw.createTopics([{ name: 'rf', partitions: 2, replicationFactor: 2 }]);
    const results = await alterPartitionReassignments(
      gw,
      [
        { topic: 'rf', partition: 0, replicas: [0, 1, 2] },
        { topic: 'rf', partition: 1, replicas: [...sim.model.getPartition('rf', 1).replicas].reverse() },
      ],
      { allowReplicationFactorChange: false },
    );
    assert.deepEqual(results, [
      {
        topic: 'rf',
        partition: 0,
        ok: false,
        error: { code: 38, name: 'INVALID_REPLICATION_FACTOR', message: 'The replication factor is changed from 2 to 3' },
      },
      { topic: 'rf', partition: 1, ok: true },
    ]);
    assert.equal(sim.model.getPartition('rf', 0).replicas.length, 2);
  });
  await withGateway('4.0', async (sim, gw) => {
    await gw.createTopics([{ name: 'rf', partitions: 1, replicationFactor: 2 }]);
    const v0 = counter(sim, 'AlterPartitionReassignments', 0);
    await assert.rejects(
      alterPartitionReassignments(gw, [{ topic: 'rf', partition: 0, replicas: [0, 1, 2] }], { allowReplicationFactorChange: false }),
      (err: unknown) => err instanceof KafkaRequestError && err.kafka.code === 35 && /AllowReplicationFactorChange/.test(err.kafka.message),
    );
    assert.equal(v0(), 0, 'nothing sent');
  });
});

test('Kafka 4.2: DescribeCluster v2 lists the unfenced brokers only (a stopped broker is fenced)', async () => {
  await withGateway('4.2', async (sim, gw) => {
    await sim.stopBroker(2);
    const v2 = counter(sim, 'DescribeCluster', 2);
    assert.deepEqual(
      (await gw.describeCluster()).brokers.map((b) => b.id),
      [0, 1],
    );
    assert.equal(v2(), 1);
  });
});

test('Kafka 4.2: a Metadata v13 answer with a top-level error is thrown with its code', async () => {
  await withGateway('4.2', async (sim, gw) => {
    await gw.describeCluster(); // connections and their ApiVersions first
    sim.faults.add({ apiKey: 3, version: 13, error: { code: 129 }, times: 1 });
    await assert.rejects(
      gw.listTopics(),
      (err: unknown) => err instanceof KafkaRequestError && err.kafka.code === 129 && /REBOOTSTRAP_REQUIRED/.test(err.kafka.message),
    );
  });
});

describe('encoders and decoders against the simulator codec (Kafka specs)', () => {
  it('Produce v13 request names the topic by id; v13 response read by id', () => {
    const id = '0123456789abcdef0123456789abcdef';
    const req = decode<ProduceRequest>(
      ProduceRequestSchema,
      13,
      new Reader(encodeProduceRequest(-1, 1500, 't', 3, [{ key: 'k', value: null }], 7n, id)),
    );
    assert.deepEqual([req.acks, req.timeoutMs, req.transactionalId], [-1, 1500, null]);
    assert.deepEqual(
      req.topicData.map((t) => [Buffer.from(t.topicId!, 'base64url').toString('hex'), t.partitionData.map((p) => p.index)]),
      [[id, [3]]],
    );
    const res = encode(ProduceResponseSchema, 13, {
      responses: [
        {
          topicId: Buffer.from(id, 'hex').toString('base64url'),
          partitionResponses: [
            { index: 3, errorCode: 0, baseOffset: 42n, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage: null },
          ],
        },
      ],
      throttleTimeMs: 5,
    }).toBuffer();
    const r = new WireReader(res);
    assert.deepEqual(decodeProduceAnswer(r, 13), {
      responses: [{ name: '', topicId: id, partitionResponses: [{ index: 3, errorCode: 0, baseOffset: 42n, errorMessage: null }] }],
      throttleTimeMs: 5,
    });
    assert.equal(r.pos, res.length);
  });

  it('ListOffsets v10/v11 request: v9 fields then timeout_ms', () => {
    const topics = [
      {
        name: 'a',
        partitions: [
          { partitionIndex: 1, currentLeaderEpoch: -1, timestamp: -2n },
          { partitionIndex: 2, currentLeaderEpoch: 4, timestamp: 99n },
        ],
      },
    ];
    for (const version of [10, 11]) {
      const req = decode<ListOffsetsRequest>(ListOffsetsRequestSchema, version, new Reader(encodeListOffsetsRequest(-1, 0, topics, 4321)));
      // maxNumOffsets: v0's field, its default where a version lacks it.
      assert.deepEqual(req, {
        replicaId: -1,
        isolationLevel: 0,
        topics: topics.map((t) => ({ ...t, partitions: t.partitions.map((p) => ({ ...p, maxNumOffsets: 1 })) })),
        timeoutMs: 4321,
      });
    }
  });

  it('Metadata v13 response: the top-level error code after the topics', () => {
    const answer = {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 1, host: 'h', port: 9, rack: null }],
      clusterId: 'c',
      controllerId: 1,
      topics: [],
      errorCode: 0,
    };
    const r = new WireReader(encode(MetadataResponseSchema, 13, answer).toBuffer());
    assert.deepEqual(decodeMetadata(r, 'all', 13).brokers, answer.brokers);
    assert.equal(r.remaining, 0);
    const failed = encode(MetadataResponseSchema, 13, { ...answer, errorCode: 129 }).toBuffer();
    assert.throws(
      () => decodeMetadata(new WireReader(failed), 'all', 13),
      (err: unknown) => err instanceof KafkaRequestError && err.kafka.code === 129,
    );
  });

  it('DescribeCluster v2: include_fenced_brokers in the request; is_fenced read and fenced brokers left out', () => {
    const req = decode<DescribeClusterRequest>(DescribeClusterRequestSchema, 2, new Reader(encodeDescribeClusterV2Request(false, true)));
    assert.deepEqual(req, { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers: true });
    const res = encode(DescribeClusterResponseSchema, 2, {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      endpointType: 1,
      clusterId: 'c',
      controllerId: 2,
      brokers: [
        { brokerId: 1, host: 'a', port: 1, rack: 'r', isFenced: false },
        { brokerId: 2, host: 'b', port: 2, rack: null, isFenced: true },
      ],
      clusterAuthorizedOperations: -2147483648,
    }).toBuffer();
    const r = new WireReader(res);
    const out = decodeDescribeClusterV2Answer(r);
    assert.deepEqual([out.clusterId, out.controllerId, out.brokers], ['c', 2, [{ brokerId: 1, host: 'a', port: 1, rack: 'r' }]]);
    assert.equal(r.remaining, 0);
  });

  it('AlterPartitionReassignments v1: allow_replication_factor_change after timeout_ms in the request, after throttle_time_ms in the response', () => {
    const moves = [
      { topic: 't', partition: 0, replicas: [1, 2] },
      { topic: 't', partition: 1, replicas: null },
    ];
    const req = decode<AlterPartitionReassignmentsRequest>(
      AlterPartitionReassignmentsRequestSchema,
      1,
      new Reader(encodeAlterPartitionReassignmentsRequest(900, [['t', moves]], false)),
    );
    assert.deepEqual(req, {
      timeoutMs: 900,
      allowReplicationFactorChange: false,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, replicas: [1, 2] },
            { partitionIndex: 1, replicas: null },
          ],
        },
      ],
    });
    const res = encode(AlterPartitionReassignmentsResponseSchema, 1, {
      throttleTimeMs: 0,
      allowReplicationFactorChange: false,
      errorCode: 0,
      errorMessage: null,
      responses: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, errorCode: 38, errorMessage: 'm' },
            { partitionIndex: 1, errorCode: 0, errorMessage: null },
          ],
        },
      ],
    }).toBuffer();
    const a = decodeAlterPartitionReassignmentsAnswer(new WireReader(res), new Map([['t', moves]]), new Map([['t', [0, 1]]]), 2, 1);
    assert.deepEqual([a.allowReplicationFactorChange, a.errorCode, [...a.codes], [...a.messages]], [false, 0, [38, 0], [[0, 'm']]]);
  });
});
