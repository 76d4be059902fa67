// src/worker/size-probe.ts, bin/gateway.sh's decision for GATEWAY_WORKER_THREAD=auto, run as the
// launcher runs it (a process of its own) against the simulator over TCP.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { startSimulator, type Simulator } from '../../src/sim/index.js';

const PROBE = fileURLToPath(new URL('../../src/worker/size-probe.ts', import.meta.url));
let sim: Simulator;

before(async () => {
  sim = await startSimulator({ brokerIds: [1, 2, 3] });
  for (const [name, count] of [
    ['probe-a', 7],
    ['probe-b', 5],
  ] as const)
    sim.model.createTopic({ name, assignments: Array.from({ length: count }, (_, p) => ({ partition: p, brokerIds: [1 + (p % 3)] })) });
});
after(() => sim.close());

async function probe(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', PROBE], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, out };
}

test('auto: on from GATEWAY_WORKER_THREAD_MIN_PARTITIONS up, off below, with the count it read', async () => {
  const total = (await import('../../src/kafka/admin.js')).createKafkaGateway({
    ...(await import('../../src/kafka/config.js')).parseKafkaConfig({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') }),
  });
  const partitions = (await total.listTopics()).reduce((sum, t) => sum + t.partitions, 0);
  await total.close();
  assert.ok(partitions >= 12, String(partitions));
  const bootstrap = { KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') };
  const on = await probe({ ...bootstrap, GATEWAY_WORKER_THREAD_MIN_PARTITIONS: String(partitions) });
  assert.deepEqual(on, { code: 0, out: `on auto: the cluster has ${partitions} partitions (at least ${partitions})\n` });
  const off = await probe({ ...bootstrap, GATEWAY_WORKER_THREAD: 'auto', GATEWAY_WORKER_THREAD_MIN_PARTITIONS: String(partitions + 1) });
  assert.deepEqual(off, { code: 0, out: `off auto: the cluster has ${partitions} partitions (fewer than ${partitions + 1})\n` });
  // The default threshold: 50,000.
  assert.match((await probe(bootstrap)).out, /^off auto: the cluster has \d+ partitions \(fewer than 50,000\)\n$/);
});

test('the embedded demo is never large; on and off are passed on as they are', async () => {
  assert.deepEqual(await probe({}), { code: 0, out: 'off auto: the cluster is the embedded demo (fewer than 50,000)\n' });
  assert.deepEqual(await probe({ GATEWAY_WORKER_THREAD: 'on' }), { code: 0, out: 'on GATEWAY_WORKER_THREAD=on\n' });
  assert.deepEqual(await probe({ GATEWAY_WORKER_THREAD: 'off' }), { code: 0, out: 'off GATEWAY_WORKER_THREAD=off\n' });
});

test('a setting it cannot read: no answer (exit 1), so the gateway decides and reports it itself', async () => {
  assert.deepEqual(await probe({ GATEWAY_WORKER_THREAD: 'sometimes' }), { code: 1, out: '' });
  assert.deepEqual(await probe({ GATEWAY_WORKER_THREAD_MIN_PARTITIONS: 'many' }), { code: 1, out: '' });
});
