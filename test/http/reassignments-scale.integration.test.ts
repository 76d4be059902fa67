// Large-reassignment behaviour of /reassignments (issue 8) against the simulator over TCP:
// paging with a stable cursor while partitions complete, the route's own body limit, the lean
// list (counts and the first 1,000 external moves unless ?detail=true), two
// instances answering the same progress (snapshots in the state topic), and the Kafka requests
// one reconcile pass costs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/sim/index.js';
import { isCold } from '../../src/state/cold-partitions.js';
import { createTopics, startReassignGateway, type ReassignGateway } from './reassignment-helpers.js';
import { eventually } from '../eventually.js';

const BANDWIDTH = 100_000;
let clock: ManualClock;
let gw: ReassignGateway;
let second: ReassignGateway;

before(async () => {
  clock = new ManualClock();
  gw = await startReassignGateway({ clock, simulator: { brokers: 4, replicationBytesPerSecond: BANDWIDTH } });
  second = await startReassignGateway({ clock, sim: gw.sim });
});
after(async () => {
  await second?.close();
  await gw?.close();
});

/** Kafka requests sent so far by one gateway, by API. */
async function requestCounts(g: ReassignGateway): Promise<Record<string, number>> {
  const m = await g.metrics.registry.getSingleMetric('kafka_gateway_kafka_requests_total')!.get();
  const out: Record<string, number> = {};
  for (const v of m.values) out[String(v.labels.api)] = (out[String(v.labels.api)] ?? 0) + v.value;
  return out;
}
const diff = (a: Record<string, number>, b: Record<string, number>): Record<string, number> =>
  Object.fromEntries(
    Object.entries(b)
      .map(([k, v]) => [k, v - (a[k] ?? 0)])
      .filter(([, v]) => (v as number) > 0),
  );

