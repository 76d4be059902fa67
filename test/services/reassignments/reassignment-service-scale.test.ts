// ReassignmentService.start at a size where its loops run in slices and its Kafka requests are
// batched: 12,000 partitions (AlterPartitionReassignments in 3 requests, DescribeLogDirs once
// per leader, naming only that leader's partitions). What it answers and writes is what the
// one-request path gives.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { bucketResources, partitionResource, PARTITION_BUCKETS } from '../../../src/services/reassignments/admission.js';
import { countPartitions } from '../../../src/services/reassignments/reassignment-service.js';
import type { ReassignmentRecord } from '../../../src/state/records.js';
import { startReassignGateway, type ReassignGateway } from '../../http/reassignment-helpers.js';
import { startBody } from './start-body.js';

const BROKERS = 4;
const TOPICS = 12;
const PER_TOPIC = 1000;

let gw: ReassignGateway;
before(async () => {
  // Slow copies: every move is still running when the assertions read Kafka.
  gw = await startReassignGateway({
    simulator: { brokers: BROKERS, replicationBytesPerSecond: 1000, seedBytes: 5000 },
    reconcile: false,
    env: { REASSIGNMENT_START_TIMEOUT_MS: '60000' },
  });
  for (let t = 0; t < TOPICS; t++) {
    gw.sim.model.createTopic({
      name: `big${t}`,
      assignments: Array.from({ length: PER_TOPIC }, (_, p) => ({ partition: p, brokerIds: [(t + p) % BROKERS, (t + p + 1) % BROKERS] })),
    });
  }
});
after(async () => {
  await gw?.close();
});

/** Kafka requests sent so far, by API. */
async function requestCounts(): Promise<Record<string, number>> {
  const m = await gw.metrics.registry.getSingleMetric('kafka_gateway_kafka_requests_total')!.get();
  const out: Record<string, number> = {};
  for (const v of m.values) out[String(v.labels.api)] = (out[String(v.labels.api)] ?? 0) + v.value;
  return out;
}

describe('start() at 12,000 partitions', () => {
  // Every partition's first replica moves 2 brokers on (partitions of topic big11 stay put: no-ops).
  const partitions = Array.from({ length: TOPICS * PER_TOPIC }, (_, i) => {
    const t = Math.floor(i / PER_TOPIC);
    const p = i % PER_TOPIC;
    const replicas = t === TOPICS - 1 ? [(t + p) % BROKERS, (t + p + 1) % BROKERS] : [(t + p + 2) % BROKERS, (t + p + 1) % BROKERS];
    return { topic: `big${t}`, partition: p, replicas };
  });

  it('validateOnly: sizes of the copying partitions only, one DescribeLogDirs per leader; the estimate counts every copy', async () => {
    const before = await requestCounts();
    const res = await startBody(gw.runtime.reassignments, { partitions, throttle: 1_000_000, validateOnly: true });
    assert.equal(res.kind, 'plan');
    if (res.kind !== 'plan') return;
    const after = await requestCounts();
    assert.equal((after.DescribeLogDirs ?? 0) - (before.DescribeLogDirs ?? 0), BROKERS, JSON.stringify(after));
    assert.equal(res.plan.estimate.totalBytes, (TOPICS - 1) * PER_TOPIC * 5000);
    assert.deepEqual(res.plan.estimate.unknownSizes, []);
    // The rollback file in Kafka's order: topics by name (big10 before big2), partitions ascending.
    const names = res.plan.rollback.partitions.map((p) => `${p.topic}/${p.partition}`);
    const sorted = [...res.plan.rollback.partitions]
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
      .map((p) => `${p.topic}/${p.partition}`);
    assert.deepEqual(names, sorted);
  });

  it('POST: every partition moving in Kafka (requests of 5000), the record in request order with bytesTotal', async () => {
    const before = await requestCounts();
    const res = await startBody(gw.runtime.reassignments, { partitions, throttle: 1_000_000 });
    assert.equal(res.kind, 'started', JSON.stringify(res).slice(0, 500));
    if (res.kind !== 'started') return;
    const after = await requestCounts();
    assert.equal(after.AlterPartitionReassignments - (before.AlterPartitionReassignments ?? 0), Math.ceil(partitions.length / 5000));
    const record = res.record;
    assert.equal(record.state, 'running');
    assert.equal(record.partitions.length, partitions.length);
    record.partitions.forEach((p, i) => {
      assert.equal(p.topic, partitions[i].topic);
      assert.equal(p.partition, partitions[i].partition);
      assert.deepEqual(p.target, partitions[i].replicas);
      const noOp = p.topic === `big${TOPICS - 1}`;
      assert.equal(p.state, 'moving');
      // Same keys in the same order as `{ ...queued, state, startedAt }`.
      assert.deepEqual(Object.keys(p), ['topic', 'partition', 'original', 'target', 'state', 'bytesTotal', 'startedAt']);
      assert.equal(p.bytesTotal, noOp ? null : 5000);
    });
    const moving = await gw.kafka.listPartitionReassignments();
    assert.equal(moving.length, (TOPICS - 1) * PER_TOPIC);
    // As stored: the view's record is the one answered.
    const stored = (await gw.runtime.store.refresh()).reassignments.get(record.id)!;
    assert.deepEqual(JSON.parse(JSON.stringify(stored.partitions)), JSON.parse(JSON.stringify(record.partitions)));
    const counts = countPartitions(stored);
    assert.deepEqual(counts, { total: partitions.length, queued: 0, moving: partitions.length, completed: 0, failed: 0, cancelled: 0 });
    // Counts are kept per record object; a caller changing its copy changes nothing.
    counts.moving = -1;
    assert.equal(countPartitions(stored).moving, partitions.length);
    const changed: ReassignmentRecord = {
      ...stored,
      partitions: stored.partitions.map((p, i) => (i === 0 ? { ...p, state: 'completed' as const } : p)),
    };
    assert.equal(countPartitions(changed).completed, 1);
  });
});

describe('admission buckets', () => {
  it('bucketResources: partitionResource of each partition, each bucket once, in order of first appearance', async () => {
    const reference = (topic: string, partition: number): string => {
      let h = 0x811c9dc5;
      const key = `${topic}:${partition}`;
      for (let i = 0; i < key.length; i++) {
        h ^= key.charCodeAt(i);
        h = Math.imul(h, 0x01000193) >>> 0;
      }
      return `partition-bucket/${h % PARTITION_BUCKETS}`;
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ topic: fc.string({ minLength: 1, maxLength: 6 }), partition: fc.nat() }), { maxLength: 50 }),
        async (parts) => {
          for (const p of parts) assert.equal(partitionResource(p.topic, p.partition), reference(p.topic, p.partition));
          assert.deepEqual(await bucketResources(parts, async () => undefined), [
            ...new Set(parts.map((p) => reference(p.topic, p.partition))),
          ]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
