// Chaos run: two gateway processes (src/main.ts) in front of one simulated cluster, through
// throttled reassignments while the cluster and the gateways are broken at random:
//   - a broker stopped mid-move (half of the time the broker that leads the state topic),
//     started again a little later;
//   - a gateway instance SIGKILLed at a random moment of a POST /reassignments or of the
//     move, then restarted;
//   - foreign throttles (someone else's) present the whole time.
// After every run the move must end, and at the end every throttle the gateway set must be
// gone and every foreign value as it was. It prints runs, faults, throttles left behind
// (must be 0) and foreign values changed (must be 0); the exit code is 1 otherwise.
//
//   npm run bench:chaos                 (CHAOS_RUNS=8, CHAOS_SEED=1)
//   CHAOS_RUNS=30 CHAOS_SEED=7 npm run bench:chaos
//
// Every part is its own process, as on a real cluster: the simulator (`npm run sim`, i.e.
// src/sim/cli.ts, with its control port) and the two gateways (src/main.ts) are child
// processes; brokers are stopped and started through the simulator's control API
// (POST /brokers/{id}/stop|start, src/sim/control.ts), and this script reads the cluster
// with its own Kafka client over TCP.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createKafkaGateway } from '../src/kafka/admin.js';
import { parseKafkaConfig } from '../src/kafka/config.js';
import { describeConfigOverrides, incrementalAlterConfigs } from '../src/kafka/configs.js';

const RUNS = Math.max(1, Number(process.env.CHAOS_RUNS ?? 8));
let seed = Number(process.env.CHAOS_SEED ?? 1);
// The high bits of the LCG (its low bits have short periods: seed % 2 alternates).
const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), Math.floor((seed / 2 ** 31) * n));
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const SIM_CLI = fileURLToPath(new URL('../src/sim/cli.ts', import.meta.url));
const STATE = '_kafka_admin_gateway_state';
const THROTTLE_KEYS = ['leader.replication.throttled.replicas', 'follower.replication.throttled.replicas', 'leader.replication.throttled.rate', 'follower.replication.throttled.rate'];
const FOREIGN: Record<string, Record<string, string>> = {
  'broker:3': { 'leader.replication.throttled.rate': '7777' },
  'topic:foreign': { 'follower.replication.throttled.replicas': '0:3' },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The simulator as a separate process: 4 brokers, 2 MB/s of replication, 400 kB in every new partition. */
async function startSim(): Promise<{ child: ChildProcess; bootstrap: string; control: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SIM_CLI, '--brokers', '4', '--replication-bytes-per-second', '2000000', '--seed-bytes', '400000', '--control-port', '0'], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const boot = /bootstrap servers: (\S+)/.exec(out);
      const ctl = /control API: (http:\/\/\S+)/.exec(out);
      if (boot && ctl) resolve({ child, bootstrap: boot[1]!, control: ctl[1]! });
    });
    child.once('exit', (code) => reject(new Error(`the simulator exited (${code}) before listening`)));
  });
}

const sim = await startSim();
const bootstrap = sim.bootstrap;
/** POST /brokers/{id}/stop|start on the simulator's control port. */
async function broker(id: number, action: 'stop' | 'start'): Promise<void> {
  const res = await fetch(`${sim.control}/brokers/${id}/${action}`, { method: 'POST' });
  if (res.status !== 200) throw new Error(`control ${action} ${id}: ${res.status} ${await res.text()}`);
}
const kafka = createKafkaGateway(parseKafkaConfig({ KAFKA_BOOTSTRAP_SERVERS: bootstrap, KAFKA_REQUEST_TIMEOUT_MS: '5000', KAFKA_RETRIES: '3' }));

interface Instance {
  name: string;
  child: ChildProcess | null;
  url: string | null;
}

