// The gateway decodes DescribeLogDirs v4, ListPartitionReassignments v0, AlterPartitionReassignments v0, Metadata v12 and Produce v11 answers itself
// (src/kafka/apis, src/kafka/wire/reader.ts). These tests encode answers independently, with
// the simulator's schema-driven codec (src/sim/protocol, from Kafka's message specs), and check
// that our decoders read every field the gateway uses as @platformatic/kafka's parsers read the
// same bytes, then the request path end to end over a stub connection that hands the parser a
// chunked buffer (response-decoders-fixtures.ts).
// DescribeLogDirs v4 (and, over one stub connection, ListPartitionReassignments v0).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decode } from '../../src/sim/protocol/codec.js';
import { Reader as SimReader } from '../../src/sim/protocol/buffers.js';
import {
  DescribeLogDirsRequestSchema,
  ListPartitionReassignmentsRequestSchema,
  type DescribeLogDirsRequest,
  type DescribeLogDirsResponse,
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
} from '../../src/kafka/apis/describe-log-dirs.js';
import { listPartitionReassignments } from '../../src/kafka/apis/list-partition-reassignments-v0.js';
import { WireReader } from '../../src/kafka/wire/reader.js';
import { drain } from '../../src/domain/steps.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { kafkaErrorInfo } from '../../src/kafka/errors-map.js';
import {
  clientLogDirs,
  encodeListed,
  encodeLogDirs,
  logDirsAnswer,
  ourLogDirs,
  partitionIndex,
  referenceSizes,
  stubConnection,
  stubSender,
  topicName,
} from './response-decoders-fixtures.js';

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
        const asking = res.results.flatMap((d) =>
          d.topics
            .filter((_, i) => asked === (i % 2 === 0))
            .flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex }))),
        );
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
        const inAnswer = res.results.flatMap((d) =>
          d.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex }))),
        );
        // Partitions of the answer (all or every other one), others, and some given twice.
        const asking = [
          ...inAnswer.filter((_, i) => all || i % 2 === 0),
          ...notInAnswer,
          ...inAnswer.slice(0, 2),
          ...notInAnswer.slice(0, 1),
        ];
        const request = drain(replicaSizesRequestSteps(asking));
        const { keys } = request;
        const columns = drain(replicaSizeColumnsSteps(answer, keys, withPlacement));
        const reference = referenceSizes(bytes);
        asking.forEach((p, i) => {
          const slot = keys.inputSlot[i];
          assert.equal(slotOf(keys, p.topic, p.partition), slot);
          const size = columns.sizes[slot];
          assert.equal(
            Number.isNaN(size) ? undefined : size,
            reference.sizes.get(replicaKey(p.topic, p.partition)),
            `${p.topic}:${p.partition}`,
          );
          assert.ok(givenAt(request, i, p.topic, p.partition));
          assert.equal(givenAt(request, i, p.topic, p.partition + 1), false);
        });
        assert.equal(givenAt(request, asking.length, 'a', 0), false, 'a longer list is another list');
        const askedKeys = new Set(asking.map((p) => replicaKey(p.topic, p.partition)));
        assert.deepEqual(
          columns.extraSizes ?? new Map(),
          new Map([...reference.sizes].filter(([k]) => !askedKeys.has(k))),
          'the others, keyed',
        );
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
          topics: [
            {
              name: 't',
              partitions: [
                { partitionIndex: 0, partitionSize: 100n, offsetLag: 0n, isFutureKey: false },
                { partitionIndex: 1, partitionSize: 2n ** 40n + 7n, offsetLag: 0n, isFutureKey: false },
              ],
            },
          ],
          totalBytes: 10n ** 12n,
          usableBytes: 5n * 10n ** 11n,
        },
        {
          errorCode: 0,
          logDir: '/d2',
          topics: [{ name: 't', partitions: [{ partitionIndex: 0, partitionSize: 40n, offsetLag: 0n, isFutureKey: true }] }],
          totalBytes: -1n,
          usableBytes: -1n,
        },
        {
          errorCode: 56,
          logDir: '/d3',
          topics: [{ name: 't', partitions: [{ partitionIndex: 2, partitionSize: 9n, offsetLag: 0n, isFutureKey: false }] }],
          totalBytes: -1n,
          usableBytes: -1n,
        },
      ],
    });
    const answer = decodeDescribeLogDirs(new WireReader(bytes));
    assert.equal(answer.replicaCount, 4);
    assert.deepEqual(
      answer.results.map((d) => [d.logDir, d.totalBytes, d.usableBytes]),
      [
        ['/d1', 10 ** 12, 5 * 10 ** 11],
        ['/d2', -1, -1],
        ['/d3', -1, -1],
      ],
    );
    const { keys } = topicsOf([
      { topic: 't', partition: 1 },
      { topic: 't', partition: 0 },
    ]);
    assert.deepEqual(replicaSizesOf(answer, keys, true), {
      sizes: new Map([
        ['t:0', 100],
        ['t:1', 2 ** 40 + 7],
      ]),
      dirs: [
        { dir: '/d1', errorCode: 0 },
        { dir: '/d2', errorCode: 0 },
        { dir: '/d3', errorCode: 56 },
      ],
      placement: new Map([
        ['t:0', { dir: '/d1', futureDir: '/d2' }],
        ['t:1', { dir: '/d1', futureDir: null }],
      ]),
    });
  });

  it('a truncated answer throws, at every cut', () => {
    const bytes = encodeLogDirs({
      throttleTimeMs: 0,
      errorCode: 0,
      results: [
        {
          errorCode: 0,
          logDir: '/d1',
          topics: [{ name: 't', partitions: [{ partitionIndex: 0, partitionSize: 1n, offsetLag: 0n, isFutureKey: false }] }],
          totalBytes: 1n,
          usableBytes: 1n,
        },
      ],
    });
    for (let cut = 0; cut < bytes.length; cut++)
      assert.throws(() => decodeDescribeLogDirs(new WireReader(bytes.subarray(0, cut))), RangeError, `cut at ${cut}`);
  });
});

