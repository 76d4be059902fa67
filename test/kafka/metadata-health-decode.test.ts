// decodeReplicaHealthSteps (src/kafka/apis/metadata-health.ts): the health interlocks' compact
// reading of a Metadata answer, checked against the full decode of the same bytes (answers
// encoded independently, by the simulator's codec: response-decoders-fixtures.ts). And
// describePlacementAndHealth (src/kafka/replica-health.ts): both readings of one answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { drain } from '../../src/domain/steps.js';
import { decodeReplicaHealthSteps } from '../../src/kafka/apis/metadata-health.js';
import { decodeMetadata, placementOf } from '../../src/kafka/apis/metadata.js';
import { describePlacementAndHealth } from '../../src/kafka/replica-health.js';
import { WireReader } from '../../src/kafka/wire/reader.js';
import { encodeMetadata, metadataAnswer, stubConnection, stubSender } from './response-decoders-fixtures.js';

/** What the compact read should be, from the full decode: listed partitions, count, gone brokers of the rest. */
function expected(bytes: Buffer, onlyTroubled: boolean) {
  const full = decodeMetadata(new WireReader(bytes));
  const live = new Set(full.brokers.map((b) => b.nodeId));
  const gone = new Set<number>();
  let partitions = 0;
  const topics: { name: string; partitions: unknown[] }[] = [];
  for (const t of full.topics) {
    if (t.errorCode !== 0 || t.name === null) continue;
    partitions += t.partitions.length;
    const every = !onlyTroubled;
    const listed = t.partitions.filter((p) => every || p.leader < 0 || p.isr.length < p.replicas.length);
    for (const p of t.partitions) if (!listed.includes(p)) for (const b of p.replicas) if (!live.has(b)) gone.add(b);
    topics.push({ name: t.name, partitions: listed });
  }
  return { brokers: full.brokers.map((b) => b.nodeId), topics, partitions, goneUnlisted: [...gone].sort((a, b) => a - b) };
}

describe('decodeReplicaHealthSteps', () => {
  it('every partition of the topics without an error, as the full decode reads them', () => {
    fc.assert(
      fc.property(metadataAnswer, (res) => {
        const bytes = encodeMetadata(res);
        const r = new WireReader(bytes);
        assert.deepEqual(drain(decodeReplicaHealthSteps(r, 12, false)), expected(bytes, false));
        assert.equal(r.pos, bytes.length, 'the whole answer is read');
      }),
      { numRuns: 300 },
    );
  });

  it('only troubled: the partitions without a leader or with a short ISR; gone brokers of the rest', () => {
    fc.assert(
      fc.property(metadataAnswer, (res) => {
        const bytes = encodeMetadata(res);
        const r = new WireReader(bytes);
        assert.deepEqual(drain(decodeReplicaHealthSteps(r, 12, true)), expected(bytes, true));
        assert.equal(r.pos, bytes.length, 'the whole answer is read');
      }),
      { numRuns: 300 },
    );
  });
});

describe('describePlacementAndHealth', () => {
  it('one request; the placement describePartitions answers and the compact health, both from the same answer', async () => {
    await fc.assert(
      fc.asyncProperty(metadataAnswer, async (res) => {
        const bytes = encodeMetadata(res);
        const sent: Buffer[] = [];
        const got = await describePlacementAndHealth(stubSender(stubConnection(bytes, sent)), ['a', 'b', 'a']);
        assert.equal(sent.length, 1, 'one Metadata request');
        assert.deepEqual(got, { placement: placementOf(decodeMetadata(new WireReader(bytes), 'replicas')), health: expected(bytes, true) });
      }),
      { numRuns: 100 },
    );
  });
});
