// The gateway decodes DescribeLogDirs v4, ListPartitionReassignments v0, AlterPartitionReassignments v0, Metadata v12 and Produce v11 answers itself
// (src/kafka/apis, src/kafka/wire/reader.ts). These tests encode answers independently, with
// the simulator's schema-driven codec (src/sim/protocol, from Kafka's message specs), and check
// that our decoders read every field the gateway uses as @platformatic/kafka's parsers read the
// same bytes: random answers (several dirs, offline dirs, future replicas, int64s over the
// whole range, non-ASCII strings, unknown tagged fields at every level, errors); that our
// request bodies are the client encoder's bytes; then the request path end to end over a stub
// connection that hands the parser a chunked buffer.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { alterPartitionReassignmentsV0, crc32c as clientCrc32c, describeLogDirsV4, listPartitionReassignmentsV0, metadataV12, produceV11, Reader, readRecordsBatch, ResponseError, Writer, type Connection } from '@platformatic/kafka';
import { decode, encode } from '../../src/sim/protocol/codec.js';
import { Reader as SimReader } from '../../src/sim/protocol/buffers.js';
import type { FieldSchema, MessageSchema } from '../../src/sim/protocol/schema.js';
import {
  DescribeLogDirsRequestSchema,
  DescribeLogDirsResponseSchema,
  AlterPartitionReassignmentsRequestSchema,
  AlterPartitionReassignmentsResponseSchema,
  ListPartitionReassignmentsRequestSchema,
  ListPartitionReassignmentsResponseSchema,
  MetadataRequestSchema,
  MetadataResponseSchema,
  ProduceRequestSchema,
  ProduceResponseSchema,
  type ProduceRequest,
  type ProduceResponse,
  type MetadataRequest,
  type MetadataResponse,
  type DescribeLogDirsRequest,
  type DescribeLogDirsResponse,
  type AlterPartitionReassignmentsRequest,
  type AlterPartitionReassignmentsResponse,
  type ListPartitionReassignmentsRequest,
  type ListPartitionReassignmentsResponse,
} from '../../src/sim/protocol/messages.generated.js';
import {
  decodeDescribeLogDirs,
  describeReplicaSizes,
  encodeDescribeLogDirsRequest,
  givenAt,
  replicaKey,
  replicaSizeColumnsSteps,
  replicaSizesOf,
  replicaSizesRequestSteps,
  sizesMapSteps,
  slotOf,
  topicsOf,
  type LogDirsAnswer,
} from '../../src/kafka/apis/describe-log-dirs.js';
import {
  decodeListPartitionReassignments,
  encodeListPartitionReassignmentsRequest,
  listPartitionReassignments,
  sortByTopicPartition,
  type MovingPartition,
} from '../../src/kafka/apis/list-partition-reassignments-v0.js';
import {
  decodeMetadata,
  decodeTopicSummariesSteps,
  describePartitions,
  encodeMetadataRequest,
  partitionLeader,
  placementOf,
  type MetadataAnswer,
} from '../../src/kafka/apis/metadata.js';
import { alterPartitionReassignments, encodeAlterPartitionReassignmentsRequest, type PartitionMove } from '../../src/kafka/apis/alter-partition-reassignments.js';
import { decodeProduceAnswer, encodeProduceRequest, produceRecords, type ProducedRecord } from '../../src/kafka/apis/produce.js';
import { crc32c } from '../../src/kafka/wire/crc32c.js';
import { splitBatches } from '../../src/sim/cluster/log.js';
import { MalformedResponseError, WireReader } from '../../src/kafka/wire/reader.js';
import { drain } from '../../src/domain/steps.js';
import { inSlices } from '../../src/kafka/wire/slices.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { kafkaErrorInfo } from '../../src/kafka/errors-map.js';
import type { RequestSender } from '../../src/kafka/request.js';
import { placementFromClientAnswer, sizesFromClientAnswer } from './client-reference.js';
import { API_VERSIONS_BY_RELEASE } from '../../src/domain/kafka-api-versions-by-release.js';

// ---------------------------------------------------------------- encoding answers

/**
 * `schema` with two tagged fields the decoders do not know added to every struct: a string
 * (tag 3) and bytes (tag 300, a two-byte varint). The codec writes them when a value sets them.
 */
function withUnknownTags(schema: MessageSchema): MessageSchema {
  const extra: FieldSchema[] = [
    { n: 'xTag', t: 'string', v: [0, 32767], tv: [0, 32767], tag: 3 },
    { n: 'yTag', t: 'bytes', v: [0, 32767], tv: [0, 32767], tag: 300 },
  ];
  const walk = (fields: readonly FieldSchema[]): FieldSchema[] => [
    ...fields.map((f) => (f.t === '[]struct' || f.t === 'struct' ? { ...f, f: walk(f.f ?? []) } : f)),
    ...extra,
  ];
  return { ...schema, fields: walk(schema.fields) };
}

const LOG_DIRS_TAGGED = withUnknownTags(DescribeLogDirsResponseSchema);
const LIST_TAGGED = withUnknownTags(ListPartitionReassignmentsResponseSchema);
const METADATA_TAGGED = withUnknownTags(MetadataResponseSchema);

const encodeLogDirs = (res: DescribeLogDirsResponse): Buffer => encode(LOG_DIRS_TAGGED, 4, res).toBuffer();
const encodeListed = (res: ListPartitionReassignmentsResponse): Buffer => encode(LIST_TAGGED, 0, res).toBuffer();
const encodeMetadata = (res: MetadataResponse): Buffer => encode(METADATA_TAGGED, 12, res).toBuffer();

// ---------------------------------------------------------------- both parsers

/** The client's parser; its ResponseError (any error code in the answer) carries the whole response, as the transport reads it. */
function clientParse<T>(parse: (c: number, k: number, v: number, r: Reader) => T, bytes: Buffer): T {
  try {
    return parse(0, 0, 0, Reader.from(bytes));
  } catch (err) {
    if (err instanceof ResponseError) return err.response as T;
    throw err;
  }
}

