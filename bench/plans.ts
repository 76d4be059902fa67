// Plan quality and cost on a 100-broker, 100,000-partition cluster (1,000 topics of 100
// partitions, replication factor 3, 10 racks; placed as Kafka's rack-aware assignment places new
// topics; partition sizes skewed, 1 MiB to ~1 GiB).
//
// Two jobs:
//   decommission  empty broker 7
//   rebalance     after adding brokers 100..109 (one per rack), even the cluster out
// For each: the planner's moved replicas and bytes next to the lower bound (what any plan must
// move, computed independently) and next to a from-scratch round-robin reassignment of the same
// topics (Kafka's AdminUtils assignment: what `kafka-reassign-partitions.sh --generate` proposes),
// as ratios; and the planning time (target <= 2 s) next to the time of that --generate baseline
// computed in the same run. min / median / max over repetitions.
//
// Event loop: the same plan is also computed the way POST /plans computes it (PlanService on the
// cluster as read: conversion and planner in 10 ms slices, src/plan/sliced.ts), with
// perf_hooks.monitorEventLoopDelay running: its max is the longest the loop was held (target
// ~50 ms), next to the longest slice the runner itself measured and the sliced run's total time.
// Wall-clock figures include whatever else the machine runs; CPU time is this process's.
//
//   npm run bench:plans            (REPS=5 by default)
import { subscribe } from 'node:diagnostics_channel';
import os from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import {
  assignReplicasToBrokers,
  planReassignment,
  seededRandom,
  type Plan,
  type PlanCluster,
  type PlanRequest,
} from '../src/domain/plan/index.js';
import { replicaKey } from '../src/kafka/kafka-admin.js';
import { PlanService, type ClusterRead } from '../src/services/plans.js';
import { PLAN_CHANNEL, type PlanRunEvent } from '../src/plan/sliced.js';

const BROKERS = 100;
const RACKS = 10;
const TOPICS = 1_000;
const PARTITIONS_PER_TOPIC = 100;
const RF = 3;
const REPS = Number(process.env.REPS ?? 5);
const TARGET_MS = 2_000;

const rackOf = (id: number) => `rack-${id % RACKS}`;

function buildCluster(seed: number): PlanCluster {
  const random = seededRandom(seed);
  const brokers = Array.from({ length: BROKERS }, (_, id) => ({ id, rack: rackOf(id) }));
  const topics = Array.from({ length: TOPICS }, (_, t) => {
    const assignment = assignReplicasToBrokers(brokers, PARTITIONS_PER_TOPIC, RF, random);
    // Skew: a few topics are large, most are small (1 MiB .. ~1 GiB per partition).
    const scale = 2 ** random(11) * 1024 * 1024;
    return {
      name: `topic-${String(t).padStart(4, '0')}`,
      partitions: assignment.map((replicas, partition) => ({ partition, replicas, bytes: scale + random(1024 * 1024) })),
    };
  });
  return { brokers, topics };
}

/** Replicas and bytes `--generate` would move: a fresh assignment of every topic over `brokers`. */
function generateBaseline(
  cluster: PlanCluster,
  brokers: { id: number; rack: string | null }[],
  seed: number,
): { movedReplicas: number; movedBytes: number; ms: number } {
  const random = seededRandom(seed);
  const t0 = performance.now();
  let movedReplicas = 0;
  let movedBytes = 0;
  for (const topic of cluster.topics) {
    const fresh = assignReplicasToBrokers(brokers, topic.partitions.length, topic.partitions[0].replicas.length, random);
    topic.partitions.forEach((p, i) => {
      const added = fresh[i].filter((b) => !p.replicas.includes(b)).length;
      movedReplicas += added;
      movedBytes += added * (p.bytes ?? 0);
    });
  }
  return { movedReplicas, movedBytes, ms: performance.now() - t0 };
}

function stats(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  const f = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(3));
  return `min ${f(s[0])}  median ${f(s[Math.floor(s.length / 2)])}  max ${f(s[s.length - 1])}`;
}

/** The cluster as PlanService reads it from Kafka (Metadata, DescribeLogDirs), built from the same data. */
function asRead(cluster: PlanCluster): ClusterRead {
  const sizes = new Map<number, Map<string, number>>();
  for (const b of cluster.brokers) sizes.set(b.id, new Map());
  for (const t of cluster.topics)
    for (const p of t.partitions) for (const b of p.replicas) sizes.get(b)?.set(replicaKey(t.name, p.partition), p.bytes ?? 0);
  return {
    brokers: cluster.brokers.map((b) => ({ id: b.id, host: `broker-${b.id}`, port: 9092, rack: b.rack })),
    placement: cluster.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        leader: p.replicas[0],
        replicas: [...p.replicas],
        isr: [...p.replicas],
        offlineReplicas: [],
      })),
    })),
    moving: [],
    logDirs: [...sizes].map(([broker, m]) => ({ broker, ok: true as const, sizes: m })),
  };
}

// Slices of the runs below, as the runner publishes them.
let longestSlice = 0;
let longestSliceCpu = 0;
subscribe(PLAN_CHANNEL, (message) => {
  const e = message as PlanRunEvent;
  if (e.type === 'slice') {
    longestSlice = Math.max(longestSlice, e.ms);
    longestSliceCpu = Math.max(longestSliceCpu, e.cpuMs);
  }
});
// Only the planning path is used: the reads from Kafka are replaced by asRead().
const service = new PlanService(null as never);

interface Row {
  planMs: number[];
  planCpuMs: number[];
  slicedMs: number[];
  loopMaxMs: number[];
  sliceMaxMs: number[];
  sliceMaxCpuMs: number[];
  generateMs: number[];
  vsBound: number[];
  vsBoundBytes: number[];
  vsGenerate: number[];
  vsGenerateBytes: number[];
  last?: { plan: Plan; generate: { movedReplicas: number; movedBytes: number } };
}

