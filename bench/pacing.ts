// Paced execution (issue 9) end to end, on the simulator over TCP with the real gateway runtime
// (state topic, reconciler, pacer, throttle sync) and its HTTP API:
//
//   6 brokers; PARTITIONS partitions (default 1,000) in two topics, RF 3 on brokers 0-4, each
//   seeded with a random size (seeded PRNG, SIZE_MIB_MIN..SIZE_MIB_MAX). The reassignment moves
//   one replica of every partition: even partitions onto the new broker 5 (a scale-out), odd
//   ones to the broker of 0-4 they do not have. POST /reassignments with `concurrency.perBroker`
//   PER_BROKER (default 2), a THROTTLE (default 20 MiB/s) and the default order (size-asc).
//
// Printed, per repetition and as min/median/max over REPS:
//   - peak moves in flight per broker, observed by polling Kafka (ListPartitionReassignments
//     every 25 ms; a broker takes part as a destination or as the partition's leader): must
//     never exceed PER_BROKER;
//   - total duration (POST → last completion, from the simulator's completion times) against
//     the physical limit (max over brokers of max(bytes in, bytes out) ÷ throttle): the ratio
//     (target ≤ 1.15); the baseline of the ratio is that limit, computed in the same run;
//   - the time from the last completion to every throttle config gone (polled with
//     DescribeConfigs every 25 ms).
//
//   npm run bench:pacing     (PARTITIONS=1000 REPS=1 PER_BROKER=2 THROTTLE_MIB=20 SIZE_MIB_MIN=1 SIZE_MIB_MAX=5)
//
// DEADLINE MODE (issue 30, part 2): FINISH_BY_S=<seconds> posts `finishBy` = now + FINISH_BY_S
// instead of a throttle (bounds: MIN_MIB/MAX_MIB when set, else the gateway's defaults), and
// prints, per repetition and as min/median/max:
//   - the end (last completion) against the deadline: seconds before it, and as a share of
//     FINISH_BY_S (target: ends before the deadline and within 10 % of it);
//   - the throttle used (the busiest broker's leader/follower rate as DescribeConfigs reads it,
//     polled every 100 ms; time-weighted mean over the run, and its highest value) against the
//     lowest constant throttle that would have made it: the busiest broker's bytes ÷ FINISH_BY_S
//     (the physical limit of this run's data; target: mean ≤ 1.15 ×).
//   FINISH_BY_S=60 PARTITIONS=200 npm run bench:pacing
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appOverKafka } from '../test/http/app-over-kafka.js';
import { createMetrics } from '../src/observability/metrics.js';
import { createReassignmentMetrics } from '../src/observability/reassignment-metrics.js';
import { createKafkaGateway } from '../src/kafka/admin.js';
import { parseKafkaConfig } from '../src/kafka/config.js';
import { createReassignmentRuntime, loadReassignmentConfig } from '../src/reconcile/index.js';
import { THROTTLE_KEYS } from '../src/reconcile/throttle-sync.js';
import { startSimulator } from '../src/sim/index.js';

const MiB = 1024 * 1024;
const PARTITIONS = Number(process.env.PARTITIONS ?? 1000);
const REPS = Number(process.env.REPS ?? 1);
const PER_BROKER = Number(process.env.PER_BROKER ?? 2);
const THROTTLE = Math.round(Number(process.env.THROTTLE_MIB ?? 20) * MiB);
const SIZE_MIN = Number(process.env.SIZE_MIB_MIN ?? 1) * MiB;
const SIZE_MAX = Number(process.env.SIZE_MIB_MAX ?? 5) * MiB;
const BROKERS = 6;
const FINISH_BY_S = process.env.FINISH_BY_S ? Number(process.env.FINISH_BY_S) : null;
const BOUNDS =
  process.env.MIN_MIB || process.env.MAX_MIB
    ? {
        ...(process.env.MIN_MIB && { min: Math.round(Number(process.env.MIN_MIB) * MiB) }),
        ...(process.env.MAX_MIB && { max: Math.round(Number(process.env.MAX_MIB) * MiB) }),
      }
    : null;
const TOPICS = ['pace-a', 'pace-b'];

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Rep {
  peak: number[];
  seconds: number;
  limitSeconds: number;
  throttlesGoneSeconds: number;
  waves: number;
  /** Deadline mode: the deadline (s from the POST), the lowest constant throttle that makes it, the throttle used (mean, highest). */
  deadline?: { finishByS: number; lowest: number; mean: number; highest: number; throttleChanges: number };
}

