// SIGTERM with the gateway as a real child process in front of a simulator whose
// DescribeCluster handler is held on a gate, so a GET /cluster stays in flight exactly as long
// as the test wants (no fixed sleeps):
//   - during the drain /readyz answers 503 shutting-down (not a refused connection) and a new
//     request is answered 503 shutting-down with Retry-After;
//   - the request in flight finishes with its answer, and the process exits 0;
//   - a request still running when SHUTDOWN_TIMEOUT_MS ends gets 503 shutting-down with Retry-After.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { it } from 'node:test';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { spawnGateway, type GatewayProcess } from './gateway-process.js';

function get(url: string): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const DESCRIBE_CLUSTER = 60;

/** Holds the simulator's DescribeCluster answers until release(); `arrived` resolves when one is held. */
function gateDescribeCluster(sim: Simulator): { arrived: Promise<void>; release(): void; restore(): void } {
  const handler = sim.handlers.get(DESCRIBE_CLUSTER)!;
  const original = handler.handle.bind(handler);
  let arrive!: () => void;
  const arrived = new Promise<void>((r) => (arrive = r));
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  handler.handle = async (ctx, req) => {
    arrive();
    await gate;
    return original(ctx, req);
  };
  return { arrived, release: () => open(), restore: () => void (handler.handle = original) };
}

async function ready(gw: GatewayProcess): Promise<string> {
  const url = await gw.url;
  // /readyz also reads the state topic: once it is 200 the topic exists and nothing else needs DescribeCluster.
  for (;;) {
    if ((await get(`${url}/readyz`)).status === 200) return url;
    await new Promise((r) => setImmediate(r));
  }
}

const problemType = (body: string) => (JSON.parse(body) as { type: string }).type;

it('SIGTERM during a request: /readyz 503 and new requests 503 while it drains; the request finishes; exit 0', async () => {
  const sim = await startSimulator({ brokers: 2 });
  const gw = spawnGateway({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), GATEWAY_AUTH: 'none', SHUTDOWN_TIMEOUT_MS: '60000' });
  let gate: ReturnType<typeof gateDescribeCluster> | undefined;
  try {
    const url = await ready(gw);
    gate = gateDescribeCluster(sim); // after readiness: the readiness probe uses DescribeCluster too
    const inFlight = get(`${url}/cluster`);
    await gate.arrived;
    gw.child.kill('SIGTERM');
    // Wait for the drain to have begun: /readyz turns 503 (it never refuses the connection).
    let readyz: Awaited<ReturnType<typeof get>>;
    // (Before the signal lands, /readyz still probes Kafka, whose DescribeCluster is held: not yet the drain.)
    do readyz = await get(`${url}/readyz`);
    while (readyz.status !== 503 || problemType(readyz.body) !== 'https://kafka-admin-gateway.dev/problems/shutting-down');
    assert.equal(readyz.status, 503);
    assert.equal(problemType(readyz.body), 'https://kafka-admin-gateway.dev/problems/shutting-down');
    const fresh = await get(`${url}/topics`);
    assert.equal(fresh.status, 503, fresh.body);
    assert.equal(problemType(fresh.body), 'https://kafka-admin-gateway.dev/problems/shutting-down');
    assert.equal(fresh.headers['retry-after'], '1');
    assert.equal((await get(`${url}/healthz`)).status, 200, 'still alive while draining');

    gate.release();
    const res = await inFlight;
    assert.equal(res.status, 200, res.body);
    assert.ok(Array.isArray(JSON.parse(res.body).brokers));
    assert.equal(await gw.exited, 0, gw.output());
    assert.ok(
      gw.logs.some((l) => l.msg === 'shutting down' && l.reason === 'SIGTERM'),
      gw.output(),
    );
    assert.ok(gw.logs.some((l) => l.msg === 'stopped'));
    await assert.rejects(get(`${url}/healthz`), /ECONNREFUSED|ECONNRESET/, 'gone after the drain');
  } finally {
    gate?.release();
    gate?.restore();
    if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
    await sim.close();
  }
});

it('a request still running when SHUTDOWN_TIMEOUT_MS ends is answered 503 shutting-down with Retry-After', async () => {
  const sim = await startSimulator({ brokers: 2 });
  const gw = spawnGateway({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), GATEWAY_AUTH: 'none', SHUTDOWN_TIMEOUT_MS: '300' });
  let gate: ReturnType<typeof gateDescribeCluster> | undefined;
  try {
    const url = await ready(gw);
    gate = gateDescribeCluster(sim); // after readiness: the readiness probe uses DescribeCluster too
    const inFlight = get(`${url}/cluster`);
    await gate.arrived; // held until the end of the test: it cannot finish in time
    gw.child.kill('SIGTERM');
    const res = await inFlight;
    assert.equal(res.status, 503, res.body);
    assert.equal(problemType(res.body), 'https://kafka-admin-gateway.dev/problems/shutting-down');
    assert.equal(res.headers['retry-after'], '1');
    assert.match(JSON.parse(res.body).detail, /SHUTDOWN_TIMEOUT_MS=300/);
    assert.equal(await gw.exited, 0, gw.output());
    assert.ok(
      gw.logs.some((l) => l.msg === 'shutdown timeout: answering the requests still running with 503'),
      gw.output(),
    );
  } finally {
    gate?.release();
    gate?.restore();
    if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
    await sim.close();
  }
});
