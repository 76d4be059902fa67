// Reassignment planning cost: validation (validateReassignment) plus Kafka's throttle computation
// (computeReassignmentThrottles) for 1k, 10k and 100k partitions over 100 brokers.
//
// Prints the time per partition at each size and its ratio to the 1k run measured in this same
// process (after a warm-up). Linear algorithms give ratios near 1; an O(n^2) step would show
// ~10 at 10k and ~100 at 100k. What remains above 1 at the larger sizes is memory, not
// algorithm: 1k plans stay in the CPU caches and V8's young generation, 100k plans do not.
// Bounded: no new round starts after BUDGET_MS (about 20 s in all on a busy 2-core machine).
//
//   npm run bench:reassign-plan

import { PerformanceObserver, performance } from 'node:perf_hooks';
import { setImmediate as tick } from 'node:timers/promises';

import {
  computeReassignmentThrottles,
  validateReassignment,
  type ClusterSnapshot,
  type OngoingPartitionReassignment,
  type PartitionAssignment,
} from '../src/domain/reassignment/index.js';

const BROKERS = 100;
const PARTITIONS_PER_TOPIC = 100;
const REPLICATION_FACTOR = 3;
/** One partition in this many is already moving (started elsewhere): merged into the throttles. */
const ONGOING_EVERY = 50;
const SIZES = [1_000, 10_000, 100_000];
const WARM_UP_MS = 2_000;
const MIN_ROUNDS = 3;
const MAX_ROUNDS = 15;
/** Stop starting new rounds after this (each round handles 100k partitions per size, ~1-3 s). */
const BUDGET_MS = 15_000;

interface Workload {
  readonly partitions: number;
  readonly cluster: ClusterSnapshot;
  readonly targets: PartitionAssignment[];
}

/** A cluster of `partitions` partitions (RF 3) in topics of 100, every partition moved by one broker. */
function generate(partitions: number): Workload {
  const topics: { name: string; partitions: { partition: number; replicas: number[]; leader: number }[] }[] = [];
  const ongoing: OngoingPartitionReassignment[] = [];
  const targets: PartitionAssignment[] = [];
  for (let i = 0; i < partitions; i++) {
    const topicIndex = Math.floor(i / PARTITIONS_PER_TOPIC);
    const partition = i % PARTITIONS_PER_TOPIC;
    if (partition === 0) topics.push({ name: `topic-${String(topicIndex).padStart(5, '0')}`, partitions: [] });
    const topic = topics[topics.length - 1];
    const first = (i * 7 + topicIndex) % BROKERS;
    const original = Array.from({ length: REPLICATION_FACTOR }, (_, k) => (first + k) % BROKERS);
    const target = original.map((b) => (b + 1) % BROKERS);
    if (i % ONGOING_EVERY === 0) {
      // Moving now: original -> target; replicas = target ++ sorted(original - target).
      const adding = target.filter((b) => !original.includes(b));
      const removing = original.filter((b) => !target.includes(b));
      const replicas = [...target, ...removing.sort((a, b) => a - b)];
      topic.partitions.push({ partition, replicas, leader: original[0] });
      ongoing.push({ topic: topic.name, partition, replicas, adding, removing, reassignmentId: null });
    } else {
      topic.partitions.push({ partition, replicas: original, leader: original[0] });
      targets.push({ topic: topic.name, partition, replicas: target });
    }
  }
  const cluster: ClusterSnapshot = { liveBrokers: Array.from({ length: BROKERS }, (_, b) => b), topics, ongoing };
  return { partitions, cluster, targets };
}

/** One full planning pass; returns a checksum so nothing is optimised away and results are checked. */
function planOnce(w: Workload): number {
  const result = validateReassignment(w.cluster, { partitions: w.targets });
  if (!result.ok) throw new Error(`generated workload is invalid: ${JSON.stringify(result.errors.slice(0, 3))}`);
  const throttles = computeReassignmentThrottles(w.cluster.ongoing, result.plan.partitions);
  if (throttles.topics.length !== Math.ceil(w.partitions / PARTITIONS_PER_TOPIC)) throw new Error('unexpected throttle topics');
  return result.plan.partitions.length + throttles.brokers.length + throttles.topics[0].leader.length;
}

