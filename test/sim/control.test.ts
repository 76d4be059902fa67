// The simulator's control port (src/sim/control.ts) over HTTP: stop and start one broker, the
// state view (brokers, controller, a topic's leaders), its refusals, added routes, and the same
// API from `npm run sim -- --control-port` and from the simulator embedded in `npm start`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../../src/sim/index.js';
import { parseControlPort, startControlServer } from '../../src/sim/control.js';
import { spawnGateway } from '../http/gateway-process.js';
import { request } from './wire.js';

async function call(url: string, method = 'GET'): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method });
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return { status: res.status, body: await res.json() };
}

/** Resolves true when the port accepts a TCP connection, false when it refuses it. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

test('POST /brokers/{id}/stop and /start, GET /state with a topic’s leaders, over HTTP', async () => {
  const sim = await startSimulator({ brokers: 3, racks: ['a', 'a', 'b'] });
  const control = await startControlServer(sim);
  try {
    sim.model.createTopic({
      name: 'c',
      assignments: [
        { partition: 0, brokerIds: [0, 1] },
        { partition: 1, brokerIds: [1, 2] },
      ],
    });
    const port0 = sim.endpoints().find((e) => e.id === 0)!.port;
    const state = await call(`${control.url}/state`);
    assert.equal(state.status, 200);
    assert.deepEqual(
      state.body.brokers.map((b: any) => [b.id, b.up, b.rack]),
      [
        [0, true, 'a'],
        [1, true, 'a'],
        [2, true, 'b'],
      ],
    );
    assert.deepEqual(
      [state.body.clusterId, state.body.controllerId, state.body.movingPartitions, state.body.topics],
      [sim.clusterId, 0, 0, undefined],
    );

    const stopped = await call(`${control.url}/brokers/0/stop`, 'POST');
    assert.deepEqual([stopped.status, stopped.body.id, stopped.body.up, stopped.body.port], [200, 0, false, port0]);
    assert.equal(await accepts(port0), false, 'a stopped broker refuses connections');
    const after = await call(`${control.url}/state?topic=c`);
    assert.equal(after.body.controllerId, 1, 'the controller moved to the lowest live broker');
    assert.deepEqual(
      after.body.topics[0].partitions.map((p: any) => [p.partition, p.leader, p.replicas, p.isr, p.offlineReplicas]),
      [
        [0, 1, [0, 1], [1], [0]],
        [1, 1, [1, 2], [1, 2], []],
      ],
    );
    // Kafka clients see the same: Metadata from a live broker leaves broker 0 out.
    const md = await request(sim.endpoints().find((e) => e.id === 1)!.port, 3, 12, {
      topics: [{ name: 'c', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    assert.deepEqual(
      md.brokers.map((b: any) => b.nodeId),
      [1, 2],
    );
    assert.equal(md.topics[0].partitions[0].leaderId, 1);

    assert.equal((await call(`${control.url}/brokers/0/stop`, 'POST')).status, 200, 'stopping a stopped broker is idempotent');
    const started = await call(`${control.url}/brokers/0/start`, 'POST');
    assert.deepEqual([started.status, started.body.up], [200, true]);
    assert.equal(await accepts(sim.endpoints().find((e) => e.id === 0)!.port), true);
    const back = await call(`${control.url}/state?topic=c&topic=c`);
    assert.equal(back.body.topics.length, 2);
    assert.deepEqual(back.body.topics[0].partitions[0].isr, [1, 0], 'the returning replica rejoins the ISR, last; the leader stays');
    assert.equal(back.body.topics[0].partitions[0].leader, 1);
  } finally {
    await control.close();
    await sim.close();
  }
});

test('refusals: unknown broker 404, bad id 400, wrong method 405, unknown route or topic 404, unknown query 400', async () => {
  const sim = await startSimulator({ brokers: 2 });
  const control = await startControlServer(sim);
  try {
    const cases: [string, string, number, RegExp][] = [
      ['POST', '/brokers/9/stop', 404, /no broker 9 \(brokers: 0, 1\)/],
      ['POST', '/brokers/one/stop', 400, /non-negative integer, got 'one'/],
      ['POST', '/brokers/-1/start', 400, /non-negative integer/],
      ['GET', '/brokers/0/stop', 405, /GET is not allowed/],
      ['POST', '/state', 405, /POST is not allowed/],
      ['GET', '/nope', 404, /no route GET \/nope/],
      ['GET', '/state?topic=ghost', 404, /no topic 'ghost'/],
      ['GET', '/state?brokers=1', 400, /unknown query parameter\(s\): brokers/],
    ];
    for (const [method, path, status, message] of cases) {
      const res = await call(`${control.url}${path}`, method);
      assert.equal(res.status, status, `${method} ${path}`);
      assert.match(res.body.error, message);
    }
    assert.deepEqual(
      sim.endpoints().map((e) => e.up),
      [true, true],
      'no refusal changed anything',
    );
  } finally {
    await control.close();
    await sim.close();
  }
});

test('other controls can join the same port: routes added to the router', async () => {
  const sim = await startSimulator({ brokers: 1 });
  const control = await startControlServer(sim);
  try {
    control.router.route('POST', '/brokers/:id/delay', ({ params, body }) => {
      const ms = (body as { ms?: unknown } | undefined)?.ms;
      sim.setBrokerDelay(Number(params.id), Number(ms));
      return { status: 200, body: { id: Number(params.id), delayMs: ms } };
    });
    const res = await fetch(`${control.url}/brokers/0/delay`, { method: 'POST', body: JSON.stringify({ ms: 5 }) });
    assert.deepEqual([res.status, await res.json()], [200, { id: 0, delayMs: 5 }]);
    const bad = await fetch(`${control.url}/brokers/0/delay`, { method: 'POST', body: '{nope' });
    assert.deepEqual([bad.status, (await bad.json()).error], [400, 'body is not JSON']);
  } finally {
    await control.close();
    await sim.close();
  }
});

test('SIM_CONTROL_PORT / --control-port values', () => {
  assert.equal(parseControlPort(undefined), undefined);
  assert.equal(parseControlPort(''), undefined);
  assert.equal(parseControlPort('0'), 0);
  assert.equal(parseControlPort('19999'), 19999);
  for (const bad of ['-1', '65536', 'abc', '1.5']) assert.ok(typeof parseControlPort(bad) === 'object', bad);
});

test('npm run sim -- --control-port: the CLI serves the control API; a stopped broker leaves the cluster', async () => {
  const cli = fileURLToPath(new URL('../../src/sim/cli.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', cli, '--brokers', '2', '--control-port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /control API: (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`sim exited (${code}):\n${out}`)));
    });
    const stopped = await call(`${url}/brokers/1/stop`, 'POST');
    assert.deepEqual([stopped.status, stopped.body.up], [200, false]);
    const state = await call(`${url}/state`);
    assert.deepEqual(
      state.body.brokers.map((b: any) => [b.id, b.up]),
      [
        [0, true],
        [1, false],
      ],
    );
    const md = await request(state.body.brokers[0].port, 3, 12, {
      topics: null,
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    assert.deepEqual(
      md.brokers.map((b: any) => b.nodeId),
      [0],
    );
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});

test('npm start with SIM_CONTROL_PORT: the embedded simulator’s brokers stop and start over HTTP', async () => {
  const gw = spawnGateway({ SIM_CONTROL_PORT: '0' });
  try {
    await gw.url;
    const line = gw.logs.find((l) => l.msg === 'embedded simulator control API');
    assert.ok(line && typeof line.url === 'string', gw.output());
    const url = line.url;
    const before = await call(`${url}/state?topic=orders`);
    assert.equal(before.body.brokers.length, 4);
    const leader = before.body.topics[0].partitions[0].leader as number;
    assert.equal((await call(`${url}/brokers/${leader}/stop`, 'POST')).status, 200);
    const after = await call(`${url}/state?topic=orders`);
    assert.notEqual(after.body.topics[0].partitions[0].leader, leader, 'orders-0 has another leader (or none) once its leader stops');
    assert.equal((await call(`${url}/brokers/${leader}/start`, 'POST')).body.up, true);
  } finally {
    gw.child.kill('SIGTERM');
    await gw.exited;
  }
});
