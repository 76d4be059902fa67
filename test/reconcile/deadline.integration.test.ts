// Deadline pacing (issue 30, part 2) over the simulator: a ManualClock drives both the
// simulator's replica copies and the gateway's clock, and the test runs the reconcile passes
// itself (one per simulated RECONCILE step), so a move of minutes takes a second and the end
// times are exact. Over the wire throughout: POST/GET /reassignments, the throttle configs as
// DescribeConfigs reads them, the completions as the simulator records them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/sim/index.js';
import { expectProblem, snapshotCluster } from '../http/helpers.js';
import { createTopics, startReassignGateway, throttleConfigs, type ReassignGateway } from '../http/reassignment-helpers.js';

const MiB = 1024 * 1024;
/** Simulated seconds between two reconcile passes. */
const STEP_MS = 2_000;
let clock: ManualClock;
let gw: ReassignGateway;

before(async () => {
  clock = new ManualClock();
  gw = await startReassignGateway({ clock, reconcile: false, simulator: { brokers: 4 } });
});
after(() => gw?.close());

const iso = (ms: number) => new Date(ms).toISOString();

/** Passes, STEP_MS of simulated time apart, until the reassignment has ended (bounded). */
async function runToEnd(id: string, maxPasses = 400): Promise<string> {
  for (let i = 0; i < maxPasses; i++) {
    clock.advance(STEP_MS);
    await gw.runtime.reconciler.reconcileOnce();
    const r = gw.runtime.store.view().reassignments.get(id)!;
    if (r.state !== 'running' && r.state !== 'pending') return r.state;
  }
  throw new Error(`not ended after ${maxPasses} passes`);
}

async function clusterState() {
  return {
    topics: await snapshotCluster(gw.app),
    throttles: await throttleConfigs(gw.kafka),
    moving: await gw.kafka.listPartitionReassignments(),
    records: gw.runtime.store.view().reassignments.size,
  };
}

