// The `leader/follower.replication.throttled.replicas` topic configs, read as Kafka reads them:
// `*` (every replica) or a comma list of `partition:broker` pairs. Parsed once per value into
// numeric keys; the simulator's replication (partition-moves.ts) asks it per replica.

/** A `*.replication.throttled.replicas` value, parsed once (see listsReplica). */
export interface ThrottledReplicas {
  lists(partition: number, brokerId: number): boolean;
}

export function parseThrottledReplicas(value: string | null): ThrottledReplicas {
  const v = value?.trim() ?? '';
  if (v === '*') return { lists: () => true };
  if (v === '') return { lists: () => false };
  // One pass over the text into numeric keys (Kafka reads the pairs as ints): a throttled topic
  // of 1,000 moving partitions lists ~4,000 pairs, and a string per pair (and per lookup) was
  // most of what the simulator spent on a 100,000-partition AlterPartitionReassignments.
  const keys = new Set<number>();
  let others: Set<string> | null = null;
  for (let from = 0; from <= v.length;) {
    let to = v.indexOf(',', from);
    if (to < 0) to = v.length;
    const pair = pairKey(v, from, to);
    if (pair !== null) keys.add(pair);
    else {
      // Not digits:digits (the config validator allows nothing else) or out of range: by text.
      const entry = v.slice(from, to).trim();
      const colon = entry.indexOf(':');
      (others ??= new Set()).add(colon < 0 ? entry : `${Number(entry.slice(0, colon).trim())}:${Number(entry.slice(colon + 1).trim())}`);
    }
    from = to + 1;
  }
  return {
    lists: (partition, brokerId) =>
      partition >= 0 &&
      partition < PARTITION_LIMIT &&
      brokerId >= 0 &&
      brokerId < BROKER_LIMIT &&
      Number.isInteger(partition) &&
      Number.isInteger(brokerId)
        ? keys.has(partition * BROKER_LIMIT + brokerId)
        : (others?.has(`${partition}:${brokerId}`) ?? false),
  };
}

/** Pairs are keyed partition * BROKER_LIMIT + broker: exact below 2^52 (partitions are int32). */
const BROKER_LIMIT = 2 ** 21;
const PARTITION_LIMIT = 2 ** 31;
const SPACE = 0x20;
const TAB = 0x09;
const COLON = 0x3a;
const ZERO = 0x30;

/**
 * The key of `partition:broker` in text[from, to) (spaces around each number allowed), or null.
 * No closures: this runs per pair, and under tsx every inner function is also named at runtime.
 */
function pairKey(text: string, from: number, to: number): number | null {
  let i = from;
  let c = 0;
  while (i < to && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++;
  let start = i;
  let partition = 0;
  for (; i < to; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) break;
    partition = partition * 10 + d;
    if (partition >= PARTITION_LIMIT) return null;
  }
  if (i === start) return null;
  while (i < to && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++;
  if (i >= to || text.charCodeAt(i) !== COLON) return null;
  i++;
  while (i < to && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++;
  start = i;
  let broker = 0;
  for (; i < to; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) break;
    broker = broker * 10 + d;
    if (broker >= BROKER_LIMIT) return null;
  }
  if (i === start) return null;
  while (i < to && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++;
  return i === to ? partition * BROKER_LIMIT + broker : null;
}

/**
 * Whether a `*.replication.throttled.replicas` value lists this replica: `*` lists every
 * replica; otherwise a comma list of `partition:broker` (spaces ignored, empty = none).
 */
export function listsReplica(value: string | null, partition: number, brokerId: number): boolean {
  return parseThrottledReplicas(value).lists(partition, brokerId);
}
