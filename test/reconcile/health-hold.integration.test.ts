// Health interlocks (issue 30) against the simulator over TCP: a paced reassignment on brokers
// 0-3 while broker 4 (not part of the move, holding replicas of another topic) stops: held within
// two reconcile passes; Kafka's own ListPartitionReassignments, sampled every 200 ms, shows no new
// move while held (the moves in flight finish); the broker starts again: it resumes by itself and
// completes with every throttle gone. Also: under-min-ISR trouble holds (a policy holding on that
// alone), `safety: "off"` never holds, a pause while held stays paused after the hold ends, and a
// move whose target broker is gone says how to re-plan. Synchronised on the API's answers, Kafka's
// lists and the reconciler's pass counter, with deadlines: no sleeps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { troubleOf } from '../../src/sim/cluster/trouble.js';
import { HealthInterlock } from '../../src/reconcile/health.js';
import {
  createTopics,
  reconcilePasses,
  startReassignGateway,
  throttleConfigs,
  type ReassignGateway,
} from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

/** n partitions on brokers 0-3 (RF 2), each moving its second replica to a broker of 0-3 it does not have. */
function layout(n: number): {
  assignments: number[][];
  targets: (topic: string) => { topic: string; partition: number; replicas: number[] }[];
} {
  const assignments = Array.from({ length: n }, (_, p) => [p % 4, (p + 1) % 4]);
  return {
    assignments,
    targets: (topic) =>
      assignments.map(([a, b], partition) => ({
        topic,
        partition,
        replicas: [a, [0, 1, 2, 3].find((x) => x !== a && x !== b && x !== (b + 1) % 4) ?? (b + 2) % 4],
      })),
  };
}

async function runs(gw: ReassignGateway): Promise<number> {
  const m = (await gw.metrics.registry.getMetricsAsJSON()).find((x) => x.name === 'kafka_gateway_reconciler_runs_total');
  return m?.values.reduce((s, v) => s + v.value, 0) ?? 0;
}

async function metric(gw: ReassignGateway, name: string): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  return ((await gw.metrics.registry.getMetricsAsJSON()).find((x) => x.name === name)?.values ?? []) as {
    labels: Record<string, string | number>;
    value: number;
  }[];
}

/** The audit lines (type 'audit') the gateway logs with info, captured. */
function captureAudit(gw: ReassignGateway): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  gw.logger.info = (_msg: string, fields?: Record<string, unknown>) => {
    if (fields?.type === 'audit') lines.push(fields);
  };
  return lines;
}

async function state(gw: ReassignGateway, id: string): Promise<any> {
  const g = await gw.http().get(`/reassignments/${id}`);
  assert.equal(g.status, 200, JSON.stringify(g.body));
  return g.body;
}

/** A paced move of `n` partitions of topic `name` (with data: it takes a while at the throttle) plus a bystander topic on broker 4. */
async function setup(
  gw: ReassignGateway,
  name: string,
  n: number,
  body: Record<string, unknown> = {},
): Promise<{ id: string; targets: { topic: string; partition: number; replicas: number[] }[] }> {
  const { assignments, targets } = layout(n);
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
  const res = await gw
    .http()
    .post('/reassignments')
    .send({ partitions: targets(name), throttle: 100_000, concurrency: { perBroker: 1 }, ...body });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return { id: res.body.id as string, targets: targets(name) };
}

