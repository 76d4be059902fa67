// Shared by the response-decoder tests (response-decoders-*.test.ts, request-encoding.test.ts):
// answers encoded independently with the simulator's schema-driven codec (src/sim/protocol, from
// Kafka's message specs) with unknown tagged fields at every level, the same fields read through
// @platformatic/kafka's parsers, random answers (several dirs, offline dirs, future replicas, int64s
// over the whole range, non-ASCII strings, errors), and a stub connection that hands the parser a
// chunked buffer.
import fc from 'fast-check';
import {
  describeLogDirsV4,
  listPartitionReassignmentsV0,
  metadataV12,
  Reader,
  ResponseError,
  Writer,
  type Connection,
} from '@platformatic/kafka';
import { encode } from '../../src/sim/protocol/codec.js';
import type { FieldSchema, MessageSchema } from '../../src/sim/protocol/schema.js';
import {
  DescribeLogDirsResponseSchema,
  ListPartitionReassignmentsResponseSchema,
  MetadataResponseSchema,
  type MetadataResponse,
  type DescribeLogDirsResponse,
  type ListPartitionReassignmentsResponse,
} from '../../src/sim/protocol/messages.generated.js';
import type { LogDirsAnswer } from '../../src/kafka/apis/describe-log-dirs.js';
import type { MetadataAnswer } from '../../src/kafka/apis/metadata.js';
import type { RequestSender } from '../../src/kafka/request.js';
import { sizesFromClientAnswer } from './client-reference.js';
import { API_VERSIONS_BY_RELEASE } from '../../src/domain/kafka-api-versions-by-release.js';

// ---------------------------------------------------------------- encoding answers

/**
 * `schema` with two tagged fields the decoders do not know added to every struct: a string
 * (tag 3) and bytes (tag 300, a two-byte varint). The codec writes them when a value sets them.
 */
export function withUnknownTags(schema: MessageSchema): MessageSchema {
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

export const encodeLogDirs = (res: DescribeLogDirsResponse): Buffer => encode(LOG_DIRS_TAGGED, 4, res).toBuffer();
export const encodeListed = (res: ListPartitionReassignmentsResponse): Buffer => encode(LIST_TAGGED, 0, res).toBuffer();
export const encodeMetadata = (res: MetadataResponse): Buffer => encode(METADATA_TAGGED, 12, res).toBuffer();

// ---------------------------------------------------------------- both parsers

/** The client's parser; its ResponseError (any error code in the answer) carries the whole response, as the transport reads it. */
export function clientParse<T>(parse: (c: number, k: number, v: number, r: Reader) => T, bytes: Buffer): T {
  try {
    return parse(0, 0, 0, Reader.from(bytes));
  } catch (err) {
    if (err instanceof ResponseError) return err.response as T;
    throw err;
  }
}

/** Every field of a DescribeLogDirs answer the gateway uses (offset_lag is not one), from our columns. */
export function ourLogDirs(a: LogDirsAnswer) {
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
          partitionIndex: a.partitionIndex[t.start + j],
          partitionSize: a.partitionSize[t.start + j],
          isFutureKey: a.isFutureKey[t.start + j] === 1,
        })),
      })),
    })),
  };
}

/** The same fields from the client's parser, INT64s as Number(bigint) as the gateway used them. */
export function clientLogDirs(bytes: Buffer) {
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
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          partitionSize: Number(p.partitionSize),
          isFutureKey: p.isFutureKey,
        })),
      })),
    })),
  };
}

/** What listPartitionReassignments built from the client's parser before it had its own decoder. */
export function clientListed(bytes: Buffer) {
  const r = clientParse(listPartitionReassignmentsV0.parseResponse, bytes);
  return {
    throttleTimeMs: r.throttleTimeMs,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    moving: r.topics.flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.name,
        partition: p.partitionIndex,
        replicas: [...p.replicas],
        adding: [...p.addingReplicas],
        removing: [...p.removingReplicas],
      })),
    ),
  };
}

/** Our decoded Metadata answer with its partition error codes as a plain list (null: all 0). */
export function ourMetadata(a: MetadataAnswer) {
  return { ...a, topics: a.topics.map((t) => ({ ...t, partitionErrorCodes: t.partitionErrorCodes && [...t.partitionErrorCodes] })) };
}

