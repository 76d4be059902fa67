// The metrics the alert rules (deploy/prometheus) stand on, against a simulated cluster: when
// the reconciler cannot remove a finished reassignment's throttle (its broker is too slow to
// answer), kafka_gateway_throttle_removal_pending_seconds grows and the last-success timestamp
// stops while passes go on; once the broker answers again both recover and the throttle goes.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createTopics, startReassignGateway, throttleConfigs, type ReassignGateway } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

let gw: ReassignGateway;
before(async () => {
  gw = await startReassignGateway({ simulator: { brokers: 4 } });
});
after(() => gw?.close());

const gauge = (text: string, name: string): number | undefined => {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};
const metrics = async () => (await gw.http().get('/metrics')).text;

it('a throttle that outlives its reassignment shows as pending removal, and a failing pass does not count as a success', async () => {
  await createTopics(gw, { name: 'am', assignments: [[0, 1]] });
  const started = await gw
    .http()
    .post('/reassignments')
    .send({ partitions: [{ topic: 'am', partition: 0, replicas: [0, 2] }], throttle: 1048576 });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  // Broker 2 now answers slower than the Kafka request timeout (3 s in tests): its throttle cannot be removed.
  gw.sim.setBrokerDelay(2, 3500);
  const id = started.body.id as string;

  const stuck = await eventually(async () => {
    const text = await metrics();
    const pending = gauge(text, 'kafka_gateway_throttle_removal_pending_seconds');
    return pending !== undefined && pending > 0 ? text : undefined;
  }, 30_000);
  const lastSuccess = gauge(stuck, 'kafka_gateway_reconciler_last_success_timestamp_seconds');
  const runs = gauge(stuck, 'kafka_gateway_reconciler_runs_total')!;
  assert.equal(gauge(stuck, 'kafka_gateway_reconciler_interval_seconds'), 0.1);
  assert.match(stuck, /kafka_gateway_reconciler_errors_total\{step="[a-z-]+"\} [1-9]/);
  // The step that waited on the slow broker shows where the pass spent its time: at least one
  // throttle sync waited out the 3 s request timeout.
  const syncSeconds = Number(/^kafka_gateway_reconciler_step_duration_seconds_sum\{step="throttles"\} (\S+)$/m.exec(stuck)?.[1]);
  assert.ok(syncSeconds >= 3, `throttles step total ${syncSeconds} s`);
  assert.match(stuck, /^kafka_gateway_reconciler_step_duration_seconds_count\{step="state"\} [1-9]/m);
  // Another pass, not successful; the pending age grows.
  const later = await eventually(async () => {
    const text = await metrics();
    return gauge(text, 'kafka_gateway_reconciler_runs_total')! >= runs + 1 ? text : undefined;
  }, 60_000);
  assert.equal(gauge(later, 'kafka_gateway_reconciler_last_success_timestamp_seconds'), lastSuccess);
  assert.ok(
    gauge(later, 'kafka_gateway_throttle_removal_pending_seconds')! > gauge(stuck, 'kafka_gateway_throttle_removal_pending_seconds')!,
  );

  gw.sim.setBrokerDelay(2, 0);
  await eventually(async () => {
    const text = await metrics();
    return gauge(text, 'kafka_gateway_throttle_removal_pending_seconds') === 0 &&
      gauge(text, 'kafka_gateway_reconciler_last_success_timestamp_seconds')! > (lastSuccess ?? 0)
      ? true
      : undefined;
  }, 30_000);
  assert.deepEqual(await throttleConfigs(gw.kafka), {});
  const done = await gw.http().get(`/reassignments/${id}`);
  assert.equal(done.body.state, 'completed');
  assert.ok(done.body.throttlesRemovedAt);
});
