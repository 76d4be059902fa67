// /throttles against a simulated cluster with the reconciler running: ownership in GET,
// PUT rates/replicas (ttl, autoRemove), DELETE (gateway-owned only unless includeExternal),
// and the 4xx cases (nothing changes).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/sim/index.js';
import { expectProblem } from './helpers.js';
import { createTopics, reconcilePasses, startReassignGateway, throttleConfigs, type ReassignGateway } from './reassignment-helpers.js';
import { eventually } from '../eventually.js';

let clock: ManualClock;
let gw: ReassignGateway;
before(async () => {
  clock = new ManualClock();
  gw = await startReassignGateway({ clock, simulator: { brokers: 3, replicationBytesPerSecond: 100_000 } });
  await createTopics(gw, {
    name: 'th',
    assignments: [
      [0, 1],
      [1, 2],
      [2, 0],
    ],
  });
});
after(() => gw?.close());

const gone = () =>
  eventually(async () => {
    assert.deepEqual(await throttleConfigs(gw.kafka), {});
    return true;
  });

describe('PUT /throttles/rates and /throttles/replicas', () => {
  it('sets gateway-owned rates and lists; GET shows them; DELETE restores what was there', async () => {
    await gw.kafka.incrementalAlterConfigs([
      { kind: 'broker', name: '2', ops: [{ name: 'leader.replication.throttled.rate', op: 'SET', value: '5555' }] },
    ]);
    const put = await gw
      .http()
      .put('/throttles/rates')
      .send({
        rates: [
          { broker: 0, leaderRate: 2048, followerRate: 4096 },
          { broker: 2, leaderRate: 3072 },
        ],
      });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.match(put.body.id, /^t-/);
    assert.deepEqual(put.body.throttles.rates, [
      { broker: 0, leaderRate: 2048, followerRate: 4096, owner: 'gateway', autoRemove: false, expiresAt: null, reassignments: [] },
      { broker: 2, leaderRate: 3072, followerRate: null, owner: 'gateway', autoRemove: false, expiresAt: null, reassignments: [] },
    ]);
    const rep = await gw
      .http()
      .put('/throttles/replicas')
      .send({
        replicas: [
          { topic: 'th', partition: 1, leader: [1], follower: [2, 0] },
          { topic: 'th', partition: 0, leader: [0] },
        ],
      });
    assert.equal(rep.status, 200, JSON.stringify(rep.body));
    assert.deepEqual(rep.body.throttles.replicas, [
      {
        topic: 'th',
        leader: '0:0,1:1',
        follower: '1:0,1:2',
        leaderEntries: 2,
        followerEntries: 2,
        owner: 'gateway',
        autoRemove: false,
        expiresAt: null,
        reassignments: [],
        gatewayEntries: { leader: ['0:0', '1:1'], follower: ['1:0', '1:2'] },
      },
    ]);
    const star = await gw
      .http()
      .put('/throttles/replicas')
      .send({ replicas: [{ topic: 'th', follower: null }] });
    assert.equal(star.body.throttles.replicas[0].follower, '*');
    assert.equal(star.body.throttles.replicas[0].followerEntries, null, '`*` is every replica, not a count');

    const delRates = await gw.http().delete('/throttles/rates?brokers=0,2');
    assert.equal(delRates.status, 200, JSON.stringify(delRates.body));
    assert.deepEqual(
      delRates.body.rates,
      [{ broker: 2, leaderRate: 5555, followerRate: null, owner: 'external', autoRemove: false, expiresAt: null, reassignments: [] }],
      'the prior value is back, external again',
    );
    const delReplicas = await gw.http().delete('/throttles/replicas');
    assert.deepEqual(delReplicas.body.replicas, []);
    // includeExternal: the operator asks for everything to go.
    const all = await gw.http().delete('/throttles/rates?includeExternal=true');
    assert.deepEqual(all.body.rates, []);
    await gone();
  });

  it('GET is lean: a topic whose lists hold over 1,000 entries is counted, its lists only with ?detail=true', async () => {
    // 501 partitions x (1 leader + 1 follower entry) = 1,002 entries; `th` stays small.
    await createTopics(gw, { name: 'wide', assignments: Array.from({ length: 501 }, () => [0, 1]) });
    const put = await gw
      .http()
      .put('/throttles/replicas')
      .send({
        replicas: [
          ...Array.from({ length: 501 }, (_, p) => ({ topic: 'wide', partition: p, leader: [0], follower: [1] })),
          { topic: 'th', partition: 0, leader: [0] },
        ],
      });
    assert.equal(put.status, 200, JSON.stringify(put.body).slice(0, 500));
    try {
      const lean = await gw.http().get('/throttles');
      assert.equal(lean.status, 200);
      const wide = lean.body.replicas.find((r: any) => r.topic === 'wide');
      assert.deepEqual([wide.leaderEntries, wide.followerEntries, wide.owner], [501, 501, 'gateway']);
      assert.deepEqual([wide.leader, wide.follower, wide.gatewayEntries], [undefined, undefined, undefined]);
      const small = lean.body.replicas.find((r: any) => r.topic === 'th');
      assert.deepEqual([small.leader, small.leaderEntries, small.gatewayEntries.leader], ['0:0', 1, ['0:0']]);
      assert.equal(put.body.throttles.replicas.find((r: any) => r.topic === 'wide').leader, undefined, 'PUT answers are lean too');

      const full = await gw.http().get('/throttles?detail=true');
      const wideFull = full.body.replicas.find((r: any) => r.topic === 'wide');
      const configs = await throttleConfigs(gw.kafka);
      assert.equal(wideFull.leader, configs['topic:wide']['leader.replication.throttled.replicas']);
      assert.equal(wideFull.follower, configs['topic:wide']['follower.replication.throttled.replicas']);
      assert.equal(wideFull.gatewayEntries.leader.length, 501);
      assert.deepEqual(
        { ...wideFull, leader: undefined, follower: undefined, gatewayEntries: undefined },
        { ...wide, leader: undefined, follower: undefined, gatewayEntries: undefined },
      );
    } finally {
      assert.equal((await gw.http().delete('/throttles/replicas')).status, 200);
      await gone();
    }
  });

  it('ttlSeconds: removed at the deadline by the reconciler', async () => {
    const put = await gw
      .http()
      .put('/throttles/rates')
      .send({ rates: [{ broker: 1, leaderRate: 10_000 }], ttlSeconds: 5 });
    assert.equal(put.status, 200);
    assert.equal(put.body.throttles.rates[0].autoRemove, true);
    assert.equal(Date.parse(put.body.throttles.rates[0].expiresAt), clock.now() + 5000);
    await reconcilePasses(gw);
    assert.equal(Object.keys(await throttleConfigs(gw.kafka)).length, 1, 'still there before the deadline');
    clock.advance(5000);
    await gone();
    assert.match((await gw.http().get('/metrics')).text, /kafka_gateway_throttles_removed_total\{cause="ttl"\} 1/);
  });

  it('autoRemove with nothing moving: 409 nothing-moving pointing at ttlSeconds; nothing written, nothing changed', async () => {
    const before = await throttleConfigs(gw.kafka);
    const requests = (await gw.runtime.store.refresh()).throttleRequests.size;
    const rates = await gw
      .http()
      .put('/throttles/rates')
      .send({ rates: [{ broker: 1, leaderRate: 4096 }], autoRemove: true });
    expectProblem(rates, 409, 'nothing-moving');
    assert.match(rates.body.detail, /ttlSeconds/);
    assert.deepEqual(rates.body.errors, [{ path: '/body/autoRemove', message: 'No reassignment is in progress: use ttlSeconds instead.' }]);
    // With a ttl too: autoRemove still has nothing to wait for, the caller is told so.
    expectProblem(
      await gw
        .http()
        .put('/throttles/replicas')
        .send({ replicas: [{ topic: 'th', follower: null }], autoRemove: true, ttlSeconds: 60 }),
      409,
      'nothing-moving',
    );
    // Validation comes first: an unknown topic is still 404.
    expectProblem(
      await gw
        .http()
        .put('/throttles/replicas')
        .send({ replicas: [{ topic: 'nope', leader: null }], autoRemove: true }),
      404,
      'unknown-topic-or-partition',
    );
    assert.deepEqual(await throttleConfigs(gw.kafka), before);
    assert.equal((await gw.runtime.store.refresh()).throttleRequests.size, requests, 'no throttle request recorded');
  });

  it('autoRemove: removed once the moves in progress when it was set have finished', async () => {
    gw.sim.seedBytes('th', 2, 50_000);
    const [moved] = await gw.kafka.alterPartitionReassignments([{ topic: 'th', partition: 2, replicas: [1, 0] }]);
    assert.ok(moved?.ok);
    const put = await gw
      .http()
      .put('/throttles/rates')
      .send({ rates: [{ broker: 2, leaderRate: 20_000, followerRate: 20_000 }], autoRemove: true });
    assert.equal(put.body.throttles.rates[0].autoRemove, true);
    await reconcilePasses(gw);
    assert.equal(Object.keys(await throttleConfigs(gw.kafka)).length, 1, 'kept while the move runs');
    clock.advance(5000); // the unthrottled copy (partition 2 is not in a throttled list) finishes
    await gone();
  });

  it('4xx: unknown broker 422, unknown topic/partition 404, malformed 400; nothing changes', async () => {
    const before = await throttleConfigs(gw.kafka);
    const r1 = await gw
      .http()
      .put('/throttles/rates')
      .send({ rates: [{ broker: 9, leaderRate: 2048 }] });
    expectProblem(r1, 422, 'invalid-throttle');
    assert.equal(r1.body.errors[0].path, '/body/rates/0/broker');
    expectProblem(
      await gw
        .http()
        .put('/throttles/replicas')
        .send({ replicas: [{ topic: 'nope', leader: null }] }),
      404,
      'unknown-topic-or-partition',
    );
    expectProblem(
      await gw
        .http()
        .put('/throttles/replicas')
        .send({ replicas: [{ topic: 'th', partition: 7, leader: [0] }] }),
      404,
      'unknown-topic-or-partition',
    );
    expectProblem(
      await gw
        .http()
        .put('/throttles/replicas')
        .send({ replicas: [{ topic: 'th', leader: [0] }] }),
      422,
      'invalid-throttle',
    );
    expectProblem(
      await gw
        .http()
        .put('/throttles/rates')
        .send({ rates: [{ broker: 0, leaderRate: 10 }] }),
      400,
      'validation-failed',
    );
    expectProblem(
      await gw
        .http()
        .put('/throttles/rates')
        .send({ rates: [{ broker: 0 }] }),
      400,
      'validation-failed',
    );
    expectProblem(await gw.http().delete('/throttles/rates?brokers=a'), 400, 'validation-failed');
    assert.deepEqual(await throttleConfigs(gw.kafka), before);
  });
});
