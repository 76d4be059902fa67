// POST /plans and GET /brokers against a simulated 4-broker cluster with racks, over real TCP,
// with the reconciler and a ManualClock (copies progress only when the test advances it).
// Every response is validated against openapi.yaml. Planning must change nothing in the cluster.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'supertest';
import { ManualClock } from '../../src/sim/index.js';
import { expectProblem, snapshotCluster } from './helpers.js';
import { startReassignGateway, throttleConfigs, type ReassignGateway } from './reassignment-helpers.js';
import { eventually } from '../eventually.js';

const BANDWIDTH = 1_000_000;
let clock: ManualClock;
let gw: ReassignGateway;

before(async () => {
  clock = new ManualClock();
  gw = await startReassignGateway({
    clock,
    simulator: { brokers: 4, racks: ['rack-a', 'rack-a', 'rack-b', 'rack-b'], replicationBytesPerSecond: BANDWIDTH },
  });
  // Broker 3 holds orders-1 and orders-3 (and leads one); broker 0 is the busiest.
  await createTopicsOnce(
    {
      name: 'orders',
      assignments: [
        [0, 2],
        [3, 0],
        [0, 2],
        [1, 3],
        [0, 2],
        [1, 2],
      ],
    },
    {
      name: 'payments',
      assignments: [
        [0, 1, 2],
        [2, 0, 1],
      ],
    },
  );
  for (let p = 0; p < 6; p++) gw.sim.seedBytes('orders', p, 10_000 * (p + 1));
  gw.sim.seedBytes('payments', 0, 5_000);
  // The gateway's state topic is created when the runtime first needs it, so plans that must not
  // depend on it name their topics (ORDERS_ONLY).
});
after(() => gw?.close());

/**
 * POST /topics; on a loaded machine the Kafka client may time out and re-send a create that
 * Kafka already applied (409): then the topic must exist with exactly the assignment asked for.
 */
async function createTopicsOnce(...topics: { name: string; assignments: number[][] }[]): Promise<void> {
  for (const t of topics) {
    const res = await gw.http().post('/topics').send(t);
    if (res.status === 201) continue;
    assert.equal(res.status, 409, JSON.stringify(res.body));
    const existing = await gw.http().get(`/topics/${t.name}`);
    assert.deepEqual(
      existing.body.partitions.map((p: { replicas: number[] }) => p.replicas),
      t.assignments,
    );
  }
}

async function clusterState() {
  return {
    topics: await snapshotCluster(gw.app),
    throttles: await throttleConfigs(gw.kafka),
    moving: await gw.kafka.listPartitionReassignments(),
  };
}

/** POST /plans, and the cluster is exactly as before (planning changes nothing). */
async function plan(body: object): Promise<Response> {
  const beforeState = await clusterState();
  const res = await gw.http().post('/plans').send(body);
  assert.deepEqual(await clusterState(), beforeState, 'planning must leave the cluster unchanged');
  return res;
}

const ORDERS_ONLY = { topics: ['orders', 'payments'] };

describe('GET /brokers', () => {
  it('lists each broker with host, rack, replica and leader counts and bytes on disk', async () => {
    const res = await gw.http().get('/brokers');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const byId = new Map(res.body.brokers.map((b: any) => [b.id, b]));
    assert.deepEqual([...byId.keys()], [0, 1, 2, 3]);
    const b3 = byId.get(3) as any;
    assert.equal(b3.rack, 'rack-b');
    assert.equal(typeof b3.host, 'string');
    assert.equal(b3.live, true);
    // orders-1 [3,0] and orders-3 [1,3]; the state topic may add its own.
    assert.ok(b3.replicas >= 2);
    assert.ok(b3.preferredLeaders >= 1);
    assert.ok(b3.bytes >= 20_000 + 40_000, `bytes ${b3.bytes}`);
    assert.deepEqual(b3.reassignment, { adding: 0, removing: 0 });
  });
});