/** The same fields from the client's parser (leader_epoch and topic_authorized_operations are not kept). */
export function clientMetadata(bytes: Buffer) {
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
      partitions: t.partitions.map((p) => ({
        partition: p.partitionIndex,
        leader: p.leaderId,
        replicas: [...p.replicaNodes],
        isr: [...p.isrNodes],
        offlineReplicas: [...p.offlineReplicas],
      })),
      partitionErrorCodes: t.partitions.some((p) => p.errorCode !== 0) ? t.partitions.map((p) => p.errorCode) : null,
    })),
  };
}

/** The sizes and placement loop of describeReplicaSizes before this decoder, over the client's parsed answer. */
export function referenceSizes(bytes: Buffer) {
  return sizesFromClientAnswer(clientParse(describeLogDirsV4.parseResponse, bytes));
}

// ---------------------------------------------------------------- random answers

const tags = fc.record(
  {
    xTag: fc.option(fc.string({ unit: 'grapheme', maxLength: 8 }), { nil: undefined }),
    yTag: fc.option(
      fc.uint8Array({ maxLength: 140 }).map((b) => Buffer.from(b)),
      { nil: undefined },
    ),
  },
  { requiredKeys: [] },
);
const int64 = fc.oneof(
  fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n),
  fc.bigInt(-1n, 2n ** 53n),
  fc.constantFrom(-1n, 0n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n - 1n),
);
// Codes the client knows (-1..127): on any other its parser throws a TypeError building its ResponseError.
const errorCode = fc.oneof(fc.constant(0), fc.constant(0), fc.constantFrom(56, 57, 31, 41), fc.integer({ min: -1, max: 127 }));
export const topicName = fc.oneof(
  fc.constantFrom('a', 'b', 'orders', 'x.y_z-1'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
);
export const partitionIndex = fc.oneof(fc.nat(40), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
export const withTags = <T extends object>(arb: fc.Arbitrary<T>) => fc.tuple(arb, tags).map(([v, t]) => ({ ...v, ...t }));

export const logDirsAnswer: fc.Arbitrary<DescribeLogDirsResponse> = withTags(
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
                partitions: fc.array(
                  withTags(fc.record({ partitionIndex, partitionSize: int64, offsetLag: int64, isFutureKey: fc.boolean() })),
                  { maxLength: 6 },
                ),
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
export const listedAnswer: fc.Arbitrary<ListPartitionReassignmentsResponse> = withTags(
  fc.record({
    throttleTimeMs: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    errorCode,
    errorMessage: fc.option(fc.string({ unit: 'grapheme', maxLength: 30 }), { nil: null }),
    topics: fc.array(
      withTags(
        fc.record({
          name: topicName,
          partitions: fc.array(
            withTags(fc.record({ partitionIndex, replicas: int32s, addingReplicas: int32s, removingReplicas: int32s })),
            { maxLength: 6 },
          ),
        }),
      ),
      { maxLength: 5 },
    ),
  }),
);

const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
// Kafka's form of a topic id (the codec's); all zeros too (no id).
const topicId = fc
  .oneof(
    fc.constant(Buffer.alloc(16)),
    fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b)),
  )
  .map((b) => b.toString('base64url'));
export const metadataAnswer: fc.Arbitrary<MetadataResponse> = withTags(
  fc.record({
    throttleTimeMs: int32,
    brokers: fc.array(
      withTags(
        fc.record({
          nodeId: int32,
          host: fc.string({ unit: 'grapheme', maxLength: 12 }),
          port: int32,
          rack: fc.option(fc.string({ unit: 'grapheme', maxLength: 6 }), { nil: null }),
        }),
      ),
      { maxLength: 4 },
    ),
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
export function stubConnection(answer: Buffer, sent: Buffer[], release = 'kraft-broker-3.9'): Connection {
  const apiKeys = Object.values(API_VERSIONS_BY_RELEASE[release]).map(([apiKey, minVersion, maxVersion]) => ({
    apiKey,
    minVersion,
    maxVersion,
  }));
  return {
    send(
      _key: number,
      _version: number,
      createPayload: () => Writer,
      parser: (c: number, k: number, v: number, r: Reader) => unknown,
      _a: boolean,
      _b: boolean,
      cb: (err: Error | null, res?: unknown) => void,
    ) {
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
export function stubSender(conn: Connection): RequestSender {
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
