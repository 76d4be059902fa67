// /reassignments against a simulated 4-broker cluster, the real Kafka layer and the
// reconciler, with a ManualClock driving both the simulator's replica copies and the
// gateway's clock: progress and rates are exact, and nothing waits for bytes to copy.
// Every response is validated against openapi.yaml; after every 4xx the cluster (topics,
// throttle configs, moves) is compared with its state before the request.
// Here: progress and completion, PATCH/cancel/rollback, others' throttles, a stopped broker.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { isCold } from '../../src/state/cold-partitions.js';
import { createTopics, reconcilePasses, throttleConfigs } from './reassignment-helpers.js';
import { eventually } from '../eventually.js';
import {
  BANDWIDTH,
  advanceUntil,
  clock,
  current,
  gw,
  noThrottlesLeft,
  page,
  post,
  rejected,
  useReassignmentsCluster,
} from './reassignments-cluster.js';

useReassignmentsCluster();

describe('progress, completion and auto-removal', () => {
  before(async () => {
    await createTopics(gw, {
      name: 'prog',
      assignments: [
        [0, 1],
        [0, 1],
      ],
    });
    gw.sim.seedBytes('prog', 0, 100_000);
    gw.sim.seedBytes('prog', 1, 100_000);
  });

  it('climbs to 100% at the throttle (10 000 B/s), then the throttles go', async () => {
    const res = await post({ partitions: [{ topic: 'prog', partition: 0, replicas: [2, 1] }], throttle: 10_000 });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const id = res.body.id;
    const g0 = await current(id);
    assert.equal(g0.state, 'running');
    assert.deepEqual(g0.counts, { total: 1, queued: 0, moving: 1, completed: 0, failed: 0, cancelled: 0 });
    const [p0] = await page(id);
    assert.deepEqual(p0.addingReplicas, [2]);
    assert.deepEqual(p0.removingReplicas, [0]);
    assert.deepEqual(p0.replicas, [2, 1, 0]);
    const percents: number[] = [g0.progress.percent];
    for (let i = 0; i < 4; i++) {
      clock.advance(2000);
      const g = await current(id);
      assert.equal(g.state, 'running');
      percents.push(g.progress.percent);
      const [p] = await page(id, '?state=moving');
      assert.equal(p.bytesTotal, 100_000);
      assert.equal(p.bytesDone, (i + 1) * 20_000);
    }
    assert.deepEqual(percents, [0, 20, 40, 60, 80], 'the throttle, not the 100 000 B/s bandwidth, sets the pace');
    const metricsDuring = await eventually(async () => {
      const text = (await gw.http().get('/metrics')).text;
      // Gauges are set by reconcile passes, which read Kafka and the state topic at different
      // moments: a pass that straddled the POST can report bytes remaining before it attributes
      // the move to the gateway. Wait for a pass that saw both.
      return /kafka_gateway_reassignment_bytes_remaining\{reassignment="[^"]+"\} [1-9]/.test(text) &&
        /kafka_gateway_reassignment_partitions_moving\{owner="gateway"\} 1/.test(text)
        ? text
        : undefined;
    });
    assert.match(metricsDuring, /kafka_gateway_reassignment_partitions_moving\{owner="gateway"\} 1/);
    assert.match(metricsDuring, /kafka_gateway_reassignment_partitions_moving\{owner="external"\} 0/);
    assert.match(metricsDuring, new RegExp(`kafka_gateway_reassignment_eta_seconds\\{reassignment="${id}"\\} \\d`));
    assert.match(metricsDuring, /kafka_gateway_replication_throttle_rate_bytes\{broker="0",direction="leader"\} 10000/);
    assert.match(metricsDuring, /kafka_gateway_replication_throttle_rate_bytes\{broker="2",direction="follower"\} 10000/);
    const last = await current(id);
    assert.equal(last.progress.bytesPerSecond, 10_000);
    assert.equal(last.progress.bytesRemaining, 20_000);
    assert.equal(last.progress.etaSeconds, 2);
    assert.equal(last.progress.stalled, false);

    const done = await advanceUntil(id, 'completed');
    assert.equal(done.progress.percent, 100);
    assert.equal(done.counts.completed, 1);
    const [pd] = await page(id);
    assert.deepEqual(pd.replicas, [2, 1]);
    assert.equal(pd.state, 'completed');
    await noThrottlesLeft();
    const final = await eventually(async () => {
      const g = await gw.http().get(`/reassignments/${id}`);
      return g.body.throttlesRemovedAt ? g.body : undefined;
    });
    assert.ok(Date.parse(final.throttlesRemovedAt) >= Date.parse(final.endedAt));
    const metrics = (await gw.http().get('/metrics')).text;
    assert.match(metrics, /kafka_gateway_throttles_removed_total\{cause="completed"\} [1-9]/);
    assert.match(metrics, /kafka_gateway_throttle_removal_delay_seconds_count [1-9]/);
    assert.doesNotMatch(metrics, /kafka_gateway_replication_throttle_rate_bytes\{/, 'no rate left to report');
    assert.doesNotMatch(metrics, new RegExp(`reassignment_bytes_remaining\\{reassignment="${id}"`), 'finished: its series is gone');
  });

  it('without a throttle the same copy runs at the broker bandwidth', async () => {
    const res = await post({ partitions: [{ topic: 'prog', partition: 1, replicas: [3, 1] }] });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(await throttleConfigs(gw.kafka), {}, 'no throttle set');
    await current(res.body.id);
    clock.advance(500);
    const g = await current(res.body.id);
    assert.equal(g.progress.percent, 50, '100 000 B/s: half of 100 000 bytes in 0.5 s');
    assert.equal(g.progress.bytesPerSecond, BANDWIDTH);
    await advanceUntil(res.body.id, 'completed', 500);
  });
});

describe('PATCH, cancel, rollback', () => {
  before(async () => {
    await createTopics(gw, {
      name: 'steer',
      assignments: [
        [0, 1],
        [0, 1],
        [0, 1],
      ],
    });
    for (const p of [0, 1, 2]) gw.sim.seedBytes('steer', p, 100_000);
  });

  it('PATCH changes the throttle of a running reassignment (and the copy speed)', async () => {
    const res = await post({ partitions: [{ topic: 'steer', partition: 0, replicas: [2, 1] }], throttle: 10_000 });
    const id = res.body.id;
    await current(id);
    clock.advance(1000);
    assert.equal((await current(id)).progress.bytesCopied, 10_000);

    const patched = await gw.http().patch(`/reassignments/${id}`).send({ throttle: 30_000 });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.throttle, 30_000);
    const t = await throttleConfigs(gw.kafka);
    for (const b of [0, 1, 2]) assert.equal(t[`broker:${b}`]['leader.replication.throttled.rate'], '30000');
    clock.advance(1000);
    assert.equal((await current(id)).progress.bytesCopied, 40_000);

    await rejected(() => gw.http().patch(`/reassignments/${id}`).send({ throttle: 10 }), 400, 'validation-failed');
    await rejected(() => gw.http().patch('/reassignments/r-unknown').send({ throttle: 2048 }), 404, 'reassignment-not-found');

    const cancelled = await gw.http().delete(`/reassignments/${id}`);
    assert.equal(cancelled.status, 200);
    await rejected(() => gw.http().patch(`/reassignments/${id}`).send({ throttle: 2048 }), 409, 'reassignment-not-running');
  });

  it('DELETE cancels what moves (Kafka reverts it) and removes its throttles at once', async () => {
    const res = await post({ partitions: [{ topic: 'steer', partition: 1, replicas: [3, 2] }], throttle: 5_000 });
    clock.advance(1000);
    const del = await gw.http().delete(`/reassignments/${res.body.id}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.deepEqual(del.body, { id: res.body.id, state: 'cancelled', cancelled: [{ topic: 'steer', partition: 1 }], rollback: null });
    assert.deepEqual(await throttleConfigs(gw.kafka), {});
    assert.deepEqual(await gw.kafka.listPartitionReassignments(), []);
    const topic = await gw.http().get('/topics/steer');
    assert.deepEqual(topic.body.partitions[1].replicas, [0, 1]);
    const g = await gw.http().get(`/reassignments/${res.body.id}`);
    assert.equal(g.body.state, 'cancelled');
    assert.equal(g.body.counts.cancelled, 1);
    assert.equal((await page(res.body.id))[0].state, 'cancelled');
    // Deleting again answers the same state; an unknown id is a 404.
    assert.equal((await gw.http().delete(`/reassignments/${res.body.id}`)).body.state, 'cancelled');
    await rejected(() => gw.http().delete('/reassignments/r-nope'), 404, 'reassignment-not-found');
  });

  it('DELETE ?preserveThrottles=true keeps them as gateway-owned throttles until DELETE /throttles', async () => {
    const res = await post({ partitions: [{ topic: 'steer', partition: 1, replicas: [3, 2] }], throttle: 5_000 });
    const del = await gw.http().delete(`/reassignments/${res.body.id}?preserveThrottles=true`);
    assert.equal(del.status, 200);
    const kept = await gw.http().get('/throttles');
    assert.deepEqual(
      kept.body.rates.map((r: any) => [r.broker, r.owner, r.autoRemove]),
      [
        [0, 'gateway', false],
        [1, 'gateway', false],
        [2, 'gateway', false],
        [3, 'gateway', false],
      ],
    );
    assert.deepEqual(
      kept.body.replicas.map((r: any) => [r.topic, r.leader, r.follower, r.owner]),
      [['steer', '1:0,1:1', '1:2,1:3', 'gateway']],
    );
    clock.advance(5000);
    await reconcilePasses(gw); // several reconcile passes: they must not remove it
    assert.equal(Object.keys(await throttleConfigs(gw.kafka)).length, 5);
    assert.deepEqual((await gw.http().delete('/throttles/rates')).body.rates, []);
    assert.deepEqual((await gw.http().delete('/throttles/replicas?topics=steer')).body, { rates: [], replicas: [] });
    assert.deepEqual(await throttleConfigs(gw.kafka), {});
  });

  it('DELETE ?rollback=true moves completed partitions back with a new reassignment', async () => {
    const res = await post({ partitions: [{ topic: 'steer', partition: 2, replicas: [2, 3] }], throttle: 50_000 });
    await advanceUntil(res.body.id, 'completed');
    // Rolled back from the record as the store keeps a finished one: its partitions packed.
    await gw.runtime.store.cooled();
    assert.ok(isCold(gw.runtime.store.view().reassignments.get(res.body.id)!));
    const del = await gw.http().delete(`/reassignments/${res.body.id}?rollback=true`);
    assert.equal(del.status, 202, JSON.stringify(del.body));
    assert.equal(del.body.state, 'completed');
    assert.deepEqual(del.body.cancelled, []);
    const rollbackId = del.body.rollback.id;
    assert.equal(del.headers.location, `/reassignments/${rollbackId}`);
    assert.equal(del.body.rollback.summary.counts.total, 1);
    assert.deepEqual(
      (await page(rollbackId)).map((p: any) => [p.originalReplicas, p.targetReplicas]),
      [
        [
          [2, 3],
          [0, 1],
        ],
      ],
    );
    const back = await advanceUntil(rollbackId, 'completed');
    assert.equal(back.rollbackOf, res.body.id);
    assert.deepEqual((await gw.http().get('/topics/steer')).body.partitions[2].replicas, [0, 1]);
    await noThrottlesLeft();
  });
});

describe("other people's throttles, stopped brokers", () => {
  before(async () => {
    await createTopics(gw, { name: 'shared', assignments: [[0, 1]] }, { name: 'stop', assignments: [[0, 1]] });
    gw.sim.seedBytes('shared', 0, 60_000);
    gw.sim.seedBytes('stop', 0, 60_000);
  });

  it('a foreign throttle is left untouched, and a value the gateway replaced comes back', async () => {
    const foreign = await gw.kafka.incrementalAlterConfigs([
      { kind: 'broker', name: '0', ops: [{ name: 'leader.replication.throttled.rate', op: 'SET', value: '777777' }] },
      { kind: 'broker', name: '3', ops: [{ name: 'follower.replication.throttled.rate', op: 'SET', value: '123456' }] },
      { kind: 'topic', name: 'shared', ops: [{ name: 'leader.replication.throttled.replicas', op: 'SET', value: '0:3' }] },
    ]);
    assert.ok(foreign.every((r) => r.ok));
    const before = await throttleConfigs(gw.kafka);
    const external = await gw.http().get('/throttles');
    assert.deepEqual(
      external.body.rates.map((r: any) => [r.broker, r.owner]),
      [
        [0, 'external'],
        [3, 'external'],
      ],
    );

    const res = await post({ partitions: [{ topic: 'shared', partition: 0, replicas: [2, 1] }], throttle: 20_000 });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const during = await throttleConfigs(gw.kafka);
    assert.equal(during['topic:shared']['leader.replication.throttled.replicas'], '0:0,0:1,0:3', 'the foreign entry stays');
    assert.equal(during['broker:3']['follower.replication.throttled.rate'], '123456', 'broker 3 is not involved: untouched');
    const mixed = (await gw.http().get('/throttles')).body.replicas.find((r: any) => r.topic === 'shared');
    assert.equal(mixed.owner, 'mixed');
    assert.deepEqual(mixed.gatewayEntries, { leader: ['0:0', '0:1'], follower: ['0:2'] });

    await advanceUntil(res.body.id, 'completed');
    await eventually(async () => {
      assert.deepEqual(await throttleConfigs(gw.kafka), before);
      return true;
    });
    // Clean up the foreign values for the next tests (as their owner would).
    await gw.kafka.incrementalAlterConfigs([
      { kind: 'broker', name: '0', ops: [{ name: 'leader.replication.throttled.rate', op: 'DELETE' }] },
      { kind: 'broker', name: '3', ops: [{ name: 'follower.replication.throttled.rate', op: 'DELETE' }] },
      { kind: 'topic', name: 'shared', ops: [{ name: 'leader.replication.throttled.replicas', op: 'DELETE' }] },
    ]);
  });

  it('a broker stopped mid-move stalls the copy; it resumes and completes when the broker returns', async () => {
    const res = await post({ partitions: [{ topic: 'stop', partition: 0, replicas: [3, 1] }], throttle: 10_000 });
    const id = res.body.id;
    await current(id);
    clock.advance(1000);
    assert.equal((await current(id)).progress.bytesCopied, 10_000);
    await gw.sim.stopBroker(3);
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      const g = await current(id);
      assert.equal(g.state, 'running');
    }
    const stalled = await gw.http().get(`/reassignments/${id}`);
    assert.equal(stalled.body.progress.stalled, true, JSON.stringify(stalled.body.progress));
    assert.equal(stalled.body.progress.bytesCopied, 10_000, 'an unanswering broker does not make copied bytes go back');
    await gw.sim.startBroker(3);
    await advanceUntil(id, 'completed');
    assert.deepEqual((await page(id))[0].replicas, [3, 1]);
    await noThrottlesLeft();
  });
});
