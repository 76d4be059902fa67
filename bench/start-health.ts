// What the health check at the start (issue 30, src/services/reassignments/start-health.ts) adds to a POST
// /reassignments: the same paced validateOnly of START_SIZE partitions (the whole start path up
// to the first wave, without writing or moving anything), timed from a client, alternately with
// `safety: "off"` (no health read) and with the default policy (one Metadata read of every
// topic and the walk). Cluster of 2x START_SIZE partitions (at least 20,000), RF 3, 12 brokers,
// healthy (START_CLUSTER=<n> for another size: n = START_SIZE moves every partition, as
// bench:scale does). Figures: min / median / max over REPS of each.
//
//   SCALE_FROM_SOURCE=1 npx tsx bench/start-health.ts      (START_SIZE=10000 REPS=7)
import { performance } from 'node:perf_hooks';
import { startSimulator } from '../src/sim/index.js';
import { startGateway } from './gateway-process.js';

const N = Number(process.env.START_SIZE ?? 10_000);
const REPS = Number(process.env.REPS ?? 7);
const BROKERS = 12;
const PER_TOPIC = 1000;

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0].toFixed(0)} / ${s[Math.floor(s.length / 2)].toFixed(0)} / ${s[s.length - 1].toFixed(0)} ms`;
};

const clusterPartitions = Number(process.env.START_CLUSTER ?? Math.max(N * 2, 20_000));
const sim = await startSimulator({ brokers: BROKERS, seedBytes: 1_000_000 });
const replicasOf = (t: number, p: number) => [(t + p) % BROKERS, (t + p + 1) % BROKERS, (t + p + 2) % BROKERS];
for (let t = 0; t < Math.ceil(clusterPartitions / PER_TOPIC); t++) {
  sim.model.createTopic({
    name: `s${t}`,
    assignments: Array.from({ length: PER_TOPIC }, (_, p) => ({ partition: p, brokerIds: replicasOf(t, p) })),
  });
}
const gw = await startGateway(sim);
try {
  const partitions = Array.from({ length: N }, (_, i) => {
    const t = Math.floor(i / PER_TOPIC);
    const p = i % PER_TOPIC;
    const [, b, c] = replicasOf(t, p);
    return { topic: `s${t}`, partition: p, replicas: [(t + p + 3) % BROKERS, b, c] };
  });
  const body = (safety: unknown) =>
    JSON.stringify({
      partitions,
      concurrency: { perBroker: 2 },
      throttle: 1_000_000,
      validateOnly: true,
      ...(safety !== undefined && { safety }),
    });
  const bodies = { off: body('off'), checked: body(undefined) };
  const times: Record<keyof typeof bodies, number[]> = { off: [], checked: [] };
  for (let i = 0; i < REPS + 1; i++) {
    for (const k of ['off', 'checked'] as const) {
      const t0 = performance.now();
      const res = await fetch(`${gw.url}/reassignments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: bodies[k],
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${k}: ${res.status} ${text.slice(0, 300)}`);
      if (k === 'checked' && text.includes('healthWarning')) throw new Error('the cluster is not healthy: ' + text.slice(0, 300));
      if (i > 0) times[k].push(performance.now() - t0); // the first of each: warm-up
    }
  }
  console.log(
    `${N} partitions (cluster ${clusterPartitions}), paced validateOnly: safety off ${stats(times.off)}; default policy (health read) ${stats(times.checked)}`,
  );
} finally {
  gw.proc.kill('SIGTERM');
  await new Promise((r) => gw.proc.once('exit', r));
  await sim.close();
}
