// The chaos harness end to end must be able to fail: a pinned schedule (one paced POST, a DELETE
// while it runs, no fault) in which a rogue client, once the DELETE has answered `cancelled`,
// starts one of the cancelled partitions itself, sets a throttle the gateway never set and
// changes someone else's. The run must report each of them, from the simulator's journal and
// the independent read: a harness whose checks cannot see these would pass anything.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runSchedule } from './runner.js';
import { DEFAULT_TUNING, type ChaosSchedule } from './schedule.js';

const SCHEDULE: ChaosSchedule = {
  seed: -1,
  tuning: DEFAULT_TUNING,
  requestTimeoutMs: 200,
  skews: [0, 0],
  topics: [
    // 4 MB/s of replication: about 0.1 s per move, one at a time; the DELETE comes in the second.
    { name: 't0', assignments: [[0], [1], [2], [3]], bytes: [400_000, 400_000, 400_000, 400_000] },
    { name: 'foreign', assignments: [[3]], bytes: [0] },
  ],
  foreign: { broker: 3, rate: '7777', topic: 'foreign', replicas: '0:3' },
  events: [
    {
      kind: 'post',
      at: 0,
      post: 0,
      via: 0,
      partitions: [0, 1, 2, 3].map((p) => ({ topic: 't0', partition: p, replicas: [(p + 1) % 4] })),
      throttle: null,
      concurrency: { perBroker: null, cluster: 1 },
      order: 'as-given',
    },
    { kind: 'delete', at: 150, post: 0, via: 1 },
  ],
};

test('the harness reports a start after a cancel, a throttle left behind and a foreign value changed', { timeout: 60_000 }, async () => {
  let cancelled = false;
  const result = await runSchedule(SCHEDULE, {
    settleMs: 2000,
    inject: async (cluster, history) => {
      const del = history.outcomes.find((o) => o.event.kind === 'delete');
      cancelled = del?.status === 200 && del.body?.state === 'cancelled';
      cluster.sim.model.alterPartitionReassignments([{ topic: 't0', partition: 3, replicas: [0] }], { clientId: 'rogue', brokerId: 0 });
      const set = (broker: string, name: string, value: string) =>
        cluster.sim.model.incrementalAlterConfigs({ type: 4, name: broker }, [{ name, op: 0, value }]);
      set('1', 'follower.replication.throttled.rate', '12345');
      set('3', 'leader.replication.throttled.rate', '8888');
    },
  });
  assert.ok(cancelled, `the DELETE answered cancelled:\n${result.trace}`);
  const found = (invariant: string, text: string) => result.violations.some((v) => v.invariant === invariant && v.message.includes(text));
  assert.ok(found('cancel-honoured', 't0-3 started by rogue'), `a start after the cancel:\n${result.trace}`);
  assert.ok(found('throttles-left', 'broker:1 follower.replication.throttled.rate=12345'), `a throttle left behind:\n${result.trace}`);
  assert.ok(found('foreign-restored', 'broker:3 leader.replication.throttled.rate=8888, was 7777'), `a foreign value:\n${result.trace}`);
  assert.ok(found('converged', 'throttles still set'), `not converged:\n${result.trace}`);
  assert.match(result.trace ?? '', /t0-3 start ->\[0\] by rogue/, 'the trace shows the rogue start from the journal');
});
