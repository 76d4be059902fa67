// The planner's working model (src/domain/plan/planner.ts builds it, goals.ts changes it): every
// partition with its replicas as broker indexes and the target the goal writes, the brokers'
// racks, liveness and eligibility, and the running totals per broker. Plus what every part reads
// of it: replica counts per topic and the loads per broker.
import { counter, type Steps } from '../steps.js';
import type { BrokerLoad, PlanWarning, PlanWeight } from './types.js';

/** Internal partition: replicas as broker indexes, `target` mutated by the goal. */
export interface Part {
  readonly topic: number;
  readonly partition: number;
  readonly original: readonly number[];
  target: number[];
  readonly bytes: number;
  readonly sized: boolean;
  /** May be changed: topic in scope and not moving. */
  readonly free: boolean;
}

/** Everything a goal works on. Broker indexes 0..K-1 follow ascending broker id. */
export interface Model {
  readonly ids: number[];
  readonly racks: (string | null)[];
  /** Rack key per broker: its rack, or a key of its own when it has none. */
  readonly rackKey: string[];
  readonly live: boolean[];
  /** May receive replicas. */
  readonly eligible: boolean[];
  readonly eligibleList: number[];
  readonly topicNames: string[];
  /** Partitions per topic index (all topics, in scope or not). */
  readonly byTopic: Part[][];
  readonly inScope: boolean[];
  readonly parts: Part[];
  readonly rackAware: boolean;
  readonly weight: PlanWeight;
  /** Running totals while planning (targets). */
  readonly count: Int32Array;
  readonly bytes: Float64Array;
  readonly warnings: PlanWarning[];
}

/** Strings in code-unit order (no locale: the same order everywhere). */
export const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Replicas of one topic per broker (targets), into tc. */
export function topicCounts(list: readonly Part[], tc: Int32Array): void {
  tc.fill(0);
  for (const p of list) for (const b of p.target) tc[b]++;
}

/** Replicas, preferred leaders and bytes per broker, for the replica lists `replicas` gives. */
export function* loads(m: Model, replicas: (p: Part) => readonly number[]): Steps<BrokerLoad[]> {
  const K = m.ids.length;
  const count = new Int32Array(K);
  const leaders = new Int32Array(K);
  const bytes = new Float64Array(K);
  const tick = counter(8192);
  for (const p of m.parts) {
    const r = replicas(p);
    if (r.length > 0) leaders[r[0]]++;
    for (const b of r) {
      count[b]++;
      bytes[b] += p.bytes;
    }
    if (tick()) yield;
  }
  return m.ids.map((id, b) => ({
    broker: id,
    rack: m.racks[b]!,
    live: m.live[b],
    replicas: count[b],
    leaders: leaders[b],
    bytes: bytes[b],
  }));
}

export function isSortedByPartition(list: readonly { partition: number }[]): boolean {
  for (let i = 1; i < list.length; i++) if (list[i - 1].partition > list[i].partition) return false;
  return true;
}

export function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
