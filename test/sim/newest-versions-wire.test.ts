// The versions Kafka 4.0-4.2 added to the APIs the gateway sends, answered by the simulator over
// real TCP as Kafka does: Produce v13 (topics by id, UNKNOWN_TOPIC_ID), AlterPartitionReassignments
// v1 (allow_replication_factor_change false: INVALID_REPLICATION_FACTOR "The replication factor is
// changed from N to M", ReplicationControlManager.validatePartitionReplicationFactorUnchanged),
// DescribeCluster v2 (fenced brokers on request), ListOffsets v11 (EARLIEST_PENDING_UPLOAD), Metadata
// v13 (top-level error code), and each advertised only by the releases whose table has it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock, startSimulator, type Simulator } from '../../src/sim/index.js';
import { encodeProduceRequest } from '../../src/kafka/apis/produce.js';
import { decode } from '../../src/sim/protocol/codec.js';
import { Reader } from '../../src/sim/protocol/buffers.js';
import {
  ProduceRequestSchema,
  type AlterPartitionReassignmentsResponse,
  type ApiVersionsResponse,
  type DescribeClusterResponse,
  type ListOffsetsResponse,
  type MetadataResponse,
  type ProduceRequest,
  type ProduceResponse,
} from '../../src/sim/protocol/messages.generated.js';
import { request } from './wire.js';

let sim: Simulator;

before(async () => {
  sim = await startSimulator({ brokers: 4, clock: new ManualClock() });
  sim.model.createTopic({
    name: 'rf',
    assignments: [0, 1, 2, 3].map((partition) => ({ partition, brokerIds: [partition % 4, (partition + 1) % 4] })),
  });
});
after(async () => {
  await sim.close();
});

const port = (id: number): number => sim.endpoints().find((e) => e.id === id && e.up)!.port;
const anyPort = (): number => sim.endpoints().find((e) => e.up)!.port;
const hexId = (topic: string): string => Buffer.from(sim.model.getTopic(topic)!.topicId, 'base64url').toString('hex');

/** A Produce request body (one batch of one record) as the simulator's codec reads it at `version`. */
function produceBody(version: number, topic: string, topicIdHex: string | null): ProduceRequest {
  const bytes = encodeProduceRequest(-1, 1000, topic, 0, [{ key: 'k', value: 'v' }], 1n, topicIdHex);
  return decode<ProduceRequest>(ProduceRequestSchema, version, new Reader(bytes));
}

test('Produce v13 names the topic by id: appended to that topic, answered by the same id; an unknown id: UNKNOWN_TOPIC_ID (100)', async () => {
  const leader = sim.model.getPartition('rf', 0).leader;
  const before = sim.model.logOffsets('rf', 0).logEndOffset;
  const ok = await request<ProduceResponse>(port(leader), 0, 13, produceBody(13, 'rf', hexId('rf')));
  assert.equal(ok.responses[0].topicId, sim.model.getTopic('rf')!.topicId);
  assert.deepEqual(
    ok.responses[0].partitionResponses.map((p) => [p.index, p.errorCode, p.baseOffset]),
    [[0, 0, BigInt(before)]],
  );
  assert.equal(sim.model.logOffsets('rf', 0).logEndOffset, before + 1);

  const unknown = await request<ProduceResponse>(port(leader), 0, 13, produceBody(13, 'rf', 'ab'.repeat(16)));
  assert.deepEqual(
    unknown.responses[0].partitionResponses.map((p) => [p.index, p.errorCode]),
    [[0, 100]],
  );
  assert.equal(sim.model.logOffsets('rf', 0).logEndOffset, before + 1, 'nothing appended');

  // v12 is v11: by name.
  const v12 = await request<ProduceResponse>(port(leader), 0, 12, produceBody(12, 'rf', null));
  assert.deepEqual(
    v12.responses.map((t) => [t.name, t.partitionResponses[0].errorCode]),
    [['rf', 0]],
  );
});

const alter = (version: number, allow: boolean | undefined, partitions: { partitionIndex: number; replicas: number[] | null }[]) =>
  request<AlterPartitionReassignmentsResponse>(port(sim.model.controllerId), 45, version, {
    timeoutMs: 1000,
    ...(allow !== undefined && { allowReplicationFactorChange: allow }),
    topics: [{ name: 'rf', partitions }],
  });
const rows = (res: AlterPartitionReassignmentsResponse) =>
  res.responses.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.errorMessage]));

test('AlterPartitionReassignments v1 with allow_replication_factor_change false refuses a target of another length (38), keeps a same-length move, and echoes the flag', async () => {
  const res = await alter(1, false, [
    { partitionIndex: 0, replicas: [1, 2, 3] }, // RF 2 -> 3
    { partitionIndex: 1, replicas: [3] }, // RF 2 -> 1
    { partitionIndex: 2, replicas: [0, 1] }, // RF 2 -> 2: a move
    { partitionIndex: 3, replicas: [9, 1, 2] }, // an unregistered broker: 39 before 38
  ]);
  assert.equal(res.errorCode, 0);
  assert.equal(res.allowReplicationFactorChange, false);
  assert.deepEqual(rows(res), [
    [0, 38, 'The replication factor is changed from 2 to 3'],
    [1, 38, 'The replication factor is changed from 2 to 1'],
    [2, 0, null],
    [3, 39, 'The manual partition assignment includes broker 9, but no such broker is registered.'],
  ]);
  assert.deepEqual(sim.model.getPartition('rf', 0).replicas, [0, 1], 'a refused target changes nothing');
  assert.deepEqual(sim.model.getPartition('rf', 1).replicas, [1, 2]);
  // Partition 2 is moving (the clock is manual): [0, 1] ++ the removed [2, 3].
  assert.deepEqual(sim.model.getPartition('rf', 2).replicas, [0, 1, 2, 3]);
});

