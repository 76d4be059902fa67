// The end watch above END_WATCH_MAX_PARTITIONS gateway partitions moving: it asks Kafka about a
// sample only, and the end of the reassignment is acted on (record completed, throttles removed)
// without waiting for the reconcile interval, which is 10 minutes here: only the watch can
// explain a prompt removal.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { END_WATCH_MAX_PARTITIONS } from '../../src/reconcile/reconciler.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { startReassignGateway, throttleConfigs } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

const TOPICS = 3;
const PER_TOPIC = 700;

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 3, seedBytes: 100_000 });
  for (let t = 0; t < TOPICS; t++)
    sim.model.createTopic({ name: `w${t}`, assignments: Array.from({ length: PER_TOPIC }, (_, p) => ({ partition: p, brokerIds: [0] })) });
});
after(() => sim?.close());

/** A metric's value (a histogram's: its `suffix` series, e.g. `_count`). */
async function metricValue(
  gw: Awaited<ReturnType<typeof startReassignGateway>>,
  name: string,
  labels: Record<string, string> = {},
  suffix = '',
): Promise<number | undefined> {
  const m = (await gw.metrics.registry.getMetricsAsJSON()).find((x) => x.name === name);
  const v = m?.values.find(
    (x) =>
      Object.entries(labels).every(([k, want]) => (x.labels as Record<string, unknown>)[k] === want) &&
      (x as { metricName?: string }).metricName === (suffix ? name + suffix : (x as { metricName?: string }).metricName),
  );
  return v?.value;
}

it(`more than ${END_WATCH_MAX_PARTITIONS} partitions moving: the end is acted on without waiting for the interval`, async () => {
  const gw = await startReassignGateway({ sim, env: { RECONCILE_INTERVAL_MS: '600000', REASSIGNMENT_START_TIMEOUT_MS: '120000' } });
  try {
    const partitions = [];
    for (let t = 0; t < TOPICS; t++) for (let p = 0; p < PER_TOPIC; p++) partitions.push({ topic: `w${t}`, partition: p, replicas: [1] });
    assert.ok(partitions.length > END_WATCH_MAX_PARTITIONS);
    // 1 KiB/s: nothing completes until the throttle is raised.
    const res = await gw.http().post('/reassignments').send({ partitions, throttle: 1024 });
    assert.equal(res.status, 202, JSON.stringify(res.body).slice(0, 500));
    const id = res.body.id as string;

    // One full pass (the loop's next is 10 minutes away): it sees every partition moving and
    // picks the watch's sample.
    await gw.runtime.reconciler.reconcileOnce();
    assert.equal(await metricValue(gw, 'kafka_gateway_reassignment_partitions_moving', { owner: 'gateway' }), partitions.length);
    assert.ok(Object.keys(await throttleConfigs(gw.kafka)).length > 0, 'throttled while moving');

    // Raised: every move completes at once.
    assert.equal((await gw.http().patch(`/reassignments/${id}`).send({ throttle: 1_000_000_000 })).status, 200);
    await eventually(async () => (sim.model.movingPartitionCount() === 0 ? true : undefined), 60_000);

    const done = await eventually(async () => {
      const r = gw.runtime.store.view().reassignments.get(id);
      return r?.state === 'completed' && r.throttlesRemovedAt !== undefined ? r : undefined;
    }, 60_000);
    assert.ok(done.partitions.every((p) => p.state === 'completed'));
    assert.deepEqual(await throttleConfigs(gw.kafka), {});
    // The removal was measured (from the last time a move of it was seen in progress).
    assert.equal(await metricValue(gw, 'kafka_gateway_throttle_removal_delay_seconds', {}, '_count'), 1);
  } finally {
    await gw.close();
  }
});
