// The gateway decodes DescribeLogDirs v4, ListPartitionReassignments v0, AlterPartitionReassignments v0, Metadata v12 and Produce v11 answers itself
// (src/kafka/apis, src/kafka/wire/reader.ts). These tests encode answers independently, with
// the simulator's schema-driven codec (src/sim/protocol, from Kafka's message specs), and check
// that our decoders read every field the gateway uses as @platformatic/kafka's parsers read the
// same bytes, then the request path end to end over a stub connection that hands the parser a
// chunked buffer (response-decoders-fixtures.ts).
// Metadata v12.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { metadataV12 } from '@platformatic/kafka';
import { decode } from '../../src/sim/protocol/codec.js';
import { Reader as SimReader } from '../../src/sim/protocol/buffers.js';
import { MetadataRequestSchema, type MetadataRequest, type MetadataResponse } from '../../src/sim/protocol/messages.generated.js';
import {
  decodeMetadata,
  decodeTopicSummariesSteps,
  describePartitions,
  partitionLeader,
  placementOf,
} from '../../src/kafka/apis/metadata.js';
import { MalformedResponseError, WireReader } from '../../src/kafka/wire/reader.js';
import { drain } from '../../src/domain/steps.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { kafkaErrorInfo } from '../../src/kafka/errors-map.js';
import { placementFromClientAnswer } from './client-reference.js';
import {
  clientMetadata,
  clientParse,
  encodeMetadata,
  metadataAnswer,
  ourMetadata,
  stubConnection,
  stubSender,
} from './response-decoders-fixtures.js';

describe('Metadata v12 decoding', () => {
  it('reads every field the gateway uses as the client parser does, on random answers', () => {
    fc.assert(
      fc.property(metadataAnswer, (res) => {
        const bytes = encodeMetadata(res);
        const r = new WireReader(bytes);
        assert.deepEqual(ourMetadata(decodeMetadata(r)), clientMetadata(bytes));
        assert.equal(r.pos, bytes.length, 'the whole answer is read');
      }),
      { numRuns: 300 },
    );
  });

  it('with replica lists only: the same answer without isr and offline replicas, read to the end', () => {
    fc.assert(
      fc.property(metadataAnswer, (res) => {
        const bytes = encodeMetadata(res);
        const r = new WireReader(bytes);
        const full = decodeMetadata(new WireReader(bytes));
        const withoutLists = {
          ...full,
          topics: full.topics.map((t) => ({ ...t, partitions: t.partitions.map(({ isr: _i, offlineReplicas: _o, ...p }) => p) })),
        };
        assert.deepEqual(decodeMetadata(r, 'replicas'), withoutLists);
        assert.equal(r.pos, bytes.length, 'the whole answer is read');
      }),
      { numRuns: 300 },
    );
  });

  it('describePartitions answers what it built from the client parser (but isr and offline replicas): topics without an error, sorted by name then partition', () => {
    fc.assert(
      fc.property(metadataAnswer, (res) => {
        const bytes = encodeMetadata(res);
        const reference = placementFromClientAnswer(clientParse(metadataV12.parseResponse, bytes)).map((t) => ({
          ...t,
          partitions: t.partitions.map(({ isr: _i, offlineReplicas: _o, ...p }) => p),
        }));
        assert.deepEqual(placementOf(decodeMetadata(new WireReader(bytes), 'replicas')), reference);
      }),
      { numRuns: 300 },
    );
  });

  it('topic summaries (listTopics): each topic counted as the full decode reads it, read to the end', () => {
    fc.assert(
      fc.property(metadataAnswer, (res) => {
        const bytes = encodeMetadata(res);
        const r = new WireReader(bytes);
        const full = decodeMetadata(new WireReader(bytes));
        const expected = full.topics.map((t) => ({
          errorCode: t.errorCode,
          name: t.name,
          topicId: t.topicId,
          isInternal: t.isInternal,
          partitions: t.partitions.length,
          replicationFactor: t.partitions.reduce((m, p) => Math.max(m, p.replicas.length), 0),
        }));
        assert.deepEqual(drain(decodeTopicSummariesSteps(r)), expected);
        assert.equal(r.pos, bytes.length, 'the whole answer is read');
      }),
      { numRuns: 300 },
    );
  });

  it('a truncated answer throws, at every cut', () => {
    const bytes = encodeMetadata({
      throttleTimeMs: 0,
      brokers: [{ nodeId: 1, host: 'h', port: 9092, rack: 'r' }],
      clusterId: 'c',
      controllerId: 1,
      topics: [
        {
          errorCode: 0,
          name: 't',
          topicId: Buffer.alloc(16, 7).toString('base64url'),
          isInternal: false,
          partitions: [
            { errorCode: 0, partitionIndex: 0, leaderId: 1, leaderEpoch: 0, replicaNodes: [1, 2], isrNodes: [1], offlineReplicas: [2] },
          ],
          topicAuthorizedOperations: 0,
        },
      ],
    });
    for (let cut = 0; cut < bytes.length; cut++) {
      assert.throws(() => decodeMetadata(new WireReader(bytes.subarray(0, cut))), RangeError, `cut at ${cut}`);
      assert.throws(() => drain(decodeTopicSummariesSteps(new WireReader(bytes.subarray(0, cut)))), RangeError, `summaries cut at ${cut}`);
    }
  });

  it('a partition count the answer cannot hold is refused before anything is sized by it', () => {
    const bytes = encodeMetadata({
      throttleTimeMs: 0,
      brokers: [],
      clusterId: null,
      controllerId: 1,
      topics: [
        {
          errorCode: 0,
          name: 't',
          topicId: Buffer.alloc(16).toString('base64url'),
          isInternal: false,
          partitions: [],
          topicAuthorizedOperations: 0,
        },
      ],
    });
    // The partitions' count is the byte before topic_authorized_operations and two TAG_BUFFERs: 1 (empty) becomes 2^28 + 1.
    const at = bytes.length - 1 - 1 - 4 - 1;
    assert.equal(bytes[at], 1);
    const huge = Buffer.concat([bytes.subarray(0, at), Buffer.from([0x81, 0x80, 0x80, 0x80, 0x01]), bytes.subarray(at + 1)]);
    assert.throws(() => decodeMetadata(new WireReader(huge)), MalformedResponseError);
  });
});

