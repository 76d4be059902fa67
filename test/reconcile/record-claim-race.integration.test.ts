// Issue 9 (follow-up): a reconciler pass on instance A and a PATCH on instance B write the same
// reassignment record. Forced interleaving, with a gate in A's pass:
//
//   A's pass reads the record and Kafka, decides to record that partition 0 completed, and is
//   held just before its write. B's PATCH changes the throttle (and writes the record). Then A's
//   write goes on.
//
// Before the record claim, A wrote the record it had read (plus its settled partition) over B's:
// the new throttle was lost (the configs were then synced back to the old rate). Now every writer
// of a live record holds its claim and writes over the record as the state topic has it: A sees
// the record changed, reads Kafka again and re-applies its decision on B's record.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { loadReassignmentConfig } from '../../src/reconcile/config.js';
import { ProgressTracker } from '../../src/reconcile/progress.js';
import { Reconciler } from '../../src/reconcile/reconciler.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { createTopics, startReassignGateway } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 3 });
});
after(() => sim?.close());

it('a PATCH on B between a reconcile pass’s read and its write on A is not lost', async () => {
  const a = await startReassignGateway({ sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'a' } });
  const b = await startReassignGateway({ sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'b' } });
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  try {
    await createTopics(a, { name: 'rc', assignments: [[0], [0]] });
    sim.seedBytes('rc', 1, 50_000_000); // partition 1 moves for minutes at the throttle; partition 0 is empty
    const res = await a
      .http()
      .post('/reassignments')
      .send({
        partitions: [
          { topic: 'rc', partition: 0, replicas: [1] },
          { topic: 'rc', partition: 1, replicas: [1] },
        ],
        throttle: 10_000,
      });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const id = res.body.id as string;
    // Partition 0 ended in Kafka, partition 1 still moves; the record still says both move.
    await eventually(async () => {
      const moving = (await a.kafka.listPartitionReassignments()).filter((m) => m.topic === 'rc').map((m) => m.partition);
      return moving.length === 1 && moving[0] === 1 ? true : undefined;
    });

    let reached!: () => void;
    const held = new Promise<void>((r) => (reached = r));
    const config = loadReassignmentConfig({ RECONCILE_INTERVAL_MS: '100', GATEWAY_INSTANCE_ID: 'a' });
    const reconciler = new Reconciler({
      kafka: a.kafka,
      store: a.runtime.store,
      throttles: a.runtime.throttleSync,
      progress: new ProgressTracker({ kafka: a.kafka, store: a.runtime.store, options: { stallAfterMs: 2000 }, intervalMs: 100 }),
      config,
      hooks: {
        gate: async (point, rid) => {
          if (point === 'before-record-write' && rid === id) {
            reached();
            await opened;
          }
        },
      },
    });
    const pass = reconciler.reconcileOnce();
    await held; // A has read the record and Kafka and decided its write

    const patch = await b.http().patch(`/reassignments/${id}`).send({ throttle: 20_000 });
    assert.equal(patch.status, 200, JSON.stringify(patch.body));
    assert.equal(patch.body.throttle, 20_000);

    open();
    await pass;

    for (const gw of [a, b]) {
      const r = (await gw.runtime.store.refresh()).reassignments.get(id)!;
      assert.equal(r.throttle, 20_000, `B's throttle kept (seen from ${gw === a ? 'A' : 'B'})`);
      assert.ok(
        Object.values(r.throttleDemand!.brokers).every((x) => x.leaderRate === 20_000 && x.followerRate === 20_000),
        JSON.stringify(r.throttleDemand),
      );
      assert.equal(r.partitions.find((p) => p.partition === 0)!.state, 'completed', "A's decision applied");
      assert.equal(r.partitions.find((p) => p.partition === 1)!.state, 'moving');
      assert.equal(r.state, 'running');
    }
    const g = await b.http().get(`/reassignments/${id}`);
    assert.equal(g.body.throttle, 20_000);
    assert.equal(g.body.counts.completed, 1);
    await b.http().delete(`/reassignments/${id}`);
  } finally {
    open();
    await a.close();
    await b.close();
  }
});
