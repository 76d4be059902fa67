// /reassignments against a simulated 4-broker cluster, the real Kafka layer and the
// reconciler, with a ManualClock driving both the simulator's replica copies and the
// gateway's clock: progress and rates are exact, and nothing waits for bytes to copy.
// Every response is validated against openapi.yaml; after every 4xx the cluster (topics,
// throttle configs, moves) is compared with its state before the request.
// Here: validation, and the throttles set (reassignments-lifecycle.integration.test.ts: what follows).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createTopics, throttleConfigs } from './reassignment-helpers.js';
import { clusterState, gw, noThrottlesLeft, post, rejected, useReassignmentsCluster } from './reassignments-cluster.js';

useReassignmentsCluster();

describe('POST /reassignments: validation (nothing changes, errors per partition)', () => {
  before(async () => {
    await createTopics(gw, {
      name: 'val',
      assignments: [
        [0, 1],
        [1, 2],
        [2, 3],
      ],
    });
  });

  it('400 for an empty partition list', async () => {
    const res = await rejected(() => post({ partitions: [] }), 400, 'validation-failed');
    assert.equal(res.body.errors[0].code, 'EMPTY_PARTITION_LIST');
  });

  it('400 for a partition named twice', async () => {
    const res = await rejected(
      () =>
        post({
          partitions: [
            { topic: 'val', partition: 0, replicas: [2, 3] },
            { topic: 'val', partition: 0, replicas: [3, 2] },
          ],
        }),
      400,
      'validation-failed',
    );
    assert.deepEqual(
      res.body.errors.map((e: any) => [e.path, e.code]),
      [['/body/partitions/0', 'DUPLICATE_PARTITION']],
    );
  });

  it('400 for a throttle below 1024 bytes/s, and for a log dir neither "any" nor absolute', async () => {
    await rejected(
      () => post({ partitions: [{ topic: 'val', partition: 0, replicas: [2, 3] }], throttle: 1000 }),
      400,
      'validation-failed',
    );
    const res = await rejected(
      () => post({ version: 1, partitions: [{ topic: 'val', partition: 0, replicas: [2, 3], log_dirs: ['data/a', 'any'] }] }),
      400,
      'validation-failed',
    );
    assert.deepEqual(
      res.body.errors.map((e: any) => [e.path, e.code]),
      [['/body/partitions/0/log_dirs/0', 'LOG_DIR_NOT_ABSOLUTE']],
    );
    const v2 = await rejected(
      () => post({ version: 2, partitions: [{ topic: 'val', partition: 0, replicas: [2, 3] }] }),
      400,
      'validation-failed',
    );
    assert.equal(v2.body.errors[0].code, 'UNSUPPORTED_VERSION');
  });

  it('404 for an unknown topic or partition, with Kafka error 3', async () => {
    const res = await rejected(
      () =>
        post({
          partitions: [
            { topic: 'nope', partition: 0, replicas: [1] },
            { topic: 'val', partition: 9, replicas: [1] },
          ],
        }),
      404,
      'unknown-topic-or-partition',
    );
    assert.equal(res.body.kafkaError.code, 3);
    assert.deepEqual(
      res.body.errors.map((e: any) => [e.path, e.code, e.kafkaError.code]),
      [
        ['/body/partitions/0', 'UNKNOWN_TOPIC', 3],
        ['/body/partitions/1', 'UNKNOWN_PARTITION', 3],
      ],
    );
  });

  it('422 for an empty replica list, an unknown broker, a repeated broker (39), every one listed', async () => {
    const res = await rejected(
      () =>
        post({
          partitions: [
            { topic: 'val', partition: 0, replicas: [] },
            { topic: 'val', partition: 1, replicas: [1, 7] },
            { topic: 'val', partition: 2, replicas: [3, 3] },
          ],
        }),
      422,
      'invalid-reassignment',
    );
    assert.deepEqual(
      res.body.errors.map((e: any) => [e.path, e.code, e.kafkaError?.code]),
      [
        ['/body/partitions/0', 'EMPTY_REPLICA_LIST', 39],
        ['/body/partitions/1', 'UNKNOWN_BROKER', 39],
        ['/body/partitions/2', 'DUPLICATE_BROKER', 39],
      ],
    );
  });

  it('422 for a replication-factor change that leaves partitions of the topic behind', async () => {
    const res = await rejected(
      () => post({ partitions: [{ topic: 'val', partition: 0, replicas: [0, 1, 2] }] }),
      422,
      'invalid-reassignment',
    );
    assert.equal(res.body.errors[0].code, 'INCOMPLETE_REPLICATION_FACTOR_CHANGE');
  });

  it('409 for a partition already moving (also when started outside the gateway), unless addToExisting', async () => {
    // Frozen clock + data: the move started elsewhere cannot finish during the test.
    gw.sim.seedBytes('val', 2, 50_000);
    const [started] = await gw.kafka.alterPartitionReassignments([{ topic: 'val', partition: 2, replicas: [0, 3] }]);
    assert.ok(started?.ok);
    const res = await rejected(
      () => post({ partitions: [{ topic: 'val', partition: 2, replicas: [1, 3] }] }),
      409,
      'reassignment-in-progress',
    );
    assert.deepEqual(
      res.body.errors.map((e: any) => [e.code, e.kafkaError.code]),
      [['REASSIGNMENT_CONFLICT', 60]],
    );

    const list = await gw.http().get('/reassignments');
    assert.deepEqual(list.body.external, [{ topic: 'val', partition: 2, replicas: [0, 3, 2], adding: [0], removing: [2] }]);
    assert.equal(list.body.externalCount, 1);

    const replaced = await post({ partitions: [{ topic: 'val', partition: 2, replicas: [1, 3] }], addToExisting: true });
    assert.equal(replaced.status, 202, JSON.stringify(replaced.body));
    // Computed from the running move's original replicas (replicas - adding), not the mid-move list.
    assert.deepEqual(replaced.body.plan.partitions[0].currentReplicas, [3, 2]);
    const listed = await gw.http().get('/reassignments');
    assert.deepEqual([listed.body.external, listed.body.externalCount], [[], 0]);
    const entry = listed.body.reassignments.find((r: any) => r.id === replaced.body.id);
    assert.equal(entry.movingCount, 1);
    assert.equal(entry.moving, undefined, 'the moving partitions only with ?detail=true');
    const detailed = await gw.http().get('/reassignments?detail=true');
    assert.equal(detailed.body.reassignments.find((r: any) => r.id === replaced.body.id).moving[0].partition, 2);
    const del = await gw.http().delete(`/reassignments/${replaced.body.id}`);
    assert.equal(del.status, 200);
    assert.deepEqual((await gw.kafka.listPartitionReassignments()).length, 0);
  });
});

