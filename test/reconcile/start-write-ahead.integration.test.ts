// A start writes each partition ahead as a successful start leaves it (moving, completed for a
// paced no-op, queued for later waves), so its write once Kafka answered rewrites only the
// chunks of partitions Kafka refused; a start that fails before sending ends its partitions
// cancelled, and a cancel of a pending record cancels what it was sending (nothing completed).
// Read from the state topic itself: which chunk messages a start wrote.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StateTopic } from '../../src/kafka/state-topic.js';
import { CHUNK_MAX_PARTITIONS, CHUNK_PREFIX } from '../../src/state/layout.js';
import type { ReassignmentRecord } from '../../src/state/records.js';
import { startReassignGateway, type ReassignGateway } from '../http/reassignment-helpers.js';
import { startBody } from '../services/reassignments/start-body.js';

const BROKERS = 4;
const ALTER_PARTITION_REASSIGNMENTS = 45;
const INCREMENTAL_ALTER_CONFIGS = 44;

let gw: ReassignGateway;
before(async () => {
  // No reconciler: what the state topic holds is the start's own writing.
  gw = await startReassignGateway({
    simulator: { brokers: BROKERS, replicationBytesPerSecond: 1000, seedBytes: 7000 },
    reconcile: false,
    env: { REASSIGNMENT_START_TIMEOUT_MS: '60000' },
  });
});
after(async () => {
  await gw?.close();
});

function createTopic(name: string, partitions: number): void {
  gw.sim.model.createTopic({
    name,
    assignments: Array.from({ length: partitions }, (_, p) => ({ partition: p, brokerIds: [p % BROKERS, (p + 1) % BROKERS] })),
  });
}

/** Every partition of `topic` moves its first replica two brokers on. */
const moveAll = (topic: string, partitions: number) => ({
  partitions: Array.from({ length: partitions }, (_, p) => ({ topic, partition: p, replicas: [(p + 2) % BROKERS, (p + 1) % BROKERS] })),
  throttle: 1_000_000,
});

/** Every message in the state topic whose key is one of reassignment `id`'s partition chunks (tombstones included). */
async function chunkMessages(id: string): Promise<{ key: string; value: string | null }[]> {
  const topic = new StateTopic(gw.kafka, { name: gw.runtime.config.stateTopic });
  const { start, end } = await topic.offsets();
  return (await topic.read(start, end)).filter((r) => r.key.startsWith(`${CHUNK_PREFIX}${id}/p`));
}

async function recordOf(id: string): Promise<ReassignmentRecord> {
  const r = (await gw.runtime.store.refresh()).reassignments.get(id);
  assert.ok(r, `record ${id}`);
  return r;
}