/** Every field of a DescribeLogDirs answer the gateway uses (offset_lag is not one), from our columns. */
function ourLogDirs(a: LogDirsAnswer) {
  return {
    throttleTimeMs: a.throttleTimeMs,
    errorCode: a.errorCode,
    results: a.results.map((d) => ({
      errorCode: d.errorCode,
      logDir: d.logDir,
      totalBytes: d.totalBytes,
      usableBytes: d.usableBytes,
      topics: d.topics.map((t) => ({
        name: t.name,
        partitions: Array.from({ length: t.end - t.start }, (_, j) => ({
          partitionIndex: a.partitionIndex[t.start + j]!,
          partitionSize: a.partitionSize[t.start + j]!,
          isFutureKey: a.isFutureKey[t.start + j] === 1,
        })),
      })),
    })),
  };
}

/** The same fields from the client's parser, INT64s as Number(bigint) as the gateway used them. */
function clientLogDirs(bytes: Buffer) {
  const r = clientParse(describeLogDirsV4.parseResponse, bytes);
  return {
    throttleTimeMs: r.throttleTimeMs,
    errorCode: r.errorCode,
    results: r.results.map((d) => ({
      errorCode: d.errorCode,
      logDir: d.logDir,
      totalBytes: Number(d.totalBytes),
      usableBytes: Number(d.usableBytes),
      topics: d.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, partitionSize: Number(p.partitionSize), isFutureKey: p.isFutureKey })),
      })),
    })),
  };
}

/** What listPartitionReassignments built from the client's parser before it had its own decoder. */
function clientListed(bytes: Buffer) {
  const r = clientParse(listPartitionReassignmentsV0.parseResponse, bytes);
  return {
    throttleTimeMs: r.throttleTimeMs,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    moving: r.topics.flatMap((t) =>
      t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, replicas: [...p.replicas], adding: [...p.addingReplicas], removing: [...p.removingReplicas] })),
    ),
  };
}

/** Our decoded Metadata answer with its partition error codes as a plain list (null: all 0). */
function ourMetadata(a: MetadataAnswer) {
  return { ...a, topics: a.topics.map((t) => ({ ...t, partitionErrorCodes: t.partitionErrorCodes && [...t.partitionErrorCodes] })) };
}

/** The same fields from the client's parser (leader_epoch and topic_authorized_operations are not kept). */
function clientMetadata(bytes: Buffer) {
  const r = clientParse(metadataV12.parseResponse, bytes);
  return {
    throttleTimeMs: r.throttleTimeMs,
    brokers: r.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack })),
    clusterId: r.clusterId,
    controllerId: r.controllerId,
    topics: r.topics.map((t) => ({
      errorCode: t.errorCode,
      name: t.name,
      topicId: t.topicId,
      isInternal: t.isInternal,
      partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, leader: p.leaderId, replicas: [...p.replicaNodes], isr: [...p.isrNodes], offlineReplicas: [...p.offlineReplicas] })),
      partitionErrorCodes: t.partitions.some((p) => p.errorCode !== 0) ? t.partitions.map((p) => p.errorCode) : null,
    })),
  };
}

/** The sizes and placement loop of describeReplicaSizes before this decoder, over the client's parsed answer. */
function referenceSizes(bytes: Buffer) {
  return sizesFromClientAnswer(clientParse(describeLogDirsV4.parseResponse, bytes));
}

// ---------------------------------------------------------------- random answers

const tags = fc.record({ xTag: fc.option(fc.string({ unit: 'grapheme', maxLength: 8 }), { nil: undefined }), yTag: fc.option(fc.uint8Array({ maxLength: 140 }).map((b) => Buffer.from(b)), { nil: undefined }) }, { requiredKeys: [] });
const int64 = fc.oneof(fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n), fc.bigInt(-1n, 2n ** 53n), fc.constantFrom(-1n, 0n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n - 1n));
// Codes the client knows (-1..127): on any other its parser throws a TypeError building its ResponseError.
const errorCode = fc.oneof(fc.constant(0), fc.constant(0), fc.constantFrom(56, 57, 31, 41), fc.integer({ min: -1, max: 127 }));
const topicName = fc.oneof(fc.constantFrom('a', 'b', 'orders', 'x.y_z-1'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }));
const partitionIndex = fc.oneof(fc.nat(40), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
const withTags = <T extends object>(arb: fc.Arbitrary<T>) => fc.tuple(arb, tags).map(([v, t]) => ({ ...v, ...t }));

const logDirsAnswer: fc.Arbitrary<DescribeLogDirsResponse> = withTags(
  fc.record({
    throttleTimeMs: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    errorCode,
    results: fc.array(
      withTags(
        fc.record({
          errorCode,
          logDir: fc.oneof(fc.constantFrom('/data/d1', '/data/d2'), fc.string({ unit: 'grapheme', maxLength: 20 })),
          topics: fc.array(
            withTags(
              fc.record({
                name: topicName,
                partitions: fc.array(withTags(fc.record({ partitionIndex, partitionSize: int64, offsetLag: int64, isFutureKey: fc.boolean() })), { maxLength: 6 }),
              }),
            ),
            { maxLength: 4 },
          ),
          totalBytes: int64,
          usableBytes: int64,
        }),
      ),
      { maxLength: 4 },
    ),
  }),
);

const int32s = fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 6 });
const listedAnswer: fc.Arbitrary<ListPartitionReassignmentsResponse> = withTags(
  fc.record({
    throttleTimeMs: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    errorCode,
    errorMessage: fc.option(fc.string({ unit: 'grapheme', maxLength: 30 }), { nil: null }),
    topics: fc.array(
      withTags(
        fc.record({
          name: topicName,
          partitions: fc.array(withTags(fc.record({ partitionIndex, replicas: int32s, addingReplicas: int32s, removingReplicas: int32s })), { maxLength: 6 }),
        }),
      ),
      { maxLength: 5 },
    ),
  }),
);