describe('throttles exactly as kafka-reassign-partitions.sh computes them', () => {
  before(async () => {
    await createTopics(
      gw,
      { name: 'big', assignments: Array.from({ length: 12 }, () => [0, 1]) },
      { name: 'other', assignments: [[0, 1]] },
    );
    for (const p of [2, 5, 10, 11]) gw.sim.seedBytes('big', p, 40_000);
    gw.sim.seedBytes('other', 0, 40_000);
  });

  const first = {
    partitions: [
      { topic: 'big', partition: 2, replicas: [2, 3] },
      { topic: 'big', partition: 10, replicas: [2, 1] },
      { topic: 'big', partition: 11, replicas: [0, 3] },
      { topic: 'other', partition: 0, replicas: [1, 2] },
    ],
    throttle: 4096,
  };

  it('multi-partition, multi-topic, partitions >= 10: lists sorted as strings, rates on sources and destinations', async () => {
    const before = await clusterState();
    const plan = await post({ ...first, validateOnly: true });
    assert.equal(plan.status, 200, JSON.stringify(plan.body));
    assert.deepEqual(await clusterState(), before, 'validateOnly changes nothing');
    const rate = [
      { name: 'leader.replication.throttled.rate', value: '4096' },
      { name: 'follower.replication.throttled.rate', value: '4096' },
    ];
    assert.deepEqual(plan.body.throttleConfigs, [
      { resourceType: 'broker', resourceName: '0', configs: rate },
      { resourceType: 'broker', resourceName: '1', configs: rate },
      { resourceType: 'broker', resourceName: '2', configs: rate },
      { resourceType: 'broker', resourceName: '3', configs: rate },
      {
        resourceType: 'topic',
        resourceName: 'big',
        configs: [
          { name: 'leader.replication.throttled.replicas', value: '10:0,10:1,11:0,11:1,2:0,2:1' },
          { name: 'follower.replication.throttled.replicas', value: '10:2,11:3,2:2,2:3' },
        ],
      },
      {
        resourceType: 'topic',
        resourceName: 'other',
        configs: [
          { name: 'leader.replication.throttled.replicas', value: '0:0,0:1' },
          { name: 'follower.replication.throttled.replicas', value: '0:2' },
        ],
      },
    ]);
    // Bytes per broker: each adding replica copies the leader's 40 000 bytes from broker 0.
    assert.deepEqual(plan.body.estimate.brokers, [
      { broker: 0, bytesIn: 0, bytesOut: 200_000 },
      { broker: 2, bytesIn: 120_000, bytesOut: 0 },
      { broker: 3, bytesIn: 80_000, bytesOut: 0 },
    ]);
    assert.equal(plan.body.estimate.estimatedSeconds, 200_000 / 4096);
    assert.deepEqual(
      plan.body.rollback.partitions.map((p: any) => [p.topic, p.partition, p.replicas, p.log_dirs]),
      [
        ['big', 2, [0, 1], ['any', 'any']],
        ['big', 10, [0, 1], ['any', 'any']],
        ['big', 11, [0, 1], ['any', 'any']],
        ['other', 0, [0, 1], ['any', 'any']],
      ],
    );
  });

  it('sets exactly those values, and a move added while it runs merges the running moves in (as the tool does)', async () => {
    const a = await post(first);
    assert.equal(a.status, 202, JSON.stringify(a.body));
    assert.equal(a.headers.location, `/reassignments/${a.body.id}`);
    const t = await throttleConfigs(gw.kafka);
    assert.equal(t['topic:big']['leader.replication.throttled.replicas'], '10:0,10:1,11:0,11:1,2:0,2:1');
    assert.equal(t['topic:big']['follower.replication.throttled.replicas'], '10:2,11:3,2:2,2:3');
    assert.equal(t['topic:other']['follower.replication.throttled.replicas'], '0:2');
    for (const b of [0, 1, 2, 3])
      assert.deepEqual(t[`broker:${b}`], { 'follower.replication.throttled.rate': '4096', 'leader.replication.throttled.rate': '4096' });

    const addition = { partitions: [{ topic: 'big', partition: 5, replicas: [3, 2] }], throttle: 4096 };
    const plan = await post({ ...addition, validateOnly: true });
    const bigConfigs = plan.body.throttleConfigs.find((c: any) => c.resourceName === 'big').configs;
    assert.deepEqual(bigConfigs, [
      { name: 'leader.replication.throttled.replicas', value: '10:0,10:1,11:0,11:1,2:0,2:1,5:0,5:1' },
      { name: 'follower.replication.throttled.replicas', value: '10:2,11:3,2:2,2:3,5:2,5:3' },
    ]);
    const b = await post(addition);
    assert.equal(b.status, 202, JSON.stringify(b.body));
    const t2 = await throttleConfigs(gw.kafka);
    assert.equal(t2['topic:big']['leader.replication.throttled.replicas'], '10:0,10:1,11:0,11:1,2:0,2:1,5:0,5:1');
    assert.equal(t2['topic:big']['follower.replication.throttled.replicas'], '10:2,11:3,2:2,2:3,5:2,5:3');

    // GET /reassignments?detail=true groups the moving partitions under their reassignment;
    // without detail it counts them.
    const list = await gw.http().get('/reassignments?detail=true');
    const byId = new Map(list.body.reassignments.map((r: any) => [r.id, r.moving.map((m: any) => `${m.topic}-${m.partition}`)]));
    assert.deepEqual(byId.get(a.body.id), ['big-2', 'big-10', 'big-11', 'other-0']);
    assert.deepEqual(byId.get(b.body.id), ['big-5']);
    const lean = await gw.http().get('/reassignments');
    const counted = new Map(lean.body.reassignments.map((r: any) => [r.id, [r.movingCount, r.moving]]));
    assert.deepEqual(counted.get(a.body.id), [4, undefined]);
    assert.deepEqual(counted.get(b.body.id), [1, undefined]);

    // Cancelling the first removes only what is no longer demanded by the second.
    assert.equal((await gw.http().delete(`/reassignments/${a.body.id}`)).status, 200);
    const t3 = await throttleConfigs(gw.kafka);
    assert.equal(
      t3['topic:big']['follower.replication.throttled.replicas'],
      '10:2,11:3,2:2,2:3,5:2,5:3',
      'the second demands the merged lists (the tool merged them)',
    );
    assert.equal(t3['topic:other']['follower.replication.throttled.replicas'], '0:2', 'so do the lists of other topics moving then');
    assert.equal((await gw.http().delete(`/reassignments/${b.body.id}`)).status, 200);
    await noThrottlesLeft();
  });
});
