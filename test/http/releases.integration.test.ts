// The README's scenarios against the simulator answering as each Kafka release the gateway
// supports (issue 29): 2.8 (ZooKeeper), 3.3, 3.5, 3.7, 3.9, 4.0 and 4.2 (KRaft), with the
// out-of-range guard on: the test fails if the gateway sends any request outside the release's
// ranges (the simulator closes the connection on one, as Kafka does, and records it). A few
// seconds per release: small topics, fast copies.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startReassignGateway, type ReassignGateway } from './reassignment-helpers.js';
import { eventually } from '../eventually.js';
import { assertNoRequestOutsideRelease } from '../sim/out-of-range-guard.js';

const RELEASES = [
  ['2.8', 'zookeeper'],
  ['3.3', 'kraft'],
  ['3.5', 'kraft'],
  ['3.7', 'kraft'],
  ['3.9', 'kraft'],
  ['4.0', 'kraft'],
  ['4.2', 'kraft'],
] as const;

for (const [version, mode] of RELEASES) {
  describe(`Kafka ${version} (${mode})`, () => {
    let gw: ReassignGateway;
    before(async () => {
      gw = await startReassignGateway({
        simulator: { brokers: 4, kafkaVersion: version, kafkaMode: mode, seedBytes: 20_000, replicationBytesPerSecond: 10 * 1024 * 1024 },
      });
    });
    after(async () => {
      await gw?.close();
    });

    const done = (id: string) =>
      eventually(async () => {
        const r = await gw.http().get(`/reassignments/${id}`);
        return r.body.throttlesRemovedAt ? r.body : undefined;
      }, 20_000);

    it('GET /cluster names the release and the mode', async () => {
      const res = await gw.http().get('/cluster').expect(200);
      assert.deepEqual([res.body.kafka.release, res.body.kafka.mode], [version, mode]);
      assert.equal(res.body.brokers.length, 4);
    });

    it('topics: create, list, describe, increase partitions, delete', async () => {
      for (const t of [
        {
          name: 'orders',
          assignments: [
            [0, 1],
            [1, 2],
            [2, 3],
            [3, 0],
          ],
        },
        { name: 'clicks', partitions: 2, replicationFactor: 2 },
      ]) {
        const res = await gw.http().post('/topics').send(t);
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
      const list = await gw.http().get('/topics').expect(200);
      assert.ok(['orders', 'clicks'].every((n) => list.body.topics.some((t: { name: string }) => t.name === n)));
      assert.equal((await gw.http().get('/topics/orders').expect(200)).body.partitions.length, 4);
      const more = await gw.http().post('/topics/clicks/partitions').send({ count: 3 });
      assert.equal(more.status, 200, JSON.stringify(more.body));
      assert.equal((await gw.http().get('/topics/clicks').expect(200)).body.partitions.length, 3);
      const gone = await gw.http().delete('/topics/clicks');
      assert.ok(gone.status === 200 || gone.status === 204, JSON.stringify(gone.body));
    });

    it('a throttled reassignment: its throttles go once it completes; the state topic keeps it', async () => {
      const res = await gw
        .http()
        .post('/reassignments')
        .send({ partitions: [{ topic: 'orders', partition: 0, replicas: [1, 2] }], throttle: 4_194_304 });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const final = await done(res.body.id);
      assert.equal(final.state, 'completed');
      assert.deepEqual((await gw.http().get('/throttles').expect(200)).body, { rates: [], replicas: [] });
      const listed = await gw.http().get('/reassignments').expect(200);
      assert.ok(
        listed.body.reassignments.some((r: { id: string }) => r.id === res.body.id),
        'read back from the state topic',
      );
    });

    it('a paced reassignment (one move per broker at a time) and a plan', async () => {
      const res = await gw
        .http()
        .post('/reassignments')
        .send({
          partitions: [
            { topic: 'orders', partition: 1, replicas: [2, 3] },
            { topic: 'orders', partition: 2, replicas: [3, 0] },
          ],
          throttle: 4_194_304,
          concurrency: { perBroker: 1 },
        });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.equal((await done(res.body.id)).state, 'completed');
      const plan = await gw
        .http()
        .post('/plans')
        .send({ goal: 'decommission', brokers: [3] });
      assert.equal(plan.status, 200, JSON.stringify(plan.body));
      const dry = await gw
        .http()
        .post('/reassignments')
        .send({ plan: plan.body, throttle: 4_194_304, concurrency: { perBroker: 1 }, validateOnly: true });
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
    });

    it('quotas and 429; throttles as resources', async () => {
      await gw
        .http()
        .put('/quotas')
        .send({ entity: { clientId: null }, controllerMutationRate: 2 })
        .expect(200);
      assert.equal((await gw.http().post('/topics').send({ name: 'burst-1', partitions: 30, replicationFactor: 1 })).status, 201);
      const throttled = await gw.http().post('/topics').send({ name: 'burst-2', partitions: 1, replicationFactor: 1 });
      assert.equal(throttled.status, 429, JSON.stringify(throttled.body));
      assert.ok(Number(throttled.headers['retry-after']) >= 1);
      assert.equal((await gw.http().delete('/quotas?defaultClientId=true')).status, 204);

      await gw
        .http()
        .put('/throttles/rates')
        .send({ rates: [{ broker: 1, leaderRate: 1_048_576, followerRate: 1_048_576 }], ttlSeconds: 3600 })
        .expect(200);
      await gw
        .http()
        .put('/throttles/replicas')
        .send({ replicas: [{ topic: 'orders', partition: 0, leader: [1], follower: [3] }] })
        .expect(200);
      const t = await gw.http().get('/throttles').expect(200);
      assert.equal(t.body.rates.length, 1);
      assert.equal(t.body.replicas.length, 1);
      assert.equal((await gw.http().delete('/throttles/rates?brokers=1')).status < 300, true);
      assert.equal((await gw.http().delete('/throttles/replicas?topics=orders')).status < 300, true);
      assert.deepEqual((await gw.http().get('/throttles').expect(200)).body, { rates: [], replicas: [] });
    });

    it('no request outside the release range', () => {
      assertNoRequestOutsideRelease(gw.sim);
    });
  });
}