const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
// Kafka's form of a topic id (the codec's); all zeros too (no id).
const topicId = fc.oneof(fc.constant(Buffer.alloc(16)), fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b))).map((b) => b.toString('base64url'));
const metadataAnswer: fc.Arbitrary<MetadataResponse> = withTags(
  fc.record({
    throttleTimeMs: int32,
    brokers: fc.array(withTags(fc.record({ nodeId: int32, host: fc.string({ unit: 'grapheme', maxLength: 12 }), port: int32, rack: fc.option(fc.string({ unit: 'grapheme', maxLength: 6 }), { nil: null }) })), { maxLength: 4 }),
    clusterId: fc.option(fc.string({ unit: 'grapheme', maxLength: 22 }), { nil: null }),
    controllerId: int32,
    topics: fc.array(
      withTags(
        fc.record({
          errorCode,
          name: fc.option(topicName, { nil: null, freq: 8 }),
          topicId,
          isInternal: fc.boolean(),
          partitions: fc.array(
            withTags(
              fc.record({
                errorCode: fc.oneof(fc.constant(0), fc.constant(0), fc.constant(0), errorCode),
                partitionIndex,
                leaderId: fc.oneof(fc.constant(-1), fc.nat(12), int32),
                leaderEpoch: int32,
                replicaNodes: int32s,
                isrNodes: int32s,
                offlineReplicas: int32s,
              }),
            ),
            { maxLength: 8 },
          ),
          topicAuthorizedOperations: int32,
        }),
      ),
      { maxLength: 5 },
    ),
  }),
);

// ---------------------------------------------------------------- decoding

describe('DescribeLogDirs v4 decoding', () => {
  it('reads every field the gateway uses as the client parser does, on random answers', () => {
    fc.assert(
      fc.property(logDirsAnswer, (res) => {
        const bytes = encodeLogDirs(res);
        const r = new WireReader(bytes);
        assert.deepEqual(ourLogDirs(decodeDescribeLogDirs(r)), clientLogDirs(bytes));
        assert.equal(r.pos, bytes.length, 'the whole answer is read');
      }),
      { numRuns: 300 },
    );
  });

  it('builds the sizes, dirs and placement the former loop built (placement only when asked)', () => {
    fc.assert(
      fc.property(logDirsAnswer, fc.boolean(), (res, asked) => {
        const bytes = encodeLogDirs(res);
        const answer = decodeDescribeLogDirs(new WireReader(bytes));
        // Keys from the request (the interned path) for some topics, built on the fly for the others.
        const asking = res.results.flatMap((d) => d.topics.filter((_, i) => asked === (i % 2 === 0)).flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex }))));
        const { keys } = topicsOf(asking);
        const reference = referenceSizes(bytes);
        assert.deepEqual(replicaSizesOf(answer, keys, true), reference);
        const { placement: _, ...withoutPlacement } = reference;
        assert.deepEqual(replicaSizesOf(answer, keys, false), withoutPlacement);
      }),
      { numRuns: 300 },
    );
  });

  it('the columns (by slot of the request kept) are the former Map form, for any list asked; the list is recognised by givenAt', () => {
    const others = fc.array(fc.record({ topic: topicName, partition: partitionIndex }), { maxLength: 8 });
    fc.assert(
      fc.property(logDirsAnswer, others, fc.boolean(), fc.boolean(), (res, notInAnswer, all, withPlacement) => {
        const bytes = encodeLogDirs(res);
        const answer = decodeDescribeLogDirs(new WireReader(bytes));
        const inAnswer = res.results.flatMap((d) => d.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex }))));
        // Partitions of the answer (all or every other one), others, and some given twice.
        const asking = [...inAnswer.filter((_, i) => all || i % 2 === 0), ...notInAnswer, ...inAnswer.slice(0, 2), ...notInAnswer.slice(0, 1)];
        const request = drain(replicaSizesRequestSteps(asking));
        const { keys } = request;
        const columns = drain(replicaSizeColumnsSteps(answer, keys, withPlacement));
        const reference = referenceSizes(bytes);
        asking.forEach((p, i) => {
          const slot = keys.inputSlot[i]!;
          assert.equal(slotOf(keys, p.topic, p.partition), slot);
          const size = columns.sizes[slot]!;
          assert.equal(Number.isNaN(size) ? undefined : size, reference.sizes.get(replicaKey(p.topic, p.partition)), `${p.topic}:${p.partition}`);
          assert.ok(givenAt(request, i, p.topic, p.partition));
          assert.equal(givenAt(request, i, p.topic, p.partition + 1), false);
        });
        assert.equal(givenAt(request, asking.length, 'a', 0), false, 'a longer list is another list');
        const askedKeys = new Set(asking.map((p) => replicaKey(p.topic, p.partition)));
        assert.deepEqual(columns.extraSizes ?? new Map(), new Map([...reference.sizes].filter(([k]) => !askedKeys.has(k))), 'the others, keyed');
        assert.deepEqual(drain(sizesMapSteps(columns, keys)), reference.sizes, 'the Map form of the columns');
        assert.deepEqual(columns.dirs, reference.dirs);
        assert.deepEqual(columns.placement, withPlacement ? reference.placement : undefined);
        assert.deepEqual(request.body, encodeDescribeLogDirsRequest(topicsOf(asking).topics), 'the body of the request kept');
      }),
      { numRuns: 300 },
    );
  });

  it('a fixed answer: sizes leave out future replicas and offline dirs; placement names both dirs', () => {
    const bytes = encodeLogDirs({
      throttleTimeMs: 0,
      errorCode: 0,
      results: [
        {
          errorCode: 0,
          logDir: '/d1',
          topics: [{ name: 't', partitions: [{ partitionIndex: 0, partitionSize: 100n, offsetLag: 0n, isFutureKey: false }, { partitionIndex: 1, partitionSize: 2n ** 40n + 7n, offsetLag: 0n, isFutureKey: false }] }],
          totalBytes: 10n ** 12n,
          usableBytes: 5n * 10n ** 11n,
        },
        { errorCode: 0, logDir: '/d2', topics: [{ name: 't', partitions: [{ partitionIndex: 0, partitionSize: 40n, offsetLag: 0n, isFutureKey: true }] }], totalBytes: -1n, usableBytes: -1n },
        { errorCode: 56, logDir: '/d3', topics: [{ name: 't', partitions: [{ partitionIndex: 2, partitionSize: 9n, offsetLag: 0n, isFutureKey: false }] }], totalBytes: -1n, usableBytes: -1n },
      ],
    });
    const answer = decodeDescribeLogDirs(new WireReader(bytes));
    assert.equal(answer.replicaCount, 4);
    assert.deepEqual(answer.results.map((d) => [d.logDir, d.totalBytes, d.usableBytes]), [['/d1', 10 ** 12, 5 * 10 ** 11], ['/d2', -1, -1], ['/d3', -1, -1]]);
    const { keys } = topicsOf([{ topic: 't', partition: 1 }, { topic: 't', partition: 0 }]);
    assert.deepEqual(replicaSizesOf(answer, keys, true), {
      sizes: new Map([['t:0', 100], ['t:1', 2 ** 40 + 7]]),
      dirs: [{ dir: '/d1', errorCode: 0 }, { dir: '/d2', errorCode: 0 }, { dir: '/d3', errorCode: 56 }],
      placement: new Map([['t:0', { dir: '/d1', futureDir: '/d2' }], ['t:1', { dir: '/d1', futureDir: null }]]),
    });
  });

  it('a truncated answer throws, at every cut', () => {
    const bytes = encodeLogDirs({
      throttleTimeMs: 0,
      errorCode: 0,
      results: [{ errorCode: 0, logDir: '/d1', topics: [{ name: 't', partitions: [{ partitionIndex: 0, partitionSize: 1n, offsetLag: 0n, isFutureKey: false }] }], totalBytes: 1n, usableBytes: 1n }],
    });
    for (let cut = 0; cut < bytes.length; cut++) assert.throws(() => decodeDescribeLogDirs(new WireReader(bytes.subarray(0, cut))), RangeError, `cut at ${cut}`);
  });
});

