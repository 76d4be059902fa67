// Issue 11 item 4: two instances accepting overlapping reassignments at the same moment. The
// 409 check used to be check-then-act (both validated before either wrote its record, both
// answered 202, the second AlterPartitionReassignments silently re-targeted the first). The
// state topic is now the arbiter: each POST claims its partitions; the first claim in the
// partition's log order wins, the loser answers 409 and changes nothing.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { startReassignGateway, type ReassignGateway } from '../http/reassignment-helpers.js';

let sim: Simulator;
let a: ReassignGateway;
let b: ReassignGateway;
before(async () => {
  // Slow copies: every move started here is still running when the round ends.
  sim = await startSimulator({ brokers: 4, replicationBytesPerSecond: 1000 });
  a = await startReassignGateway({ sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'a', REASSIGNMENT_START_TIMEOUT_MS: '30000' } });
  b = await startReassignGateway({ sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'b', REASSIGNMENT_START_TIMEOUT_MS: '30000' } });
});
after(async () => {
  await a?.close();
  await b?.close();
  await sim?.close();
});

it('two instances, overlapping reassignments at once, 8 rounds: one 202 and one 409 each time; the loser changes nothing', async () => {
  for (let round = 0; round < 8; round++) {
    const topic = `overlap-${round}`;
    assert.equal(
      (
        await a
          .http()
          .post('/topics')
          .send({
            name: topic,
            assignments: [
              [0, 1],
              [0, 1],
            ],
          })
      ).status,
      201,
    );
    sim.seedBytes(topic, 0, 10_000_000);
    sim.seedBytes(topic, 1, 10_000_000);
    // Overlap on partition 0 only; different targets, so a silent re-target would show.
    const bodyA = { partitions: [{ topic, partition: 0, replicas: [2, 3] }], throttle: 100_000 };
    const bodyB = {
      partitions: [
        { topic, partition: 0, replicas: [3, 2] },
        { topic, partition: 1, replicas: [2, 3] },
      ],
      throttle: 100_000,
    };
    const [ra, rb] = await Promise.all([a.http().post('/reassignments').send(bodyA), b.http().post('/reassignments').send(bodyB)]);
    const statuses = [ra.status, rb.status].sort();
    assert.deepEqual(
      statuses,
      [202, 409],
      `round ${round}: ${ra.status} ${JSON.stringify(ra.body)} / ${rb.status} ${JSON.stringify(rb.body)}`,
    );
    const [winner, loser, winnerBody] = ra.status === 202 ? [ra, rb, bodyA] : [rb, ra, bodyB];
    assert.equal(loser.body.type, 'https://kafka-admin-gateway.dev/problems/reassignment-in-progress', JSON.stringify(loser.body));
    // Kafka moves exactly the winner's partitions to the winner's targets.
    const moving = (await a.kafka.listPartitionReassignments()).filter((m) => m.topic === topic);
    assert.deepEqual(
      moving.map((m) => [m.partition, m.replicas.filter((r) => m.adding.includes(r))]).sort(),
      winnerBody.partitions.map((p) => [p.partition, p.replicas]).sort(),
      `round ${round}`,
    );
    // The loser left no record; the winner's is the only live one for this topic.
    const list = (await a.http().get('/reassignments')).body.reassignments.filter(
      (r: { state: string }) => r.state === 'running' || r.state === 'pending',
    );
    assert.ok(list.some((r: { id: string }) => r.id === winner.body.id));
    for (const r of list) {
      const page = (await a.http().get(`/reassignments/${r.id}/partitions`)).body;
      if (page.items.some((p: { topic: string }) => p.topic === topic)) assert.equal(r.id, winner.body.id);
    }
  }
});