describe('large reassignments', () => {
  before(async () => {
    await createTopics(
      gw,
      { name: 'pg', assignments: Array.from({ length: 12 }, () => [0, 1]) },
      { name: 'ph', assignments: Array.from({ length: 3 }, () => [0, 1]) },
    );
    for (let p = 0; p < 12; p++) gw.sim.seedBytes('pg', p, p < 6 ? 1_000 : 400_000);
    for (let p = 0; p < 3; p++) gw.sim.seedBytes('ph', p, 1_000);
  });

  it('pages partitions in (topic, partition) order with a stable cursor while partitions complete', async () => {
    // Request order differs from the page order on purpose.
    const partitions = [
      ...Array.from({ length: 3 }, (_, p) => ({ topic: 'ph', partition: 2 - p, replicas: [2, 3] })),
      ...Array.from({ length: 12 }, (_, p) => ({ topic: 'pg', partition: 11 - p, replicas: [2, 3] })),
    ];
    const res = await gw.http().post('/reassignments').send({ partitions, throttle: 50_000 });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.equal(res.body.plan, undefined, 'no per-partition rows without ?detail=true');
    assert.equal(res.body.summary.counts.total, 15);
    assert.equal(res.body.rollback.partitions.length, 15);
    const id: string = res.body.id;

    const seen: string[] = [];
    let next: string | null = `/reassignments/${id}/partitions?limit=4`;
    let pages = 0;
    while (next) {
      const page = await gw.http().get(next);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.ok(page.body.items.length <= 4);
      seen.push(...page.body.items.map((i: any) => `${i.topic}:${i.partition}`));
      next = page.body.next;
      // Between pages, the small partitions finish (their state changes, not their place).
      if (pages++ === 0) {
        clock.advance(1000);
        await eventually(async () => ((await gw.http().get(`/reassignments/${id}`)).body.counts.completed >= 9 ? true : undefined), 20_000);
      }
    }
    const expected = [...Array.from({ length: 12 }, (_, p) => `pg:${p}`), ...Array.from({ length: 3 }, (_, p) => `ph:${p}`)];
    assert.deepEqual(seen, expected, 'every partition once, in order, although states changed between pages');

    const completed = await gw.http().get(`/reassignments/${id}/partitions?state=completed&limit=100`);
    assert.deepEqual(
      completed.body.items.map((i: any) => `${i.topic}:${i.partition}`),
      [...Array.from({ length: 6 }, (_, p) => `pg:${p}`), 'ph:0', 'ph:1', 'ph:2'],
    );
    assert.equal(completed.body.next, null);
    assert.ok(completed.body.items.every((i: any) => i.state === 'completed' && i.percent === 100 && i.replicas.join() === '2,3'));
    const moving = await gw.http().get(`/reassignments/${id}/partitions?state=moving&limit=2`);
    assert.equal(moving.body.items.length, 2);
    assert.deepEqual(moving.body.items[0].addingReplicas, [2, 3]);
    assert.match(moving.body.next, /^\/reassignments\/[^/]+\/partitions\?state=moving&limit=2&cursor=/);
    const bad = await gw.http().get(`/reassignments/${id}/partitions?cursor=bm9wZQ`);
    assert.equal(bad.status, 400);
    assert.equal((await gw.http().get('/reassignments/r-none/partitions')).status, 404);

    // The second instance answers the same summary, progress included (snapshots in the state topic).
    clock.advance(2000);
    const at = new Date(clock.now()).toISOString();
    const [a, b] = await eventually(async () => {
      const x = (await gw.http().get(`/reassignments/${id}`)).body;
      const y = (await second.http().get(`/reassignments/${id}`)).body;
      return x.progress.asOf === at && y.progress.asOf === at ? [x, y] : undefined;
    }, 20_000);
    assert.ok(a.progress.bytesPerSecond > 0 && a.progress.etaSeconds > 0, JSON.stringify(a.progress));
    assert.deepEqual(b.progress, a.progress, 'two instances, the same rate and ETA');
    assert.deepEqual(b.counts, a.counts);
    assert.equal((await gw.http().delete(`/reassignments/${id}`)).status, 200);
  });

  it('a finished reassignment, its partitions packed (state/cold-partitions.ts), answers its summary, pages and list entry as before', async () => {
    const partitions = Array.from({ length: 12 }, (_, p) => ({ topic: 'pg', partition: p, replicas: [3, 2] }));
    const res = await gw.http().post('/reassignments').send({ partitions, throttle: 1024 });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const id: string = res.body.id;
    assert.equal((await gw.http().delete(`/reassignments/${id}`)).status, 200);
    await gw.runtime.store.cooled();
    assert.ok(isCold(gw.runtime.store.view().reassignments.get(id)!), 'packed once finished');
    const summary = (await gw.http().get(`/reassignments/${id}`)).body;
    assert.equal(summary.state, 'cancelled');
    assert.equal(summary.counts.total, 12);
    // pg-0..5 were moved to [2,3] above: [3,2] only reorders them, done at once; the rest cancelled.
    assert.equal(summary.counts.completed + summary.counts.cancelled, 12);
    assert.ok(summary.counts.cancelled > 0);
    const listed = (await gw.http().get('/reassignments')).body.reassignments.find((r: any) => r.id === id);
    assert.equal(listed.partitionCount, 12);
    const rows: any[] = [];
    let next: string | null = `/reassignments/${id}/partitions?state=all&limit=5`;
    while (next) {
      const page = await gw.http().get(next);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      rows.push(...page.body.items);
      next = page.body.next;
    }
    assert.deepEqual(
      rows.map((r) => `${r.topic}:${r.partition}`),
      Array.from({ length: 12 }, (_, p) => `pg:${p}`),
    );
    assert.ok(
      rows.every((r) => (r.state === 'cancelled' || r.state === 'completed') && r.targetReplicas.join() === '3,2'),
      JSON.stringify(rows),
    );
    assert.equal(rows.filter((r) => r.state === 'cancelled').length, summary.counts.cancelled);
  });

  it('POST /reassignments takes bodies up to 32 MB; other routes keep the 1 MB default', async () => {
    // A 1.5 MB body (long log dir strings are refused per entry, so pad with a plan's ignored members).
    const pad = 'x'.repeat(1_500_000);
    const big = await gw
      .http()
      .post('/reassignments')
      .send({
        plan: { reassignment: { version: 1, partitions: [{ topic: 'ph', partition: 0, replicas: [0, 1] }] }, note: pad },
        validateOnly: true,
      });
    assert.notEqual(big.status, 413, JSON.stringify(big.body).slice(0, 300));
    assert.equal(big.status, 200, JSON.stringify(big.body).slice(0, 300));
    assert.equal(big.body.totals.partitions, 1);
    const other = await gw.http().post('/topics').send({ name: 'x', note: pad });
    assert.equal(other.status, 413);
  });

  it('GET /reassignments is lean: counts of moving partitions, the first 1,000 external moves; every one with ?detail=true', async () => {
    const N = 1_010;
    await createTopics(gw, { name: 'ext', assignments: Array.from({ length: N }, () => [0, 1]) });
    for (let p = 0; p < N; p++) gw.sim.seedBytes('ext', p, 1_000);
    // Started outside the gateway (as Kafka's tool would); the frozen clock keeps them moving.
    const started = await gw.kafka.alterPartitionReassignments(
      Array.from({ length: N }, (_, p) => ({ topic: 'ext', partition: p, replicas: [0, 2] })),
    );
    assert.ok(started.every((r) => r.ok));
    const ours = await gw
      .http()
      .post('/reassignments')
      .send({
        partitions: [
          { topic: 'pg', partition: 11, replicas: [2, 3] },
          { topic: 'pg', partition: 10, replicas: [2, 3] },
        ],
        throttle: 1024,
      });
    assert.equal(ours.status, 202, JSON.stringify(ours.body));
    try {
      const lean = await gw.http().get('/reassignments');
      assert.equal(lean.status, 200);
      assert.equal(lean.body.externalCount, N);
      assert.equal(lean.body.external.length, 1000);
      const entry = lean.body.reassignments.find((r: any) => r.id === ours.body.id);
      assert.deepEqual([entry.movingCount, entry.moving], [2, undefined]);
      assert.ok(Buffer.byteLength(lean.text) < 200_000, `${lean.text.length} bytes`);

      const full = await gw.http().get('/reassignments?detail=true');
      assert.equal(full.body.externalCount, N);
      assert.deepEqual(
        full.body.external.map((m: any) => m.partition).sort((a: number, b: number) => a - b),
        Array.from({ length: N }, (_, p) => p),
      );
      assert.ok(full.body.external.every((m: any) => m.topic === 'ext' && m.adding.join() === '2' && m.removing.join() === '1'));
      // The lean answer's external moves are the first of the full list, in Kafka's order.
      assert.deepEqual(lean.body.external, full.body.external.slice(0, 1000));
      const detailed = full.body.reassignments.find((r: any) => r.id === ours.body.id);
      assert.deepEqual(detailed.moving.map((m: any) => `${m.topic}:${m.partition}`).sort(), ['pg:10', 'pg:11']);
      assert.equal(detailed.movingCount, 2);
    } finally {
      assert.equal((await gw.http().delete(`/reassignments/${ours.body.id}`)).status, 200);
      const cancelled = await gw.kafka.alterPartitionReassignments(
        Array.from({ length: N }, (_, p) => ({ topic: 'ext', partition: p, replicas: null })),
      );
      assert.ok(cancelled.every((r) => r.ok));
    }
  });

  it('a reconcile pass costs a constant number of Kafka requests when idle; Metadata only once partitions end', async () => {
    await second.runtime.reconciler.stop();
    await gw.runtime.reconciler.stop();
    try {
      await gw.runtime.reconciler.reconcileOnce();
      const before = await requestCounts(gw);
      await gw.runtime.reconciler.reconcileOnce();
      const idle = diff(before, await requestCounts(gw));
      // Nothing live: the state topic's end offsets (Metadata + ListOffsets), one
      // ListPartitionReassignments; no placement, no log dirs, no configs (nothing owned).
      assert.deepEqual(idle, { Metadata: 2, ListOffsets: 4, ListPartitionReassignments: 1 }, JSON.stringify(idle));

      // Moving: DescribeLogDirs only to the brokers hosting adding replicas (2 and 3), no Metadata while nothing ended.
      const res = await gw
        .http()
        .post('/reassignments')
        .send({
          partitions: [
            { topic: 'pg', partition: 11, replicas: [2, 3] },
            { topic: 'pg', partition: 10, replicas: [2, 3] },
          ],
          throttle: 1024,
        });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      clock.advance(1000);
      // Every state-topic refresh costs one Metadata (and two ListOffsets): count them apart.
      const store = gw.runtime.store;
      let refreshes = 0;
      const refresh = store.refresh.bind(store);
      store.refresh = () => (refreshes++, refresh());
      const b2 = await requestCounts(gw);
      await gw.runtime.reconciler.reconcileOnce();
      const moving = diff(b2, await requestCounts(gw));
      delete (store as { refresh?: unknown }).refresh;
      assert.equal(moving.ListPartitionReassignments, 1, JSON.stringify(moving));
      assert.equal(moving.Metadata, refreshes, `no placement read while nothing ended: ${JSON.stringify(moving)}, ${refreshes} refreshes`);
      assert.equal(moving.DescribeLogDirs, 2, JSON.stringify(moving));
      assert.equal((await gw.http().delete(`/reassignments/${res.body.id}`)).status, 200);
    } finally {
      gw.runtime.reconciler.start();
      second.runtime.reconciler.start();
    }
  });
});