/** One timed stretch of `runs` consecutive passes over one workload. */
interface Timing {
  readonly start: number;
  readonly end: number;
  readonly runs: number;
}

function timeRuns(w: Workload, runs: number): Timing {
  let checksum = 0;
  const start = performance.now();
  for (let i = 0; i < runs; i++) checksum += planOnce(w);
  const end = performance.now();
  if (checksum <= 0) throw new Error('no work done');
  return { start, end, runs };
}

async function main(): Promise<void> {
  const began = performance.now();
  // GC pauses, attributed afterwards to the timed stretch they started in (entries arrive async).
  const gcPauses: { start: number; duration: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcPauses.push({ start: e.startTime, duration: e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });

  const workloads = SIZES.map(generate);
  console.log(
    `reassign-plan: validation + throttle computation, ${BROKERS} brokers, RF ${REPLICATION_FACTOR}, ` +
      `${PARTITIONS_PER_TOPIC} partitions per topic, 1 in ${ONGOING_EVERY} already moving (node ${process.version})`,
  );

  // Warm-up: let the JIT settle on every size before timing anything.
  const warmUntil = performance.now() + WARM_UP_MS;
  while (performance.now() < warmUntil) for (const w of workloads) timeRuns(w, Math.max(1, SIZES[SIZES.length - 1] / w.partitions / 10));
  await tick();

  // Rounds interleave the sizes, each size doing the same number of partitions per round, so
  // that load from other processes hits every size alike; ratios are taken within each round
  // (against that round's 1k run) and the median over rounds is reported.
  const timings: Timing[][] = SIZES.map(() => []);
  const largest = SIZES[SIZES.length - 1];
  let rounds = 0;
  while (rounds < MIN_ROUNDS || (rounds < MAX_ROUNDS && performance.now() - began < BUDGET_MS)) {
    workloads.forEach((w, i) => timings[i].push(timeRuns(w, largest / w.partitions)));
    rounds++;
    await tick(); // let GC entries be delivered
  }
  await tick();
  observer.disconnect();

  const gcIn = (t: Timing) => gcPauses.filter((g) => g.start >= t.start && g.start < t.end).reduce((sum, g) => sum + g.duration, 0);
  const usPerPartition = (t: Timing, w: Workload, minusGc: boolean) =>
    (((t.end - t.start - (minusGc ? gcIn(t) : 0)) / t.runs) * 1000) / w.targets.length;
  const table = (minusGc: boolean) =>
    workloads.map((w, i) =>
      timings[i].map((t, round) => ({ us: usPerPartition(t, w, minusGc), base: usPerPartition(timings[0][round], workloads[0], minusGc) })),
    );

  console.log('');
  console.log(`${rounds} rounds, medians`);
  console.log('partitions   µs/partition   ratio vs 1k   vs previous size   gc share   ratio vs 1k without gc');
  const all = table(false);
  const noGc = table(true);
  SIZES.forEach((size, i) => {
    const us = median(all[i].map((x) => x.us));
    const ratio = median(all[i].map((x) => x.us / x.base));
    const vsPrevious = i === 0 ? '' : median(all[i].map((x, round) => x.us / all[i - 1][round].us)).toFixed(2);
    const gcShare = median(timings[i].map((t) => gcIn(t) / (t.end - t.start)));
    const ratioNoGc = median(noGc[i].map((x) => x.us / x.base));
    console.log(
      `${String(size).padStart(10)}  ${us.toFixed(3).padStart(13)}  ${ratio.toFixed(2).padStart(12)}  ${vsPrevious.padStart(17)}  ` +
        `${(gcShare * 100).toFixed(0).padStart(8)}%  ${ratioNoGc.toFixed(2).padStart(23)}`,
    );
  });
  const worst = Math.max(...all.map((rows) => median(rows.map((x) => x.us / x.base))));
  console.log('');
  console.log(`worst ratio ${worst.toFixed(2)} (linear ≈ 1; an O(n^2) step would give ~10 at 10k and ~100 at 100k)`);
  console.log(`total ${((performance.now() - began) / 1000).toFixed(1)} s`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

await main();