async function start(inst: Instance): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'error',
      GATEWAY_AUTH: 'none',
      KAFKA_BOOTSTRAP_SERVERS: bootstrap,
      GATEWAY_INSTANCE_ID: inst.name,
      RECONCILE_INTERVAL_MS: '200',
      REASSIGNMENT_START_TIMEOUT_MS: '5000',
      KAFKA_REQUEST_TIMEOUT_MS: '5000',
      KAFKA_CONNECT_TIMEOUT_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  inst.child = child;
  inst.url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /Kafka admin gateway: (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${inst.name} exited (${code}) before listening`)));
  });
}

async function kill(inst: Instance): Promise<void> {
  const c = inst.child;
  inst.child = null;
  inst.url = null;
  if (!c || c.exitCode !== null) return;
  const exited = once(c, 'exit');
  c.kill('SIGKILL');
  await exited;
}

async function call(inst: Instance, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  if (!inst.url) throw new Error(`${inst.name} is down`);
  const res = await fetch(inst.url + path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : null });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function anyUp(instances: Instance[], method: string, path: string, body?: unknown) {
  for (;;) {
    for (const i of instances) {
      if (!i.url) continue;
      try {
        return await call(i, method, path, body);
      } catch {
        /* killed meanwhile: the other one */
      }
    }
    await sleep(100);
  }
}

async function throttles(): Promise<Record<string, Record<string, string>>> {
  const topics = (await kafka.listTopics()).map((t) => t.name).filter((t) => t !== STATE);
  const brokers = (await kafka.describeCluster()).brokers.map((b) => String(b.id));
  const results = await describeConfigOverrides(kafka, [...topics.map((name) => ({ kind: 'topic' as const, name })), ...brokers.map((name) => ({ kind: 'broker' as const, name }))], THROTTLE_KEYS);
  const out: Record<string, Record<string, string>> = {};
  for (const r of results) if (r.ok && Object.keys(r.value).length) out[`${r.kind}:${r.name}`] = r.value;
  return out;
}

const a: Instance = { name: 'chaos-a', child: null, url: null };
const b: Instance = { name: 'chaos-b', child: null, url: null };
const instances = [a, b];
const counts = { runs: 0, completed: 0, cancelledOrFailed: 0, brokerStops: 0, stateLeaderStops: 0, kills: 0, postLost: 0 };
const started = Date.now();
try {
  await Promise.all(instances.map(start));
  await anyUp(instances, 'POST', '/topics', { name: 'foreign', assignments: [[0, 1]] });
  const set = await incrementalAlterConfigs(kafka, [
    { kind: 'broker', name: '3', ops: [{ name: 'leader.replication.throttled.rate', op: 'SET', value: '7777' }] },
    { kind: 'topic', name: 'foreign', ops: [{ name: 'follower.replication.throttled.replicas', op: 'SET', value: '0:3' }] },
  ]);
  if (!set.every((r) => r.ok)) throw new Error('could not set the foreign throttles');

  for (let run = 0; run < RUNS; run++) {
    counts.runs++;
    const topic = `chaos-${run}`;
    await anyUp(instances, 'POST', '/topics', { name: topic, assignments: [[0, 1], [1, 2]] }); // 400 kB each (--seed-bytes)
    const body = { partitions: [{ topic, partition: 0, replicas: [2, 3] }, { topic, partition: 1, replicas: [3, 0] }], throttle: 200_000 };
    const fault = rnd(3); // 0: stop a broker, 1: kill a gateway, 2: both
    const victim = instances[rnd(2)]!;
    const post = call(instances[rnd(2)]!, 'POST', '/reassignments', body).catch(() => null);
    let stopped: number | null = null;
    if (fault !== 0) {
      await sleep(rnd(400)); // during the POST, or during the move
      await kill(victim);
      counts.kills++;
    }
    const answer = await post;
    if (!answer || answer.status !== 202) counts.postLost++;
    if (fault !== 1) {
      // During the move (a stopped target broker would make the POST itself a 422).
      const leader = (await kafka.describeTopic(STATE)).partitions[0]!.leader;
      stopped = rnd(2) === 0 ? leader : rnd(4);
      if (stopped === leader) counts.stateLeaderStops++;
      counts.brokerStops++;
      await broker(stopped, 'stop');
    }
    await sleep(500 + rnd(1500));
    if (stopped !== null) await broker(stopped, 'start');
    for (const i of instances) if (!i.child) await start(i);
    // The move (if it was started) ends; the reconcilers resolve whatever the kill interrupted.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const list = await anyUp(instances, 'GET', '/reassignments');
      const live = (list.body?.reassignments ?? []).filter((r: { state: string }) => r.state === 'pending' || r.state === 'running');
      if (list.status === 200 && live.length === 0) break;
      if (Date.now() > deadline) throw new Error(`run ${run}: reassignments still live after 60 s: ${JSON.stringify(live)}`);
      await sleep(200);
    }
    const ours = (await anyUp(instances, 'GET', '/reassignments')).body.reassignments.filter((r: { state: string; id: string }) => r.state === 'completed');
    counts.completed = ours.length;
  }
  counts.cancelledOrFailed = counts.runs - counts.completed;

  // Settle: every throttle the gateway set goes (within a minute), the foreign ones stay.
  const deadline = Date.now() + 60_000;
  let left: Record<string, Record<string, string>> = {};
  for (;;) {
    left = await throttles();
    const ours = Object.keys(left).filter((k) => JSON.stringify(left[k]) !== JSON.stringify(FOREIGN[k]));
    if (ours.length === 0 || Date.now() > deadline) break;
    await sleep(250);
  }
  let leftBehind = 0;
  let foreignChanged = 0;
  for (const [k, v] of Object.entries(left)) {
    for (const [name, value] of Object.entries(v)) {
      const f = FOREIGN[k]?.[name];
      if (f === undefined) leftBehind++;
      else if (f !== value) foreignChanged++;
    }
  }
  for (const [k, v] of Object.entries(FOREIGN)) for (const name of Object.keys(v)) if (left[k]?.[name] === undefined) foreignChanged++;

  console.log(`chaos: seed ${process.env.CHAOS_SEED ?? 1}, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`  runs                      ${counts.runs}`);
  console.log(`  reassignments completed   ${counts.completed} (others failed/cancelled by the kill: ${counts.cancelledOrFailed}; POSTs without a 202: ${counts.postLost})`);
  console.log(`  gateway SIGKILLs          ${counts.kills}`);
  console.log(`  broker stops              ${counts.brokerStops} (of the state topic's leader: ${counts.stateLeaderStops})`);
  console.log(`  throttles left behind     ${leftBehind}   (must be 0)`);
  console.log(`  foreign values changed    ${foreignChanged}   (must be 0)`);
  process.exitCode = leftBehind === 0 && foreignChanged === 0 ? 0 : 1;
  if (process.exitCode) console.log(JSON.stringify(left));
} finally {
  for (const i of instances) await kill(i);
  await kafka.close();
  const exited = once(sim.child, 'exit');
  sim.child.kill('SIGTERM');
  await exited;
}