describe('POST /plans', () => {
  it('decommission: moves exactly the replicas on the broker, next to the lower bound, rack-aware', async () => {
    const res = await plan({ goal: 'decommission', brokers: [3], ...ORDERS_ONLY });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const body = res.body;
    assert.equal(body.movedReplicas, 2);
    assert.deepEqual(body.lowerBound, { movedReplicas: 2, movedBytes: 20_000 + 40_000 });
    assert.equal(body.movedBytes, 60_000);
    assert.equal(body.after.find((l: any) => l.broker === 3).replicas - body.before.find((l: any) => l.broker === 3).replicas, -2);
    const moved = body.partitions.filter((p: any) => p.adding.length > 0);
    assert.deepEqual(
      moved.map((p: any) => `${p.topic}-${p.partition}`),
      ['orders-1', 'orders-3'],
    );
    for (const p of moved) {
      assert.deepEqual(p.removing, [3]);
      // Broker 3 was the only rack-b replica: its replacement is broker 2 (rack-b), not rack-a.
      assert.deepEqual(p.adding, [2]);
    }
    assert.deepEqual(
      body.reassignment.partitions.map((p: any) => [p.topic, p.partition, p.replicas]),
      body.partitions.map((p: any) => [p.topic, p.partition, p.targetReplicas]),
    );
    assert.equal(body.options.rackAware, true);
  });

  it('rebalance of one topic: moves the lower bound, the topic ends within one replica per broker', async () => {
    const res = await plan({ goal: 'rebalance', topics: ['orders'], balanceLeaders: false });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.movedReplicas, res.body.lowerBound.movedReplicas);
    assert.ok(res.body.movedReplicas > 0);
    assert.ok(res.body.partitions.every((p: any) => p.topic === 'orders'));
  });

  it('replication-factor and rack-repair answer with plans that reach the goal', async () => {
    const rf = await plan({ goal: 'replication-factor', topics: ['orders'], replicationFactor: 3 });
    assert.equal(rf.status, 200, JSON.stringify(rf.body));
    assert.equal(rf.body.movedReplicas, 6);
    assert.deepEqual(rf.body.lowerBound.movedReplicas, 6);
    assert.ok(rf.body.partitions.filter((p: any) => p.topic === 'orders').every((p: any) => p.targetReplicas.length === 3));
    const repair = await plan({ goal: 'rack-repair', ...ORDERS_ONLY, balanceLeaders: false });
    assert.equal(repair.status, 200, JSON.stringify(repair.body));
    // payments-0 [0,1,2] and payments-1 [2,0,1] already span both racks; orders too.
    assert.equal(repair.body.movedReplicas, repair.body.lowerBound.movedReplicas);
  });

  it('422 per item: unknown broker, unknown topic; nothing is planned', async () => {
    const res = await plan({ goal: 'decommission', brokers: [3, 42], topics: ['orders', 'nope'] });
    expectProblem(res, 422, 'invalid-plan-request');
    assert.deepEqual(
      res.body.errors.map((e: any) => [e.path, e.code]),
      [
        ['/body/topics/1', 'UNKNOWN_TOPIC'],
        ['/body/brokers/1', 'UNKNOWN_BROKER'],
      ],
    );
  });

  it("422 when removing brokers would leave fewer than a topic's replication factor", async () => {
    const res = await plan({ goal: 'decommission', brokers: [1, 3], topics: ['payments'] });
    expectProblem(res, 422, 'invalid-plan-request', 38);
    assert.deepEqual(
      res.body.errors.map((e: any) => [e.code, e.path]),
      [['NOT_ENOUGH_BROKERS', '/body/brokers']],
    );
    assert.match(res.body.errors[0].message, /payments/);
  });

  it('422 per item for the other cluster-dependent errors: brokers that are not live (rebalance), unknown names in excludeTopics, a factor above the brokers', async () => {
    const res = await plan({ goal: 'rebalance', brokers: [0, 7, 9], topics: ['orders'], excludeTopics: ['payments', 'gone'] });
    expectProblem(res, 422, 'invalid-plan-request');
    assert.deepEqual(
      res.body.errors.map((e: any) => [e.path, e.code, e.kafkaError?.name]),
      [
        ['/body/excludeTopics/1', 'UNKNOWN_TOPIC', 'UNKNOWN_TOPIC_OR_PARTITION'],
        ['/body/brokers/1', 'UNKNOWN_BROKER', 'INVALID_REPLICA_ASSIGNMENT'],
        ['/body/brokers/2', 'UNKNOWN_BROKER', 'INVALID_REPLICA_ASSIGNMENT'],
      ],
    );
    assert.match(res.body.errors[0].message, /gone/);
    assert.match(res.body.errors[1].message, /Broker 7 is not a live broker/);
    assert.match(res.body.errors[2].message, /Broker 9/);

    const rf = await plan({ goal: 'replication-factor', topics: ['orders'], replicationFactor: 5 });
    expectProblem(rf, 422, 'invalid-plan-request', 38);
    assert.deepEqual(
      rf.body.errors.map((e: any) => [e.path, e.code]),
      [['/body/replicationFactor', 'REPLICATION_FACTOR_TOO_LARGE']],
    );
    assert.match(rf.body.errors[0].message, /Replication factor 5 for topic orders is larger than the 4 broker/);

    // Decommission: a broker that is neither alive nor holding replicas, next to one that is fine.
    const gone = await plan({ goal: 'decommission', brokers: [3, 11], topics: ['orders'] });
    expectProblem(gone, 422, 'invalid-plan-request', 39);
    assert.deepEqual(
      gone.body.errors.map((e: any) => [e.path, e.code]),
      [['/body/brokers/1', 'UNKNOWN_BROKER']],
    );
  });

  it('400 for a goal without what it needs, and for a bad pattern', async () => {
    expectProblem(await plan({ goal: 'decommission' }), 400, 'validation-failed');
    expectProblem(await plan({ goal: 'replication-factor', topics: ['orders'] }), 400, 'validation-failed');
    expectProblem(await plan({ goal: 'rebalance', topics: ['/(/'] }), 400, 'validation-failed');
    expectProblem(await plan({ goal: 'shuffle' }), 400, 'validation-failed');
  });
});