/** Samples Kafka's moving partitions of `topic` every 200 ms until stopped. */
function sampleMoves(gw: ReassignGateway, topic: string) {
  const samples: { at: number; moving: Set<number> }[] = [];
  let on = true;
  const loop = (async () => {
    while (on) {
      const listed = await gw.kafka.listPartitionReassignments().catch(() => null);
      if (listed) samples.push({ at: Date.now(), moving: new Set(listed.filter((m) => m.topic === topic).map((m) => m.partition)) });
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    samples,
    async stop() {
      on = false;
      await loop;
    },
  };
}

describe('health interlocks', () => {
  it('a broker outside the move stops: held within two passes, nothing new starts, it resumes by itself and completes with no throttle left', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 5 } });
    const audit = captureAudit(gw);
    try {
      const { id, targets } = await setup(gw, 'hold', 8);
      const first = await state(gw, id);
      assert.equal(first.state, 'running');
      assert.deepEqual(first.safety, { holdOn: ['offline', 'underReplicated', 'underMinIsr', 'brokerGone'], resumeAfterPasses: 3 });
      assert.ok(first.counts.queued > 0, JSON.stringify(first.counts));

      const before = await runs(gw);
      await gw.sim.stopBroker(4);
      const held = await eventually(
        async () => {
          const s = await state(gw, id);
          return s.state === 'held' ? s : undefined;
        },
        20_000,
        20,
      );
      const passes = (await runs(gw)) - before;
      // The pass in flight when the broker stopped may have read Metadata before it: it and two more.
      assert.ok(passes <= 3, `held after ${passes} passes`);
      assert.ok(held.counts.queued > 0, 'something left to hold');
      const kinds = held.hold.reasons.map((r: { kind: string }) => r.kind);
      assert.ok(kinds.includes('brokerGone') && kinds.includes('underReplicated'), JSON.stringify(held.hold));
      assert.deepEqual(held.hold.reasons.find((r: { kind: string }) => r.kind === 'brokerGone').examples, ['4']);
      assert.match(held.reason, /held: .*broker\(s\) gone \(4\)/);
      assert.equal(held.hold.targetsGone, undefined, 'no move goes to broker 4');

      // What was sent before the hold is all Kafka may list while held.
      const sent = await gw.http().get(`/reassignments/${id}/partitions?state=moving&limit=1000`);
      assert.equal(sent.status, 200);
      const allowed = new Set<number>(sent.body.items.map((p: { partition: number }) => p.partition));
      const sampler = sampleMoves(gw, 'hold');
      try {
        // The moves in flight finish while held.
        await eventually(
          async () =>
            sampler.samples.some((s) => s.at > Date.now() - 1000 && s.moving.size === 0) && (await state(gw, id)).counts.moving === 0
              ? true
              : undefined,
          30_000,
        );
        await reconcilePasses(gw, 3);
        const still = await state(gw, id);
        assert.equal(still.state, 'held');
        assert.equal(still.counts.queued, held.counts.queued, 'nothing left the queue while held');
        assert.ok(still.counts.completed >= held.counts.completed + held.counts.moving, 'the moves in flight completed');
        // Nothing moves for longer than STALL_AFTER_SECONDS (2 s here): held, not stalled.
        const quiet = await eventually(async () => {
          const q = await state(gw, id);
          return q.progress.lastProgressAt !== null && Date.now() - Date.parse(q.progress.lastProgressAt) > 3000 ? q : undefined;
        }, 20_000);
        assert.equal(quiet.state, 'held');
        assert.equal(quiet.progress.stalled, false);
        await reconcilePasses(gw, 1);
        assert.deepEqual(
          (await metric(gw, 'kafka_gateway_reassignment_stalled')).filter((v) => v.labels.reassignment === id).map((v) => v.value),
          [0],
        );
      } finally {
        await sampler.stop();
      }
      assert.ok(sampler.samples.length >= 3, `${sampler.samples.length} samples`);
      for (const s of sampler.samples)
        for (const p of s.moving) assert.ok(allowed.has(p), `partition ${p} started while held (allowed ${[...allowed].join(',')})`);

      // The cluster page's counts: broker 0 leads both bystander partitions, now without broker 4 in their ISR.
      const brokers = await gw.http().get('/brokers');
      assert.equal(brokers.status, 200, JSON.stringify(brokers.body));
      const b0 = brokers.body.brokers.find((b: { id: number }) => b.id === 0);
      const b4 = brokers.body.brokers.find((b: { id: number }) => b.id === 4);
      assert.ok(b0.underReplicated >= 2, JSON.stringify(b0));
      assert.deepEqual([b4.live, b4.outOfSyncReplicas], [false, 2]);
      assert.equal(brokers.body.brokers.find((b: { id: number }) => b.id === 2).outOfSyncReplicas, 0);

      const gauge = await metric(gw, 'kafka_gateway_reassignment_held');
      assert.deepEqual(
        gauge.filter((v) => v.labels.reassignment === id && v.labels.reason === 'brokerGone').map((v) => v.value),
        [1],
      );
      assert.ok((await metric(gw, 'kafka_gateway_reassignment_holds_total')).some((v) => v.labels.reason === 'brokerGone' && v.value >= 1));
      const holdLine = audit.find((l) => l.operationId === 'holdReassignment');
      assert.ok(holdLine, 'the hold is in the audit trail');
      assert.equal((holdLine.params as { id: string }).id, id);
      assert.equal(holdLine.actor, 'reconciler');

      // Healthy again: resumes by itself, completes, no throttle left.
      await gw.sim.startBroker(4);
      const done = await eventually(async () => {
        const s = await state(gw, id);
        return s.state === 'completed' ? s : undefined;
      }, 60_000);
      assert.deepEqual(done.counts, { total: 8, queued: 0, moving: 0, completed: 8, failed: 0, cancelled: 0 });
      assert.equal(done.hold, undefined);
      const placed = await gw.http().get('/topics/hold');
      assert.deepEqual(
        placed.body.partitions.map((p: { replicas: number[] }) => p.replicas),
        targets.map((t) => t.replicas),
      );
      await eventually(async () => (Object.keys(await throttleConfigs(gw.kafka)).length === 0 ? true : undefined), 20_000);
      assert.ok(
        audit.some((l) => l.operationId === 'resumeReassignment' && (l.params as { id: string }).id === id),
        'the resume is in the audit trail',
      );
      assert.ok((await metric(gw, 'kafka_gateway_reassignment_resumes_total')).some((v) => v.value >= 1));
      assert.deepEqual(
        (await metric(gw, 'kafka_gateway_reassignment_held')).filter((v) => v.labels.reassignment === id),
        [],
      );
    } finally {
      await gw.close();
    }
  });

  it('partitions under min ISR hold a reassignment whose policy holds on that alone; restored, it resumes', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 5 } });
    try {
      const { id } = await setup(gw, 'minisr', 6, { safety: { holdOn: ['underMinIsr'], resumeAfterPasses: 2 } });
      assert.deepEqual((await state(gw, id)).safety, { holdOn: ['underMinIsr'], resumeAfterPasses: 2 });
      // A broker falling behind is under-replication (min.insync.replicas is 1 here), not in this policy: no hold for it.
      assert.ok(troubleOf(gw.sim.model).fallBehind(4) > 0);
      await reconcilePasses(gw, 3);
      assert.notEqual((await state(gw, id)).state, 'held');
      troubleOf(gw.sim.model).catchUp(4);
      const set = await gw
        .http()
        .patch('/topics/minisr-bystander/configs')
        .send({ set: { 'min.insync.replicas': '2' } });
      assert.ok(set.status < 300, JSON.stringify(set.body));

      const out = troubleOf(gw.sim.model).underMinIsr('minisr-bystander', [0]);
      assert.deepEqual(out.partitions, [{ partition: 0, isr: [4] }]);
      const held = await eventually(
        async () => {
          const s = await state(gw, id);
          return s.state === 'held' ? s : s.state === 'completed' ? assert.fail('completed before it was held') : undefined;
        },
        20_000,
        20,
      );
      assert.deepEqual(held.hold.reasons, [{ kind: 'underMinIsr', count: 1, examples: ['minisr-bystander-0'] }]);
      assert.equal(held.hold.resumeAfterPasses, 2);

      troubleOf(gw.sim.model).restoreIsr('minisr-bystander', null);
      const done = await eventually(async () => {
        const s = await state(gw, id);
        return s.state === 'completed' ? s : undefined;
      }, 60_000);
      assert.equal(done.counts.completed, 6);
    } finally {
      await gw.close();
    }
  });

  it('safety "off" never holds: the move completes with a broker gone', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 5 } });
    try {
      const { id } = await setup(gw, 'unsafe', 6, { safety: 'off' });
      assert.equal((await state(gw, id)).safety, 'off');
      await gw.sim.stopBroker(4);
      const seen = new Set<string>();
      const done = await eventually(
        async () => {
          const s = await state(gw, id);
          seen.add(s.state);
          return s.state === 'completed' ? s : undefined;
        },
        60_000,
        20,
      );
      assert.equal(done.counts.completed, 6);
      assert.ok(!seen.has('held'), [...seen].join(','));
      await gw.sim.startBroker(4);
    } finally {
      await gw.close();
    }
  });

  it('paused while held stays paused once the hold ends; a move to a gone broker says how to re-plan', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 5 } });
    try {
      const { id } = await setup(gw, 'pause', 8);
      troubleOf(gw.sim.model).fallBehind(4);
      await eventually(async () => ((await state(gw, id)).state === 'held' ? true : undefined), 20_000, 20);
      const paused = await gw.http().patch(`/reassignments/${id}`).send({ paused: true });
      assert.equal(paused.status, 200, JSON.stringify(paused.body));
      assert.equal(paused.body.state, 'paused');
      assert.ok(paused.body.hold, 'the hold is still shown');

      troubleOf(gw.sim.model).catchUp(4);
      const cleared = await eventually(
        async () => {
          const s = await state(gw, id);
          return s.hold === undefined ? s : undefined;
        },
        20_000,
        20,
      );
      assert.equal(cleared.state, 'paused', "the caller's pause outlives the hold");
      await eventually(
        async () => ((await gw.kafka.listPartitionReassignments()).some((m) => m.topic === 'pause') ? undefined : true),
        30_000,
      );
      await reconcilePasses(gw, 2);
      const quiet = await state(gw, id);
      assert.equal(quiet.state, 'paused');
      assert.deepEqual(
        (await gw.kafka.listPartitionReassignments()).filter((m) => m.topic === 'pause'),
        [],
        'nothing starts while paused',
      );

      // A broker the queued moves go to disappears: held, with the broker and a re-plan hint.
      const queuedRows = await gw.http().get(`/reassignments/${id}/partitions?state=queued&limit=1000`);
      const target = queuedRows.body.items[0].targetReplicas.at(-1) as number;
      await gw.sim.stopBroker(target);
      const gone = await eventually(
        async () => {
          const s = await state(gw, id);
          return s.hold?.targetsGone ? s : undefined;
        },
        20_000,
        20,
      );
      assert.equal(gone.state, 'paused');
      assert.equal(gone.hold.targetsGone[0].broker, target);
      assert.ok(gone.hold.targetsGone[0].partitions >= 1);
      assert.match(gone.hold.replan, new RegExp(`DELETE /reassignments/${id}.*POST /plans`));
      await gw.sim.startBroker(target);

      assert.equal((await gw.http().patch(`/reassignments/${id}`).send({ paused: false })).status, 200);
      const done = await eventually(async () => {
        const s = await state(gw, id);
        return s.state === 'completed' ? s : undefined;
      }, 60_000);
      assert.equal(done.counts.completed, 8);
      await eventually(async () => (Object.keys(await throttleConfigs(gw.kafka)).length === 0 ? true : undefined), 20_000);
    } finally {
      await gw.close();
    }
  });

  it('PATCH safety "off" ends a hold while the trouble lasts; a malformed one is a 400', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 5 } });
    const audit = captureAudit(gw);
    try {
      const { id } = await setup(gw, 'override', 6);
      troubleOf(gw.sim.model).fallBehind(4);
      await eventually(async () => ((await state(gw, id)).state === 'held' ? true : undefined), 20_000, 20);
      const bad = await gw
        .http()
        .patch(`/reassignments/${id}`)
        .send({ safety: { holdOn: ['bogus'] } });
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
      const off = await gw.http().patch(`/reassignments/${id}`).send({ safety: 'off' });
      assert.equal(off.status, 200, JSON.stringify(off.body));
      assert.equal(off.body.safety, 'off');
      const done = await eventually(async () => {
        const s = await state(gw, id);
        return s.state === 'completed' ? s : undefined;
      }, 60_000);
      assert.equal(done.counts.completed, 6);
      assert.ok(
        audit.some((l) => l.operationId === 'resumeReassignment'),
        'the hold ended in the audit trail',
      );
      // Finished: no policy change any more (409).
      assert.equal((await gw.http().patch(`/reassignments/${id}`).send({ safety: null })).status, 409);
      troubleOf(gw.sim.model).catchUp(4);
    } finally {
      await gw.close();
    }
  });

  it('the hold is in the state topic: another instance sees it held and, the first one gone, resumes it', async () => {
    const first = await startReassignGateway({ simulator: { brokers: 5 } });
    let second: ReassignGateway | undefined;
    try {
      const { id } = await setup(first, 'shared', 6);
      troubleOf(first.sim.model).fallBehind(4);
      await eventually(async () => ((await state(first, id)).state === 'held' ? true : undefined), 20_000, 20);
      await first.runtime.reconciler.stop();
      second = await startReassignGateway({ sim: first.sim });
      const seen = await state(second, id);
      assert.equal(seen.state, 'held', 'the other instance reads the hold from the state topic');
      assert.deepEqual(
        seen.hold.reasons.map((r: { kind: string }) => r.kind),
        ['underReplicated'],
      );
      const audit = captureAudit(second);
      troubleOf(first.sim.model).catchUp(4);
      const done = await eventually(async () => {
        const s = await state(second!, id);
        return s.state === 'completed' ? s : undefined;
      }, 60_000);
      assert.equal(done.counts.completed, 6);
      assert.ok(
        audit.some((l) => l.operationId === 'resumeReassignment'),
        'the surviving instance resumed it',
      );
    } finally {
      await second?.close();
      await first.close();
    }
  });

  it('moving the replicas off a dead broker is not held by that broker or by the partitions it moves', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 5 } });
    try {
      await createTopics(gw, {
        name: 'evac',
        assignments: [
          [4, 0],
          [0, 4],
          [1, 4],
          [4, 2],
        ],
      });
      // Unthrottled (a throttle rate cannot be set on a dead broker): 20 MB at the simulator's 50 MiB/s, ~0.4 s a move.
      for (let p = 0; p < 4; p++) gw.sim.seedBytes('evac', p, 20_000_000);
      const targets = [
        [1, 0],
        [0, 2],
        [1, 3],
        [3, 2],
      ].map((replicas, partition) => ({ topic: 'evac', partition, replicas }));
      // Started while broker 4 is up (a start reads the sizes from the replicas' brokers), then it dies.
      const res = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: targets, concurrency: { perBroker: 1 } });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      await gw.sim.stopBroker(4);
      assert.ok((await state(gw, res.body.id)).counts.queued > 0, 'moves left to start after it died');
      const seen = new Set<string>();
      const done = await eventually(
        async () => {
          const s = await state(gw, res.body.id);
          seen.add(s.state);
          return s.state === 'completed' ? s : undefined;
        },
        60_000,
        20,
      );
      assert.equal(done.counts.completed, 4);
      assert.ok(!seen.has('held'), [...seen].join(','));
      await gw.sim.startBroker(4);
    } finally {
      await gw.close();
    }
  });

  it("a wave started after the pass read Kafka's moves is not taken for trouble (its new replicas are out of the ISR)", async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 5 }, reconcile: false });
    try {
      // Throttled to 10 kB/s: the first wave copies for 6 s or more, so it still moves when the
      // POST's answer comes (at 100 kB/s it ends ~0.6 s after it is sent, which a loaded machine
      // can take to answer the POST).
      const { id } = await setup(gw, 'race', 8, { throttle: 10_000 });
      const moving = (await gw.kafka.listPartitionReassignments()).filter((m) => m.topic === 'race');
      assert.ok(moving.length > 0, 'the first wave moves');
      const md = await gw.kafka.describeReplicaHealth();
      const short = md.topics.find((t) => t.name === 'race')!.partitions.filter((p) => p.isr.length < p.replicas.length);
      assert.ok(short.length > 0, 'the moving partitions have a short ISR');
      // The pass's list of moves as if read before the wave started: empty.
      const interlock = new HealthInterlock({ kafka: gw.kafka, store: gw.runtime.store, config: gw.runtime.config, now: Date.now });
      await interlock.pass(gw.runtime.store.view(), new Set());
      const after = await state(gw, id);
      assert.equal(after.hold, undefined, JSON.stringify(after.hold));
      assert.equal(after.state, 'running');
    } finally {
      await gw.close();
    }
  });

  it('refuses a malformed safety policy with 400 and a path', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 5 }, reconcile: false });
    try {
      await createTopics(gw, { name: 'bad', assignments: [[0, 1]] });
      const res = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: [{ topic: 'bad', partition: 0, replicas: [1, 2] }], safety: { holdOn: ['nope'] } });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      const res2 = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: [{ topic: 'bad', partition: 0, replicas: [1, 2] }], safety: { resumeAfterPasses: 0 } });
      assert.equal(res2.status, 400, JSON.stringify(res2.body));
      assert.deepEqual(
        (await gw.kafka.listPartitionReassignments()).filter((m) => m.topic === 'bad'),
        [],
        'nothing moved',
      );
    } finally {
      await gw.close();
    }
  });
});
