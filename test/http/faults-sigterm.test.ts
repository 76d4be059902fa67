// SIGTERM during a request, with the gateway as a real child process in front of a
// simulator made slow on purpose: the request in flight finishes with its answer, new
// connections are refused, and the process exits 0.
import assert from 'node:assert/strict';
import { httpGet } from './http-get.js';
import { it } from 'node:test';
import { startSimulator } from '../../src/sim/index.js';
import { spawnGateway } from './gateway-process.js';

const get = httpGet;

it('SIGTERM during a request: the request finishes, then the process exits 0', async () => {
  const sim = await startSimulator({ brokers: 2 });
  const gw = spawnGateway({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), GATEWAY_AUTH: 'none', SHUTDOWN_TIMEOUT_MS: '10000' });
  try {
    const url = await gw.url;
    assert.equal((await get(`${url}/topics`)).status, 200);
    for (const id of [0, 1]) sim.setBrokerDelay(id, 1200);

    const inFlight = get(`${url}/cluster`);
    await new Promise((r) => setTimeout(r, 300));
    gw.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    await assert.rejects(get(`${url}/healthz`), /ECONNREFUSED|ECONNRESET/, 'new connections are refused while draining');

    const res = await inFlight;
    assert.equal(res.status, 200, res.body);
    assert.ok(Array.isArray(JSON.parse(res.body).brokers));
    assert.equal(await gw.exited, 0, gw.output());
    assert.ok(gw.logs.some((l) => l.msg === 'shutting down' && l.reason === 'SIGTERM'), gw.output());
    assert.ok(gw.logs.some((l) => l.msg === 'stopped'));
  } finally {
    if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
    await sim.close();
  }
});
