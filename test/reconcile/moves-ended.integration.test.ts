// The end of a reassignment at scale: its throttles go BEFORE its end (completed or cancelled)
// is worked out and written, since that takes the placement of every partition (Metadata) and
// rewrites every chunk of the record (~1 s at 100,000 partitions). What lets the throttle sync
// drop the demand first is `movesEndedAt`, a header-only write every instance reads the same:
// another instance reading the state topic from scratch at the moment the configs are removed
// (as a restarted one would) sees the record's moves ended and its demand gone too.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { liveDemands } from '../../src/reconcile/ownership.js';
import type { ReassignmentRecord } from '../../src/state/records.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { startReassignGateway, throttleConfigs, type ReassignGateway } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 3, seedBytes: 100_000 });
  sim.model.createTopic({ name: 'me', assignments: Array.from({ length: 20 }, (_, p) => ({ partition: p, brokerIds: [0] })) });
});
after(() => sim?.close());

it('the throttles of a reassignment whose moves ended are removed before its end is written, in the same pass; every instance agrees its demand ended', async () => {
  let id = '';
  let reader: ReassignGateway | undefined;
  /** What a fresh reader of the state topic saw of the record at each throttle config change. */
  const seen: { state: string; movesEndedAt: number | undefined; demanded: boolean }[] = [];
  const gw = await startReassignGateway({
    sim,
    reconcile: false,
    env: { RECONCILE_INTERVAL_MS: '600000', REASSIGNMENT_START_TIMEOUT_MS: '120000' },
    syncGate: async (point) => {
      if (point !== 'before-config-write' || !id || !reader) return;
      const view = await reader.runtime.store.refresh();
      const r = view.reassignments.get(id);
      if (r)
        seen.push({
          state: r.state,
          movesEndedAt: r.movesEndedAt,
          demanded: liveDemands(view, Date.now()).some((d) => d === r.throttleDemand),
        });
    },
  });
  try {
    reader = await startReassignGateway({ sim, reconcile: false });
    const partitions = Array.from({ length: 20 }, (_, p) => ({ topic: 'me', partition: p, replicas: [1] }));
    // 1 KiB/s: nothing completes until the throttle is raised.
    const res = await gw.http().post('/reassignments').send({ partitions, throttle: 1024 });
    assert.equal(res.status, 202, JSON.stringify(res.body).slice(0, 500));
    id = res.body.id as string;
    await gw.runtime.reconciler.reconcileOnce();
    assert.equal(gw.runtime.store.view().reassignments.get(id)?.state, 'running');
    assert.ok(Object.keys(await throttleConfigs(gw.kafka)).length > 0, 'throttled while moving');

    assert.equal((await gw.http().patch(`/reassignments/${id}`).send({ throttle: 1_000_000_000 })).status, 200);
    await eventually(async () => (sim.model.movingPartitionCount() === 0 ? true : undefined), 60_000);
    seen.length = 0;

    // ONE pass: throttles removed, then the end recorded.
    await gw.runtime.reconciler.reconcileOnce();
    assert.deepEqual(await throttleConfigs(gw.kafka), {});
    const done = gw.runtime.store.view().reassignments.get(id) as ReassignmentRecord;
    assert.equal(done.state, 'completed');
    assert.ok(done.partitions.every((p) => p.state === 'completed' && p.endedAt === done.endedAt));
    // The end is when the moves were seen ended; the throttles went after that.
    assert.equal(done.endedAt, done.movesEndedAt);
    assert.ok(done.throttlesRemovedAt !== undefined && done.throttlesRemovedAt >= done.endedAt!);
    // When the configs were removed, the end was not written yet, but the moves' end was, for everyone.
    assert.ok(seen.length > 0, 'the removal changed configs');
    for (const s of seen) assert.deepEqual(s, { state: 'running', movesEndedAt: done.movesEndedAt, demanded: false });
    // The other instance reads the same outcome.
    const other = (await reader.runtime.store.refresh()).reassignments.get(id);
    assert.equal(other?.state, 'completed');
    assert.equal(other?.throttlesRemovedAt, done.throttlesRemovedAt);
  } finally {
    await reader?.close();
    await gw.close();
  }
});
