// Health interlocks at the start (issue 30): a POST /reassignments sends its first wave itself,
// so the start checks the cluster's health as a reconcile pass would (src/services/reassignments/start-health.ts).
// Against the simulator over TCP: broker 4 (not part of the move, holding replicas of a bystander
// topic) is stopped before the POST: the paced reassignment is created held (202 says so and why),
// Kafka's own ListPartitionReassignments, sampled every 200 ms while the reconciler keeps it held,
// lists none of its partitions; the broker starts: it resumes by itself and completes with every
// throttle gone. `safety: "off"` starts at once; a dry run reports the trouble without failing;
// an unpaced POST (nothing to hold) starts and carries the warning of its own topics' trouble. Synchronised on the API's
// answers, Kafka's lists and the reconciler's pass counter, with deadlines: no sleeps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createTopics,
  reconcilePasses,
  startReassignGateway,
  throttleConfigs,
  type ReassignGateway,
} from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

/** n partitions on brokers 0-3 (RF 2), each moving its second replica to another broker of 0-3. */
function layout(name: string, n: number): { assignments: number[][]; targets: { topic: string; partition: number; replicas: number[] }[] } {
  const assignments = Array.from({ length: n }, (_, p) => [p % 4, (p + 1) % 4]);
  const targets = assignments.map(([a, b], partition) => ({
    topic: name,
    partition,
    replicas: [a, [0, 1, 2, 3].find((x) => x !== a && x !== b)!],
  }));
  return { assignments, targets };
}

/** The moving topic (with data) and a bystander topic with replicas on broker 4. */
async function topics(gw: ReassignGateway, name: string, n: number): Promise<{ topic: string; partition: number; replicas: number[] }[]> {
  const { assignments, targets } = layout(name, n);
  await createTopics(
    gw,
    { name, assignments },
    {
      name: `${name}-bystander`,
      assignments: [
        [4, 0],
        [0, 4],
      ],
    },
  );
  for (let p = 0; p < n; p++) gw.sim.seedBytes(name, p, 60_000 + p * 5_000);
  return targets;
}

async function metric(gw: ReassignGateway, name: string): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  return ((await gw.metrics.registry.getMetricsAsJSON()).find((x) => x.name === name)?.values ?? []) as {
    labels: Record<string, string | number>;
    value: number;
  }[];
}

async function state(gw: ReassignGateway, id: string): Promise<any> {
  const g = await gw.http().get(`/reassignments/${id}`);
  assert.equal(g.status, 200, JSON.stringify(g.body));
  return g.body;
}

async function movingOf(gw: ReassignGateway, topic: string): Promise<number[]> {
  return (await gw.kafka.listPartitionReassignments()).filter((m) => m.topic === topic).map((m) => m.partition);
}

/** The partitions among `targets` whose replicas in Kafka's Metadata are their target already. */
async function atTarget(gw: ReassignGateway, targets: { topic: string; partition: number; replicas: number[] }[]): Promise<number[]> {
  const health = await gw.kafka.describeReplicaHealth();
  const byPartition = new Map<string, number[]>();
  for (const t of health.topics) for (const p of t.partitions) byPartition.set(`${t.name}:${p.partition}`, p.replicas);
  return targets
    .filter((t) => JSON.stringify(byPartition.get(`${t.topic}:${t.partition}`)) === JSON.stringify(t.replicas))
    .map((t) => t.partition);
}

/** Waits until Metadata no longer lists broker `id` (the stop is seen by the gateway's reads). */
async function brokerGone(gw: ReassignGateway, id: number): Promise<void> {
  await eventually(async () => ((await gw.kafka.describeReplicaHealth()).brokers.includes(id) ? undefined : true), 10_000, 20);
}