describe('ListPartitionReassignments v0 decoding', () => {
  it('reads the answer as the gateway read it through the client parser, on random answers', () => {
    fc.assert(
      fc.property(listedAnswer, (res) => {
        const bytes = encodeListed(res);
        const r = new WireReader(bytes);
        assert.deepEqual(decodeListPartitionReassignments(r), clientListed(bytes));
        assert.equal(r.pos, bytes.length, 'the whole answer is read');
      }),
      { numRuns: 300 },
    );
  });

  it('orders by topic then partition exactly as one stable sort does', () => {
    const item = fc.record({ topic: fc.constantFrom('a', 'b', 'B', 'ab', 'é', ''), partition: fc.integer({ min: -3, max: 6 }), id: fc.nat() });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 40 }), (items) => {
        const moving = items.map((i) => ({ ...i, replicas: [], adding: [], removing: [] })) as (MovingPartition & { id: number })[];
        const expected = [...moving].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
        assert.deepEqual(sortByTopicPartition([...moving]), expected);
      }),
      { numRuns: 500 },
    );
  });

  it('a truncated answer throws, at every cut', () => {
    const bytes = encodeListed({ throttleTimeMs: 0, errorCode: 0, errorMessage: 'm', topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [1, 2], addingReplicas: [2], removingReplicas: [] }] }] });
    for (let cut = 0; cut < bytes.length; cut++) assert.throws(() => decodeListPartitionReassignments(new WireReader(bytes.subarray(0, cut))), RangeError, `cut at ${cut}`);
  });
});

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
        const withoutLists = { ...full, topics: full.topics.map((t) => ({ ...t, partitions: t.partitions.map(({ isr: _i, offlineReplicas: _o, ...p }) => p) })) };
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
      topics: [{ errorCode: 0, name: 't', topicId: Buffer.alloc(16, 7).toString('base64url'), isInternal: false, partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 1, leaderEpoch: 0, replicaNodes: [1, 2], isrNodes: [1], offlineReplicas: [2] }], topicAuthorizedOperations: 0 }],
    });
    for (let cut = 0; cut < bytes.length; cut++) {
      assert.throws(() => decodeMetadata(new WireReader(bytes.subarray(0, cut))), RangeError, `cut at ${cut}`);
      assert.throws(() => drain(decodeTopicSummariesSteps(new WireReader(bytes.subarray(0, cut)))), RangeError, `summaries cut at ${cut}`);
    }
  });

  it('a partition count the answer cannot hold is refused before anything is sized by it', () => {
    const bytes = encodeMetadata({ throttleTimeMs: 0, brokers: [], clusterId: null, controllerId: 1, topics: [{ errorCode: 0, name: 't', topicId: Buffer.alloc(16).toString('base64url'), isInternal: false, partitions: [], topicAuthorizedOperations: 0 }] });
    // The partitions' count is the byte before topic_authorized_operations and two TAG_BUFFERs: 1 (empty) becomes 2^28 + 1.
    const at = bytes.length - 1 - 1 - 4 - 1;
    assert.equal(bytes[at], 1);
    const huge = Buffer.concat([bytes.subarray(0, at), Buffer.from([0x81, 0x80, 0x80, 0x80, 0x01]), bytes.subarray(at + 1)]);
    assert.throws(() => decodeMetadata(new WireReader(huge)), MalformedResponseError);
  });
});

describe('inSlices', () => {
  it('lets the event loop turn between slices, and returns what the steps return', async () => {
    const turns: string[] = [];
    function* steps() {
      for (let i = 0; i < 3; i++) {
        turns.push(`step ${i}`);
        yield;
      }
      return 'done';
    }
    setImmediate(() => turns.push('other task'));
    assert.equal(await inSlices(steps(), 0), 'done');
    assert.deepEqual(turns.slice(0, 2), ['step 0', 'other task']);
    assert.equal(drain(steps()), 'done');
  });
});

describe('WireReader', () => {
  it('reads unsigned varints of 1 to 5 bytes and refuses a sixth', () => {
    for (const v of [0, 1, 127, 128, 300, 16383, 16384, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 31 - 1, 2 ** 32 - 1]) {
      const w = new (class {
        bytes: number[] = [];
      })();
      let x = v;
      while (x >= 0x80) {
        w.bytes.push((x % 128) | 0x80);
        x = Math.floor(x / 128);
      }
      w.bytes.push(x);
      const r = new WireReader(Buffer.from(w.bytes));
      assert.equal(r.uvarint(), v);
      assert.equal(r.pos, w.bytes.length);
    }
    assert.throws(() => new WireReader(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])).uvarint(), MalformedResponseError);
  });

  it('refuses a string or an INT32 array longer than what is left', () => {
    assert.throws(() => new WireReader(Buffer.from([5, 0x61, 0x62])).compactString(), MalformedResponseError);
    assert.equal(new WireReader(Buffer.from([4, 0x61, 0x62, 0x63])).compactString(), 'abc');
    assert.throws(() => new WireReader(Buffer.from([3, 0, 0, 0, 1, 0, 0])).int32Array(), MalformedResponseError);
    assert.deepEqual(new WireReader(Buffer.from([3, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff])).int32Array(), [1, -1]);
  });
});