describe('describeReplicaSizes and listPartitionReassignments over a connection', () => {
  const dirsAnswer: DescribeLogDirsResponse = {
    throttleTimeMs: 0,
    errorCode: 0,
    results: [
      {
        errorCode: 0,
        logDir: '/d1',
        topics: [{ name: 'b', partitions: [{ partitionIndex: 3, partitionSize: 30n, offsetLag: 0n, isFutureKey: false }] }],
        totalBytes: -1n,
        usableBytes: -1n,
      },
      { errorCode: 56, logDir: '/d2', topics: [], totalBytes: -1n, usableBytes: -1n },
      {
        errorCode: 0,
        logDir: '/d3',
        topics: [{ name: 'b', partitions: [{ partitionIndex: 3, partitionSize: 20n, offsetLag: 0n, isFutureKey: true }] }],
        totalBytes: -1n,
        usableBytes: -1n,
      },
    ],
  };

  it('asks for each topic once with its partitions sorted, and answers sizes (placement when asked)', async () => {
    const sent: Buffer[] = [];
    const kafka = stubSender(stubConnection(encodeLogDirs(dirsAnswer), sent));
    const asked = [
      { topic: 'b', partition: 3 },
      { topic: 'a', partition: 2 },
      { topic: 'b', partition: 1 },
      { topic: 'a', partition: 2 },
    ];
    const [plain] = await describeReplicaSizes(kafka, [4, 4], asked);
    assert.deepEqual(plain, {
      broker: 4,
      ok: true,
      sizes: new Map([['b:3', 30]]),
      dirs: [
        { dir: '/d1', errorCode: 0 },
        { dir: '/d2', errorCode: 56 },
        { dir: '/d3', errorCode: 0 },
      ],
    });
    assert.equal(sent.length, 1, 'one request per distinct broker');
    assert.deepEqual(decode<DescribeLogDirsRequest>(DescribeLogDirsRequestSchema, 4, new SimReader(sent[0])).topics, [
      { topic: 'b', partitions: [1, 3] },
      { topic: 'a', partitions: [2] },
    ]);
    const [placed] = await describeReplicaSizes(kafka, [4], asked, { placement: true });
    assert.deepEqual(placed.ok && placed.placement, new Map([['b:3', { dir: '/d1', futureDir: '/d3' }]]));
  });

  it('a top-level error fails that broker alone, with the error of the code', async () => {
    const kafka = stubSender(stubConnection(encodeLogDirs({ ...dirsAnswer, errorCode: 31 }), []));
    assert.deepEqual(await describeReplicaSizes(kafka, [1], [{ topic: 'b', partition: 3 }]), [
      { broker: 1, ok: false, error: kafkaErrorInfo(31) },
    ]);
  });

  it('an error code the client does not know is still the error of that code (its parser threw a TypeError on it)', async () => {
    const kafka = stubSender(stubConnection(encodeLogDirs({ ...dirsAnswer, errorCode: 200 }), []));
    assert.deepEqual(await describeReplicaSizes(kafka, [1], [{ topic: 'b', partition: 3 }]), [
      { broker: 1, ok: false, error: kafkaErrorInfo(200) },
    ]);
    const offline = {
      ...dirsAnswer,
      results: dirsAnswer.results.map((d) => ({ ...d, errorCode: d.logDir === '/d1' ? 200 : d.errorCode })),
    };
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
        {
          name: 'a',
          partitions: [
            { partitionIndex: 5, replicas: [2, 0], addingReplicas: [2], removingReplicas: [] },
            { partitionIndex: 0, replicas: [0], addingReplicas: [], removingReplicas: [] },
          ],
        },
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
    assert.deepEqual(body(sent[0]), { timeoutMs: 1234, topics: null });
    await listPartitionReassignments(kafka, [
      { topic: 'a', partition: 5 },
      { topic: 'z', partition: 1 },
      { topic: 'a', partition: 0 },
    ]);
    assert.deepEqual(body(sent[1]).topics, [
      { name: 'a', partitionIndexes: [5, 0] },
      { name: 'z', partitionIndexes: [1] },
    ]);
    assert.deepEqual(await listPartitionReassignments(kafka, []), []);
    assert.equal(sent.length, 2, 'no request for no partitions');

    await assert.rejects(
      listPartitionReassignments(stubSender(stubConnection(encodeListed(answer).subarray(0, 30), []))),
      KafkaRequestError,
      'an answer that ends early',
    );

    const failing = stubSender(stubConnection(encodeListed({ ...answer, errorCode: 41, errorMessage: 'not the controller' }), []));
    await assert.rejects(listPartitionReassignments(failing), (err: unknown) => {
      assert.ok(err instanceof KafkaRequestError);
      assert.equal(err.kind, 'kafka');
      assert.deepEqual(err.kafka, kafkaErrorInfo(41, 'not the controller'));
      return true;
    });
  });
});
