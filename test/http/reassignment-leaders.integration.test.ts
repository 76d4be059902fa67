// Reassignments with `electLeaders: true` (issue 30 part 3) against a simulated cluster over
// TCP: every completed partition's leader becomes its first replica (its ISR holds it), counted
// on the record; without the flag the leader stays where the move left it; a rollback of a
// running move restores the original replica ORDER (Kafka's cancel leaves target ++ removing
// minus adding) and the original leaders. Leaders and replicas are read from the simulator.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/sim/index.js';
import { createTopics, startReassignGateway, type ReassignGateway } from './reassignment-helpers.js';
import { eventually } from '../eventually.js';

let clock: ManualClock;
let gw: ReassignGateway;
before(async () => {
  clock = new ManualClock();
  gw = await startReassignGateway({ clock, simulator: { brokers: 4, replicationBytesPerSecond: 100_000 } });
});
after(() => gw?.close());

const placement = (topic: string, partition: number) => {
  const p = gw.sim.model.getPartition(topic, partition);
  return { replicas: p.replicas, leader: p.leader, isr: p.isr };
};

async function advanceUntil(id: string, state: string): Promise<Record<string, any>> {
  return eventually(
    async () => {
      const res = await gw.http().get(`/reassignments/${id}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      if (res.body.state === state) return res.body;
      clock.advance(1000);
      return undefined;
    },
    20_000,
    60,
  );
}

describe('electLeaders on POST /reassignments', () => {
  before(async () => {
    await createTopics(
      gw,
      {
        name: 'el',
        assignments: [
          [0, 1],
          [1, 2],
          [2, 3],
        ],
      },
      { name: 'no-el', assignments: [[0, 1]] },
    );
    for (const p of [0, 1, 2]) gw.sim.seedBytes('el', p, 20_000);
    gw.sim.seedBytes('no-el', 0, 20_000);
  });

  it('every completed partition ends led by its first replica; the record counts the elections', async () => {
    const targets = [
      [2, 0],
      [3, 1],
      [2, 0],
    ];
    const res = await gw
      .http()
      .post('/reassignments')
      .send({ partitions: targets.map((replicas, partition) => ({ topic: 'el', partition, replicas })), electLeaders: true });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await advanceUntil(res.body.id, 'completed');
    const detail = await eventually(async () => {
      const g = await gw.http().get(`/reassignments/${res.body.id}`);
      return g.body.leaderElections?.pending === 0 && g.body.leaderElections.elected === 3 ? g.body : undefined;
    });
    assert.equal(detail.electLeaders, true);
    assert.deepEqual(
      { ...detail.leaderElections, updatedAt: undefined },
      { elected: 3, pending: 0, failed: 0, completed: 3, updatedAt: undefined },
    );
    targets.forEach((t, partition) => {
      const now = placement('el', partition);
      assert.deepEqual(now.replicas, t);
      assert.ok(now.isr.includes(t[0]));
      assert.equal(now.leader, t[0], `el-${partition} is led by its first replica`);
    });
  });

  it('without electLeaders the leader stays where the move left it (the check above can fail)', async () => {
    const res = await gw
      .http()
      .post('/reassignments')
      .send({ partitions: [{ topic: 'no-el', partition: 0, replicas: [2, 0] }] });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const done = await advanceUntil(res.body.id, 'completed');
    assert.equal(done.leaderElections, undefined);
    assert.deepEqual(placement('no-el', 0), { replicas: [2, 0], leader: 0, isr: placement('no-el', 0).isr });
  });
});

describe('rollback of a running move', () => {
  before(async () => {
    await createTopics(gw, {
      name: 'rb',
      assignments: [
        [0, 2],
        [1, 2],
      ],
    });
    gw.sim.seedBytes('rb', 0, 500_000); // copies at the throttle: still moving when cancelled
  });

  it('restores the original replica order and the original leaders', async () => {
    // rb-0 [0,2] -> [2,1] copies to 1 (slowly); rb-1 [1,2] -> [2,1] is a pure reorder that
    // completes at once and, with electLeaders, makes 2 its leader.
    const res = await gw
      .http()
      .post('/reassignments')
      .send({
        partitions: [
          { topic: 'rb', partition: 0, replicas: [2, 1] },
          { topic: 'rb', partition: 1, replicas: [2, 1] },
        ],
        throttle: 1024,
        electLeaders: true,
      });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await eventually(async () => (placement('rb', 1).leader === 2 ? true : undefined));
    assert.deepEqual(placement('rb', 0).replicas, [2, 1, 0], 'rb-0 still moving: target ++ removing');

    const del = await gw.http().delete(`/reassignments/${res.body.id}?rollback=true`);
    assert.equal(del.status, 202, JSON.stringify(del.body));
    assert.deepEqual(del.body.cancelled, [{ topic: 'rb', partition: 0 }]);
    const rollbackId = del.body.rollback.id;
    const back = await advanceUntil(rollbackId, 'completed');
    assert.equal(back.rollbackOf, res.body.id);
    await eventually(async () => {
      const g = await gw.http().get(`/reassignments/${rollbackId}`);
      const t = g.body.leaderElections;
      return t && t.pending === 0 && t.completed === g.body.counts.completed && t.completed > 0 ? true : undefined;
    });
    assert.deepEqual(placement('rb', 0).replicas, [0, 2], 'the cancel left [2,0]: the rollback puts the order back');
    assert.equal(placement('rb', 0).leader, 0);
    assert.deepEqual(placement('rb', 1).replicas, [1, 2]);
    assert.equal(placement('rb', 1).leader, 1, 'the original leader leads again');
  });
});
