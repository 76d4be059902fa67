// /cluster, /healthz, /readyz against a simulated cluster, including a full outage
// (every broker stopped) and the recovery after it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../eventually.js';
import { expectProblem, startGateway, type Gateway } from './helpers.js';

describe('GET /cluster', () => {
  let gw: Gateway;
  before(async () => {
    gw = await startGateway({ simulator: { brokers: 4, racks: ['rack-a', 'rack-a', 'rack-b', null], clusterId: 'test-cluster-id' } });
  });
  after(() => gw?.close());

  it('200 with cluster id, controller and every broker with host, port and rack', async () => {
    const res = await gw.http().get('/cluster');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.clusterId, 'test-cluster-id');
    assert.deepEqual(
      res.body.brokers.map((b: { id: number; rack: string | null }) => [b.id, b.rack]),
      [
        [0, 'rack-a'],
        [1, 'rack-a'],
        [2, 'rack-b'],
        [3, null],
      ],
    );
    const advertised = res.body.brokers.map((b: { host: string; port: number }) => `${b.host}:${b.port}`).sort();
    assert.deepEqual(advertised, [...gw.sim.bootstrapServers].sort());
    assert.ok([0, 1, 2, 3].includes(res.body.controllerId));
  });

  it('/healthz 200 and /readyz 200 while the cluster is up', async () => {
    assert.deepEqual((await gw.http().get('/healthz')).body, { status: 'ok' });
    const ready = await gw.http().get('/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready' });
  });
});

describe('cluster outage', () => {
  let gw: Gateway;
  before(async () => {
    gw = await startGateway({ simulator: { brokers: 2 } });
  });
  after(() => gw?.close());

  it('503 with Retry-After on Kafka-backed routes and /readyz; /healthz stays 200; recovers when brokers return', async () => {
    assert.equal((await gw.http().get('/readyz')).status, 200);
    await gw.sim.stopBroker(0);
    await gw.sim.stopBroker(1);

    for (const res of [await gw.http().get('/readyz'), await gw.http().get('/cluster'), await gw.http().get('/topics')]) {
      assert.equal(res.status, 503, JSON.stringify(res.body));
      expectProblem(res, 503, res.body.type.endsWith('kafka-timeout') ? 'kafka-timeout' : 'kafka-unavailable');
      assert.ok(Number(res.headers['retry-after']) >= 1);
      assert.ok(res.body.kafkaError?.name, 'the Kafka-side failure is named');
    }
    assert.equal((await gw.http().get('/healthz')).status, 200, 'liveness must not depend on Kafka');

    await gw.sim.startBroker(0);
    await gw.sim.startBroker(1);
    // The client reconnects on demand: poll readiness until it is back (or the deadline).
    await eventually(
      'readyz 200 after the broker is back',
      async () => {
        assert.equal((await gw.http().get('/readyz')).status, 200);
        return true;
      },
      { timeoutMs: 15_000, everyMs: 50 },
    );
    assert.equal((await gw.http().get('/cluster')).status, 200);
  });
});
