// The origin of a reassignment (issue 33 part 4: "goal or plan" in the console's history) over a
// simulated cluster, real TCP, every response validated against openapi.yaml: a POST /plans
// answer posted as {plan} keeps its goal; a hand-written body has none ("manual"); a body may
// label itself; a bad label is refused and changes nothing. The ManualClock is never advanced:
// the moves stay running, so each case uses its own topic.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/sim/index.js';
import { StateStore } from '../../src/state/store.js';
import { expectProblem } from './helpers.js';
import { createTopics, startReassignGateway, type ReassignGateway } from './reassignment-helpers.js';

let gw: ReassignGateway;

before(async () => {
  gw = await startReassignGateway({ clock: new ManualClock(), simulator: { brokers: 4 } });
  await createTopics(
    gw,
    {
      name: 'orders',
      assignments: [
        [0, 3],
        [3, 1],
        [1, 2],
        [2, 3],
      ],
    },
    { name: 'plain', assignments: [[0, 1]] },
    { name: 'labelled', assignments: [[1, 2]] },
  );
});
after(() => gw?.close());

async function listed(id: string): Promise<Record<string, unknown>> {
  const list = await gw.http().get('/reassignments');
  assert.equal(list.status, 200, JSON.stringify(list.body));
  const row = list.body.reassignments.find((r: { id: string }) => r.id === id);
  assert.ok(row, `${id} in GET /reassignments`);
  return row;
}

describe('reassignment origin', () => {
  it('POST /plans decommission, then its answer as {plan}: the goal and what it empties are kept and read back', async () => {
    const planned = await gw
      .http()
      .post('/plans')
      .send({ goal: 'decommission', brokers: [3], topics: ['orders'] });
    assert.equal(planned.status, 200, JSON.stringify(planned.body));
    assert.equal(planned.body.movedReplicas, 3, 'orders-0, -1 and -3 each have a replica on broker 3');

    const started = await gw.http().post('/reassignments').send({ plan: planned.body, throttle: 100_000 });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const id: string = started.body.id;
    const expected = { goal: 'decommission', description: 'broker 3 emptied; 3 partitions changed; 3 replicas moved' };
    assert.deepEqual(started.body.summary.origin, expected);

    const got = await gw.http().get(`/reassignments/${id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.origin, expected);
    assert.deepEqual((await listed(id)).origin, expected);

    // A fresh reader of the state topic (another instance) finds it in the record.
    const reader = new StateStore(gw.kafka.stateTopic({ name: gw.runtime.config.stateTopic }));
    const stored = (await reader.refresh()).reassignments.get(id);
    assert.deepEqual(stored?.origin, expected);
  });

  it('a hand-written body has no origin (the console says "manual"); a body may give its own', async () => {
    const plain = await gw
      .http()
      .post('/reassignments')
      .send({ partitions: [{ topic: 'plain', partition: 0, replicas: [1, 0] }] });
    assert.equal(plain.status, 202, JSON.stringify(plain.body));
    assert.equal('origin' in (await gw.http().get(`/reassignments/${plain.body.id}`)).body, false);
    assert.equal('origin' in (await listed(plain.body.id)), false);

    const origin = { goal: 'nightly-balance', description: 'CI pipeline run 4711' };
    const labelled = await gw
      .http()
      .post('/reassignments')
      .send({ version: 1, partitions: [{ topic: 'labelled', partition: 0, replicas: [2, 1], log_dirs: ['any', 'any'] }], origin });
    assert.equal(labelled.status, 202, JSON.stringify(labelled.body));
    assert.deepEqual((await gw.http().get(`/reassignments/${labelled.body.id}`)).body.origin, origin);
    assert.deepEqual((await listed(labelled.body.id)).origin, origin);
  });

  it('a bad origin is a 400 that names it, and nothing starts', async () => {
    const count = async () => (await gw.http().get('/reassignments')).body.reassignments.length;
    const before = await count();
    for (const origin of [
      { goal: 'two words' },
      { goal: 'x'.repeat(65) },
      { goal: 'ok', description: 'd'.repeat(201) },
      { goal: 'ok', plan: 'extra' },
      'decommission',
    ]) {
      const res = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: [{ topic: 'plain', partition: 0, replicas: [0, 1] }], origin });
      expectProblem(res, 400, 'validation-failed');
      assert.ok(
        res.body.errors.some((e: { path: string }) => e.path.startsWith('/body/origin')),
        JSON.stringify(res.body),
      );
    }
    assert.equal(await count(), before);
  });
});