describe('request encoding', () => {
  const requestTopics = fc.array(fc.record({ name: topicName, partitions: fc.array(partitionIndex, { maxLength: 200 }) }), { maxLength: 6 });

  it('DescribeLogDirs: the bytes of the client encoder, one Buffer', () => {
    fc.assert(
      fc.property(requestTopics, (topics) => {
        assert.deepEqual(encodeDescribeLogDirsRequest(topics), describeLogDirsV4.createRequest(topics).buffer);
      }),
      { numRuns: 300 },
    );
  });

  it('Metadata: the bytes of the client encoder (no auto-creation, no authorized operations), null and [] included', () => {
    fc.assert(
      fc.property(fc.option(fc.array(topicName, { maxLength: 8 }), { nil: null }), (topics) => {
        assert.deepEqual(encodeMetadataRequest(topics), metadataV12.createRequest(topics, false, false).buffer);
      }),
      { numRuns: 300 },
    );
    assert.deepEqual(encodeMetadataRequest([]), metadataV12.createRequest([], false, false).buffer);
  });

  it('AlterPartitionReassignments: the bytes of the client encoder, cancels (null replicas) included', () => {
    const replicas = fc.option(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 5 }), { nil: null });
    const topics = fc.array(fc.tuple(topicName, fc.array(fc.record({ partition: partitionIndex, replicas }), { maxLength: 50 })), { maxLength: 6 });
    fc.assert(
      fc.property(fc.nat(), topics, (timeoutMs, ts) => {
        const ours = encodeAlterPartitionReassignmentsRequest(timeoutMs, ts.map(([name, ps]) => [name, ps.map((p) => ({ topic: name, ...p }))] as const));
        const client = alterPartitionReassignmentsV0.createRequest(timeoutMs, false, ts.map(([name, ps]) => ({ name, partitions: ps.map((p) => ({ partitionIndex: p.partition, replicas: p.replicas as number[] })) }))).buffer;
        assert.deepEqual(ours, client);
      }),
      { numRuns: 300 },
    );
  });

  it('Produce: the bytes of the client encoder (one batch, every record at one timestamp), tombstones, empty, long and non-ASCII text', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ unit: 'grapheme', maxLength: 200 }), fc.constantFrom('', 'x'.repeat(70_000)));
    const records = fc.array(fc.record({ key: text, value: fc.option(text, { nil: null }) }), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(fc.constantFrom(-1, 1), fc.nat(), topicName, partitionIndex, records, fc.bigInt({ min: 0n, max: 2n ** 62n }), (acks, timeoutMs, topic, partition, rs, ts) => {
        const ours = encodeProduceRequest(acks, timeoutMs, topic, partition, rs, ts);
        const messages = rs.map((r) => ({ topic, partition, key: Buffer.from(r.key), value: (r.value === null ? null : Buffer.from(r.value)) as Buffer, timestamp: ts }));
        assert.deepEqual(ours, produceV11.createRequest(acks, timeoutMs, messages).buffer);
      }),
      { numRuns: 200 },
    );
  });

  it('CRC-32C: what the client computes, over any range of any bytes (slice-by-8 and the byte tail)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const start = bytes.length === 0 ? 0 : a % (bytes.length + 1);
        const end = start + (bytes.length === 0 ? 0 : b % (bytes.length - start + 1));
        assert.equal(crc32c(bytes, start, end), clientCrc32c(Buffer.from(bytes.subarray(start, end))));
      }),
      { numRuns: 500 },
    );
    assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283, 'the standard check value');
  });

  it('ListPartitionReassignments: the bytes of the client encoder, null topics included', () => {
    fc.assert(
      fc.property(fc.nat(), fc.option(requestTopics, { nil: null }), (timeoutMs, topics) => {
        const named = topics?.map((t) => ({ name: t.name, partitionIndexes: t.partitions })) ?? null;
        assert.deepEqual(encodeListPartitionReassignmentsRequest(timeoutMs, named), listPartitionReassignmentsV0.createRequest(timeoutMs, named).buffer);
      }),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------- the request path

/**
 * A connection that answers each request with `answer`, split into chunks the way socket data
 * arrives (the parser gets the client's Reader over a DynamicBuffer of several Buffers, after
 * a few bytes it has already read), and records the requests it was sent.
 */
/**
 * A connection whose broker answers `answer` to any request (its body pushed to `sent`). The
 * negotiation's ApiVersions (src/kafka/apis/versions.ts) gets `release`'s ranges from Kafka's
 * table: by default 3.9's, whose newest versions (Produce v11, Metadata v12, AlterPartitionReassignments
 * v0) are the ones the answers here are written in.
 */
function stubConnection(answer: Buffer, sent: Buffer[], release = 'kraft-broker-3.9'): Connection {
  const apiKeys = Object.values(API_VERSIONS_BY_RELEASE[release]!).map(([apiKey, minVersion, maxVersion]) => ({ apiKey, minVersion, maxVersion }));
  return {
    send(_key: number, _version: number, createPayload: () => Writer, parser: (c: number, k: number, v: number, r: Reader) => unknown, _a: boolean, _b: boolean, cb: (err: Error | null, res?: unknown) => void) {
      if (_key === 18) return cb(null, { errorCode: 0, throttleTimeMs: 0, apiKeys });
      sent.push(createPayload().buffer); // the request body: the connection adds the header
      const w = Writer.create();
      const framed = Buffer.concat([Buffer.from([9, 9, 9]), answer]);
      for (let at = 0; at < framed.length; at += 7) w.append(framed.subarray(at, at + 7));
      const reader = Reader.from(w);
      reader.position = 3;
      let res: unknown;
      try {
        res = parser(1, _key, _version, reader);
      } catch (err) {
        cb(err as Error);
        return;
      }
      cb(null, res);
    },
  } as unknown as Connection;
}

/** A RequestSender that sends on `conn` as the transport does: with `inBand`, a ResponseError yields its response. */
function stubSender(conn: Connection): RequestSender {
  return {
    requestTimeoutMs: 1234,
    async sendRequest<T>(_api: string, _target: unknown, call: (c: Connection) => Promise<T>, inBand?: (res: T) => string): Promise<T> {
      try {
        const res = await call(conn);
        inBand?.(res);
        return res;
      } catch (err) {
        if (inBand && err instanceof ResponseError) return err.response as T;
        throw err;
      }
    },
  };
}

describe('describeReplicaSizes and listPartitionReassignments over a connection', () => {
  const dirsAnswer: DescribeLogDirsResponse = {
    throttleTimeMs: 0,
    errorCode: 0,
    results: [
      { errorCode: 0, logDir: '/d1', topics: [{ name: 'b', partitions: [{ partitionIndex: 3, partitionSize: 30n, offsetLag: 0n, isFutureKey: false }] }], totalBytes: -1n, usableBytes: -1n },
      { errorCode: 56, logDir: '/d2', topics: [], totalBytes: -1n, usableBytes: -1n },
      { errorCode: 0, logDir: '/d3', topics: [{ name: 'b', partitions: [{ partitionIndex: 3, partitionSize: 20n, offsetLag: 0n, isFutureKey: true }] }], totalBytes: -1n, usableBytes: -1n },
    ],
  };

  it('asks for each topic once with its partitions sorted, and answers sizes (placement when asked)', async () => {
    const sent: Buffer[] = [];
    const kafka = stubSender(stubConnection(encodeLogDirs(dirsAnswer), sent));
    const asked = [{ topic: 'b', partition: 3 }, { topic: 'a', partition: 2 }, { topic: 'b', partition: 1 }, { topic: 'a', partition: 2 }];
    const [plain] = await describeReplicaSizes(kafka, [4, 4], asked);
    assert.deepEqual(plain, { broker: 4, ok: true, sizes: new Map([['b:3', 30]]), dirs: [{ dir: '/d1', errorCode: 0 }, { dir: '/d2', errorCode: 56 }, { dir: '/d3', errorCode: 0 }] });
    assert.equal(sent.length, 1, 'one request per distinct broker');
    assert.deepEqual(decode<DescribeLogDirsRequest>(DescribeLogDirsRequestSchema, 4, new SimReader(sent[0]!)).topics, [{ topic: 'b', partitions: [1, 3] }, { topic: 'a', partitions: [2] }]);
    const [placed] = await describeReplicaSizes(kafka, [4], asked, { placement: true });
    assert.deepEqual(placed.ok && placed.placement, new Map([['b:3', { dir: '/d1', futureDir: '/d3' }]]));
  });

  it('a top-level error fails that broker alone, with the error of the code', async () => {
    const kafka = stubSender(stubConnection(encodeLogDirs({ ...dirsAnswer, errorCode: 31 }), []));
    assert.deepEqual(await describeReplicaSizes(kafka, [1], [{ topic: 'b', partition: 3 }]), [{ broker: 1, ok: false, error: kafkaErrorInfo(31) }]);
  });

  it('an error code the client does not know is still the error of that code (its parser threw a TypeError on it)', async () => {
    const kafka = stubSender(stubConnection(encodeLogDirs({ ...dirsAnswer, errorCode: 200 }), []));
    assert.deepEqual(await describeReplicaSizes(kafka, [1], [{ topic: 'b', partition: 3 }]), [{ broker: 1, ok: false, error: kafkaErrorInfo(200) }]);
    const offline = { ...dirsAnswer, results: dirsAnswer.results.map((d) => ({ ...d, errorCode: d.logDir === '/d1' ? 200 : d.errorCode })) };
    const [r] = await describeReplicaSizes(stubSender(stubConnection(encodeLogDirs(offline), [])), [1], [{ topic: 'b', partition: 3 }]);
    assert.deepEqual(r.ok && r.sizes, new Map(), 'a dir with an error contributes nothing');
  });

  it('an answer that ends early fails that broker alone', async () => {
    const kafka = stubSender(stubConnection(encodeLogDirs(dirsAnswer).subarray(0, 20), []));
    const [r] = await describeReplicaSizes(kafka, [1], [{ topic: 'b', partition: 3 }]);
    assert.equal(r.ok, false);
  });

  it('lists moving partitions sorted; a top-level error throws with the broker message', async () => {
    const answer: ListPartitionReassignmentsResponse = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      topics: [
        { name: 'z', partitions: [{ partitionIndex: 1, replicas: [1, 2, 0], addingReplicas: [1], removingReplicas: [0] }] },
        { name: 'a', partitions: [{ partitionIndex: 5, replicas: [2, 0], addingReplicas: [2], removingReplicas: [] }, { partitionIndex: 0, replicas: [0], addingReplicas: [], removingReplicas: [] }] },
      ],
    };
    const sent: Buffer[] = [];
    const kafka = stubSender(stubConnection(encodeListed(answer), sent));
    assert.deepEqual(await listPartitionReassignments(kafka), [
      { topic: 'a', partition: 0, replicas: [0], adding: [], removing: [] },
      { topic: 'a', partition: 5, replicas: [2, 0], adding: [2], removing: [] },
      { topic: 'z', partition: 1, replicas: [1, 2, 0], adding: [1], removing: [0] },
    ]);
    const body = (b: Buffer) => decode<ListPartitionReassignmentsRequest>(ListPartitionReassignmentsRequestSchema, 0, new SimReader(b));
    assert.deepEqual(body(sent[0]!), { timeoutMs: 1234, topics: null });
    await listPartitionReassignments(kafka, [{ topic: 'a', partition: 5 }, { topic: 'z', partition: 1 }, { topic: 'a', partition: 0 }]);
    assert.deepEqual(body(sent[1]!).topics, [{ name: 'a', partitionIndexes: [5, 0] }, { name: 'z', partitionIndexes: [1] }]);
    assert.deepEqual(await listPartitionReassignments(kafka, []), []);
    assert.equal(sent.length, 2, 'no request for no partitions');

    await assert.rejects(listPartitionReassignments(stubSender(stubConnection(encodeListed(answer).subarray(0, 30), []))), KafkaRequestError, 'an answer that ends early');

    const failing = stubSender(stubConnection(encodeListed({ ...answer, errorCode: 41, errorMessage: 'not the controller' }), []));
    await assert.rejects(listPartitionReassignments(failing), (err: unknown) => {
      assert.ok(err instanceof KafkaRequestError);
      assert.equal(err.kind, 'kafka');
      assert.deepEqual(err.kafka, kafkaErrorInfo(41, 'not the controller'));
      return true;
    });
  });
});

describe('alterPartitionReassignments over a connection', () => {
  const ALTER_TAGGED = withUnknownTags(AlterPartitionReassignmentsResponseSchema);
  const encodeAltered = (res: AlterPartitionReassignmentsResponse): Buffer => encode(ALTER_TAGGED, 0, res).toBuffer();

  it('one result per move in request order, however Kafka orders or leaves out its answers (what a lookup by topic and partition gives)', async () => {
    // Distinct moves; an answer for a random subset (shuffled, plus partitions never asked about), with random codes.
    const moves = fc.uniqueArray(fc.record({ topic: fc.constantFrom('a', 'b', 'é'), partition: fc.nat(30), replicas: fc.option(fc.array(fc.nat(5), { maxLength: 3 }), { nil: null }) }), { selector: (m) => `${m.topic}:${m.partition}`, maxLength: 40 });
    const answerFor = (ms: PartitionMove[]) =>
      fc.tuple(
        fc.array(fc.tuple(fc.boolean(), fc.constantFrom(0, 0, 0, -1, 3, 39, 85), fc.option(fc.string({ maxLength: 8 }), { nil: null })), { minLength: ms.length, maxLength: ms.length }),
        fc.array(fc.record({ topic: fc.constantFrom('a', 'c'), partition: fc.integer({ min: 31, max: 40 }) }), { maxLength: 3 }),
        fc.boolean(),
      );
    await fc.assert(
      fc.asyncProperty(moves.chain((ms) => fc.tuple(fc.constant(ms as PartitionMove[]), answerFor(ms as PartitionMove[]))), async ([ms, [per, extra, reverse]]) => {
        const answered = new Map<string, { errorCode: number; errorMessage: string | null }>();
        const byTopic = new Map<string, { partitionIndex: number; errorCode: number; errorMessage: string | null }[]>();
        ms.forEach((m, i) => {
          const [included, code, message] = per[i]!;
          if (!included) return;
          const a = { partitionIndex: m.partition, errorCode: code, errorMessage: code === 0 ? null : message };
          answered.set(`${m.topic}:${m.partition}`, a);
          (byTopic.get(m.topic) ?? byTopic.set(m.topic, []).get(m.topic)!).push(a);
        });
        for (const e of extra) (byTopic.get(e.topic) ?? byTopic.set(e.topic, []).get(e.topic)!).push({ partitionIndex: e.partition, errorCode: 0, errorMessage: null });
        const responses = [...byTopic].map(([name, partitions]) => ({ name, partitions: reverse ? partitions.reverse() : partitions }));
        const sent: Buffer[] = [];
        const results = await alterPartitionReassignments(stubSender(stubConnection(encodeAltered({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses }), sent)), ms);
        assert.deepEqual(
          results,
          ms.map((m) => {
            const a = answered.get(`${m.topic}:${m.partition}`);
            if (!a) return { topic: m.topic, partition: m.partition, ok: false, error: kafkaErrorInfo(-1, 'No result for this partition in the response') };
            return a.errorCode === 0 ? { topic: m.topic, partition: m.partition, ok: true } : { topic: m.topic, partition: m.partition, ok: false, error: kafkaErrorInfo(a.errorCode, a.errorMessage) };
          }),
        );
        if (ms.length === 0) return;
        // What was sent: every move, grouped by topic in first-seen order.
        const body = decode<AlterPartitionReassignmentsRequest>(AlterPartitionReassignmentsRequestSchema, 0, new SimReader(sent[0]!));
        assert.equal(body.timeoutMs, 1234);
        assert.deepEqual(
          body.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas }))),
          [...new Set(ms.map((m) => m.topic))].flatMap((t) => ms.filter((m) => m.topic === t).map((m) => ({ topic: m.topic, partition: m.partition, replicas: m.replicas }))),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('a top-level error throws with its message; an answer that ends early throws; no request for no moves', async () => {
    const ms: PartitionMove[] = [{ topic: 't', partition: 0, replicas: [1, 2] }];
    const ok = encodeAltered({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0, errorMessage: null }] }] });
    await assert.rejects(alterPartitionReassignments(stubSender(stubConnection(encodeAltered({ throttleTimeMs: 0, errorCode: 31, errorMessage: 'no ALTER', responses: [] }), [])), ms), (err: unknown) => {
      assert.ok(err instanceof KafkaRequestError);
      assert.deepEqual(err.kafka, kafkaErrorInfo(31, 'no ALTER'));
      return true;
    });
    for (let cut = 8; cut < ok.length; cut++) await assert.rejects(alterPartitionReassignments(stubSender(stubConnection(ok.subarray(0, cut), [])), ms), KafkaRequestError, `cut at ${cut}`);
    const sent: Buffer[] = [];
    assert.deepEqual(await alterPartitionReassignments(stubSender(stubConnection(ok, sent)), []), []);
    assert.equal(sent.length, 0);
  });
});

