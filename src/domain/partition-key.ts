// `topic:partition`, the key every per-partition map and set of the gateway uses, interned; and
// `partition:broker`, the entries of Kafka's throttled-replicas configs, likewise.
//
// Why: with 100,000 partitions moving, every reconcile pass keys several maps and sets by
// partition (Kafka's moves, their owners, the moving set per reassignment, ended topics...).
// A template literal makes a new cons string per call, which the Map then flattens and hashes:
// ~100k short-lived strings per structure per pass. A pass runs for seconds with event-loop
// yields, so those strings outlive two scavenges, get promoted, and die in the old generation,
// which is what makes V8 grow the heap (its growing factor follows the promotion rate). Handing
// out the same flat string for the same partition costs one lookup per call and no allocation
// after the first, and the string's hash is computed once.
//
// Bounded: at most MAX_INTERNED keys are kept (a cluster of 100,000 partitions uses 100,000,
// about 5 MB); past that the table starts again from empty, so topic churn over months cannot
// grow it without bound. Correctness never depends on identity: a key made after a reset is
// equal (===) to one made before, as strings are compared by value.

/** Keys kept at most (200,000: twice the partitions of the largest cluster the gateway is built for). */
export const MAX_INTERNED = 200_000;

let byTopic = new Map<string, string[]>();
let count = 0;

/** `${topic}:${partition}`, the same string object for the same partition while it is interned. */
export function partitionKey(topic: string, partition: number): string {
  let keys = byTopic.get(topic);
  if (keys === undefined) {
    if (count >= MAX_INTERNED) resetInterned();
    byTopic.set(topic, (keys = []));
  }
  let key = keys[partition];
  if (key === undefined) {
    if (count >= MAX_INTERNED) {
      resetInterned();
      byTopic.set(topic, (keys = []));
    }
    key = `${topic}:${partition}`;
    // Partition ids are small non-negative integers: a dense array per topic. A negative or
    // huge one (bad input) is keyed but not kept, so it cannot make the array sparse.
    if (Number.isInteger(partition) && partition >= 0 && partition < 1 << 20) {
      keys[partition] = key;
      count++;
    }
  }
  return key;
}

/** Number of keys interned now (for tests). */
export function internedCount(): number {
  return count + entryCount;
}

/** Drops every interned key. */
export function resetInterned(): void {
  byTopic = new Map();
  count = 0;
  resetEntries();
}

// `partition:broker` entries: a 100,000-partition reassignment's throttle demand, its ledger
// lists and the throttle sync's sets name ~400,000 of them, but a cluster has few distinct ones
// (partitions per topic x brokers: 12,000 for 1,000-partition topics on 12 brokers). Made by a
// template literal each time, they were ~10 MiB per moving 100k reassignment in the heap
// snapshot (448,000 strings), and as many allocations again per start. Same bound and reset
// as the partition keys.
let byBroker = new Map<number, string[]>();
let entryCount = 0;

function resetEntries(): void {
  byBroker = new Map();
  entryCount = 0;
}

/** `${partition}:${broker}`, the same string object for the same pair while it is interned. */
export function replicaEntryKey(partition: number, broker: number): string {
  let entries = byBroker.get(broker);
  if (entries === undefined) {
    if (entryCount >= MAX_INTERNED) resetEntries();
    byBroker.set(broker, (entries = []));
    entryCount++; // a broker's table counts too: bad input naming many brokers stays bounded
  }
  let entry = entries[partition];
  if (entry === undefined) {
    if (entryCount >= MAX_INTERNED) {
      resetEntries();
      byBroker.set(broker, (entries = []));
    }
    entry = `${partition}:${broker}`;
    if (Number.isInteger(partition) && partition >= 0 && partition < 1 << 20) {
      entries[partition] = entry;
      entryCount++;
    }
  }
  return entry;
}
