// The replication-throttle configs (names as Kafka spells them) and the values of the
// throttled-replicas lists: `*` or comma-joined `partition:broker` entries, parsed (cached for
// large values) and formatted as Kafka's tool writes them. throttles.ts computes them.
import { replicaEntryKey } from '../partition-key.js';

export const LEADER_THROTTLED_REPLICAS = 'leader.replication.throttled.replicas' as const;
export const FOLLOWER_THROTTLED_REPLICAS = 'follower.replication.throttled.replicas' as const;
export const LEADER_THROTTLED_RATE = 'leader.replication.throttled.rate' as const;
export const FOLLOWER_THROTTLED_RATE = 'follower.replication.throttled.rate' as const;
/** Broker config of kafka-reassign-partitions.sh's --replica-alter-log-dirs-throttle (intra-broker moves). */
export const LOG_DIRS_THROTTLED_RATE = 'replica.alter.log.dirs.io.max.bytes.per.second' as const;
/** Value of a throttled-replicas config meaning every replica of the topic. */
export const ALL_REPLICAS = '*' as const;

export type ReplicaListConfigName = typeof LEADER_THROTTLED_REPLICAS | typeof FOLLOWER_THROTTLED_REPLICAS;
export type RateConfigName = typeof LEADER_THROTTLED_RATE | typeof FOLLOWER_THROTTLED_RATE | typeof LOG_DIRS_THROTTLED_RATE;
export type ThrottleConfigName = ReplicaListConfigName | RateConfigName;

// ---------------------------------------------------------------------------------------------
// `partition:broker` lists
// ---------------------------------------------------------------------------------------------

/** A throttled-replicas config value: `*`, or `partition:broker` entries (canonical, deduplicated). */
export type ThrottledReplicas = { readonly all: true } | { readonly all: false; readonly entries: readonly string[] };

/** `partition:broker` (interned: partition-key.ts). */
export function replicaEntry(partition: number, broker: number): string {
  return replicaEntryKey(partition, broker);
}

const ENTRY = /^(\d+):(\d+)$/;

/** `partition:broker` -> numbers; null when it is not one (whitespace around it is allowed). */
export function parseReplicaEntry(entry: string): { partition: number; broker: number } | null {
  const m = ENTRY.exec(entry.trim());
  if (!m) return null;
  const partition = Number(m[1]);
  const broker = Number(m[2]);
  if (!Number.isSafeInteger(partition) || !Number.isSafeInteger(broker)) return null;
  return { partition, broker };
}

/**
 * Parse a throttled-replicas config value as Kafka's ThrottledReplicaListValidator accepts it:
 * `*` alone, or comma-separated `partition:broker` (whitespace and empty items ignored; null or
 * '' = no entries). Entries come back canonical (`07:1` -> `7:1`) and deduplicated, in input
 * order. Null when the value is not valid.
 */
export function parseThrottledReplicas(value: string | null | undefined): ThrottledReplicas | null {
  if (value === null || value === undefined) return NO_ENTRIES;
  // Memoised by value: the throttle sync sees the same (long) config values pass after pass.
  // Results are frozen, so sharing them is safe.
  if (value.length < PARSE_CACHE_MIN_LENGTH) return parseUncached(value);
  const hit = parseCache.get(value);
  if (hit !== undefined) {
    // Least recently used goes first: move this one to the end.
    parseCache.delete(value);
    parseCache.set(value, hit);
    return hit;
  }
  const parsed = parseUncached(value);
  parseCache.set(value, parsed);
  parseCacheChars += value.length;
  while (parseCache.size > PARSE_CACHE_MAX_ENTRIES || parseCacheChars > PARSE_CACHE_MAX_CHARS) {
    const oldest = parseCache.keys().next().value as string;
    parseCache.delete(oldest);
    parseCacheChars -= oldest.length;
  }
  return parsed;
}

const NO_ENTRIES: ThrottledReplicas = Object.freeze({ all: false, entries: Object.freeze([]) });
/** Values shorter than this are parsed every time (cheap); longer ones are memoised. */
const PARSE_CACHE_MIN_LENGTH = 64;
/** Bounded (least recently used dropped first) to this many values (two lists per throttled topic fit easily)... */
export const PARSE_CACHE_MAX_ENTRIES = 1024;
/**
 * And at most this many characters of values (their parsed entries cost a few times that):
 * bounds the memory at about two generations of every list at 100,000 moving partitions,
 * while values that change every pass (partitions completing) drop out.
 */
export const PARSE_CACHE_MAX_CHARS = 8_000_000;
const parseCache = new Map<string, ThrottledReplicas | null>();
let parseCacheChars = 0;

const ALL_PARSED: ThrottledReplicas = Object.freeze({ all: true });

/** Forgets every memoised value (benchmarks' cold runs, tests). */
export function clearParseCache(): void {
  parseCache.clear();
  parseCacheChars = 0;
}

function parseUncached(value: string): ThrottledReplicas | null {
  const items = value.split(',').map((s) => s.trim());
  if (items.length === 1 && items[0] === ALL_REPLICAS) return ALL_PARSED;
  const entries = new Set<string>();
  for (const item of items) {
    if (item === '') continue;
    const parsed = parseReplicaEntry(item);
    if (!parsed) return null;
    entries.add(replicaEntry(parsed.partition, parsed.broker));
  }
  return Object.freeze({ all: false, entries: Object.freeze([...entries]) });
}

/** Kafka's format: deduplicated, sorted as strings (UTF-16 code units, like Java's String order), comma-joined. */
export function formatThrottledReplicas(entries: Iterable<string>): string {
  const sorted = Array.from(entries).sort();
  let out = '';
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0 && sorted[i] === sorted[i - 1]) continue; // deduplicate: neighbours once sorted
    out += out === '' ? sorted[i] : `,${sorted[i]}`;
  }
  return out;
}
