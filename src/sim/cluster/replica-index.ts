// Which partitions each broker hosts, kept up to date as replica sets change, so a broker's
// DescribeLogDirs walks its own replicas instead of every partition of the cluster (100 brokers
// x 100,000 partitions would otherwise be 10 million checks per round of DescribeLogDirs).
import type { PartitionState, TopicState } from './topics.js';

export class ReplicaIndex {
  private readonly byBroker = new Map<number, Map<TopicState, Set<PartitionState>>>();

  /** The topics a broker hosts replicas of, with those partitions (insertion order). */
  hosted(brokerId: number): ReadonlyMap<TopicState, ReadonlySet<PartitionState>> {
    return this.byBroker.get(brokerId) ?? new Map();
  }

  add(t: TopicState, p: PartitionState, brokers: readonly number[] = p.replicas): void {
    for (const b of brokers) {
      let topics = this.byBroker.get(b);
      if (!topics) this.byBroker.set(b, (topics = new Map()));
      let parts = topics.get(t);
      if (!parts) topics.set(t, (parts = new Set()));
      parts.add(p);
    }
  }

  remove(t: TopicState, p: PartitionState, brokers: readonly number[] = p.replicas): void {
    for (const b of brokers) {
      const topics = this.byBroker.get(b);
      const parts = topics?.get(t);
      if (!topics || !parts) continue;
      parts.delete(p);
      if (parts.size === 0) topics.delete(t);
    }
  }

  /** The replica set of p went from `before` to p.replicas. */
  replace(t: TopicState, p: PartitionState, before: readonly number[]): void {
    const gone = before.filter((b) => !p.replicas.includes(b));
    const added = p.replicas.filter((b) => !before.includes(b));
    if (gone.length > 0) this.remove(t, p, gone);
    if (added.length > 0) this.add(t, p, added);
  }

  removeTopic(t: TopicState): void {
    for (const topics of this.byBroker.values()) topics.delete(t);
  }
}
