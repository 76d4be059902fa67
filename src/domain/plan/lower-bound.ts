// What any plan reaching a goal must move, computed from the input alone: the planner's result is
// compared with this (response `lowerBound`, property tests, bench/plans), so it must not share
// the planner's choices. Each bound is a counting argument, stated next to it.
import { assignCeilSlotsSteps, type CeilSlotTopic } from './ceil-slots.js';
import { counter, drain, type Steps } from '../steps.js';
import type { PlanGoal, PlanWeight } from './types.js';

/** One in-scope partition as the bounds see it (broker ids, size). */
export interface BoundPartition {
  readonly topic: number;
  readonly replicas: readonly number[];
  readonly bytes: number;
}

export interface BoundInput {
  readonly goal: PlanGoal;
  readonly weight: PlanWeight;
  /** Partitions the plan may change (in scope, not moving), grouped by topic. */
  readonly partitions: readonly BoundPartition[];
  /** decommission: the brokers emptied. */
  readonly removed: ReadonlySet<number>;
  /** rebalance: the brokers evened out. replication-factor / rack-repair: where replicas may go. */
  readonly brokers: readonly number[];
  /** rebalance: also even the broker totals (no topic filter). */
  readonly evenTotals: boolean;
  readonly replicationFactor?: number;
  /** rack-repair: rack of each broker (null = no rack); racks with a broker in `brokers`. */
  readonly rackOf?: (broker: number) => string;
}

export interface Bound {
  movedReplicas: number;
  movedBytes: number;
}

export function lowerBound(input: BoundInput): Bound {
  return drain(lowerBoundSteps(input));
}

/** lowerBound in steps (see steps.ts). */
export function* lowerBoundSteps(input: BoundInput): Steps<Bound> {
  switch (input.goal) {
    case 'decommission':
      return yield* decommissionBound(input);
    case 'replication-factor':
      return yield* replicationFactorBound(input);
    case 'rack-repair':
      return yield* rackRepairBound(input);
    case 'rebalance':
      return input.weight === 'bytes' ? yield* bytesRebalanceBound(input) : yield* countRebalanceBound(input);
    case 'leaders':
      // Re-orders only: nothing needs to move.
      return { movedReplicas: 0, movedBytes: 0 };
  }
}

/** Every replica on a removed broker must be copied somewhere else: exactly those, no fewer. */
function* decommissionBound({ partitions, removed }: BoundInput): Steps<Bound> {
  const tick = counter(8192);
  let movedReplicas = 0;
  let movedBytes = 0;
  for (const p of partitions) {
    for (const b of p.replicas) {
      if (removed.has(b)) {
        movedReplicas++;
        movedBytes += p.bytes;
      }
    }
    if (tick()) yield;
  }
  return { movedReplicas, movedBytes };
}

/** Each partition short of the factor needs that many new copies; removing replicas copies nothing. */
function* replicationFactorBound({ partitions, replicationFactor }: BoundInput): Steps<Bound> {
  const tick = counter(8192);
  const rf = replicationFactor ?? 0;
  let movedReplicas = 0;
  let movedBytes = 0;
  for (const p of partitions) {
    const add = Math.max(0, rf - p.replicas.length);
    movedReplicas += add;
    movedBytes += add * p.bytes;
    if (tick()) yield;
  }
  return { movedReplicas, movedBytes };
}

/**
 * A partition on d distinct racks, of n replicas, with R racks available, must end on min(n, R')
 * racks (R' = the racks available plus those it already uses); one moved replica adds at most
 * one rack, so it needs min(n, R') - d moves, each copying the partition once.
 */
function* rackRepairBound({ partitions, brokers, rackOf }: BoundInput): Steps<Bound> {
  const tick = counter(2048);
  if (!rackOf) return { movedReplicas: 0, movedBytes: 0 };
  const available = new Set(brokers.map(rackOf));
  let movedReplicas = 0;
  let movedBytes = 0;
  for (const p of partitions) {
    const used = new Set(p.replicas.map(rackOf));
    let reachable = available.size;
    for (const r of used) if (!available.has(r)) reachable++;
    const fixes = Math.max(0, Math.min(p.replicas.length, reachable) - used.size);
    movedReplicas += fixes;
    movedBytes += fixes * p.bytes;
    if (tick()) yield;
  }
  return { movedReplicas, movedBytes };
}

/**
 * Count rebalance. For one topic with n replicas on k brokers, an even end state has r = n mod k
 * brokers at ceil(n/k) and the rest at floor(n/k). A move lowers one broker's count by one, so
 * the moves needed are at least the excess over the end state, minimised by giving the r ceil
 * slots to the brokers that hold the most (the bytes bound: each over-full broker sheds its
 * smallest replicas, the ceil slots going where they save the most bytes). Summed over topics.
 * When the broker totals are evened too, the ceil slots of all topics must also be spread evenly
 * over the brokers (ceil-slots.ts explains why that is the whole condition), which can cost more
 * than each topic alone: the exact minimum over all such choices (a min-cost flow) is the bound,
 * and exactly that many moves suffice, so it is tight. The bytes bound stays the larger of the
 * per-topic bytes bound and the same argument on the broker totals (a move lowers one topic's
 * excess and one total's excess by at most one replica each).
 */