async function once(rep: number): Promise<Rep> {
  const rand = prng(42 + rep);
  const perTopic = Math.ceil(PARTITIONS / TOPICS.length);
  const sizes = new Map<string, number>();
  const assignments = new Map<string, number[][]>();
  for (const t of TOPICS) {
    const a: number[][] = [];
    for (let p = 0; p < perTopic; p++) {
      const first = Math.floor(rand() * 5);
      a.push([first, (first + 1) % 5, (first + 2) % 5]);
      sizes.set(`${t}:${p}`, Math.round(SIZE_MIN + rand() * (SIZE_MAX - SIZE_MIN)));
    }
    assignments.set(t, a);
  }
  const sim = await startSimulator({ brokers: BROKERS, seedBytes: (topic, partition) => sizes.get(`${topic}:${partition}`) ?? 0 });
  const metrics = createMetrics({ defaultMetrics: false });
  const kafkaEnv = { KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') };
  const kafka = createKafkaGateway(parseKafkaConfig(kafkaEnv));
  const observer = createKafkaGateway(parseKafkaConfig({ ...kafkaEnv, KAFKA_CLIENT_ID: 'bench-pacing-observer' }));
  const config = loadReassignmentConfig({
    RECONCILE_INTERVAL_MS: '1000',
    ...(process.env.PACING_POLL_MS && { PACING_POLL_MS: process.env.PACING_POLL_MS }),
  });
  const runtime = createReassignmentRuntime({
    kafka,
    config,
    metrics: createReassignmentMetrics(metrics.registry),
    bandwidthBytesPerSecond: null,
  });
  const app = appOverKafka({ kafka, metrics, reassignments: runtime });
  const server: Server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  runtime.reconciler.start();
  const completions = new Map<string, number>();
  const unsubscribe = sim.onReassignmentCompleted((c) => completions.set(`${c.topic}:${c.partition}`, c.completedAt));
  try {
    await kafka.createTopics(TOPICS.map((name) => ({ name, assignments: assignments.get(name)! })));
    // Leaders (unchanged by the moves: the leader stays in the target).
    const placement = await observer.describePartitions(TOPICS);
    const leaders = new Map<string, number>();
    for (const t of placement) for (const p of t.partitions) leaders.set(`${t.name}:${p.partition}`, p.leader);

    const targets: { topic: string; partition: number; replicas: number[] }[] = [];
    const bytesIn = Array<number>(BROKERS).fill(0);
    const bytesOut = Array<number>(BROKERS).fill(0);
    for (const t of TOPICS) {
      assignments.get(t)!.forEach((replicas, p) => {
        const leader = leaders.get(`${t}:${p}`)!;
        const drop = replicas.find((b) => b !== leader)!;
        const add = p % 2 === 0 ? 5 : [0, 1, 2, 3, 4].find((b) => !replicas.includes(b))!;
        targets.push({ topic: t, partition: p, replicas: replicas.map((b) => (b === drop ? add : b)) });
        const size = sizes.get(`${t}:${p}`)!;
        bytesIn[add] += size;
        bytesOut[leader] += size;
      });
    }
    const limitSeconds = Math.max(...bytesIn, ...bytesOut) / THROTTLE;
    const busiestBytes = Math.max(...bytesIn, ...bytesOut);
    const busiest = [...bytesIn.keys()].find((b) => bytesIn[b] === busiestBytes || bytesOut[b] === busiestBytes)!;
    const direction = bytesIn[busiest] === busiestBytes ? 'follower' : 'leader';
    // Deadline mode: the busiest broker's rate over time (DescribeConfigs), integrated until the last completion.
    const rates: { t: number; rate: number }[] = [];

    // Observe Kafka: peak moves in flight per broker.
    const peak = Array<number>(BROKERS).fill(0);
    let observing = true;
    let polls = 0;
    const observe = (async () => {
      while (observing) {
        if (FINISH_BY_S !== null && polls++ % 4 === 0) {
          const [c] = await observer
            .describeConfigOverrides([{ kind: 'broker', name: String(busiest) }], [`${direction}.replication.throttled.rate`])
            .catch(() => []);
          const v = c && c.ok ? c.value[`${direction}.replication.throttled.rate`] : undefined;
          if (v !== undefined) rates.push({ t: Date.now(), rate: Number(v) });
        }
        const moving = await observer.listPartitionReassignments().catch(() => []);
        const load = Array<number>(BROKERS).fill(0);
        for (const m of moving) {
          const involved = new Set([...m.adding, leaders.get(`${m.topic}:${m.partition}`)!]);
          for (const b of involved) load[b]++;
        }
        for (let b = 0; b < BROKERS; b++) peak[b] = Math.max(peak[b], load[b]);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();

    const t0 = Date.now();
    const pacing =
      FINISH_BY_S === null
        ? { throttle: THROTTLE }
        : { finishBy: new Date(t0 + FINISH_BY_S * 1000).toISOString(), ...(BOUNDS && { throttleBounds: BOUNDS }) };
    const post = await fetch(`${base}/reassignments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ partitions: targets, ...pacing, concurrency: { perBroker: PER_BROKER } }),
    });
    const accepted = (await post.json()) as { id: string; state: string };
    if (post.status !== 202) throw new Error(`POST answered ${post.status}: ${JSON.stringify(accepted)}`);
    const validate = await fetch(`${base}/reassignments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ partitions: targets.slice(0, 1), validateOnly: true }),
    });
    await validate.arrayBuffer();

    // Wait for the end, reading GET every 2 s (as a user watching would).
    let state = accepted.state;
    let lastPrint = 0;
    while (state !== 'completed' && state !== 'failed' && state !== 'cancelled') {
      await new Promise((r) => setTimeout(r, 2000));
      const g = (await (await fetch(`${base}/reassignments/${accepted.id}`)).json()) as {
        state: string;
        throttle: number | null;
        counts?: Record<string, number>;
        progress?: { etaSeconds: number | null };
        deadline?: { holds: boolean; expectedEnd: string | null };
      };
      state = g.state;
      if (Date.now() - lastPrint > 10_000) {
        lastPrint = Date.now();
        const dl = g.deadline
          ? ` throttle=${((g.throttle ?? 0) / MiB).toFixed(2)}MiB/s holds=${g.deadline.holds} expectedEnd=t+${g.deadline.expectedEnd ? ((Date.parse(g.deadline.expectedEnd) - t0) / 1000).toFixed(0) : '?'}s`
          : '';
        console.log(
          `  t=${((Date.now() - t0) / 1000).toFixed(0)}s ${state} ${JSON.stringify(g.counts)} eta=${g.progress?.etaSeconds}${dl}`,
        );
      }
    }
    const lastCompletion = Math.max(...completions.values());
    // Throttles gone: no throttle config anywhere.
    const resources = [
      ...TOPICS.map((name) => ({ kind: 'topic' as const, name })),
      ...Array.from({ length: BROKERS }, (_, b) => ({ kind: 'broker' as const, name: String(b) })),
    ];
    for (;;) {
      const res = await observer.describeConfigOverrides(resources, THROTTLE_KEYS);
      if (res.every((r) => r.ok && Object.keys(r.value).length === 0)) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const gone = Date.now();
    observing = false;
    await observe;
    if (completions.size < targets.length)
      throw new Error(`only ${completions.size} of ${targets.length} completions seen (state ${state})`);
    const waves =
      runtime.store
        .view()
        .reassignments.get(accepted.id)
        ?.partitions.reduce((s, p) => s.add(p.startedAt ?? 0), new Set<number>()).size ?? 0;
    let deadline: Rep['deadline'];
    if (FINISH_BY_S !== null) {
      // Time-weighted mean of the rate in place from the POST to the last completion.
      let weighted = 0;
      let highest = 0;
      let changes = 0;
      for (let i = 0; i < rates.length; i++) {
        const from = Math.max(t0, rates[i].t);
        const to = Math.min(lastCompletion, rates[i + 1]?.t ?? lastCompletion);
        if (to > from) weighted += rates[i].rate * (to - from);
        if (rates[i].t <= lastCompletion) highest = Math.max(highest, rates[i].rate);
        if (i > 0 && rates[i].rate !== rates[i - 1].rate) changes++;
      }
      // Over the time a rate was known (from the first read, a few ms after the POST, to the end).
      const from = Math.max(t0, rates[0]?.t ?? lastCompletion);
      deadline = {
        finishByS: FINISH_BY_S,
        lowest: busiestBytes / FINISH_BY_S,
        mean: lastCompletion > from ? weighted / (lastCompletion - from) : NaN,
        highest,
        throttleChanges: changes,
      };
    }
    return {
      peak,
      seconds: (lastCompletion - t0) / 1000,
      limitSeconds,
      throttlesGoneSeconds: (gone - lastCompletion) / 1000,
      waves,
      ...(deadline && { deadline }),
    };
  } finally {
    unsubscribe();
    await runtime.reconciler.stop();
    server.close();
    await kafka.close().catch(() => undefined);
    await observer.close().catch(() => undefined);
    await sim.close();
  }
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `min ${s[0].toFixed(2)} / median ${s[Math.floor(s.length / 2)].toFixed(2)} / max ${s[s.length - 1].toFixed(2)}`;
};

const pacingLabel =
  FINISH_BY_S === null
    ? `throttle ${THROTTLE / MiB} MiB/s`
    : `finishBy now + ${FINISH_BY_S} s${BOUNDS ? ` bounds ${JSON.stringify(BOUNDS)}` : ''}`;
console.log(
  `bench:pacing — ${PARTITIONS} partitions, ${BROKERS} brokers, perBroker ${PER_BROKER}, ${pacingLabel}, sizes ${SIZE_MIN / MiB}-${SIZE_MAX / MiB} MiB, ${REPS} repetition(s)`,
);
const reps: Rep[] = [];
for (let i = 0; i < REPS; i++) {
  const r = await once(i);
  reps.push(r);
  if (r.deadline) {
    const d = r.deadline;
    console.log(
      `rep ${i + 1}: ended ${(d.finishByS - r.seconds).toFixed(1)} s before the deadline of ${d.finishByS} s (${(((d.finishByS - r.seconds) / d.finishByS) * 100).toFixed(1)} %); ` +
        `throttle used mean ${(d.mean / MiB).toFixed(2)} MiB/s, highest ${(d.highest / MiB).toFixed(2)} MiB/s, ${d.throttleChanges} changes, vs lowest constant ${(d.lowest / MiB).toFixed(2)} MiB/s → ×${(d.mean / d.lowest).toFixed(3)} (highest ×${(d.highest / d.lowest).toFixed(3)}); ` +
        `peak in flight ${Math.max(...r.peak)}; throttles gone ${r.throttlesGoneSeconds.toFixed(2)} s after the last completion`,
    );
    continue;
  }
  console.log(
    `rep ${i + 1}: peak in flight per broker [${r.peak.join(', ')}] (bound ${PER_BROKER}${Math.max(...r.peak) > PER_BROKER ? ' EXCEEDED' : ''}); ` +
      `duration ${r.seconds.toFixed(1)} s vs physical limit ${r.limitSeconds.toFixed(1)} s → ratio ${(r.seconds / r.limitSeconds).toFixed(3)}; ` +
      `throttles gone ${r.throttlesGoneSeconds.toFixed(2)} s after the last completion; ${r.waves} start instants`,
  );
}
if (FINISH_BY_S !== null) {
  const ds = reps.map((r) => ({ ...r.deadline!, seconds: r.seconds }));
  console.log(
    `end before the deadline, % of it: ${stats(ds.map((d) => ((d.finishByS - d.seconds) / d.finishByS) * 100))} (target: 0 to 10)`,
  );
  console.log(`throttle used (time-weighted mean) ÷ lowest constant throttle: ${stats(ds.map((d) => d.mean / d.lowest))} (target ≤ 1.15)`);
  console.log(`highest throttle ÷ lowest constant throttle: ${stats(ds.map((d) => d.highest / d.lowest))}`);
  console.log(`last completion → throttles gone, s: ${stats(reps.map((r) => r.throttlesGoneSeconds))}`);
  if (ds.some((d) => d.seconds > d.finishByS)) process.exitCode = 1;
} else {
  console.log(`ratio duration ÷ physical limit: ${stats(reps.map((r) => r.seconds / r.limitSeconds))} (target ≤ 1.15)`);
  console.log(`peak in flight on any broker: ${stats(reps.map((r) => Math.max(...r.peak)))} (bound ${PER_BROKER})`);
  console.log(`last completion → throttles gone, s: ${stats(reps.map((r) => r.throttlesGoneSeconds))}`);
  if (reps.some((r) => Math.max(...r.peak) > PER_BROKER)) process.exitCode = 1;
}