describe('health interlocks at the start', () => {
  it('a broker outside the move is down: the POST creates it held, Kafka lists nothing of it; the broker back, it resumes and completes with no throttle left', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 5 } });
    const audit: Record<string, unknown>[] = [];
    gw.logger.info = (_msg: string, fields?: Record<string, unknown>) => {
      if (fields?.type === 'audit') audit.push(fields);
    };
    try {
      const targets = await topics(gw, 'heldstart', 8);
      await gw.sim.stopBroker(4);
      await brokerGone(gw, 4);

      const res = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: targets, throttle: 100_000, concurrency: { perBroker: 1 } });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const id = res.body.id as string;
      assert.equal(res.body.state, 'held');
      assert.equal(res.body.healthWarning.wouldHold, true);
      const kinds = res.body.summary.hold.reasons.map((r: { kind: string }) => r.kind);
      assert.ok(kinds.includes('brokerGone') && kinds.includes('underReplicated'), JSON.stringify(res.body.summary.hold));
      assert.match(res.body.summary.reason, /held: .*broker\(s\) gone \(4\)/);
      assert.deepEqual(res.body.summary.counts, { total: 8, queued: 8, moving: 0, completed: 0, failed: 0, cancelled: 0 });

      // Kafka's own list, sampled every 200 ms while the reconciler's passes keep it held.
      const samples: number[][] = [await movingOf(gw, 'heldstart')];
      const passesDone = reconcilePasses(gw, 4).then(() => true);
      let passed = false;
      passesDone.then(
        () => (passed = true),
        () => (passed = true),
      );
      while (!passed) {
        await new Promise((r) => setTimeout(r, 200)); // the sampling period, not a synchronisation
        samples.push(await movingOf(gw, 'heldstart'));
      }
      await passesDone;
      const still = await state(gw, id);
      assert.equal(still.state, 'held', 'the reconciler keeps it held while the broker is down');
      samples.push(await movingOf(gw, 'heldstart'));
      assert.ok(samples.length >= 3, `${samples.length} samples`);
      for (const s of samples) assert.deepEqual(s, [], 'nothing of a reassignment held at its start is sent to Kafka');
      assert.equal(still.counts.queued, 8);

      // Audited, counted, and in the gauge as any hold.
      const holdLine = audit.find((l) => l.operationId === 'holdReassignment' && (l.params as { id: string }).id === id);
      assert.ok(holdLine, 'the hold at the start is in the audit trail');
      assert.ok((await metric(gw, 'kafka_gateway_reassignment_holds_total')).some((v) => v.labels.reason === 'brokerGone' && v.value >= 1));
      assert.deepEqual(
        (await metric(gw, 'kafka_gateway_reassignment_held'))
          .filter((v) => v.labels.reassignment === id && v.labels.reason === 'brokerGone')
          .map((v) => v.value),
        [1],
      );

      await gw.sim.startBroker(4);
      const done = await eventually(async () => {
        const s = await state(gw, id);
        return s.state === 'completed' ? s : undefined;
      }, 60_000);
      assert.deepEqual(done.counts, { total: 8, queued: 0, moving: 0, completed: 8, failed: 0, cancelled: 0 });
      const placed = await gw.http().get('/topics/heldstart');
      assert.deepEqual(
        placed.body.partitions.map((p: { replicas: number[] }) => p.replicas),
        targets.map((t) => t.replicas),
      );
      await eventually(async () => (Object.keys(await throttleConfigs(gw.kafka)).length === 0 ? true : undefined), 20_000);
      assert.ok(
        audit.some((l) => l.operationId === 'resumeReassignment' && (l.params as { id: string }).id === id),
        'the resume is in the audit trail',
      );
    } finally {
      await gw.close();
    }
  });

  it('safety "off": the same POST starts its first wave at once', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 5 } });
    try {
      const targets = await topics(gw, 'offstart', 8);
      await gw.sim.stopBroker(4);
      await brokerGone(gw, 4);
      const res = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: targets, throttle: 100_000, concurrency: { perBroker: 1 }, safety: 'off' });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.equal(res.body.state, 'running');
      assert.equal(res.body.summary.hold, undefined);
      assert.equal(res.body.healthWarning, undefined);
      assert.ok(res.body.summary.counts.moving > 0, JSON.stringify(res.body.summary.counts));
      // Sent by the POST itself: Kafka lists the first wave, or has already placed it at its
      // target (its copy takes ~0.6 s; on a loaded machine the POST's answer can come later than
      // that, before the reconciler records the end). Kafka's placement, not the record: only an
      // AlterPartitionReassignments can have moved a partition to its target.
      const listed = await movingOf(gw, 'offstart');
      const placed = listed.length > 0 ? [] : await atTarget(gw, targets);
      assert.ok(listed.length > 0 || placed.length > 0, 'the first wave was sent');
      await eventually(async () => ((await state(gw, res.body.id)).state === 'completed' ? true : undefined), 60_000);
      await gw.sim.startBroker(4);
    } finally {
      await gw.close();
    }
  });

  it('a dry run reports the trouble without failing; an unpaced POST starts (nothing to hold) and carries the warning', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 5 } });
    try {
      const targets = await topics(gw, 'dryrun', 4);
      await gw.sim.stopBroker(4);
      await brokerGone(gw, 4);
      const dry = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: targets, concurrency: { perBroker: 1 }, validateOnly: true });
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      assert.equal(dry.body.healthWarning.wouldHold, true);
      assert.ok(
        dry.body.healthWarning.reasons.some(
          (r: { kind: string; examples: string[] }) => r.kind === 'brokerGone' && r.examples.includes('4'),
        ),
        JSON.stringify(dry.body.healthWarning),
      );
      assert.match(dry.body.healthWarning.message, /starts held/);
      assert.ok(dry.body.pacing.waveCount > 0, 'the plan still shows its waves');
      assert.deepEqual(await movingOf(gw, 'dryrun'), [], 'a dry run moves nothing');
      const listed = await gw.http().get('/reassignments');
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.deepEqual(listed.body.reassignments, [], 'a dry run creates no reassignment');

      // Unpaced (never held): its warning is about the topics it moves, read with their
      // placement. The moving topic is healthy (broker 4 holds only the bystander): no warning.
      const healthyTopics = await gw.http().post('/reassignments').send({ partitions: targets, validateOnly: true });
      assert.equal(healthyTopics.status, 200, JSON.stringify(healthyTopics.body));
      assert.equal(healthyTopics.body.healthWarning ?? null, null, JSON.stringify(healthyTopics.body.healthWarning));
      // With the bystander's partition 0 moved off broker 4, its partition 1 (on broker 4, not
      // moved) is in its topics: the warning names it.
      const withBystander = [...targets, { topic: 'dryrun-bystander', partition: 0, replicas: [1, 0] }];
      const unpaced = await gw.http().post('/reassignments').send({ partitions: withBystander });
      assert.equal(unpaced.status, 202, JSON.stringify(unpaced.body));
      assert.equal(unpaced.body.state, 'running');
      assert.equal(unpaced.body.healthWarning.wouldHold, false);
      assert.match(unpaced.body.healthWarning.message, /topics this reassignment moves.*give concurrency/);
      assert.ok(
        unpaced.body.healthWarning.reasons.some(
          (r: { kind: string; examples: string[] }) => r.kind === 'underReplicated' && r.examples.includes('dryrun-bystander-1'),
        ),
        JSON.stringify(unpaced.body.healthWarning),
      );
      assert.equal(unpaced.body.summary.counts.moving + unpaced.body.summary.counts.completed, 5);
      await eventually(async () => ((await state(gw, unpaced.body.id)).state === 'completed' ? true : undefined), 60_000);
      await gw.sim.startBroker(4);
    } finally {
      await gw.close();
    }
  });
});