describe('finishBy', () => {
  it('ends before the deadline and within 10 % of it, the throttle lowered to what it needs, every throttle gone at the end', async () => {
    await createTopics(gw, { name: 'dl', assignments: [[0], [0], [0], [0]] });
    // 4 x 100 MiB from broker 0: broker 0 sends 400 MiB, brokers 1 and 2 receive 200 MiB each.
    for (let p = 0; p < 4; p++) gw.sim.seedBytes('dl', p, 100 * MiB);
    const completions: number[] = [];
    const unsubscribe = gw.sim.onReassignmentCompleted((c) => c.topic === 'dl' && completions.push(c.completedAt));
    try {
      const t0 = clock.now();
      const duration = 400_000;
      const finishBy = t0 + duration;
      const res = await gw
        .http()
        .post('/reassignments')
        .send({
          partitions: [0, 1, 2, 3].map((p) => ({ topic: 'dl', partition: p, replicas: [p % 2 === 0 ? 1 : 2] })),
          finishBy: iso(finishBy),
          throttleBounds: { min: 64 * 1024, max: 40 * MiB },
        });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const id = res.body.id as string;
      const first = (await gw.http().get(`/reassignments/${id}`)).body;
      // 400 MiB through broker 0 in 95 % of 400 s: ~1.05 MiB/s, far below the simulator's 50 MiB/s.
      assert.equal(first.deadline.holds, true, JSON.stringify(first.deadline));
      assert.equal(first.deadline.finishBy, iso(finishBy));
      assert.ok(first.throttle > 1.0 * MiB && first.throttle < 1.2 * MiB, String(first.throttle));
      assert.equal(first.deadline.throttle, first.throttle);
      const configs = await throttleConfigs(gw.kafka);
      assert.equal(configs['broker:0']?.['leader.replication.throttled.rate'], String(first.throttle), JSON.stringify(configs));

      // Mid-way: still holding, the forecast before the deadline.
      for (let i = 0; i < 50; i++) {
        clock.advance(STEP_MS);
        await gw.runtime.reconciler.reconcileOnce();
      }
      const mid = (await gw.http().get(`/reassignments/${id}`)).body;
      assert.equal(mid.state, 'running');
      assert.equal(mid.deadline.holds, true);
      assert.ok(Date.parse(mid.deadline.expectedEnd) <= finishBy, JSON.stringify(mid.deadline));
      // The snapshot measured the bytes left per broker: everything still to copy leaves broker 0.
      const measured = gw.runtime.store.view().progress.get(id)?.bytesLeft;
      assert.ok(measured && measured.t === Date.parse(mid.progress.asOf), JSON.stringify(measured));
      const out0 = measured.brokers.find(([b]) => b === 0)?.[2];
      assert.ok(out0 !== undefined && Math.abs(out0 - mid.progress.bytesRemaining) <= 2, `${out0} vs ${mid.progress.bytesRemaining}`);
      const in12 = measured.brokers.filter(([b]) => b === 1 || b === 2).reduce((n, [, i]) => n + i, 0);
      assert.ok(Math.abs(in12 - mid.progress.bytesRemaining) <= 2, `${in12} vs ${mid.progress.bytesRemaining}`);
      const metrics = await gw.metrics.registry.metrics();
      const slack = new RegExp(`kafka_gateway_reassignment_deadline_slack_seconds\\{reassignment="${id}"\\} (\\S+)`).exec(metrics);
      assert.ok(slack && Number(slack[1]) >= 0 && Number(slack[1]) < 0.1 * (duration / 1000), slack?.[0]);

      assert.equal(await runToEnd(id), 'completed');
      assert.equal(completions.length, 4);
      const end = Math.max(...completions);
      console.log(
        `# ended ${((finishBy - end) / 1000).toFixed(1)} s before the deadline of ${duration / 1000} s; throttle ${first.throttle} -> ${gw.runtime.store.view().reassignments.get(id)!.throttle}`,
      );
      assert.ok(end <= finishBy, `ended ${(end - finishBy) / 1000} s after the deadline`);
      assert.ok(end >= finishBy - 0.1 * duration, `ended ${(finishBy - end) / 1000} s before the deadline (more than 10 %)`);
      // The throttles went with the end (the removal is the existing, crash-safe path).
      for (let i = 0; i < 3 && Object.keys(await throttleConfigs(gw.kafka)).length > 0; i++) await gw.runtime.reconciler.reconcileOnce();
      assert.deepEqual(await throttleConfigs(gw.kafka), {});
      const done = (await gw.http().get(`/reassignments/${id}`)).body;
      assert.ok(done.throttlesRemovedAt !== null);
      const after = await gw.metrics.registry.metrics();
      assert.ok(!after.includes(`reassignment_deadline_slack_seconds{reassignment="${id}"}`), 'a finished reassignment has no slack gauge');
    } finally {
      unsubscribe();
    }
  });

  it('paced (one move per broker at a time): the waves take the rate of the moment, and it still ends within 10 % before the deadline', async () => {
    await createTopics(gw, { name: 'dl-paced', assignments: [[2], [2], [2], [2], [2], [2]] });
    // Six 50 MiB moves out of broker 2, one at a time: 300 MiB through broker 2, with a pass's gap between two waves.
    for (let p = 0; p < 6; p++) gw.sim.seedBytes('dl-paced', p, 50 * MiB);
    const completions: number[] = [];
    const unsubscribe = gw.sim.onReassignmentCompleted((c) => c.topic === 'dl-paced' && completions.push(c.completedAt));
    try {
      const t0 = clock.now();
      const duration = 600_000;
      const finishBy = t0 + duration;
      const res = await gw
        .http()
        .post('/reassignments')
        .send({
          partitions: [0, 1, 2, 3, 4, 5].map((p) => ({ topic: 'dl-paced', partition: p, replicas: [p % 2 === 0 ? 0 : 3] })),
          finishBy: iso(finishBy),
          throttleBounds: { min: 64 * 1024 },
          concurrency: { perBroker: 1 },
        });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const id = res.body.id as string;
      const rates = new Set<number>();
      for (let i = 0; i < 400; i++) {
        clock.advance(STEP_MS);
        await gw.runtime.reconciler.reconcileOnce();
        const r = gw.runtime.store.view().reassignments.get(id)!;
        if (r.throttle !== null) rates.add(r.throttle);
        // Every broker rate the record demands is the one it picked (the waves take it too).
        for (const b of Object.values(r.throttleDemand?.brokers ?? {}))
          assert.ok(b.leaderRate === undefined || b.leaderRate === r.throttle, JSON.stringify(r.throttleDemand?.brokers));
        if (r.state !== 'running') break;
      }
      assert.equal(gw.runtime.store.view().reassignments.get(id)!.state, 'completed');
      assert.equal(completions.length, 6);
      const end = Math.max(...completions);
      console.log(
        `# paced: ended ${((finishBy - end) / 1000).toFixed(1)} s before the deadline of ${duration / 1000} s; rates ${[...rates].join(', ')}`,
      );
      assert.ok(end <= finishBy, `ended ${(end - finishBy) / 1000} s after the deadline`);
      assert.ok(end >= finishBy - 0.1 * duration, `ended ${(finishBy - end) / 1000} s before the deadline (more than 10 %)`);
      for (let i = 0; i < 3 && Object.keys(await throttleConfigs(gw.kafka)).length > 0; i++) await gw.runtime.reconciler.reconcileOnce();
      assert.deepEqual(await throttleConfigs(gw.kafka), {});
    } finally {
      unsubscribe();
    }
  });

  it('an impossible deadline: holds false, the highest allowed throttle, and the end at it', async () => {
    await createTopics(gw, { name: 'dl-big', assignments: [[1], [1]] });
    gw.sim.seedBytes('dl-big', 0, 600 * MiB);
    gw.sim.seedBytes('dl-big', 1, 600 * MiB);
    const t0 = clock.now();
    const res = await gw
      .http()
      .post('/reassignments')
      .send({
        partitions: [0, 1].map((p) => ({ topic: 'dl-big', partition: p, replicas: [3] })),
        finishBy: iso(t0 + 60_000),
        throttleBounds: { max: 10 * MiB },
      });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const id = res.body.id as string;
    clock.advance(STEP_MS);
    await gw.runtime.reconciler.reconcileOnce();
    clock.advance(STEP_MS);
    await gw.runtime.reconciler.reconcileOnce();
    const g = (await gw.http().get(`/reassignments/${id}`)).body;
    assert.equal(g.deadline.holds, false, JSON.stringify(g.deadline));
    assert.equal(g.throttle, 10 * MiB);
    assert.deepEqual(g.deadline.throttleBounds, { min: MiB, max: 10 * MiB });
    // 1200 MiB through broker 1 (and into broker 3) at 10 MiB/s: ~120 s after the start.
    const atMax = Date.parse(g.deadline.expectedEndAtMaxThrottle);
    assert.ok(Math.abs(atMax - (t0 + 120_000)) < 6_000, `${(atMax - t0) / 1000} s`);
    assert.ok(atMax > t0 + 60_000);
    const metrics = await gw.metrics.registry.metrics();
    assert.match(metrics, new RegExp(`kafka_gateway_reassignment_deadline_holds\\{reassignment="${id}"\\} 0`));
    const slack = new RegExp(`kafka_gateway_reassignment_deadline_slack_seconds\\{reassignment="${id}"\\} (\\S+)`).exec(metrics);
    assert.ok(slack && Number(slack[1]) < -30, slack?.[0]);
    assert.equal((await gw.http().delete(`/reassignments/${id}`)).status, 200);
    assert.equal(gw.runtime.store.view().reassignments.get(id)!.state, 'cancelled');
    for (let i = 0; i < 3 && Object.keys(await throttleConfigs(gw.kafka)).length > 0; i++) await gw.runtime.reconciler.reconcileOnce();
    assert.deepEqual(await throttleConfigs(gw.kafka), {});
  });

  it('refuses a bad deadline with 400 and changes nothing', async () => {
    await createTopics(gw, { name: 'dl-bad', assignments: [[0]] });
    const partitions = [{ topic: 'dl-bad', partition: 0, replicas: [1] }];
    const cases: [object, string][] = [
      [{ partitions, finishBy: iso(clock.now() + 600_000), throttle: 5 * MiB }, 'MUTUALLY_EXCLUSIVE'],
      [{ partitions, throttleBounds: { max: 5 * MiB } }, 'MUTUALLY_EXCLUSIVE'],
      [{ partitions, finishBy: iso(clock.now() - 1_000) }, 'DEADLINE_TOO_CLOSE'],
      [{ partitions, finishBy: iso(clock.now() + 10_000) }, 'DEADLINE_TOO_CLOSE'],
      [{ partitions, finishBy: iso(clock.now() + 600_000), throttleBounds: { min: 20 * MiB, max: 10 * MiB } }, 'OUT_OF_RANGE'],
    ];
    for (const [body, code] of cases) {
      const before = await clusterState();
      const res = await gw.http().post('/reassignments').send(body);
      expectProblem(res, 400, 'validation-failed');
      assert.ok(
        (res.body.errors as { code?: string }[]).some((e) => e.code === code),
        `${JSON.stringify(body)} -> ${JSON.stringify(res.body.errors)}`,
      );
      assert.deepEqual(await clusterState(), before, 'a rejected request must leave the cluster unchanged');
    }
    // The reason is spelled out.
    const past = await gw
      .http()
      .post('/reassignments')
      .send({ partitions, finishBy: iso(clock.now() - 1_000) });
    assert.match(past.body.errors[0].message, /in the past/);
  });
});