describe('a start writes its partitions once', () => {
  it('all accepted: the write after Kafka answered is the header alone', async () => {
    const n = 2 * CHUNK_MAX_PARTITIONS + 7;
    createTopic('wa-all', n);
    const started = await startBody(gw.runtime.reassignments, moveAll('wa-all', n));
    assert.equal(started.kind, 'started', JSON.stringify(started).slice(0, 300));
    if (started.kind !== 'started') return;
    const record = await recordOf(started.record.id);
    assert.equal(record.state, 'running');
    assert.ok(
      record.partitions.every((p) => p.state === 'moving' && p.startedAt !== undefined && p.startedAt <= record.startedAt!),
      'every partition moving since the write-ahead',
    );
    const chunks = await chunkMessages(record.id);
    // Three chunks written ahead, none written again (nor tombstoned as replaced).
    assert.equal(chunks.length, Math.ceil(n / CHUNK_MAX_PARTITIONS), chunks.map((c) => c.key).join(' '));
    assert.ok(chunks.every((c) => c.value !== null));
  });

  it('partitions refused by Kafka: only the chunk holding them is written again; they are failed, never started', async () => {
    // Two AlterPartitionReassignments requests (5,000 partitions each at most); the topic of the
    // second request's partitions is deleted while that request waits at the broker: Kafka
    // refuses each of them (UNKNOWN_TOPIC_OR_PARTITION), the request itself succeeds.
    createTopic('wa-accepted', 5_000);
    createTopic('wa-refused', 3);
    const held = gw.sim.faults.add({ apiKey: ALTER_PARTITION_REASSIGNMENTS, after: 1, times: 1, delayMs: 200 });
    const off = gw.sim.faults.onApplied((e) => e.fault.id === held.id && gw.sim.model.deleteTopic('wa-refused'));
    const n = 5_003;
    let started;
    try {
      started = await startBody(gw.runtime.reassignments, {
        ...moveAll('wa-accepted', 5_000),
        partitions: [...moveAll('wa-accepted', 5_000).partitions, ...moveAll('wa-refused', 3).partitions],
      });
    } finally {
      off();
      gw.sim.faults.remove(held.id);
    }
    assert.equal(started.kind, 'started', JSON.stringify(started).slice(0, 300));
    if (started.kind !== 'started') return;
    const record = await recordOf(started.record.id);
    assert.equal(record.state, 'running');
    const failed = record.partitions.flatMap((p, i) => (p.state === 'failed' ? [i] : []));
    assert.deepEqual(failed, [5000, 5001, 5002], 'the partitions of the refused request');
    for (const i of failed) {
      const p = record.partitions[i];
      assert.equal(p.startError?.code, 3);
      assert.equal(p.startedAt, undefined, 'a refused partition never started');
      assert.ok(p.endedAt !== undefined);
    }
    assert.equal(record.partitions.filter((p) => p.state === 'moving').length, 5000);
    const chunks = await chunkMessages(record.id);
    const chunkCount = Math.ceil(n / CHUNK_MAX_PARTITIONS);
    const rewritten = new Set(failed.map((i) => Math.floor(i / CHUNK_MAX_PARTITIONS))).size;
    // Written ahead, the refused ones' chunk again, and the replaced version's tombstone.
    assert.equal(chunks.filter((c) => c.value !== null).length, chunkCount + rewritten);
    assert.equal(chunks.filter((c) => c.value === null).length, rewritten);
  });

  it('throttles that cannot be set: the record fails with its partitions cancelled, nothing sent', async () => {
    createTopic('wa-throttle', 20);
    const fault = gw.sim.faults.add({ apiKey: INCREMENTAL_ALTER_CONFIGS, error: { code: 7 } });
    let error: unknown;
    try {
      await startBody(gw.runtime.reassignments, moveAll('wa-throttle', 20));
    } catch (err) {
      error = err;
    } finally {
      gw.sim.faults.remove(fault.id);
    }
    assert.ok(error instanceof Error, 'the start throws (HTTP 503)');
    const record = [...(await gw.runtime.store.refresh()).reassignments.values()].find((r) => r.partitions[0]?.topic === 'wa-throttle');
    assert.ok(record);
    assert.equal(record.state, 'failed');
    assert.match(record.reason ?? '', /could not set throttles/);
    assert.deepEqual([...new Set(record.partitions.map((p) => p.state))], ['cancelled']);
    assert.ok(record.partitions.every((p) => p.startedAt === undefined && p.endedAt === record.endedAt));
    assert.deepEqual(
      gw.sim.model
        .listPartitionReassignments([{ name: 'wa-throttle', partitionIndexes: Array.from({ length: 20 }, (_, p) => p) }])
        .flatMap((t) => t.partitions),
      [],
      'nothing sent to Kafka',
    );
    assert.deepEqual([...gw.sim.model.getPartition('wa-throttle', 0).replicas], [0, 1]);
  });

  it('cancelled while pending: what it was about to send is cancelled, not completed, and never sent', async () => {
    createTopic('wa-cancel', 20);
    // The start's throttle write waits at the broker: the record is pending meanwhile.
    const held = gw.sim.faults.add({ apiKey: INCREMENTAL_ALTER_CONFIGS, times: 1, delayMs: 1500 });
    const starting = startBody(gw.runtime.reassignments, moveAll('wa-cancel', 20));
    await gw.sim.faults.waitApplied(held.id);
    const pending = [...gw.runtime.store.view().reassignments.values()].find((r) => r.partitions[0]?.topic === 'wa-cancel');
    assert.ok(pending);
    assert.equal(pending.state, 'pending');
    assert.ok(
      pending.partitions.every((p) => p.state === 'moving'),
      'written ahead as started',
    );
    const cancelled = await gw.runtime.reassignments.cancel(pending.id, { preserveThrottles: false, rollback: false }, null);
    assert.equal(cancelled.kind, 'done');
    const result = await starting;
    assert.equal(result.kind, 'start-failed');
    const record = await recordOf(pending.id);
    assert.equal(record.state, 'cancelled');
    assert.deepEqual([...new Set(record.partitions.map((p) => p.state))], ['cancelled']);
    const placement = gw.sim.model.getPartition('wa-cancel', 0);
    assert.deepEqual([...placement.replicas], [0, 1], 'never sent to Kafka');
  });
});