function* countRebalanceBound({ partitions, brokers, evenTotals }: BoundInput): Steps<Bound> {
  const k = brokers.length;
  if (k === 0) return { movedReplicas: 0, movedBytes: 0 };
  const slot = new Map(brokers.map((b, i) => [b, i]));
  const tick = counter(4096);
  // Sizes per broker overall, and per broker for the topic at hand: `partitions` must come grouped
  // by topic (BoundInput says so).
  const perBroker: number[][] = brokers.map(() => []);
  let perTopic: number[][] = brokers.map(() => []);
  let topicReplicas = 0;
  let topicBytes = 0;
  let aboveFloor = 0;
  const ceilTopics: CeilSlotTopic[] = [];
  const flushTopic = () => {
    const holders = perTopic.filter((h) => h.length > 0);
    if (holders.length > 0) {
      const b = evenBound(holders, k);
      topicReplicas += b.movedReplicas;
      topicBytes += b.movedBytes;
      const counts = new Int32Array(k);
      let n = 0;
      perTopic.forEach((h, i) => ((counts[i] = h.length), (n += h.length)));
      const floor = Math.floor(n / k);
      for (const c of counts) aboveFloor += Math.max(0, c - floor);
      ceilTopics.push({ counts, floor, remainder: n % k });
    }
    perTopic = brokers.map(() => []);
  };
  let current = partitions.length > 0 ? partitions[0].topic : -1;
  for (const p of partitions) {
    if (p.topic !== current) {
      flushTopic();
      current = p.topic;
    }
    for (const b of p.replicas) {
      const i = slot.get(b);
      if (i === undefined) continue;
      perTopic[i].push(p.bytes);
      perBroker[i].push(p.bytes);
    }
    if (tick()) yield;
  }
  flushTopic();
  if (!evenTotals) return { movedReplicas: topicReplicas, movedBytes: topicBytes };
  yield;
  const { kept } = yield* assignCeilSlotsSteps(k, ceilTopics);
  yield;
  const totals = evenBound(perBroker, k);
  yield;
  return { movedReplicas: aboveFloor - kept, movedBytes: Math.max(topicBytes, totals.movedBytes) };
}

/** The even-spread bound of one population: `holders` lists each broker's replica sizes (brokers holding none may be absent). */
function evenBound(holders: number[][], k: number): Bound {
  let n = 0;
  for (const h of holders) n += h.length;
  const floor = Math.floor(n / k);
  const r = n % k;
  let movedReplicas = 0;
  let movedBytes = 0;
  // Brokers above floor shed down to floor, except r of them that may keep one more (ceil).
  const savings: { replicas: number; bytes: number }[] = [];
  for (const h of holders) {
    if (h.length <= floor) continue;
    const sorted = Float64Array.from(h).sort();
    const excess = h.length - floor;
    let bytes = 0;
    for (let i = 0; i < excess; i++) bytes += sorted[i];
    movedReplicas += excess;
    movedBytes += bytes;
    // Keeping ceil instead of floor spares the largest of the shed replicas.
    savings.push({ replicas: 1, bytes: sorted[excess - 1] });
  }
  if (r > 0) {
    // Count: any r of them spare one replica each. Bytes: the r with the largest spared replica.
    const spare = Math.min(r, savings.length);
    movedReplicas -= spare;
    savings.sort((a, b) => b.bytes - a.bytes);
    for (let i = 0; i < spare; i++) movedBytes -= savings[i].bytes;
  }
  return { movedReplicas, movedBytes };
}

/**
 * Bytes rebalance: the goal is max - min <= S (S = the largest in-scope partition), so every broker
 * must end at or below mean + S; what is above must leave, in whole replicas (its largest first
 * gives the fewest replicas).
 */
function* bytesRebalanceBound({ partitions, brokers }: BoundInput): Steps<Bound> {
  const tick = counter(8192);
  const k = brokers.length;
  if (k === 0) return { movedReplicas: 0, movedBytes: 0 };
  const inSet = new Set(brokers);
  const per = new Map<number, number[]>();
  for (const b of brokers) per.set(b, []);
  let total = 0;
  let largest = 0;
  for (const p of partitions) {
    for (const b of p.replicas) {
      if (!inSet.has(b)) continue;
      per.get(b)!.push(p.bytes);
      total += p.bytes;
      largest = Math.max(largest, p.bytes);
    }
    if (tick()) yield;
  }
  const ceiling = total / k + largest;
  let movedReplicas = 0;
  let movedBytes = 0;
  for (const sizes of per.values()) {
    let load = sizes.reduce((a, b) => a + b, 0);
    if (load <= ceiling) continue;
    movedBytes += load - ceiling;
    sizes.sort((a, b) => b - a);
    yield;
    for (const s of sizes) {
      if (load <= ceiling) break;
      load -= s;
      movedReplicas++;
    }
  }
  return { movedReplicas, movedBytes: Math.ceil(movedBytes) };
}