test('AlterPartitionReassignments v1: a moving partition is compared with where it is headed, a cancel is never refused, true allows the change, v0 always does', async () => {
  // Partition 2 moves to [0, 1] (previous test): its replicas are [0, 1, 2, 3], headed for 2.
  const headed = await alter(1, false, [
    { partitionIndex: 2, replicas: [1, 0] },
    { partitionIndex: 2, replicas: [0, 1, 2] },
  ]);
  assert.deepEqual(rows(headed), [
    [2, 0, null],
    [2, 38, 'The replication factor is changed from 2 to 3'],
  ]);
  const cancel = await alter(1, false, [{ partitionIndex: 2, replicas: null }]);
  assert.deepEqual(rows(cancel), [[2, 0, null]]);
  const allowed = await alter(1, true, [{ partitionIndex: 0, replicas: [0, 1, 2] }]);
  assert.equal(allowed.allowReplicationFactorChange, true);
  assert.deepEqual(rows(allowed), [[0, 0, null]]);
  const byDefault = await alter(1, undefined, [{ partitionIndex: 0, replicas: null }]);
  assert.deepEqual(rows(byDefault), [[0, 0, null]], 'the default (true): the cancel of the RF change just started');
  const v0 = await alter(0, undefined, [{ partitionIndex: 1, replicas: [1, 2, 3] }]);
  assert.deepEqual(rows(v0), [[1, 0, null]]);
  await alter(0, undefined, [{ partitionIndex: 1, replicas: null }]);
});

test('DescribeCluster v2: fenced (stopped) brokers only when asked, each with is_fenced; v1 lists the unfenced ones', async () => {
  await sim.stopBroker(3);
  try {
    const ids = (res: DescribeClusterResponse) => res.brokers.map((b) => [b.brokerId, b.isFenced]);
    const withFenced = await request<DescribeClusterResponse>(anyPort(), 60, 2, {
      includeClusterAuthorizedOperations: false,
      endpointType: 1,
      includeFencedBrokers: true,
    });
    assert.deepEqual(ids(withFenced), [
      [0, false],
      [1, false],
      [2, false],
      [3, true],
    ]);
    const without = await request<DescribeClusterResponse>(anyPort(), 60, 2, {
      includeClusterAuthorizedOperations: false,
      endpointType: 1,
      includeFencedBrokers: false,
    });
    assert.deepEqual(ids(without), [
      [0, false],
      [1, false],
      [2, false],
    ]);
    const v1 = await request<DescribeClusterResponse>(anyPort(), 60, 1, { includeClusterAuthorizedOperations: false, endpointType: 1 });
    assert.deepEqual(
      v1.brokers.map((b) => b.brokerId),
      [0, 1, 2],
    );
  } finally {
    await sim.startBroker(3);
  }
});

test('ListOffsets v11: EARLIEST_PENDING_UPLOAD (-6) on a topic without tiered storage is offset -1; v10 carries timeout_ms', async () => {
  const leader = sim.model.getPartition('rf', 0).leader;
  const ask = (version: number, timestamp: bigint) =>
    request<ListOffsetsResponse>(port(leader), 2, version, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: 'rf', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }],
      timeoutMs: 500,
    });
  const pending = await ask(11, -6n);
  assert.deepEqual(
    pending.topics[0].partitions.map((p) => [p.errorCode, p.offset, p.timestamp]),
    [[0, -1n, -1n]],
  );
  const latest = await ask(10, -1n);
  assert.deepEqual(
    latest.topics[0].partitions.map((p) => [p.errorCode, p.offset]),
    [[0, BigInt(sim.model.logOffsets('rf', 0).highWatermark)]],
  );
});

test('Metadata v13: the top-level error code is 0', async () => {
  const res = await request<MetadataResponse>(anyPort(), 3, 13, {
    topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'rf' }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  assert.equal(res.errorCode, 0);
  assert.deepEqual(
    res.topics.map((t) => [t.name, t.errorCode, t.partitions.length]),
    [['rf', 0, 4]],
  );
});

test('each new version is advertised only by the releases whose table has it', async () => {
  const expected: Record<string, Record<number, number>> = {
    '3.9': { 0: 11, 1: 17, 2: 9, 3: 12, 45: 0, 60: 1 },
    '4.0': { 0: 12, 1: 17, 2: 10, 3: 13, 45: 0, 60: 2 },
    '4.1': { 0: 13, 1: 18, 2: 10, 3: 13, 45: 1, 60: 2 },
    '4.2': { 0: 13, 1: 18, 2: 11, 3: 13, 45: 1, 60: 2 },
  };
  for (const [kafkaVersion, maxima] of Object.entries(expected)) {
    const s = await startSimulator({ brokers: 1, kafkaVersion });
    try {
      const res = await request<ApiVersionsResponse>(s.endpoints()[0].port, 18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
      const max = Object.fromEntries(res.apiKeys.filter((k) => k.apiKey in maxima).map((k) => [k.apiKey, k.maxVersion]));
      assert.deepEqual(max, maxima, kafkaVersion);
    } finally {
      await s.close();
    }
  }
});
