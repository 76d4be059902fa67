// One validateOnly convention (issue 11 item 4), over the wire against the simulator: every
// operation that can validate without applying takes `?validateOnly=true`; the request-object
// bodies (POST /reassignments, POST /topics/{topic}/partitions) also take it as a body field;
// both given and different is a 400. Each validate-only call answers as documented and changes
// nothing in the cluster (topics, partitions, quotas, moves, the gateway's records).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectProblem, snapshotCluster } from './helpers.js';
import { createTopics, startReassignGateway, type ReassignGateway } from './reassignment-helpers.js';

let gw: ReassignGateway;
before(async () => {
  gw = await startReassignGateway({ reconcile: false });
  await createTopics(gw, {
    name: 'vo',
    assignments: [
      [0, 1],
      [1, 2],
    ],
  });
});
after(() => gw?.close());

/** Everything a validate-only call must leave alone. */
async function state() {
  return {
    cluster: await snapshotCluster(gw.app),
    quotas: (await gw.http().get('/quotas')).body,
    moving: await gw.kafka.listPartitionReassignments(),
    reassignments: (await gw.http().get('/reassignments')).body.reassignments,
  };
}

describe('validateOnly: one convention', () => {
  it('the query parameter works on every operation that has it; nothing changes', async () => {
    const before = await state();
    const created = await gw.http().post('/topics?validateOnly=true').send({ name: 'vo-new', partitions: 2, replicationFactor: 2 });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const grown = await gw.http().post('/topics/vo/partitions?validateOnly=true').send({ count: 4 });
    assert.deepEqual([grown.status, grown.body], [200, { topic: 'vo', partitions: 4, validateOnly: true }]);
    const batch = await gw
      .http()
      .post('/partitions?validateOnly=true')
      .send([{ topic: 'vo', count: 3 }]);
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    const quota = await gw
      .http()
      .put('/quotas?validateOnly=true')
      .send({ entity: { clientId: 'vo-client' }, controllerMutationRate: 5 });
    assert.equal(quota.status, 200, JSON.stringify(quota.body));
    const move = await gw
      .http()
      .post('/reassignments?validateOnly=true')
      .send({ partitions: [{ topic: 'vo', partition: 0, replicas: [2, 0] }], throttle: 1048576 });
    assert.equal(move.status, 200, JSON.stringify(move.body));
    assert.equal(move.body.totals?.partitions, 1, 'the plan (totals; per-partition rows only with ?detail=true)');
    assert.deepEqual(await state(), before);
  });

  it('the body field works where the body is a request object; both places agreeing is fine', async () => {
    const before = await state();
    const grown = await gw.http().post('/topics/vo/partitions').send({ count: 5, validateOnly: true });
    assert.deepEqual([grown.status, grown.body], [200, { topic: 'vo', partitions: 5, validateOnly: true }]);
    const move = await gw
      .http()
      .post('/reassignments')
      .send({ partitions: [{ topic: 'vo', partition: 1, replicas: [0, 2] }], validateOnly: true });
    assert.equal(move.status, 200, JSON.stringify(move.body));
    const agreeing = await gw
      .http()
      .post('/reassignments?validateOnly=true')
      .send({ partitions: [{ topic: 'vo', partition: 1, replicas: [0, 2] }], validateOnly: true });
    assert.equal(agreeing.status, 200, JSON.stringify(agreeing.body));
    assert.deepEqual(await state(), before);
  });

  it('query and body disagreeing: 400 naming /query/validateOnly, nothing changes', async () => {
    const before = await state();
    const grow = await gw.http().post('/topics/vo/partitions?validateOnly=false').send({ count: 5, validateOnly: true });
    expectProblem(grow, 400, 'validation-failed');
    assert.equal(grow.body.errors[0].path, '/query/validateOnly');
    const move = await gw
      .http()
      .post('/reassignments?validateOnly=true')
      .send({ partitions: [{ topic: 'vo', partition: 1, replicas: [0, 2] }], validateOnly: false });
    expectProblem(move, 400, 'validation-failed');
    assert.deepEqual(await state(), before);
  });
});
