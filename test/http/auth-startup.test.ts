// The refuse-to-start rule, on the real entry point (src/main.ts as a child process):
// in front of a real cluster without authentication it exits 1 before connecting
// anywhere; with GATEWAY_AUTH=none it starts and warns; with tokens it enforces them.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { generateToken, sha256Hex } from '../../src/http/auth/tokens.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { spawnGateway } from './gateway-process.js';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 1 });
});
after(() => sim?.close());

it('KAFKA_BOOTSTRAP_SERVERS without authentication: refuses to start, saying why', async () => {
  const gw = spawnGateway({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') });
  assert.equal(await gw.exited, 1);
  assert.match(gw.output(), /refusing to start without authentication in front of a real cluster/);
});

it('GATEWAY_AUTH=none: starts, with a loud warning', async () => {
  const gw = spawnGateway({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), GATEWAY_AUTH: 'none' });
  try {
    const url = await gw.url;
    assert.equal((await fetch(`${url}/topics`)).status, 200);
    assert.ok(gw.logs.some((l) => l.level === 'warn' && /AUTHENTICATION DISABLED/.test(String(l.msg))));
  } finally {
    gw.child.kill('SIGTERM');
    await gw.exited;
  }
});

it('GATEWAY_TOKENS: tokens enforced; the token never appears in the logs', async () => {
  const token = generateToken();
  const gw = spawnGateway({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), GATEWAY_TOKENS: `ops:operator:${sha256Hex(token)}` });
  try {
    const url = await gw.url;
    assert.equal((await fetch(`${url}/topics`)).status, 401);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    const created = await fetch(`${url}/topics`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'from-child', partitions: 1, replicationFactor: 1 }),
    });
    assert.equal(created.status, 201);
    gw.child.kill('SIGTERM');
    await gw.exited;
    assert.ok(
      gw.logs.some((l) => l.type === 'audit' && (l.principal as { id: string } | null)?.id === 'ops'),
      gw.output(),
    );
    assert.ok(!gw.output().includes(token));
  } finally {
    if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
  }
});