describe('executing a plan', () => {
  it('POST /reassignments {"plan": …} with a throttle empties the decommissioned broker', async () => {
    const planned = await plan({ goal: 'decommission', brokers: [3] });
    assert.equal(planned.status, 200, JSON.stringify(planned.body));
    assert.ok(planned.body.movedReplicas >= 2);
    const started = await gw.http().post('/reassignments').send({ plan: planned.body, throttle: 100_000 });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const id = started.body.id;

    // While it runs, GET /brokers shows broker 3 being emptied.
    const during = await gw.http().get('/brokers');
    assert.equal(during.status, 200);
    const b3 = during.body.brokers.find((b: any) => b.id === 3);
    assert.equal(b3.reassignment.removing, planned.body.movedReplicas);

    await eventually(
      async () => {
        const r = await gw.http().get(`/reassignments/${id}`);
        if (r.body.state === 'completed') return true;
        clock.advance(1000);
        return undefined;
      },
      60_000,
      50,
    ); // generous: under CI's load each poll (and so each simulated second) can take long
    const end = await gw.http().get('/brokers');
    const empty = end.body.brokers.find((b: any) => b.id === 3);
    assert.equal(empty.replicas, 0);
    assert.equal(empty.bytes, 0);
    assert.deepEqual(empty.reassignment, { adding: 0, removing: 0 });
    // Throttles go by themselves.
    await eventually(async () => (Object.keys(await throttleConfigs(gw.kafka)).length === 0 ? true : undefined));
  });

  it("POST /reassignments also takes the plan's reassignment directly, and refuses plan and partitions together", async () => {
    const planned = await plan({ goal: 'rebalance', topics: ['payments'], balanceLeaders: false });
    assert.equal(planned.status, 200);
    const both = await gw.http().post('/reassignments').send({ plan: planned.body, partitions: [] });
    expectProblem(both, 400, 'validation-failed');
    if (planned.body.partitions.length > 0) {
      const dry = await gw
        .http()
        .post('/reassignments')
        .send({ ...planned.body.reassignment, validateOnly: true });
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      assert.equal(dry.body.totals.partitions, planned.body.partitions.length);
    }
  });
});
