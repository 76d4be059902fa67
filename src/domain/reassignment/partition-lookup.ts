// Lookups the validation (plan.ts) makes per requested partition, without a Map entry per
// partition where the topic's partitions are 0..n-1 (Kafka's usual list): a 100,000-partition
// request then costs arrays, not Maps of that size.
import { PartitionMap } from './partition-map.js';
import type { PartitionReplicas } from './plan-types.js';

/** A topic's partitions by id, as a Map of them (last one listed wins) would answer. */
export interface PartitionLookup {
  get(partition: number): PartitionReplicas | undefined;
  readonly size: number;
  keys(): Iterable<number>;
  /** Partitions 0..size-1, each once (Kafka's usual list): an index per partition fits an array. */
  readonly dense?: true;
}

/**
 * Where each requested partition first appears in the request (what a PartitionMap<number>
 * answers): for a topic whose partitions are 0..n-1, an Int32Array of n (index + 1; 0 = not
 * requested) instead of a Map entry per partition; anything else (unknown topic or partition,
 * a sparse topic) in a PartitionMap.
 */
export class RequestedIndex {
  readonly #dense = new Map<string, Int32Array | null>();
  readonly #other = new PartitionMap<number>();
  readonly #topics: ReadonlyMap<string, PartitionLookup>;

  constructor(topics: ReadonlyMap<string, PartitionLookup>) {
    this.#topics = topics;
  }

  #slots(topic: string): Int32Array | null {
    let slots = this.#dense.get(topic);
    if (slots === undefined) {
      const lookup = this.#topics.get(topic);
      slots = lookup?.dense ? new Int32Array(lookup.size) : null;
      this.#dense.set(topic, slots);
    }
    return slots;
  }

  get(topic: string, partition: number): number | undefined {
    const slots = this.#slots(topic);
    if (slots !== null && Number.isInteger(partition) && partition >= 0 && partition < slots.length) {
      const v = slots[partition];
      return v === 0 ? undefined : v - 1;
    }
    return this.#other.get(topic, partition);
  }

  has(topic: string, partition: number): boolean {
    return this.get(topic, partition) !== undefined;
  }

  set(topic: string, partition: number, index: number): void {
    const slots = this.#slots(topic);
    if (slots !== null && Number.isInteger(partition) && partition >= 0 && partition < slots.length) slots[partition] = index + 1;
    else this.#other.set(topic, partition, index);
  }

  /** [partition, first index] of each requested partition of `topic` (in no particular order). */
  *entries(topic: string): IterableIterator<[number, number]> {
    const slots = this.#slots(topic);
    if (slots !== null) for (let p = 0; p < slots.length; p++) if (slots[p] !== 0) yield [p, slots[p] - 1];
    yield* this.#other.topic(topic) ?? [];
  }
}

/**
 * Kafka lists a topic's partitions in id order, so index k holds partition k and the list
 * itself is the lookup (no Map of 100,000 entries per call); any other list gets a Map.
 */
export function partitionLookup(list: readonly PartitionReplicas[]): PartitionLookup {
  let dense = true;
  for (let k = 0; k < list.length && dense; k++) dense = list[k].partition === k;
  if (!dense) return new Map(list.map((p) => [p.partition, p]));
  return {
    get: (partition) => list[partition],
    size: list.length,
    keys: () => list.keys(),
    dense: true,
  };
}
