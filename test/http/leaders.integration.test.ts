// POST /leaders/elections against a simulated 4-broker cluster over TCP, through the real Kafka
// layer (ElectLeaders v2 to the controller); responses validated against openapi.yaml. Leaders
// are displaced by stopping and starting a broker, and read back from the simulator's model.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTopics, startReassignGateway, type ReassignGateway } from './reassignment-helpers.js';

let gw: ReassignGateway;
before(async () => {
  gw = await startReassignGateway({ reconcile: false });
  await createTopics(
    gw,
    {
      name: 'el-a',
      assignments: [
        [0, 1],
        [1, 2],
        [2, 3],
        [3, 0],
      ],
    },
    {
      name: 'el-b',
      assignments: [
        [0, 2],
        [2, 0],
      ],
    },
  );
});
after(() => gw?.close());

const leader = (topic: string, partition: number) => gw.sim.model.getPartition(topic, partition).leader;
const preferredEverywhere = () => gw.sim.model.topicViews().every((t) => t.partitions.every((p) => p.leader === p.replicas[0]));

/** Stops and restarts `broker`: the partitions it led move to their next ISR replica. */
async function bounce(broker: number): Promise<void> {
  await gw.sim.stopBroker(broker);
  await gw.sim.startBroker(broker);
}

describe('POST /leaders/elections', () => {
  it('partitions: each named partition answered as Kafka answered it; the preferred replica leads again', async () => {
    await bounce(0);
    assert.equal(leader('el-a', 0), 1);
    const res = await gw
      .http()
      .post('/leaders/elections')
      .send({
        type: 'preferred',
        partitions: [
          { topic: 'el-a', partition: 0 },
          { topic: 'el-a', partition: 1 },
          { topic: 'el-a', partition: 9 },
        ],
      });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.scope, 'partitions');
    assert.deepEqual(
      res.body.results.map((r: any) => [r.topic, r.partition, r.outcome, r.kafkaError?.name ?? null]),
      [
        ['el-a', 0, 'elected', null],
        ['el-a', 1, 'not-needed', 'ELECTION_NOT_NEEDED'],
        ['el-a', 9, 'unknown', 'UNKNOWN_TOPIC_OR_PARTITION'],
      ],
    );
    assert.deepEqual(res.body.summary, { partitions: 3, elected: 1, notNeeded: 1, notAvailable: 0, unknown: 1, failed: 0 });
    assert.equal(leader('el-a', 0), 0);
  });

  it('partitions: a preferred replica that is down answers not-available (PREFERRED_LEADER_NOT_AVAILABLE)', async () => {
    await gw.sim.stopBroker(3);
    try {
      const res = await gw
        .http()
        .post('/leaders/elections')
        .send({ type: 'preferred', partitions: [{ topic: 'el-a', partition: 3 }] });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.results, [
        {
          topic: 'el-a',
          partition: 3,
          outcome: 'not-available',
          kafkaError: { name: 'PREFERRED_LEADER_NOT_AVAILABLE', code: 80, message: 'The preferred leader was not available.' },
        },
      ]);
    } finally {
      await gw.sim.startBroker(3);
    }
  });

  it('topics: only the partitions whose leader is not the preferred one are elected; the rest are counted', async () => {
    await bounce(2); // el-a-2 and el-b-1 move away from 2
    assert.notEqual(leader('el-b', 1), 2);
    const res = await gw
      .http()
      .post('/leaders/elections')
      .send({ type: 'preferred', topics: ['el-b'] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.results, [{ topic: 'el-b', partition: 1, outcome: 'elected' }]);
    assert.deepEqual(res.body.summary, { partitions: 2, elected: 1, notNeeded: 1, notAvailable: 0, unknown: 0, failed: 0 });
    assert.equal(leader('el-b', 1), 2);
    assert.notEqual(leader('el-a', 2), 2, 'a topic not named is left alone');
  });

  it('all: every partition of the cluster; afterwards every preferred replica leads', async () => {
    await bounce(1);
    assert.equal(preferredEverywhere(), false);
    const res = await gw.http().post('/leaders/elections').send({ type: 'preferred', all: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.scope, 'all');
    assert.ok(res.body.summary.elected >= 2, JSON.stringify(res.body.summary));
    assert.ok(res.body.results.every((r: any) => r.outcome === 'elected'));
    assert.equal(res.body.summary.partitions, res.body.summary.elected + res.body.summary.notNeeded);
    assert.equal(preferredEverywhere(), true);
    const again = await gw.http().post('/leaders/elections').send({ type: 'preferred', all: true });
    assert.deepEqual(again.body.results, []);
    assert.equal(again.body.summary.elected, 0);
  });

  it('unclean: refused without the confirmation; with it, a leaderless partition gets a leader from outside the ISR', async () => {
    await createTopics(gw, { name: 'el-u', assignments: [[1, 2]] });
    const refused = await gw
      .http()
      .post('/leaders/elections')
      .send({ type: 'unclean', partitions: [{ topic: 'el-u', partition: 0 }] });
    assert.equal(refused.status, 400);
    assert.ok(refused.body.errors.some((e: any) => e.path === '/body/confirm'));
    await gw.sim.stopBroker(2);
    await gw.sim.stopBroker(1);
    try {
      await gw.sim.startBroker(2);
      assert.equal(leader('el-u', 0), -1);
      const res = await gw
        .http()
        .post('/leaders/elections')
        .send({ type: 'unclean', topics: ['el-u'], confirm: 'unclean-election-may-lose-data' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.results, [{ topic: 'el-u', partition: 0, outcome: 'elected' }]);
      assert.equal(leader('el-u', 0), 2);
      assert.deepEqual(gw.sim.model.getPartition('el-u', 0).isr, [2]);
    } finally {
      await gw.sim.startBroker(1);
    }
  });

  it('bad input: no scope, two scopes, a partition named twice: 400; an unknown topic: 404; nothing changes', async () => {
    for (const body of [
      { type: 'preferred' },
      { type: 'preferred', all: true, topics: ['el-a'] },
      {
        type: 'preferred',
        partitions: [
          { topic: 'el-a', partition: 0 },
          { topic: 'el-a', partition: 0 },
        ],
      },
      { type: 'sideways', all: true },
    ]) {
      const res = await gw.http().post('/leaders/elections').send(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.headers['content-type']?.split(';')[0], 'application/problem+json');
    }
    await bounce(3);
    const displaced = leader('el-a', 3);
    const res = await gw
      .http()
      .post('/leaders/elections')
      .send({ type: 'preferred', topics: ['el-a', 'no-such-topic'] });
    assert.equal(res.status, 404, JSON.stringify(res.body));
    assert.equal(res.body.kafkaError.code, 3);
    assert.equal(leader('el-a', 3), displaced, 'nothing was elected');
  });

  it('POST /plans goal leaders: re-orders only (zero bytes), preferred leaders even across the brokers', async () => {
    await createTopics(gw, {
      name: 'skew',
      assignments: [
        [0, 1],
        [0, 2],
        [0, 3],
        [0, 1],
        [0, 2],
        [0, 3],
        [0, 1],
        [0, 2],
      ],
    });
    const res = await gw
      .http()
      .post('/plans')
      .send({ goal: 'leaders', topics: ['skew'] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.goal, 'leaders');
    assert.equal(res.body.movedBytes, 0);
    assert.equal(res.body.movedReplicas, 0);
    assert.ok(res.body.partitions.length > 0);
    assert.ok(res.body.partitions.every((p: any) => p.adding.length === 0 && p.removing.length === 0));
    const counts = new Map<number, number>();
    const target = new Map(res.body.partitions.map((p: any) => [p.partition, p.targetReplicas]));
    for (let i = 0; i < 8; i++) {
      const first = ((target.get(i) as number[] | undefined) ?? gw.sim.model.getPartition('skew', i).replicas)[0];
      counts.set(first, (counts.get(first) ?? 0) + 1);
    }
    assert.deepEqual([...counts.values()].sort(), [2, 2, 2, 2]);
  });
});
