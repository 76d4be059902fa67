// What the moves answer to reads: ListPartitionReassignments' listing, and the replicas a broker
// hosts with the bytes each holds (DescribeLogDirs), for PartitionMoves (partition-moves.ts).
import type { PartitionLog } from './log.js';
import { byName, movesOf, type MovePartition } from './moving-partition.js';
import type { PartitionState, TopicState } from './topics.js';

/** One moving partition as ListPartitionReassignments reports it; its lists are shared: read only. */
export interface OngoingReassignment {
  partitionIndex: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export interface TopicReassignments {
  name: string;
  partitions: OngoingReassignment[];
}

export interface ReplicaLogSize {
  partition: number;
  /** Bytes this broker holds: the leader's size, or what a copying replica has so far. */
  sizeBytes: number;
}

export interface TopicLogSizes {
  topic: string;
  partitions: ReplicaLogSize[];
}

/** What the reads need of the moves. */
export interface MoveReadSource {
  readonly host: {
    topic(name: string): TopicState | undefined;
    logs(topic: TopicState): readonly PartitionLog[];
    hosted(brokerId: number): ReadonlyMap<TopicState, ReadonlySet<PartitionState>>;
  };
  /** The moving partitions by topic. */
  readonly movingByTopic: ReadonlyMap<TopicState, ReadonlySet<MovePartition>>;
  /** Bytes a copying replica holds so far; null when it is not copying. */
  copiedBytes(r: MovePartition, brokerId: number): number | null;
}

/** ListPartitionReassignments: null = every moving partition; unknown or idle ones are omitted. */
export function listReassignments(
  src: MoveReadSource,
  topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null,
): TopicReassignments[] {
  // The lists are shared, not copied: the model replaces them on every change, never modifies
  // them in place (100k moving partitions would otherwise cost 300k array copies per listing).
  const describe = (r: MovePartition): OngoingReassignment => ({
    partitionIndex: r.p.partition,
    replicas: r.p.replicas,
    addingReplicas: r.adding,
    removingReplicas: r.removing,
  });
  if (topics === null) {
    return [...src.movingByTopic.keys()].sort(byName).map((t) => ({
      name: t.name,
      partitions: [...src.movingByTopic.get(t)!].sort((a, b) => a.p.partition - b.p.partition).map(describe),
    }));
  }
  const out: TopicReassignments[] = [];
  for (const wanted of topics) {
    const t = src.host.topic(wanted.name);
    if (!t || !src.movingByTopic.has(t)) continue;
    const partitions: OngoingReassignment[] = [];
    for (const i of wanted.partitionIndexes) {
      const p = t.partitions[i];
      const r = p ? movesOf(p) : null;
      if (r?.moving) partitions.push(describe(r));
    }
    if (partitions.length > 0) out.push({ name: t.name, partitions });
  }
  return out;
}

/** Bytes broker `brokerId` holds of a replica it hosts: what it copied so far, or the whole log. */
function replicaBytes(src: MoveReadSource, p: PartitionState, brokerId: number, log: PartitionLog): number {
  const r = movesOf(p);
  return (r === null ? null : src.copiedBytes(r, brokerId)) ?? log.sizeBytes;
}

/**
 * The replicas one broker hosts, with their sizes (DescribeLogDirs), topics by name and
 * partitions by index. `filter` null = every replica; otherwise only the listed partitions
 * (unknown ones omitted).
 */
export function logSizes(
  src: MoveReadSource,
  brokerId: number,
  filter: readonly { topic: string; partitions: readonly number[] }[] | null,
): TopicLogSizes[] {
  if (filter !== null) return logSizesOf(src, brokerId, filter);
  const selected = src.host.hosted(brokerId);
  const out: TopicLogSizes[] = [];
  for (const t of [...selected.keys()].sort(byName)) {
    const parts = [...selected.get(t)!].sort((a, b) => a.partition - b.partition);
    if (parts.length === 0) continue;
    const logs = src.host.logs(t);
    out.push({
      topic: t.name,
      partitions: parts.map((p) => ({ partition: p.partition, sizeBytes: replicaBytes(src, p, brokerId, logs[p.partition]) })),
    });
  }
  return out;
}

/**
 * logSizes for the listed partitions. The gateway names every moving partition a broker hosts
 * (~25,000 per broker at 100,000 moving, 12 brokers at once each pass): no Set or Map per
 * partition, a per-topic mark array for repeats, and no sort when the list is in order (it is).
 */
function logSizesOf(
  src: MoveReadSource,
  brokerId: number,
  filter: readonly { topic: string; partitions: readonly number[] }[],
): TopicLogSizes[] {
  const byTopic = new Map<TopicState, number[]>();
  for (const f of filter) {
    const t = src.host.topic(f.topic);
    if (!t) continue;
    let list = byTopic.get(t);
    if (!list) byTopic.set(t, (list = []));
    for (let k = 0; k < f.partitions.length; k++) list.push(f.partitions[k]);
  }
  const out: TopicLogSizes[] = [];
  for (const t of [...byTopic.keys()].sort(byName)) {
    const asked = byTopic.get(t)!;
    let ordered = true;
    for (let k = 1; k < asked.length && ordered; k++) if (!(asked[k - 1] < asked[k])) ordered = false;
    if (!ordered) asked.sort((a, b) => a - b);
    const logs = src.host.logs(t);
    const partitions: { partition: number; sizeBytes: number }[] = [];
    let last = NaN;
    for (let k = 0; k < asked.length; k++) {
      const i = asked[k];
      if (i === last) continue; // a repeat (sorted: repeats are adjacent)
      last = i;
      const p = Number.isInteger(i) ? t.partitions[i] : undefined;
      if (!p || !p.replicas.includes(brokerId)) continue;
      partitions.push({ partition: p.partition, sizeBytes: replicaBytes(src, p, brokerId, logs[p.partition]) });
    }
    if (partitions.length > 0) out.push({ topic: t.name, partitions });
  }
  return out;
}

/**
 * usedBytesByDir by walking every replica the broker hosts, `dirIndex(topic)(partition)` saying
 * which of `dirCount` dirs holds each: O(replicas on the broker), the reference the kept sums
 * are tested against (and what DescribeLogDirs falls back on for dirs the model does not know).
 */
export function usedBytesByDirWalk(
  src: MoveReadSource,
  brokerId: number,
  dirIndex: (topic: string) => (partition: number) => number,
  dirCount: number,
): number[] {
  const used = new Array<number>(dirCount).fill(0);
  for (const [t, parts] of src.host.hosted(brokerId)) {
    const logs = src.host.logs(t);
    const dirOf = dirIndex(t.name);
    for (const p of parts) used[dirOf(p.partition)] += replicaBytes(src, p, brokerId, logs[p.partition]);
  }
  return used;
}
