// A map keyed by (topic, partition) without building string keys: nested maps keep lookups O(1)
// and let callers walk one topic at a time (throttle lists are per topic).

export class PartitionMap<V> {
  private readonly byTopic = new Map<string, Map<number, V>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(topic: string, partition: number): V | undefined {
    return this.byTopic.get(topic)?.get(partition);
  }

  has(topic: string, partition: number): boolean {
    return this.byTopic.get(topic)?.has(partition) ?? false;
  }

  set(topic: string, partition: number, value: V): void {
    let partitions = this.byTopic.get(topic);
    if (!partitions) {
      partitions = new Map();
      this.byTopic.set(topic, partitions);
    }
    if (!partitions.has(partition)) this.count++;
    partitions.set(partition, value);
  }

  /** The partitions of one topic (live view; do not mutate). */
  topic(topic: string): ReadonlyMap<number, V> | undefined {
    return this.byTopic.get(topic);
  }

  topics(): IterableIterator<[string, ReadonlyMap<number, V>]> {
    return this.byTopic.entries();
  }
}
