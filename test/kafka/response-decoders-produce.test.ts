// The gateway decodes DescribeLogDirs v4, ListPartitionReassignments v0, AlterPartitionReassignments v0, Metadata v12 and Produce v11 answers itself
// (src/kafka/apis, src/kafka/wire/reader.ts). These tests encode answers independently, with
// the simulator's schema-driven codec (src/sim/protocol, from Kafka's message specs), and check
// that our decoders read every field the gateway uses as @platformatic/kafka's parsers read the
// same bytes, then the request path end to end over a stub connection that hands the parser a
// chunked buffer (response-decoders-fixtures.ts).
// Produce v11.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { produceV11, Reader, readRecordsBatch } from '@platformatic/kafka';
import { decode, encode } from '../../src/sim/protocol/codec.js';
import { Reader as SimReader } from '../../src/sim/protocol/buffers.js';
import {
  ProduceRequestSchema,
  ProduceResponseSchema,
  type ProduceRequest,
  type ProduceResponse,
} from '../../src/sim/protocol/messages.generated.js';
import { decodeProduceAnswer, produceRecords, type ProducedRecord } from '../../src/kafka/apis/produce.js';
import { splitBatches } from '../../src/sim/cluster/log.js';
import { WireReader } from '../../src/kafka/wire/reader.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { kafkaErrorInfo } from '../../src/kafka/errors-map.js';
import {
  clientParse,
  partitionIndex,
  stubConnection,
  stubSender,
  topicName,
  withTags,
  withUnknownTags,
} from './response-decoders-fixtures.js';

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
      recordErrors: fc.array(
        withTags(
          fc.record({
            batchIndex: fc.nat(),
            batchIndexErrorMessage: fc.option(fc.string({ unit: 'grapheme', maxLength: 8 }), { nil: null }),
          }),
        ),
        { maxLength: 2 },
      ),
      errorMessage: fc.option(fc.string({ unit: 'grapheme', maxLength: 10 }), { nil: null }),
    }),
  );
  const answer: fc.Arbitrary<ProduceResponse> = fc.record({
    responses: fc.array(withTags(fc.record({ name: topicName, partitionResponses: fc.array(partitionAnswer, { maxLength: 4 }) })), {
      maxLength: 3,
    }),
    throttleTimeMs: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  });

  it('reads every field the gateway uses as the client parser does, on random answers', () => {
    fc.assert(
      fc.property(answer, (res) => {
        const bytes = encodeProduced(res);
        const client = clientParse(produceV11.parseResponse, bytes);
        assert.deepEqual(decodeProduceAnswer(new WireReader(bytes)), {
          responses: client.responses.map((t) => ({
            name: t.name,
            topicId: '',
            partitionResponses: t.partitionResponses.map((p) => ({
              index: p.index,
              errorCode: p.errorCode,
              baseOffset: p.baseOffset,
              errorMessage: p.errorMessage ?? null,
            })),
          })),
          throttleTimeMs: client.throttleTimeMs,
        });
      }),
      { numRuns: 300 },
    );
  });

  it('a truncated answer throws, at every cut', () => {
    const bytes = encodeProduced({
      responses: [
        {
          name: 'state',
          partitionResponses: [
            { index: 0, errorCode: 0, baseOffset: 42n, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage: null },
          ],
        },
      ],
      throttleTimeMs: 0,
    });
    for (let cut = 0; cut < bytes.length; cut++)
      assert.throws(() => decodeProduceAnswer(new WireReader(bytes.subarray(0, cut))), RangeError, `cut at ${cut}`);
  });

  it('produceRecords: sends the records as one batch the simulator accepts (its CRC check) and the client reads back; answers the first offset; an error code throws', async () => {
    const ok = (baseOffset: bigint, errorCode = 0, errorMessage: string | null = null) =>
      encodeProduced({
        responses: [
          {
            name: 'state',
            partitionResponses: [
              { index: 0, errorCode, baseOffset, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage },
            ],
          },
        ],
        throttleTimeMs: 0,
      });
    const records: ProducedRecord[] = [
      { key: 'reassignment/r1', value: JSON.stringify({ kind: 'reassignment', note: 'é 🐢' }) },
      { key: 'chunk/r1/p/0', value: 'x'.repeat(200_000) },
      { key: 'chunk/r1/p/1', value: null },
      { key: '', value: '' },
    ];
    const sent: Buffer[] = [];
    assert.equal(
      await produceRecords(stubSender(stubConnection(ok(12345678901234n), sent)), 3, 'state', 0, records, 1500),
      12345678901234n,
    );
    const body = decode<ProduceRequest>(ProduceRequestSchema, 11, new SimReader(sent[0]));
    assert.equal(body.acks, -1);
    assert.equal(body.timeoutMs, 1500);
    assert.equal(body.transactionalId, null);
    assert.deepEqual(
      body.topicData.map((t) => [t.name, t.partitionData.map((p) => p.index)]),
      [['state', [0]]],
    );
    const [batch, ...more] = splitBatches(body.topicData[0].partitionData[0].records!);
    assert.equal(more.length, 0);
    const read = readRecordsBatch(Reader.from(batch));
    assert.deepEqual(
      read.records.map((r) => ({
        key: r.key!.toString(),
        value: r.value === null || r.value === undefined ? null : r.value.toString(),
        offsetDelta: r.offsetDelta,
      })),
      records.map((r, i) => ({ ...r, offsetDelta: i })),
    );
    assert.equal(read.lastOffsetDelta, records.length - 1);

    await assert.rejects(
      produceRecords(stubSender(stubConnection(ok(-1n, 6, 'not the leader'), [])), 3, 'state', 0, records, 1500),
      (err: unknown) => {
        assert.ok(err instanceof KafkaRequestError);
        assert.deepEqual(err.kafka, kafkaErrorInfo(6, 'not the leader'));
        return true;
      },
    );
    const empty = encodeProduced({ responses: [], throttleTimeMs: 0 });
    await assert.rejects(produceRecords(stubSender(stubConnection(empty, [])), 3, 'state', 0, records, 1500), /Empty Produce response/);
    await assert.rejects(
      produceRecords(stubSender(stubConnection(ok(1n).subarray(0, 12), [])), 3, 'state', 0, records, 1500),
      KafkaRequestError,
      'an answer that ends early',
    );
  });
});
