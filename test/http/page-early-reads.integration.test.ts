// A page GET's live reads (ListPartitionReassignments and DescribeLogDirs of the page's moving
// partitions) start with its state refresh, for the page as the instance already holds it, not
// after it (partitions-page.ts): at 100,000 moving partitions a page waited for the sum of the
// two. They are kept only if the refreshed page's moving partitions were all asked about;
// otherwise they are read again for the refreshed page.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createTopics, startReassignGateway } from './reassignment-helpers.js';
import { eventually } from '../eventually.js';

/** Counts the Kafka requests a gateway completes, by API name. */
function requestCounts() {
  const done = new Map<string, number>();
  return { done, onKafkaRequest: (api: string) => done.set(api, (done.get(api) ?? 0) + 1), of: (api: string) => done.get(api) ?? 0 };
}

it("a page GET's live reads go out while its state refresh is still waiting for Kafka", async () => {
  const counts = requestCounts();
  // No reconcile loop: nothing else asks for the state topic's offsets while the fault waits.
  const gw = await startReassignGateway({ reconcile: false, onKafkaRequest: counts.onKafkaRequest });
  try {
    await createTopics(gw, { name: 'early', assignments: [[0, 1]] });
    gw.sim.seedBytes('early', 0, 100_000_000);
    const start = await gw
      .http()
      .post('/reassignments')
      .send({ partitions: [{ topic: 'early', partition: 0, replicas: [2, 1] }], throttle: 1024 });
    assert.equal(start.status, 202, JSON.stringify(start.body));
    const id: string = start.body.id;
    // The page's refresh asks for the state topic's end offset (ListOffsets); the simulator holds it.
    const held = gw.sim.faults.add({ apiKey: 2, delayMs: 1500, times: 1 });
    const watch = gw.sim.faults.add({ apiKey: 46, delayMs: 1, times: 1 });
    const offsetsBefore = counts.of('ListOffsets');
    let offsetsAnsweredAtMoves: number | undefined;
    const off = gw.sim.faults.onApplied((e) => {
      if (e.fault.id === watch.id) offsetsAnsweredAtMoves = counts.of('ListOffsets') - offsetsBefore;
    });
    try {
      const page = await gw.http().get(`/reassignments/${id}/partitions`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.deepEqual(
        page.body.items.map((row: { state: string; addingReplicas: number[] }) => [row.state, row.addingReplicas]),
        [['moving', [2]]],
        'live moves read from Kafka',
      );
      assert.equal(gw.sim.faults.get(held.id)?.applied, 1, "the page's refresh asked for the state topic's end offset");
      assert.equal(offsetsAnsweredAtMoves, 0, 'ListPartitionReassignments reached the broker before the ListOffsets was answered');
    } finally {
      off();
    }
  } finally {
    await gw.close();
  }
});

it('live reads made for a page the instance held stale are read again for the refreshed page', async () => {
  const a = await startReassignGateway();
  const counts = requestCounts();
  // b reconciles nothing and reads the state only when asked: its view stays as its last GET left it.
  const b = await startReassignGateway({ sim: a.sim, reconcile: false, onKafkaRequest: counts.onKafkaRequest });
  try {
    await createTopics(a, {
      name: 'stale',
      assignments: [
        [0, 1],
        [0, 1],
      ],
    });
    for (const p of [0, 1]) a.sim.seedBytes('stale', p, 3_000_000);
    const start = await a
      .http()
      .post('/reassignments')
      .send({
        partitions: [0, 1].map((p) => ({ topic: 'stale', partition: p, replicas: [2, 1] })),
        throttle: 1_000_000,
        concurrency: { perBroker: 1 },
      });
    assert.equal(start.status, 202, JSON.stringify(start.body));
    const id: string = start.body.id;
    type Row = { partition: number; state: string; addingReplicas: number[] };
    const states = (rows: Row[]) => rows.map((r) => r.state).join(',');
    // b's view: one partition moving, the other queued behind it.
    const first: Row[] = await eventually(async () => {
      const page = await b.http().get(`/reassignments/${id}/partitions`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      return ['moving,queued', 'queued,moving'].includes(states(page.body.items)) ? page.body.items : undefined;
    }, 20_000);
    const firstMoving = first.find((r) => r.state === 'moving')!.partition;
    // a moves on: that partition completes and the other one starts; b has not read it.
    await eventually(async () => {
      const page = await a.http().get(`/reassignments/${id}/partitions`);
      const row = (p: number) => page.body.items.find((r: Row) => r.partition === p)?.state;
      return row(firstMoving) === 'completed' && row(1 - firstMoving) === 'moving' ? true : undefined;
    }, 20_000);
    const movesBefore = counts.of('ListPartitionReassignments');
    const page = await b.http().get(`/reassignments/${id}/partitions`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    const rows: Row[] = page.body.items;
    assert.equal(rows.find((r) => r.partition === firstMoving)?.state, 'completed');
    assert.deepEqual(
      rows.filter((r) => r.state === 'moving').map((r) => [r.partition, r.addingReplicas]),
      [[1 - firstMoving, [2]]],
    );
    assert.equal(
      counts.of('ListPartitionReassignments') - movesBefore,
      2,
      'one read for the page b held (the partition since completed), one for the refreshed page',
    );
  } finally {
    await b.close();
    await a.close();
  }
});
