// Issue 14, F1-F3: the state topic as a system of record, broken from the cluster's side, over
// the wire against the simulator (brokers stopped with the simulator's stopBroker, topics
// deleted and re-created with Kafka's own admin requests, not through the gateway).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startSimulator } from '../../src/sim/index.js';
import { expectProblem } from '../http/helpers.js';
import { startReassignGateway, throttleConfigs, type ReassignGateway } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

const STATE = '_kafka_admin_gateway_state';
const userThrottles = async (gw: ReassignGateway) =>
  Object.fromEntries(Object.entries(await throttleConfigs(gw.kafka)).filter(([k]) => !k.includes(STATE)));
const metric = async (gw: ReassignGateway, name: string): Promise<number | undefined> => {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec((await gw.http().get('/metrics')).text);
  return m ? Number(m[1]) : undefined;
};

describe('F1: the broker that leads the state topic stops', () => {
  it('during a move: reads, a validateOnly POST and /readyz keep answering; the move ends and its throttles go', async () => {
    const gw = await startReassignGateway({
      simulator: { brokers: 4, replicationBytesPerSecond: 10_000_000 },
      env: { REASSIGNMENT_START_TIMEOUT_MS: '30000' },
    });
    let leader = -1;
    try {
      await gw.runtime.store.refresh();
      leader = (await gw.kafka.describeTopic(STATE)).partitions[0].leader;
      const [x, y, z] = [0, 1, 2, 3].filter((b) => b !== leader) as [number, number, number];
      assert.equal(
        (
          await gw
            .http()
            .post('/topics')
            .send({
              name: 'f1',
              assignments: [
                [x, y],
                [x, y],
              ],
            })
        ).status,
        201,
      );
      gw.sim.seedBytes('f1', 0, 300_000);
      const started = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: [{ topic: 'f1', partition: 0, replicas: [y, z] }], throttle: 100_000 });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      assert.notDeepEqual(await userThrottles(gw), {}, 'throttled while it moves');

      await gw.sim.stopBroker(leader);
      // Before the fix these were 502 BROKER_NOT_AVAILABLE for the whole outage.
      assert.equal((await gw.http().get('/throttles')).status, 200);
      assert.equal((await gw.http().get('/reassignments')).status, 200);
      const dry = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: [{ topic: 'f1', partition: 1, replicas: [y, z] }], validateOnly: true });
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      assert.equal((await gw.http().get('/readyz')).status, 200, 'another replica leads the state topic: ready');

      await eventually(
        async () => ((await gw.http().get(`/reassignments/${started.body.id}`)).body.state === 'completed' ? true : undefined),
        20_000,
      );
      await eventually(async () => (Object.keys(await userThrottles(gw)).length === 0 ? true : undefined), 10_000);
      assert.equal(await metric(gw, 'kafka_gateway_state_store_available'), 1);
    } finally {
      if (leader >= 0) await gw.sim.startBroker(leader);
      await gw.close();
    }
  });

  it('/readyz answers 503 with the reason when no replica of the state topic is up', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 4 }, reconcile: false });
    const stopped: number[] = [];
    try {
      await gw.runtime.store.refresh();
      assert.equal((await gw.http().get('/readyz')).status, 200);
      for (const b of (await gw.kafka.describeTopic(STATE)).partitions[0].replicas) {
        await gw.sim.stopBroker(b);
        stopped.push(b);
      }
      const res = await gw.http().get('/readyz');
      expectProblem(res, 503, 'state-store-unavailable');
      assert.ok(res.headers['retry-after']);
      for (const b of stopped.splice(0)) await gw.sim.startBroker(b);
      assert.equal((await gw.http().get('/readyz')).status, 200, 'ready again once it has a leader');
    } finally {
      for (const b of stopped) await gw.sim.startBroker(b);
      await gw.close();
    }
  });
});

