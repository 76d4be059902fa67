// Fingerprints of what POST /reassignments answers at scale, to show a change to the start path
// changes no answer: prints the sha256 (and size) of each body; compare the lines before/after.
// Same cluster as bench:scale (12 brokers, topics of 1000 partitions, 2x the moved partitions),
// with a few twists so more paths are exercised: a 1,000-partition reassignment is started first
// and left moving (throttled), so validation and the throttle lists see running moves; the big
// file has no-ops (target = current) and reorders (same brokers, other leader) besides the
// moves, and replaces the running moves (addToExisting).
// Bodies: validateOnly, validateOnly ?detail=true, POST ?detail=true (id, owner and timestamps masked).
//
//   npm run build && npx tsx bench/start-answers.ts    (START_SIZE=100000; SCALE_FROM_SOURCE=1: no build)
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { startSimulator } from '../src/sim/index.js';
import { startGateway } from './gateway-process.js';

const N = Number(process.env.START_SIZE ?? 100_000);
const BROKERS = 12;
const PER_TOPIC = 1000;

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
};
// START_OUT=<prefix>: each body is written to <prefix>.<n>.json too (to diff two runs).
let written = 0;
const print = (name: string, status: number, text: string) => {
  if (process.env.START_OUT) writeFileSync(`${process.env.START_OUT}.${written++}.json`, text);
  console.log(
    `${name.padEnd(28)} ${status} ${String(text.length).padStart(10)} B  sha256 ${createHash('sha256').update(text).digest('hex')}`,
  );
};

const clusterPartitions = Math.max(N * 2, 20_000);
const sim = await startSimulator({ brokers: BROKERS, seedBytes: 1_000_000, replicationBytesPerSecond: 1_000_000_000 });
const topicCount = Math.ceil(clusterPartitions / PER_TOPIC);
const replicasOf = (t: number, p: number) => [(t + p) % BROKERS, (t + p + 1) % BROKERS, (t + p + 2) % BROKERS];
for (let t = 0; t < topicCount; t++) {
  const count = Math.min(PER_TOPIC, clusterPartitions - t * PER_TOPIC);
  sim.model.createTopic({
    name: `s${t}`,
    assignments: Array.from({ length: count }, (_, p) => ({ partition: p, brokerIds: replicasOf(t, p) })),
  });
}
const gw = await startGateway(sim);
try {
  // Running moves: the last requested topic, throttled so that they stay running.
  const last = Math.ceil(N / PER_TOPIC) - 1;
  const running = Array.from({ length: PER_TOPIC }, (_, p) => {
    const [a, b, c] = replicasOf(last, p);
    return { topic: `s${last}`, partition: p, replicas: [(a + 5) % BROKERS, b, c] };
  });
  const r0 = await post(`${gw.url}/reassignments`, { partitions: running, throttle: 1024 });
  if (r0.status !== 202) throw new Error(`first POST ${r0.status}: ${r0.text.slice(0, 300)}`);
  // The big file, in the tool's format.
  const partitions = [];
  for (let i = 0; i < N; i++) {
    const t = Math.floor(i / PER_TOPIC);
    const p = i % PER_TOPIC;
    const [a, b, c] = replicasOf(t, p);
    const replicas = i % 97 === 0 ? [a, b, c] : i % 89 === 0 ? [b, a, c] : [(t + p + 3) % BROKERS, b, c];
    partitions.push({ topic: `s${t}`, partition: p, replicas, log_dirs: ['any', 'any', 'any'] });
  }
  const file = { version: 1, partitions, throttle: 1024, addToExisting: true };
  const v = await post(`${gw.url}/reassignments`, { ...file, validateOnly: true });
  print('validateOnly', v.status, v.text);
  const vd = await post(`${gw.url}/reassignments?detail=true`, { ...file, validateOnly: true });
  print('validateOnly ?detail=true', vd.status, vd.text);
  const s = await post(`${gw.url}/reassignments?detail=true`, file);
  const masked = s.text
    .replace(/"r-[0-9a-z]+-[0-9a-f]{8}"/g, '"r-ID"')
    .replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g, '"TIME"')
    .replace(/"owner":"[^"]*"/g, '"owner":"OWNER"');
  print('POST ?detail=true (masked)', s.status, masked);
} finally {
  gw.proc.kill('SIGTERM');
  await new Promise((r) => gw.proc.once('exit', r));
  await sim.close();
}