async function run(
  name: string,
  scenario: (rep: number) => { cluster: PlanCluster; request: PlanRequest; generateBrokers: { id: number; rack: string | null }[] },
): Promise<Row> {
  const row: Row = {
    planMs: [],
    planCpuMs: [],
    slicedMs: [],
    loopMaxMs: [],
    sliceMaxMs: [],
    sliceMaxCpuMs: [],
    generateMs: [],
    vsBound: [],
    vsBoundBytes: [],
    vsGenerate: [],
    vsGenerateBytes: [],
  };
  for (let rep = 0; rep < REPS; rep++) {
    const { cluster, request, generateBrokers } = scenario(rep);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const result = planReassignment(cluster, request);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    if (!result.ok) throw new Error(`${name}: ${JSON.stringify(result.errors)}`);
    const plan = result.plan;
    row.planCpuMs.push((cpu.user + cpu.system) / 1000);

    // The same plan as POST /plans computes it, sliced, with the event loop watched.
    const read = asRead(cluster);
    const loop = monitorEventLoopDelay({ resolution: 1 });
    longestSlice = 0;
    longestSliceCpu = 0;
    loop.enable();
    const s0 = performance.now();
    const sliced = await service.planCluster(read, request);
    row.slicedMs.push(performance.now() - s0);
    loop.disable();
    row.loopMaxMs.push(loop.max / 1e6);
    row.sliceMaxMs.push(longestSlice);
    row.sliceMaxCpuMs.push(longestSliceCpu);
    if (sliced.kind !== 'plan' || sliced.plan.movedReplicas !== plan.movedReplicas) throw new Error(`${name}: the sliced plan differs`);
    const gen = generateBaseline(cluster, generateBrokers, 1000 + rep);
    row.planMs.push(ms);
    row.generateMs.push(gen.ms);
    row.vsBound.push(plan.lowerBound.movedReplicas === 0 ? 1 : plan.movedReplicas / plan.lowerBound.movedReplicas);
    row.vsBoundBytes.push(plan.lowerBound.movedBytes === 0 ? 1 : plan.movedBytes / plan.lowerBound.movedBytes);
    row.vsGenerate.push(plan.movedReplicas / gen.movedReplicas);
    row.vsGenerateBytes.push(plan.movedBytes / gen.movedBytes);
    row.last = { plan, generate: gen };
  }
  const { plan, generate } = row.last!;
  const GiB = 1024 ** 3;
  console.log(`\n${name}  (${REPS} repetitions, a fresh seeded cluster each)`);
  console.log(
    `  planning time ms            ${stats(row.planMs)}   (target <= ${TARGET_MS} ms; --generate baseline: ${stats(row.generateMs)})`,
  );
  console.log(`  planning CPU ms              ${stats(row.planCpuMs)}`);
  console.log(`  planning time / target      ${stats(row.planMs.map((x) => x / TARGET_MS))}`);
  console.log(
    `  as POST /plans (sliced): total ms ${stats(row.slicedMs)}; event loop held at most (ms) ${stats(row.loopMaxMs)}; longest slice (ms) ${stats(row.sliceMaxMs)}, in CPU ms ${stats(row.sliceMaxCpuMs)}`,
  );
  console.log(`  moved replicas / lower bound ${stats(row.vsBound)}`);
  console.log(`  moved bytes / lower bound    ${stats(row.vsBoundBytes)}`);
  console.log(`  moved replicas / --generate  ${stats(row.vsGenerate)}`);
  console.log(`  moved bytes / --generate     ${stats(row.vsGenerateBytes)}`);
  console.log(
    `  last run: moved ${plan.movedReplicas} replicas (${(plan.movedBytes / GiB).toFixed(1)} GiB), lower bound ${plan.lowerBound.movedReplicas} (${(plan.lowerBound.movedBytes / GiB).toFixed(1)} GiB), ` +
      `--generate ${generate.movedReplicas} (${(generate.movedBytes / GiB).toFixed(1)} GiB); ${plan.partitions.length} partitions in the plan; warnings: ${plan.warnings.map((w) => w.code).join(', ') || 'none'}`,
  );
  const spread = (k: 'replicas' | 'leaders' | 'bytes') => {
    const v = plan.after.filter((l) => plan.options.brokers.includes(l.broker)).map((l) => l[k]);
    return Math.max(...v) - Math.min(...v);
  };
  console.log(`  after: max-min replicas per broker ${spread('replicas')}, preferred leaders ${spread('leaders')}`);
  return row;
}

console.log(
  `bench/plans: ${BROKERS} brokers, ${RACKS} racks, ${TOPICS * PARTITIONS_PER_TOPIC} partitions (RF ${RF}); node ${process.version}; ${os.cpus().length} CPUs, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);

await run('decommission broker 7', (rep) => {
  const cluster = buildCluster(rep + 1);
  return {
    cluster,
    request: { goal: 'decommission', brokers: [7] },
    generateBrokers: cluster.brokers.filter((b) => b.id !== 7).map((b) => ({ id: b.id, rack: b.rack })),
  };
});

await run('rebalance after adding 10 brokers', (rep) => {
  const base = buildCluster(rep + 1);
  const brokers = [...base.brokers, ...Array.from({ length: 10 }, (_, i) => ({ id: BROKERS + i, rack: rackOf(BROKERS + i) }))];
  const cluster = { ...base, brokers };
  return { cluster, request: { goal: 'rebalance' }, generateBrokers: brokers.map((b) => ({ id: b.id, rack: b.rack })) };
});
