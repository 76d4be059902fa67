// The gateway encodes its requests itself (src/kafka/apis): our request bodies are the bytes of
// @platformatic/kafka's encoders, on random requests; CRC-32C as the client computes it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  alterPartitionReassignmentsV0,
  crc32c as clientCrc32c,
  describeLogDirsV4,
  listPartitionReassignmentsV0,
  metadataV12,
  produceV11,
} from '@platformatic/kafka';
import { encodeDescribeLogDirsRequest } from '../../src/kafka/apis/describe-log-dirs.js';
import { encodeListPartitionReassignmentsRequest } from '../../src/kafka/apis/list-partition-reassignments-v0.js';
import { encodeMetadataRequest } from '../../src/kafka/apis/metadata.js';
import { encodeAlterPartitionReassignmentsRequest } from '../../src/kafka/apis/alter-partition-reassignments.js';
import { encodeProduceRequest } from '../../src/kafka/apis/produce.js';
import { crc32c } from '../../src/kafka/wire/crc32c.js';
import { partitionIndex, topicName } from './response-decoders-fixtures.js';

describe('request encoding', () => {
  const requestTopics = fc.array(fc.record({ name: topicName, partitions: fc.array(partitionIndex, { maxLength: 200 }) }), {
    maxLength: 6,
  });

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
    const topics = fc.array(fc.tuple(topicName, fc.array(fc.record({ partition: partitionIndex, replicas }), { maxLength: 50 })), {
      maxLength: 6,
    });
    fc.assert(
      fc.property(fc.nat(), topics, (timeoutMs, ts) => {
        const ours = encodeAlterPartitionReassignmentsRequest(
          timeoutMs,
          ts.map(([name, ps]) => [name, ps.map((p) => ({ topic: name, ...p }))] as const),
        );
        const client = alterPartitionReassignmentsV0.createRequest(
          timeoutMs,
          false,
          ts.map(([name, ps]) => ({
            name,
            partitions: ps.map((p) => ({ partitionIndex: p.partition, replicas: p.replicas as number[] })),
          })),
        ).buffer;
        assert.deepEqual(ours, client);
      }),
      { numRuns: 300 },
    );
  });

  it('Produce: the bytes of the client encoder (one batch, every record at one timestamp), tombstones, empty, long and non-ASCII text', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.constantFrom('', 'x'.repeat(70_000)),
    );
    const records = fc.array(fc.record({ key: text, value: fc.option(text, { nil: null }) }), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(
        fc.constantFrom(-1, 1),
        fc.nat(),
        topicName,
        partitionIndex,
        records,
        fc.bigInt({ min: 0n, max: 2n ** 62n }),
        (acks, timeoutMs, topic, partition, rs, ts) => {
          const ours = encodeProduceRequest(acks, timeoutMs, topic, partition, rs, ts);
          const messages = rs.map((r) => ({
            topic,
            partition,
            key: Buffer.from(r.key),
            value: (r.value === null ? null : Buffer.from(r.value)) as Buffer,
            timestamp: ts,
          }));
          assert.deepEqual(ours, produceV11.createRequest(acks, timeoutMs, messages).buffer);
        },
      ),
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
        assert.deepEqual(
          encodeListPartitionReassignmentsRequest(timeoutMs, named),
          listPartitionReassignmentsV0.createRequest(timeoutMs, named).buffer,
        );
      }),
      { numRuns: 300 },
    );
  });
});
