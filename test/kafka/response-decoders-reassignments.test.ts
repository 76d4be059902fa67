// The gateway decodes DescribeLogDirs v4, ListPartitionReassignments v0, AlterPartitionReassignments v0, Metadata v12 and Produce v11 answers itself
// (src/kafka/apis, src/kafka/wire/reader.ts). These tests encode answers independently, with
// the simulator's schema-driven codec (src/sim/protocol, from Kafka's message specs), and check
// that our decoders read every field the gateway uses as @platformatic/kafka's parsers read the
// same bytes, then the request path end to end over a stub connection that hands the parser a
// chunked buffer (response-decoders-fixtures.ts).
// ListPartitionReassignments v0 and AlterPartitionReassignments v0.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decode, encode } from '../../src/sim/protocol/codec.js';
import { Reader as SimReader } from '../../src/sim/protocol/buffers.js';
import {
  AlterPartitionReassignmentsRequestSchema,
  AlterPartitionReassignmentsResponseSchema,
  type AlterPartitionReassignmentsRequest,
  type AlterPartitionReassignmentsResponse,
} from '../../src/sim/protocol/messages.generated.js';
import {
  decodeListPartitionReassignments,
  sortByTopicPartition,
  type MovingPartition,
} from '../../src/kafka/apis/list-partition-reassignments-v0.js';
import { alterPartitionReassignments, type PartitionMove } from '../../src/kafka/apis/alter-partition-reassignments.js';
import { WireReader } from '../../src/kafka/wire/reader.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { kafkaErrorInfo } from '../../src/kafka/errors-map.js';
import { clientListed, encodeListed, listedAnswer, stubConnection, stubSender, withUnknownTags } from './response-decoders-fixtures.js';

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
    const item = fc.record({
      topic: fc.constantFrom('a', 'b', 'B', 'ab', 'é', ''),
      partition: fc.integer({ min: -3, max: 6 }),
      id: fc.nat(),
    });
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
    const bytes = encodeListed({
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: 'm',
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [1, 2], addingReplicas: [2], removingReplicas: [] }] }],
    });
    for (let cut = 0; cut < bytes.length; cut++)
      assert.throws(() => decodeListPartitionReassignments(new WireReader(bytes.subarray(0, cut))), RangeError, `cut at ${cut}`);
  });
});

describe('alterPartitionReassignments over a connection', () => {
  const ALTER_TAGGED = withUnknownTags(AlterPartitionReassignmentsResponseSchema);
  const encodeAltered = (res: AlterPartitionReassignmentsResponse): Buffer => encode(ALTER_TAGGED, 0, res).toBuffer();

  it('one result per move in request order, however Kafka orders or leaves out its answers (what a lookup by topic and partition gives)', async () => {
    // Distinct moves; an answer for a random subset (shuffled, plus partitions never asked about), with random codes.
    const moves = fc.uniqueArray(
      fc.record({
        topic: fc.constantFrom('a', 'b', 'é'),
        partition: fc.nat(30),
        replicas: fc.option(fc.array(fc.nat(5), { maxLength: 3 }), { nil: null }),
      }),
      { selector: (m) => `${m.topic}:${m.partition}`, maxLength: 40 },
    );
    const answerFor = (ms: PartitionMove[]) =>
      fc.tuple(
        fc.array(fc.tuple(fc.boolean(), fc.constantFrom(0, 0, 0, -1, 3, 39, 85), fc.option(fc.string({ maxLength: 8 }), { nil: null })), {
          minLength: ms.length,
          maxLength: ms.length,
        }),
        fc.array(fc.record({ topic: fc.constantFrom('a', 'c'), partition: fc.integer({ min: 31, max: 40 }) }), { maxLength: 3 }),
        fc.boolean(),
      );
    await fc.assert(
      fc.asyncProperty(
        moves.chain((ms) => fc.tuple(fc.constant(ms as PartitionMove[]), answerFor(ms as PartitionMove[]))),
        async ([ms, [per, extra, reverse]]) => {
          const answered = new Map<string, { errorCode: number; errorMessage: string | null }>();
          const byTopic = new Map<string, { partitionIndex: number; errorCode: number; errorMessage: string | null }[]>();
          ms.forEach((m, i) => {
            const [included, code, message] = per[i];
            if (!included) return;
            const a = { partitionIndex: m.partition, errorCode: code, errorMessage: code === 0 ? null : message };
            answered.set(`${m.topic}:${m.partition}`, a);
            (byTopic.get(m.topic) ?? byTopic.set(m.topic, []).get(m.topic)!).push(a);
          });
          for (const e of extra)
            (byTopic.get(e.topic) ?? byTopic.set(e.topic, []).get(e.topic)!).push({
              partitionIndex: e.partition,
              errorCode: 0,
              errorMessage: null,
            });
          const responses = [...byTopic].map(([name, partitions]) => ({ name, partitions: reverse ? partitions.reverse() : partitions }));
          const sent: Buffer[] = [];
          const results = await alterPartitionReassignments(
            stubSender(stubConnection(encodeAltered({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses }), sent)),
            ms,
          );
          assert.deepEqual(
            results,
            ms.map((m) => {
              const a = answered.get(`${m.topic}:${m.partition}`);
              if (!a)
                return {
                  topic: m.topic,
                  partition: m.partition,
                  ok: false,
                  error: kafkaErrorInfo(-1, 'No result for this partition in the response'),
                };
              return a.errorCode === 0
                ? { topic: m.topic, partition: m.partition, ok: true }
                : { topic: m.topic, partition: m.partition, ok: false, error: kafkaErrorInfo(a.errorCode, a.errorMessage) };
            }),
          );
          if (ms.length === 0) return;
          // What was sent: every move, grouped by topic in first-seen order.
          const body = decode<AlterPartitionReassignmentsRequest>(AlterPartitionReassignmentsRequestSchema, 0, new SimReader(sent[0]));
          assert.equal(body.timeoutMs, 1234);
          assert.deepEqual(
            body.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas }))),
            [...new Set(ms.map((m) => m.topic))].flatMap((t) =>
              ms.filter((m) => m.topic === t).map((m) => ({ topic: m.topic, partition: m.partition, replicas: m.replicas })),
            ),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a top-level error throws with its message; an answer that ends early throws; no request for no moves', async () => {
    const ms: PartitionMove[] = [{ topic: 't', partition: 0, replicas: [1, 2] }];
    const ok = encodeAltered({
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      responses: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0, errorMessage: null }] }],
    });
    await assert.rejects(
      alterPartitionReassignments(
        stubSender(stubConnection(encodeAltered({ throttleTimeMs: 0, errorCode: 31, errorMessage: 'no ALTER', responses: [] }), [])),
        ms,
      ),
      (err: unknown) => {
        assert.ok(err instanceof KafkaRequestError);
        assert.deepEqual(err.kafka, kafkaErrorInfo(31, 'no ALTER'));
        return true;
      },
    );
    for (let cut = 8; cut < ok.length; cut++)
      await assert.rejects(
        alterPartitionReassignments(stubSender(stubConnection(ok.subarray(0, cut), [])), ms),
        KafkaRequestError,
        `cut at ${cut}`,
      );
    const sent: Buffer[] = [];
    assert.deepEqual(await alterPartitionReassignments(stubSender(stubConnection(ok, sent)), []), []);
    assert.equal(sent.length, 0);
  });
});