describe('The state topic completely unreadable: throttles whose end was observed still go (removal-only passes)', () => {
  it('a move ends and a ttl runs out while no replica of the state topic is up: their throttles go, prior values come back, nothing is added', async () => {
    const gw = await startReassignGateway({
      simulator: { brokers: 6, replicationBytesPerSecond: 10_000_000 },
      reconcile: false,
      env: { REASSIGNMENT_START_TIMEOUT_MS: '30000' },
    });
    const stateReplicas = [3, 4, 5];
    const stopped: number[] = [];
    try {
      // The state topic on brokers 3-5 only (the controller, 0, and the move stay up).
      const [made] = await gw.kafka.createTopics([
        { name: STATE, assignments: [stateReplicas], configs: { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': '900000' } },
      ]);
      assert.ok(made?.ok, JSON.stringify(made));
      gw.runtime.reconciler.start();
      assert.equal(
        (
          await gw
            .http()
            .post('/topics')
            .send({ name: 'ro', assignments: [[0]] })
        ).status,
        201,
      );
      gw.sim.seedBytes('ro', 0, 400_000);
      // Someone else's rate on broker 2, then the gateway's for 1 s: its prior value must come back.
      await gw.kafka.incrementalAlterConfigs([
        { kind: 'broker', name: '2', ops: [{ name: 'leader.replication.throttled.rate', op: 'SET', value: '5555' }] },
      ]);
      const ttl = await gw
        .http()
        .put('/throttles/rates')
        .send({ rates: [{ broker: 2, leaderRate: 4096 }], ttlSeconds: 1 });
      assert.equal(ttl.status, 200, JSON.stringify(ttl.body));
      const started = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: [{ topic: 'ro', partition: 0, replicas: [1] }], throttle: 100_000 });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const during = await userThrottles(gw);
      assert.ok(during['topic:ro'] && during['broker:0'] && during['broker:1'], JSON.stringify(during));
      assert.equal(during['broker:2']?.['leader.replication.throttled.rate'], '4096');
      await gw.runtime.store.refresh(); // this instance's last view: the move running, the ttl request

      for (const b of stateReplicas) {
        await gw.sim.stopBroker(b);
        stopped.push(b);
      }
      await eventually(async () => ((await gw.http().get('/readyz')).status === 503 ? true : undefined), 20_000);
      // Before the fix every pass failed at the state topic and these stayed for the whole outage.
      const left = await eventually(async () => {
        const t = await userThrottles(gw);
        return Object.keys(t).length === 1 ? t : undefined;
      }, 30_000);
      assert.deepEqual(left, { 'broker:2': { 'leader.replication.throttled.rate': '5555' } }, 'only the foreign value, restored');
      assert.equal(gw.runtime.store.health().status, 'unavailable', 'all of it without the state topic');
      assert.ok(
        gw.logger.warnings.some((w) => /removal-only/.test(JSON.stringify(w))),
        'the removal-only passes are logged',
      );

      // The state topic back: the records catch up, and the ledger forgets what is gone.
      for (const b of stopped.splice(0)) await gw.sim.startBroker(b);
      await eventually(
        async () => ((await gw.http().get(`/reassignments/${started.body.id}`)).body.state === 'completed' ? true : undefined),
        30_000,
      );
      await eventually(async () => ((await gw.runtime.store.refresh()).ledger.size === 0 ? true : undefined), 20_000);
      assert.deepEqual(await userThrottles(gw), left, 'nothing re-added, the foreign value kept');
    } finally {
      for (const b of stopped) await gw.sim.startBroker(b);
      await gw.close();
    }
  });
});

