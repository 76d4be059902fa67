// A page GET's live reads (ListPartitionReassignments and DescribeLogDirs of the page's moving
// partitions) go over connections of their own (KafkaAdmin.interactive): a broker answers one
// request at a time per connection, so on the gateway's shared connections they waited behind
// whatever the reconciler had sent first. Here a DescribeLogDirs held 3 s by the simulator
// (a fault) is out on the shared connection to the adding broker: the page is answered before it.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createTopics, startReassignGateway, type ReassignGateway } from './reassignment-helpers.js';
import { eventually } from '../eventually.js';

let gw: ReassignGateway;
before(async () => {
  // No reconcile loop: nothing else asks the brokers for log dirs while the fault waits.
  gw = await startReassignGateway({ reconcile: false });
});
after(async () => {
  await gw?.close();
});

it("a page GET is not queued behind a slow request on the gateway's shared connection to a broker", async () => {
  await createTopics(gw, {
    name: 'own',
    assignments: [
      [0, 1],
      [0, 1],
    ],
  });
  for (let p = 0; p < 2; p++) gw.sim.seedBytes('own', p, 100_000_000);
  const start = await gw
    .http()
    .post('/reassignments')
    .send({ partitions: [0, 1].map((p) => ({ topic: 'own', partition: p, replicas: [2, 1] })), throttle: 1024 });
  assert.equal(start.status, 202, JSON.stringify(start.body));
  const id: string = start.body.id;

  const fault = gw.sim.faults.add({ apiKey: 35, brokerId: 2, delayMs: 3000, times: 1 });
  let slowDone = false;
  const slow = gw.kafka.describeReplicaSizes([2], [{ topic: 'own', partition: 0 }]).then(() => (slowDone = true));
  await eventually(async () => (gw.sim.faults.get(fault.id)?.applied === 1 ? true : undefined));

  const page = await gw.http().get(`/reassignments/${id}/partitions?state=moving`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  assert.equal(page.body.items.length, 2);
  assert.ok(
    page.body.items.every((row: { addingReplicas: number[] }) => row.addingReplicas.includes(2)),
    'live moves read from Kafka',
  );
  assert.equal(slowDone, false, 'the page was answered while the slow request on the shared connection was still out');
  await slow;
});
