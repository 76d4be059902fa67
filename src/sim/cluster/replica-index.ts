// Which partitions each broker hosts, kept up to date as replica sets change, so a broker's
// DescribeLogDirs walks its own replicas instead of every partition of the cluster (100 brokers
// x 100,000 partitions would otherwise be 10 million checks per round of DescribeLogDirs).
// It also keeps, per broker and log dir, the full log sizes of the replicas hosted there, so a
// log dir's used bytes never need that walk (see ./partition-moves.ts, usedBytesByDir): every
// change of a replica set goes through add/remove/replace/removeTopic, and the owner reports
// every log growth (sizeChanged).
import type { PartitionState, TopicState } from './topics.js';

/** Where the index reads a replica's log size and log dir (the same dir on every broker). */
export interface ReplicaSizes {
  readonly dirCount: number;
  sizeBytes(t: TopicState, p: PartitionState): number;
  dirIndex(t: TopicState, partition: number): number;
}

export class ReplicaIndex {
  private readonly byBroker = new Map<number, Map<TopicState, Set<PartitionState>>>();
  /** Σ log sizes of the hosted replicas, by broker, by log dir. */
  private readonly bytes = new Map<number, number[]>();

  constructor(private readonly sizes: ReplicaSizes) {}

  /** The topics a broker hosts replicas of, with those partitions (insertion order). */
  hosted(brokerId: number): ReadonlyMap<TopicState, ReadonlySet<PartitionState>> {
    return this.byBroker.get(brokerId) ?? new Map();
  }

  /** Full log sizes of the replicas the broker hosts, per log dir (dirCount entries, or none). */
  hostedBytes(brokerId: number): readonly number[] {
    return this.bytes.get(brokerId) ?? [];
  }

  add(t: TopicState, p: PartitionState, brokers: readonly number[] = p.replicas): void {
    for (const b of brokers) this.addOne(t, p, b);
  }

  remove(t: TopicState, p: PartitionState, brokers: readonly number[] = p.replicas): void {
    for (const b of brokers) this.removeOne(t, p, b);
  }

  /** The replica set of p went from `before` to p.replicas (scans, no lists: it runs per partition moved). */
  replace(t: TopicState, p: PartitionState, before: readonly number[]): void {
    for (const b of before) if (!p.replicas.includes(b)) this.removeOne(t, p, b);
    for (const b of p.replicas) if (!before.includes(b)) this.addOne(t, p, b);
  }

  private addOne(t: TopicState, p: PartitionState, b: number): void {
    let topics = this.byBroker.get(b);
    if (!topics) this.byBroker.set(b, (topics = new Map<TopicState, Set<PartitionState>>()));
    let parts = topics.get(t);
    if (!parts) topics.set(t, (parts = new Set()));
    const size = parts.size;
    parts.add(p);
    if (parts.size !== size) this.count(b, t, p, 1); // counted once, as it is listed once
  }

  private removeOne(t: TopicState, p: PartitionState, b: number): void {
    const topics = this.byBroker.get(b);
    const parts = topics?.get(t);
    if (!topics || !parts || !parts.delete(p)) return;
    this.count(b, t, p, -1);
    if (parts.size === 0) topics.delete(t);
  }

  removeTopic(t: TopicState): void {
    for (const [b, topics] of this.byBroker) {
      for (const p of topics.get(t) ?? []) this.count(b, t, p, -1);
      topics.delete(t);
    }
  }

  /** p's log grew by `delta` bytes (on every broker hosting it). */
  sizeChanged(t: TopicState, p: PartitionState, delta: number): void {
    const dir = this.sizes.dirIndex(t, p.partition);
    for (const b of p.replicas) if (this.byBroker.get(b)?.get(t)?.has(p)) this.bytesOf(b)[dir] += delta;
  }

  private count(b: number, t: TopicState, p: PartitionState, sign: 1 | -1): void {
    this.bytesOf(b)[this.sizes.dirIndex(t, p.partition)] += sign * this.sizes.sizeBytes(t, p);
  }

  private bytesOf(b: number): number[] {
    let byDir = this.bytes.get(b);
    if (!byDir) this.bytes.set(b, (byDir = new Array<number>(this.sizes.dirCount).fill(0)));
    return byDir;
  }
}
