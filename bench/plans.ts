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
//   npm run bench:plans            (REPS=5 by default)
import { performance } from 'node:perf_hooks';
import { assignReplicasToBrokers, planReassignment, seededRandom, type Plan, type PlanCluster, type PlanRequest } from '../src/domain/plan/index.js';

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
    const scale = 2 ** (random(11)) * 1024 * 1024;
    return {
      name: `topic-${String(t).padStart(4, '0')}`,
      partitions: assignment.map((replicas, partition) => ({ partition, replicas, bytes: scale + random(1024 * 1024) })),
    };
  });
  return { brokers, topics };
}

/** Replicas and bytes `--generate` would move: a fresh assignment of every topic over `brokers`. */
function generateBaseline(cluster: PlanCluster, brokers: { id: number; rack: string | null }[], seed: number): { movedReplicas: number; movedBytes: number; ms: number } {
  const random = seededRandom(seed);
  const t0 = performance.now();
  let movedReplicas = 0;
  let movedBytes = 0;
  for (const topic of cluster.topics) {
    const fresh = assignReplicasToBrokers(brokers, topic.partitions.length, topic.partitions[0]!.replicas.length, random);
    topic.partitions.forEach((p, i) => {
      const added = fresh[i]!.filter((b) => !p.replicas.includes(b)).length;
      movedReplicas += added;
      movedBytes += added * (p.bytes ?? 0);
    });
  }
  return { movedReplicas, movedBytes, ms: performance.now() - t0 };
}

function stats(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  const f = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(3));
  return `min ${f(s[0]!)}  median ${f(s[Math.floor(s.length / 2)]!)}  max ${f(s[s.length - 1]!)}`;
}

interface Row {
  planMs: number[];
  generateMs: number[];
  vsBound: number[];
  vsBoundBytes: number[];
  vsGenerate: number[];
  vsGenerateBytes: number[];
  last?: { plan: Plan; generate: { movedReplicas: number; movedBytes: number } };
}

function run(name: string, scenario: (rep: number) => { cluster: PlanCluster; request: PlanRequest; generateBrokers: { id: number; rack: string | null }[] }): Row {
  const row: Row = { planMs: [], generateMs: [], vsBound: [], vsBoundBytes: [], vsGenerate: [], vsGenerateBytes: [] };
  for (let rep = 0; rep < REPS; rep++) {
    const { cluster, request, generateBrokers } = scenario(rep);
    const t0 = performance.now();
    const result = planReassignment(cluster, request);
    const ms = performance.now() - t0;
    if (!result.ok) throw new Error(`${name}: ${JSON.stringify(result.errors)}`);
    const plan = result.plan;
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
  console.log(`  planning time ms            ${stats(row.planMs)}   (target <= ${TARGET_MS} ms; --generate baseline: ${stats(row.generateMs)})`);
  console.log(`  planning time / target      ${stats(row.planMs.map((x) => x / TARGET_MS))}`);
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

console.log(`bench/plans: ${BROKERS} brokers, ${RACKS} racks, ${TOPICS * PARTITIONS_PER_TOPIC} partitions (RF ${RF}); node ${process.version}`);

run('decommission broker 7', (rep) => {
  const cluster = buildCluster(rep + 1);
  return { cluster, request: { goal: 'decommission', brokers: [7] }, generateBrokers: cluster.brokers.filter((b) => b.id !== 7).map((b) => ({ id: b.id, rack: b.rack })) };
});

run('rebalance after adding 10 brokers', (rep) => {
  const base = buildCluster(rep + 1);
  const brokers = [...base.brokers, ...Array.from({ length: 10 }, (_, i) => ({ id: BROKERS + i, rack: rackOf(BROKERS + i) }))];
  const cluster = { ...base, brokers };
  return { cluster, request: { goal: 'rebalance' }, generateBrokers: brokers.map((b) => ({ id: b.id, rack: b.rack })) };
});