describe('Produce v11', () => {
  const PRODUCE_TAGGED = withUnknownTags(ProduceResponseSchema);
  const encodeProduced = (res: ProduceResponse): Buffer => encode(PRODUCE_TAGGED, 11, res).toBuffer();
  const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
  const partitionAnswer = withTags(
    fc.record({
      index: partitionIndex,
      errorCode: fc.constantFrom(0, 0, 0, 6, 7, 10, 89, -1),
      baseOffset: int64,
      logAppendTimeMs: int64,
      logStartOffset: int64,
      recordErrors: fc.array(withTags(fc.record({ batchIndex: fc.nat(), batchIndexErrorMessage: fc.option(fc.string({ unit: 'grapheme', maxLength: 8 }), { nil: null }) })), { maxLength: 2 }),
      errorMessage: fc.option(fc.string({ unit: 'grapheme', maxLength: 10 }), { nil: null }),
    }),
  );
  const answer: fc.Arbitrary<ProduceResponse> = fc.record({
    responses: fc.array(withTags(fc.record({ name: topicName, partitionResponses: fc.array(partitionAnswer, { maxLength: 4 }) })), { maxLength: 3 }),
    throttleTimeMs: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  });

  it('reads every field the gateway uses as the client parser does, on random answers', () => {
    fc.assert(
      fc.property(answer, (res) => {
        const bytes = encodeProduced(res);
        const client = clientParse(produceV11.parseResponse, bytes);
        assert.deepEqual(decodeProduceAnswer(new WireReader(bytes)), {
          responses: client.responses.map((t) => ({ name: t.name, topicId: '', partitionResponses: t.partitionResponses.map((p) => ({ index: p.index, errorCode: p.errorCode, baseOffset: p.baseOffset, errorMessage: p.errorMessage ?? null })) })),
          throttleTimeMs: client.throttleTimeMs,
        });
      }),
      { numRuns: 300 },
    );
  });

  it('a truncated answer throws, at every cut', () => {
    const bytes = encodeProduced({ responses: [{ name: 'state', partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 42n, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage: null }] }], throttleTimeMs: 0 });
    for (let cut = 0; cut < bytes.length; cut++) assert.throws(() => decodeProduceAnswer(new WireReader(bytes.subarray(0, cut))), RangeError, `cut at ${cut}`);
  });

  it('produceRecords: sends the records as one batch the simulator accepts (its CRC check) and the client reads back; answers the first offset; an error code throws', async () => {
    const ok = (baseOffset: bigint, errorCode = 0, errorMessage: string | null = null) =>
      encodeProduced({ responses: [{ name: 'state', partitionResponses: [{ index: 0, errorCode, baseOffset, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage }] }], throttleTimeMs: 0 });
    const records: ProducedRecord[] = [
      { key: 'reassignment/r1', value: JSON.stringify({ kind: 'reassignment', note: 'é 🐢' }) },
      { key: 'chunk/r1/p/0', value: 'x'.repeat(200_000) },
      { key: 'chunk/r1/p/1', value: null },
      { key: '', value: '' },
    ];
    const sent: Buffer[] = [];
    assert.equal(await produceRecords(stubSender(stubConnection(ok(12345678901234n), sent)), 3, 'state', 0, records, 1500), 12345678901234n);
    const body = decode<ProduceRequest>(ProduceRequestSchema, 11, new SimReader(sent[0]!));
    assert.equal(body.acks, -1);
    assert.equal(body.timeoutMs, 1500);
    assert.equal(body.transactionalId, null);
    assert.deepEqual(body.topicData.map((t) => [t.name, t.partitionData.map((p) => p.index)]), [['state', [0]]]);
    const [batch, ...more] = splitBatches(body.topicData[0]!.partitionData[0]!.records!);
    assert.equal(more.length, 0);
    const read = readRecordsBatch(Reader.from(batch!));
    assert.deepEqual(
      read.records.map((r) => ({ key: r.key!.toString(), value: r.value === null || r.value === undefined ? null : r.value.toString(), offsetDelta: r.offsetDelta })),
      records.map((r, i) => ({ ...r, offsetDelta: i })),
    );
    assert.equal(read.lastOffsetDelta, records.length - 1);

    await assert.rejects(produceRecords(stubSender(stubConnection(ok(-1n, 6, 'not the leader'), [])), 3, 'state', 0, records, 1500), (err: unknown) => {
      assert.ok(err instanceof KafkaRequestError);
      assert.deepEqual(err.kafka, kafkaErrorInfo(6, 'not the leader'));
      return true;
    });
    const empty = encodeProduced({ responses: [], throttleTimeMs: 0 });
    await assert.rejects(produceRecords(stubSender(stubConnection(empty, [])), 3, 'state', 0, records, 1500), /Empty Produce response/);
    await assert.rejects(produceRecords(stubSender(stubConnection(ok(1n).subarray(0, 12), [])), 3, 'state', 0, records, 1500), KafkaRequestError, 'an answer that ends early');
  });
});

