import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Registry } from 'prom-client';
import { createReassignmentMetrics } from '../../src/observability/reassignment-metrics.js';

const value = async (r: Registry, name: string, labels: Record<string, string> = {}) => {
  const m = (await r.getMetricsAsJSON()).find((x) => x.name === name);
  return m?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
};

it('the last-success timestamp moves only on passes in which every step succeeded', async () => {
  const r = new Registry();
  const m = createReassignmentMetrics(r);
  m.reconciled(true);
  const first = await value(r, 'kafka_gateway_reconciler_last_success_timestamp_seconds');
  assert.ok(first !== undefined && first > 0);
  // Until the clock has moved, so a timestamp set now would differ from the first.
  for (const t0 = Date.now(); Date.now() === t0;) await new Promise((res) => setImmediate(res));
  m.reconciled(false);
  assert.equal(await value(r, 'kafka_gateway_reconciler_last_success_timestamp_seconds'), first);
  assert.equal(await value(r, 'kafka_gateway_reconciler_runs_total'), 2);
  m.setReconcileInterval(2);
  assert.equal(await value(r, 'kafka_gateway_reconciler_interval_seconds'), 2);
  // Pass durations: only the passes that report one are observed.
  m.reconciled(true, 0.3);
  m.reconciled(true, 4);
  const pass = (await r.getMetricsAsJSON()).find((x) => x.name === 'kafka_gateway_reconciler_pass_duration_seconds')!.values;
  const at = (metricName: string, le?: number) =>
    pass.find((v) => (v as { metricName?: string }).metricName === metricName && (le === undefined || v.labels.le === le))?.value;
  assert.equal(at('kafka_gateway_reconciler_pass_duration_seconds_count'), 2);
  assert.equal(at('kafka_gateway_reconciler_pass_duration_seconds_sum'), 4.3);
  assert.equal(at('kafka_gateway_reconciler_pass_duration_seconds_bucket', 5), 2);
  assert.equal(at('kafka_gateway_reconciler_pass_duration_seconds_bucket', 1), 1);
});

it('stalled is per running reassignment and dropped with it; removal pending is never negative', async () => {
  const r = new Registry();
  const m = createReassignmentMetrics(r);
  m.setProgress([
    { id: 'a', bytesRemaining: 10, etaSeconds: null, stalled: true },
    { id: 'b', bytesRemaining: 5, etaSeconds: 1, stalled: false },
  ]);
  assert.equal(await value(r, 'kafka_gateway_reassignment_stalled', { reassignment: 'a' }), 1);
  assert.equal(await value(r, 'kafka_gateway_reassignment_stalled', { reassignment: 'b' }), 0);
  m.setProgress([{ id: 'b', bytesRemaining: 0, etaSeconds: 0 }]);
  assert.equal(await value(r, 'kafka_gateway_reassignment_stalled', { reassignment: 'a' }), undefined);
  assert.equal(await value(r, 'kafka_gateway_throttle_removal_pending_seconds'), 0);
  // Paced execution: queued and in-flight moves per reassignment, dropped with it.
  m.setProgress([{ id: 'p', bytesRemaining: 1, etaSeconds: 1, queued: 7, moving: 2 }]);
  assert.equal(await value(r, 'kafka_gateway_reassignment_moves_queued', { reassignment: 'p' }), 7);
  assert.equal(await value(r, 'kafka_gateway_reassignment_moves_in_flight', { reassignment: 'p' }), 2);
  m.setProgress([]);
  assert.equal(await value(r, 'kafka_gateway_reassignment_moves_queued', { reassignment: 'p' }), undefined);
  m.setThrottleRemovalPending(42);
  assert.equal(await value(r, 'kafka_gateway_throttle_removal_pending_seconds'), 42);
  m.setThrottleRemovalPending(-1);
  assert.equal(await value(r, 'kafka_gateway_throttle_removal_pending_seconds'), 0);
});