describe('describePartitions and partitionLeader over a connection', () => {
  const id = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
  const partition = (
    partitionIndex: number,
    leaderId: number,
    replicaNodes: number[],
    more: Partial<MetadataResponse['topics'][number]['partitions'][number]> = {},
  ) => ({
    errorCode: 0,
    partitionIndex,
    leaderId,
    leaderEpoch: 3,
    replicaNodes,
    isrNodes: replicaNodes,
    offlineReplicas: [],
    ...more,
  });
  const answer: MetadataResponse = {
    throttleTimeMs: 0,
    brokers: [{ nodeId: 1, host: 'b1', port: 9092, rack: null }],
    clusterId: 'c',
    controllerId: 1,
    topics: [
      {
        errorCode: 0,
        name: 'z',
        topicId: id.toString('base64url'),
        isInternal: false,
        partitions: [partition(1, 2, [2, 1]), partition(0, -1, [1, 2], { errorCode: 5, isrNodes: [], offlineReplicas: [1, 2] })],
        topicAuthorizedOperations: 0,
      },
      {
        errorCode: 3,
        name: 'gone',
        topicId: Buffer.alloc(16).toString('base64url'),
        isInternal: false,
        partitions: [],
        topicAuthorizedOperations: 0,
      },
      {
        errorCode: 29,
        name: 'denied',
        topicId: Buffer.alloc(16).toString('base64url'),
        isInternal: false,
        partitions: [],
        topicAuthorizedOperations: 0,
      },
      {
        errorCode: 0,
        name: 'a',
        topicId: id.toString('base64url'),
        isInternal: true,
        partitions: [partition(0, 1, [1])],
        topicAuthorizedOperations: 0,
      },
    ],
  };

  it('asks once for each topic named, and answers the placement of the topics without an error, sorted; leader -1 and a partition with an error as they came', async () => {
    const sent: Buffer[] = [];
    const kafka = stubSender(stubConnection(encodeMetadata(answer), sent));
    assert.deepEqual(await describePartitions(kafka, ['z', 'a', 'z', 'gone', 'denied']), [
      { name: 'a', partitions: [{ partition: 0, leader: 1, replicas: [1] }] },
      {
        name: 'z',
        partitions: [
          { partition: 0, leader: -1, replicas: [1, 2] },
          { partition: 1, leader: 2, replicas: [2, 1] },
        ],
      },
    ]);
    const { topics, allowAutoTopicCreation, includeTopicAuthorizedOperations } = decode<MetadataRequest>(
      MetadataRequestSchema,
      12,
      new SimReader(sent[0]),
    );
    const zero = Buffer.alloc(16).toString('base64url');
    assert.deepEqual(
      { topics, allowAutoTopicCreation, includeTopicAuthorizedOperations },
      {
        topics: ['z', 'a', 'gone', 'denied'].map((name) => ({ topicId: zero, name })),
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      },
    );
    assert.deepEqual(await describePartitions(kafka, []), []);
    assert.equal(sent.length, 1, 'no request for no topics');
    await describePartitions(kafka, null);
    assert.equal(decode<MetadataRequest>(MetadataRequestSchema, 12, new SimReader(sent[1])).topics, null, 'null asks for every topic');
  });

  it('partitionLeader: id and leader; null for an unknown topic; another topic error thrown; -1 for no such partition', async () => {
    const kafka = stubSender(stubConnection(encodeMetadata(answer), []));
    assert.deepEqual(await partitionLeader(kafka, 'z', 1), { topicId: '00112233-4455-6677-8899-aabbccddeeff', leader: 2 });
    assert.deepEqual(await partitionLeader(kafka, 'z', 0), { topicId: '00112233-4455-6677-8899-aabbccddeeff', leader: -1 });
    assert.deepEqual(await partitionLeader(kafka, 'z', 7), { topicId: '00112233-4455-6677-8899-aabbccddeeff', leader: -1 });
    assert.equal(await partitionLeader(kafka, 'gone', 0), null);
    assert.equal(await partitionLeader(kafka, 'nowhere', 0), null);
    await assert.rejects(partitionLeader(kafka, 'denied', 0), (err: unknown) => {
      assert.ok(err instanceof KafkaRequestError);
      assert.deepEqual(err.kafka, kafkaErrorInfo(29));
      return true;
    });
  });

  it('an error code the client does not know is still the error of that code (its parser threw a TypeError on it)', async () => {
    const odd: MetadataResponse = { ...answer, topics: answer.topics.map((t) => (t.name === 'denied' ? { ...t, errorCode: 200 } : t)) };
    const kafka = stubSender(stubConnection(encodeMetadata(odd), []));
    await assert.rejects(partitionLeader(kafka, 'denied', 0), (err: unknown) => err instanceof KafkaRequestError && err.kafka.code === 200);
    assert.deepEqual(
      (await describePartitions(kafka, ['denied', 'a'])).map((t) => t.name),
      ['a', 'z'],
      'left out, as topics with a known error',
    );
  });

  it('an answer that ends early fails the call', async () => {
    const kafka = stubSender(stubConnection(encodeMetadata(answer).subarray(0, 40), []));
    await assert.rejects(describePartitions(kafka, ['a']), RangeError);
  });
});
