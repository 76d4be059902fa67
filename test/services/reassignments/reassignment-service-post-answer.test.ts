// What a POST answers about its plan is what validateOnly answers for the same body, although a
// POST computes the answer-only parts (estimate, rollback file, wave schedule, config strings)
// while its AlterPartitionReassignments requests are out. And leader sizes are found whatever
// order Kafka's Metadata lists a topic's partitions in (the lookup goes by index first).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TopicPartitions } from '../../../src/kafka/kafka-admin.js';
import { startReassignGateway, type ReassignGateway } from '../../http/reassignment-helpers.js';
import { startBody } from './start-body.js';

const BROKERS = 4;
const PER_TOPIC = 40;

let gw: ReassignGateway;
before(async () => {
  // Slow copies: the moves are still running when a test reads the answer.
  gw = await startReassignGateway({
    simulator: { brokers: BROKERS, replicationBytesPerSecond: 1000, seedBytes: 7000 },
    reconcile: false,
    env: { REASSIGNMENT_START_TIMEOUT_MS: '60000' },
  });
  for (const name of ['a', 'b', 'c', 'd']) {
    gw.sim.model.createTopic({
      name,
      assignments: Array.from({ length: PER_TOPIC }, (_, p) => ({ partition: p, brokerIds: [p % BROKERS, (p + 1) % BROKERS] })),
    });
  }
});
after(async () => {
  await gw?.close();
});

/** Every partition of `topic` moves its first replica two brokers on (the last few stay: no-ops). */
const body = (topic: string) => ({
  partitions: Array.from({ length: PER_TOPIC }, (_, p) => ({
    topic,
    partition: p,
    replicas: p >= PER_TOPIC - 3 ? [p % BROKERS, (p + 1) % BROKERS] : [(p + 2) % BROKERS, (p + 1) % BROKERS],
  })),
  throttle: 1_000_000,
});

describe('POST answer', () => {
  it('the plan a POST answers is the plan validateOnly answers (all at once)', async () => {
    const svc = gw.runtime.reassignments;
    const planned = await startBody(svc, { ...body('a'), validateOnly: true });
    assert.equal(planned.kind, 'plan');
    const started = await startBody(svc, body('a'));
    assert.equal(started.kind, 'started', JSON.stringify(started).slice(0, 300));
    if (planned.kind !== 'plan' || started.kind !== 'started') return;
    assert.equal(JSON.stringify(started.plan), JSON.stringify(planned.plan));
    assert.equal(started.plan.estimate.totalBytes, (PER_TOPIC - 3) * 7000);
    assert.equal(started.plan.rollback.partitions.length, PER_TOPIC);
    assert.ok(started.plan.throttleConfigs.length > 0);
  });

  it('the plan a paced POST answers is the plan validateOnly answers, wave schedule included', async () => {
    const svc = gw.runtime.reassignments;
    const paced = { ...body('b'), concurrency: { perBroker: 2 } };
    const planned = await startBody(svc, { ...paced, validateOnly: true });
    assert.equal(planned.kind, 'plan');
    const started = await startBody(svc, paced);
    assert.equal(started.kind, 'started', JSON.stringify(started).slice(0, 300));
    if (planned.kind !== 'plan' || started.kind !== 'started') return;
    assert.ok(started.plan.pacing && started.plan.pacing.schedule.waves.length > 1, JSON.stringify(started.plan.pacing));
    assert.equal(JSON.stringify(started.plan), JSON.stringify(planned.plan));
  });
});

describe('leader sizes', () => {
  it('are found when Metadata lists partitions out of id order or with gaps', async () => {
    const svc = gw.runtime.reassignments;
    const inOrder = await startBody(svc, { ...body('c'), validateOnly: true });
    assert.equal(inOrder.kind, 'plan');
    if (inOrder.kind !== 'plan') return;
    assert.equal(inOrder.plan.estimate.totalBytes, (PER_TOPIC - 3) * 7000);
    const kafka = gw.kafka as unknown as { describePartitions: (topics: string[] | null) => Promise<TopicPartitions[]> };
    const real = kafka.describePartitions;
    // Reversed: index k holds partition PER_TOPIC-1-k (an index hit would be the wrong partition).
    kafka.describePartitions = async (topics) =>
      (await real.call(gw.kafka, topics)).map((t) => ({ ...t, partitions: [...t.partitions].reverse() }));
    try {
      const reversed = await startBody(svc, { ...body('c'), validateOnly: true });
      assert.equal(reversed.kind, 'plan');
      if (reversed.kind !== 'plan') return;
      assert.deepEqual(reversed.plan.estimate, inOrder.plan.estimate);
      // Rotated by one: no partition at its own index.
      kafka.describePartitions = async (topics) =>
        (await real.call(gw.kafka, topics)).map((t) => ({ ...t, partitions: [...t.partitions.slice(1), t.partitions[0]] }));
      const started = await startBody(svc, body('c'));
      assert.equal(started.kind, 'started', JSON.stringify(started).slice(0, 300));
      if (started.kind !== 'started') return;
      assert.deepEqual(started.plan.estimate, inOrder.plan.estimate);
      for (const p of started.record.partitions)
        assert.equal(p.bytesTotal, p.partition >= PER_TOPIC - 3 ? null : 7000, `${p.topic}-${p.partition}`);
    } finally {
      kafka.describePartitions = real;
    }
  });
});