describe('describePartitions and partitionLeader over a connection', () => {
  const id = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
  const partition = (partitionIndex: number, leaderId: number, replicaNodes: number[], more: Partial<MetadataResponse['topics'][number]['partitions'][number]> = {}) => ({
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
      { errorCode: 0, name: 'z', topicId: id.toString('base64url'), isInternal: false, partitions: [partition(1, 2, [2, 1]), partition(0, -1, [1, 2], { errorCode: 5, isrNodes: [], offlineReplicas: [1, 2] })], topicAuthorizedOperations: 0 },
      { errorCode: 3, name: 'gone', topicId: Buffer.alloc(16).toString('base64url'), isInternal: false, partitions: [], topicAuthorizedOperations: 0 },
      { errorCode: 29, name: 'denied', topicId: Buffer.alloc(16).toString('base64url'), isInternal: false, partitions: [], topicAuthorizedOperations: 0 },
      { errorCode: 0, name: 'a', topicId: id.toString('base64url'), isInternal: true, partitions: [partition(0, 1, [1])], topicAuthorizedOperations: 0 },
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
    const { topics, allowAutoTopicCreation, includeTopicAuthorizedOperations } = decode<MetadataRequest>(MetadataRequestSchema, 12, new SimReader(sent[0]!));
    const zero = Buffer.alloc(16).toString('base64url');
    assert.deepEqual({ topics, allowAutoTopicCreation, includeTopicAuthorizedOperations }, {
      topics: ['z', 'a', 'gone', 'denied'].map((name) => ({ topicId: zero, name })),
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    assert.deepEqual(await describePartitions(kafka, []), []);
    assert.equal(sent.length, 1, 'no request for no topics');
    await describePartitions(kafka, null);
    assert.equal(decode<MetadataRequest>(MetadataRequestSchema, 12, new SimReader(sent[1]!)).topics, null, 'null asks for every topic');
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
    assert.deepEqual((await describePartitions(kafka, ['denied', 'a'])).map((t) => t.name), ['a', 'z'], 'left out, as topics with a known error');
  });

  it('an answer that ends early fails the call', async () => {
    const kafka = stubSender(stubConnection(encodeMetadata(answer).subarray(0, 40), []));
    await assert.rejects(describePartitions(kafka, ['a']), RangeError);
  });
});