describe('F2: the state topic cannot be deleted through the gateway; deleted anyway, it is reported, not re-created', () => {
  it('409 for delete and partition increases, hidden from GET /topics unless ?internal=true', async () => {
    const gw = await startReassignGateway({ reconcile: false });
    try {
      await gw.runtime.store.refresh();
      expectProblem(await gw.http().delete(`/topics/${STATE}`), 409, 'state-topic-protected');
      expectProblem(await gw.http().post(`/topics/${STATE}/partitions`).send({ count: 2 }), 409, 'state-topic-protected');
      assert.equal((await gw.http().post('/topics').send({ name: 'other', partitions: 1, replicationFactor: 1 })).status, 201);
      const batch = await gw.http().delete(`/topics?name=${STATE}&name=other`);
      assert.equal(batch.status, 207, JSON.stringify(batch.body));
      assert.deepEqual(
        batch.body.items.map((i: { name: string; status: number }) => [i.name, i.status]),
        [
          [STATE, 409],
          ['other', 200],
        ],
      );
      const inc = await gw
        .http()
        .post('/partitions')
        .send([{ topic: STATE, count: 3 }]);
      expectProblem(inc, 409, 'batch-failed');
      assert.equal(inc.body.items[0].problem.type, 'https://kafka-admin-gateway.dev/problems/state-topic-protected');
      assert.equal((await gw.kafka.describeTopic(STATE)).partitions.length, 1, 'untouched');

      const list = await gw.http().get('/topics');
      assert.ok(!list.body.topics.some((t: { name: string }) => t.name === STATE));
      const all = await gw.http().get('/topics?internal=true');
      assert.equal(all.body.topics.find((t: { name: string }) => t.name === STATE)?.internal, true);
      assert.equal((await gw.http().get(`/topics/${STATE}`)).body.internal, true);
    } finally {
      await gw.close();
    }
  });

  it('deleted with Kafka tools mid-move: /readyz 503, a metric, an error log line, and no silent re-creation', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 4, replicationBytesPerSecond: 10_000_000 } });
    try {
      assert.equal(
        (
          await gw
            .http()
            .post('/topics')
            .send({ name: 'f2', assignments: [[0, 1]] })
        ).status,
        201,
      );
      gw.sim.seedBytes('f2', 0, 2_000_000);
      const started = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: [{ topic: 'f2', partition: 0, replicas: [2, 3] }], throttle: 100_000 });
      assert.equal(started.status, 202);
      const [deleted] = await gw.kafka.deleteTopics([STATE]);
      assert.ok(deleted?.ok);

      const ready = await eventually(async () => {
        const r = await gw.http().get('/readyz');
        return r.status === 503 ? r : undefined;
      });
      expectProblem(ready, 503, 'state-topic-missing');
      assert.match(ready.body.detail, /does not re-create it/);
      assert.equal(await metric(gw, 'kafka_gateway_state_topic_missing'), 1);
      assert.ok(
        gw.logger.errors.some((e) => /state topic missing/.test(e.msg)),
        JSON.stringify(gw.logger.errors),
      );
      // Several reconcile passes later it is still gone (not re-created over lost state).
      const runs = (await metric(gw, 'kafka_gateway_reconciler_runs_total')) ?? 0;
      await eventually(async () => (((await metric(gw, 'kafka_gateway_reconciler_runs_total')) ?? 0) >= runs + 3 ? true : undefined));
      assert.ok(!(await gw.kafka.listTopics()).some((t) => t.name === STATE));
      expectProblem(await gw.http().get('/reassignments'), 503, 'state-topic-missing');

      // Recovery: the move's throttles are orphaned; the dry run names them and changes nothing.
      const left = await userThrottles(gw);
      assert.ok(left['topic:f2'] && left['broker:0'], JSON.stringify(left));
      const dry = await gw.http().delete('/throttles/orphaned');
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      assert.equal(dry.body.dryRun, true);
      assert.equal(dry.body.lostLedgerKnown, true);
      assert.deepEqual(
        dry.body.changes.map((c: { resourceType: string; resourceName: string }) => `${c.resourceType}:${c.resourceName}`).sort(),
        Object.keys(left).sort(),
      );
      assert.deepEqual(await userThrottles(gw), left, 'a dry run changes nothing');
      const done = await gw.http().delete('/throttles/orphaned?dryRun=false');
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.equal(done.body.dryRun, false, JSON.stringify(done.body));
      assert.deepEqual(await userThrottles(gw), {}, `every orphaned gateway throttle removed: ${JSON.stringify(done.body)}`);
      assert.deepEqual((await gw.http().delete('/throttles/orphaned')).body.changes, [], 'nothing left to do');
    } finally {
      await gw.close();
    }
  });
});

describe('Orphaned throttles found by an instance that never saw the state topic vanish', () => {
  it('deleted mid-move and re-created by a fresh instance: the old instance copies its ledger into the new topic; the fresh one cleans up (dry run first)', async () => {
    const sim = await startSimulator({ brokers: 4, replicationBytesPerSecond: 10_000_000 });
    const a = await startReassignGateway({ sim, env: { GATEWAY_INSTANCE_ID: 'a' } });
    let b: ReassignGateway | undefined;
    let c: ReassignGateway | undefined;
    try {
      assert.equal(
        (
          await a
            .http()
            .post('/topics')
            .send({ name: 'orph', assignments: [[0, 1]] })
        ).status,
        201,
      );
      a.sim.seedBytes('orph', 0, 5_000_000);
      // Someone else's rate on broker 2 the move's throttle will take over: its value must come back.
      await a.kafka.incrementalAlterConfigs([
        { kind: 'broker', name: '2', ops: [{ name: 'follower.replication.throttled.rate', op: 'SET', value: '7777' }] },
      ]);
      const started = await a
        .http()
        .post('/reassignments')
        .send({ partitions: [{ topic: 'orph', partition: 0, replicas: [2, 3] }], throttle: 100_000 });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const [deleted] = await a.kafka.deleteTopics([STATE]);
      assert.ok(deleted?.ok);
      await eventually(async () => ((await a.http().get('/readyz')).status === 503 ? true : undefined));
      const left = await userThrottles(a);
      assert.equal(left['broker:2']?.['follower.replication.throttled.rate'], '100000', JSON.stringify(left));

      // A fresh instance: its first use creates an empty state topic. It knows nothing of the old one...
      b = await startReassignGateway({ sim, env: { GATEWAY_INSTANCE_ID: 'b' } });
      await b.runtime.store.refresh();
      // ...until A, which read the old topic, sees the new one and copies its ledger into it.
      await eventually(
        async () => ([...(await b!.runtime.store.refresh()).ledger.keys()].some((k) => k.startsWith('orphaned/')) ? true : undefined),
        20_000,
      );
      // Another instance started now, that never read the old topic.
      c = await startReassignGateway({ sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'c' } });
      assert.equal(c.runtime.store.lostLedger().size, 0, 'c has no memory of the loss');

      const dry = await c.http().delete('/throttles/orphaned');
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      assert.equal(dry.body.lostLedgerKnown, true);
      assert.deepEqual(
        dry.body.changes.map((x: { resourceType: string; resourceName: string }) => `${x.resourceType}:${x.resourceName}`).sort(),
        Object.keys(left).sort(),
      );
      assert.deepEqual(await userThrottles(c), left, 'a dry run changes nothing');
      const done = await c.http().delete('/throttles/orphaned?dryRun=false');
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.deepEqual(
        await userThrottles(c),
        { 'broker:2': { 'follower.replication.throttled.rate': '7777' } },
        'the gateway values gone, the prior value back',
      );
      assert.deepEqual((await c.http().delete('/throttles/orphaned')).body.changes, [], 'nothing left to do');
      assert.ok(
        ![...(await c.runtime.store.refresh()).ledger.keys()].some((k) => k.startsWith('orphaned/')),
        'the copies are dropped once handled',
      );
      // A, still running, does not copy them again: three more of its passes later they are still gone.
      const runs = (await metric(a, 'kafka_gateway_reconciler_runs_total')) ?? 0;
      await eventually(
        async () => (((await metric(a, 'kafka_gateway_reconciler_runs_total')) ?? 0) >= runs + 3 ? true : undefined),
        20_000,
      );
      assert.ok(![...(await c.runtime.store.refresh()).ledger.keys()].some((k) => k.startsWith('orphaned/')), 'not copied again');
    } finally {
      await c?.close();
      await b?.close();
      await a.close();
      await sim.close();
    }
  });
});

describe('F3: the state topic starts again at offset 0', () => {
  it('re-created under the same name: every instance rebuilds its view; one instance reads what the other wrote', async () => {
    const a = await startReassignGateway({ reconcile: false, env: { GATEWAY_INSTANCE_ID: 'a' } });
    const b = await startReassignGateway({ sim: a.sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'b' } });
    try {
      assert.equal(
        (
          await a
            .http()
            .post('/topics')
            .send({
              name: 'f3',
              assignments: [
                [0, 1],
                [0, 1],
                [0, 1],
              ],
            })
        ).status,
        201,
      );
      // Some history: both instances' positions are well beyond 0.
      for (const p of [0, 1]) {
        const r = await a
          .http()
          .post('/reassignments')
          .send({ partitions: [{ topic: 'f3', partition: p, replicas: [1, 2] }] });
        assert.equal(r.status, 202, JSON.stringify(r.body));
        assert.equal((await b.http().get(`/reassignments/${r.body.id}`)).status, 200);
      }
      // The topic is re-created (cluster rebuilt, or deleted and created with Kafka's tools).
      const [deleted] = await a.kafka.deleteTopics([STATE]);
      assert.ok(deleted?.ok);
      const [created] = await a.kafka.createTopics([
        { name: STATE, partitions: 1, replicationFactor: 3, configs: { 'cleanup.policy': 'compact' } },
      ]);
      assert.ok(created?.ok);

      const fresh = await a
        .http()
        .post('/reassignments')
        .send({ partitions: [{ topic: 'f3', partition: 2, replicas: [1, 2] }] });
      assert.equal(fresh.status, 202, JSON.stringify(fresh.body));
      // Before the fix: 404 here (b's position was beyond the new topic's end).
      const seen = await b.http().get(`/reassignments/${fresh.body.id}`);
      assert.equal(seen.status, 200, JSON.stringify(seen.body));
      const list = await b.http().get('/reassignments');
      assert.deepEqual(
        list.body.reassignments.map((r: { id: string }) => r.id),
        [fresh.body.id],
        'the old records are gone from the view too',
      );
      assert.equal(await metric(b, 'kafka_gateway_state_store_resets_total{cause="new-topic-id"}'), 1);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
