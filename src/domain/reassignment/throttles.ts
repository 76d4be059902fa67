// Replication throttles exactly as kafka-reassign-partitions.sh --execute --throttle computes them
// (ReassignPartitionsCommand: calculateCurrentMoveMap, calculateProposedMoveMap,
// calculateLeaderThrottles, calculateFollowerThrottles, calculateReassigningBrokers,
// modifyTopicThrottles, modifyInterBrokerThrottle; SEMANTICS.md §4), and the helpers to read and
// write the `partition:broker` lists.
//
// - Start from every reassignment already in progress anywhere in the cluster:
//   sources = replicas - adding, destinations = adding.
// - Each proposed partition: sources = the in-progress sources if it is already moving, else its
//   current replicas; destinations = target - sources.
// - Per topic: leader.replication.throttled.replicas = `p:b` for every source,
//   follower.replication.throttled.replicas = `p:b` for every destination (that is not a
//   source); each sorted AS STRINGS (Java TreeSet<String>: `10:1` before `2:1`), comma-joined;
//   the follower list may be empty.
// - Rates (leader and follower) on every broker in sources ∪ destinations.
//
// Linear in moving partitions (plus a sort of each topic's list).

import { PartitionMap } from './partition-map.js';
import { runSteps, STEP_ITEMS, type Steps } from './plan.js';
import type { TopicPartition } from './types.js';

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

/** `partition:broker`. */
export function replicaEntry(partition: number, broker: number): string {
  return `${partition}:${broker}`;
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

const NO_ENTRIES: ThrottledReplicas = Object.freeze({ all: false, entries: Object.freeze([]) as readonly string[] });
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
  return Object.freeze({ all: false, entries: Object.freeze([...entries]) as readonly string[] });
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

// ---------------------------------------------------------------------------------------------
// Kafka's move map
// ---------------------------------------------------------------------------------------------

/** Kafka's PartitionMove: who sends (sources) and who receives (destinations). */
export interface PartitionMove {
  readonly sources: ReadonlySet<number>;
  readonly destinations: ReadonlySet<number>;
}

/** What calculateCurrentMoveMap needs of a running move (ListPartitionReassignments). */
export interface RunningMove extends TopicPartition {
  readonly replicas: readonly number[];
  readonly adding: readonly number[];
}

/** A proposed move (a PartitionMovePlan fits): the target and Metadata's current replicas. */
export interface ProposedMove extends TopicPartition {
  readonly targetReplicas: readonly number[];
  readonly currentReplicas: readonly number[];
}

/** calculateCurrentMoveMap: sources = replicas - adding, destinations = adding. */
export function calculateCurrentMoveMap(ongoing: Iterable<RunningMove>): PartitionMap<PartitionMove> {
  const moves = new PartitionMap<PartitionMove>();
  for (const o of ongoing) {
    const destinations = new Set(o.adding);
    const sources = new Set(o.replicas.filter((b) => !destinations.has(b)));
    moves.set(o.topic, o.partition, { sources, destinations });
  }
  return moves;
}

/**
 * calculateProposedMoveMap: the running moves, then each proposed partition with
 * sources = running sources (if it is moving) or its current replicas,
 * destinations = target - sources.
 */
export function calculateProposedMoveMap(ongoing: Iterable<RunningMove>, proposed: Iterable<ProposedMove>): PartitionMap<PartitionMove> {
  const moves = calculateCurrentMoveMap(ongoing);
  for (const p of proposed) {
    const running = moves.get(p.topic, p.partition);
    const sources = running ? running.sources : new Set(p.currentReplicas);
    if (sources.size === 0) throw new RangeError(`Trying to reassign a topic partition ${p.topic}-${p.partition} with 0 replicas`);
    const destinations = new Set(p.targetReplicas.filter((b) => !sources.has(b)));
    moves.set(p.topic, p.partition, { sources, destinations });
  }
  return moves;
}

/** calculateLeaderThrottles: per topic, `p:b` for every source, sorted as strings. */
export function calculateLeaderThrottles(moves: PartitionMap<PartitionMove>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [topic, partitions] of moves.topics()) {
    const entries: string[] = [];
    for (const [partition, move] of partitions) for (const b of move.sources) entries.push(replicaEntry(partition, b));
    out.set(topic, formatThrottledReplicas(entries));
  }
  return out;
}

/** calculateFollowerThrottles: per topic, `p:b` for every destination that is not a source, sorted as strings. */
export function calculateFollowerThrottles(moves: PartitionMap<PartitionMove>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [topic, partitions] of moves.topics()) {
    const entries: string[] = [];
    for (const [partition, move] of partitions) {
      for (const b of move.destinations) if (!move.sources.has(b)) entries.push(replicaEntry(partition, b));
    }
    out.set(topic, formatThrottledReplicas(entries));
  }
  return out;
}

/** calculateReassigningBrokers: sources ∪ destinations of every move, ascending. */
export function calculateReassigningBrokers(moves: PartitionMap<PartitionMove>): number[] {
  const brokers = new Set<number>();
  for (const [, partitions] of moves.topics()) {
    for (const move of partitions.values()) {
      for (const b of move.sources) brokers.add(b);
      for (const b of move.destinations) brokers.add(b);
    }
  }
  return [...brokers].sort((a, b) => a - b);
}

/** The two throttled-replicas values of one topic, as Kafka's tool would SET them. */
export interface TopicReplicaThrottles {
  readonly topic: string;
  /** leader.replication.throttled.replicas */
  readonly leader: string;
  /** follower.replication.throttled.replicas (may be '') */
  readonly follower: string;
}

export interface ReassignmentThrottles {
  /** Every topic with a running or proposed move, sorted by name. */
  readonly topics: readonly TopicReplicaThrottles[];
  /** Brokers whose leader and follower rates are set: sources ∪ destinations, ascending. */
  readonly brokers: readonly number[];
}

/**
 * The throttles `kafka-reassign-partitions.sh --execute --throttle` would set for `proposed`
 * while `ongoing` runs. (Topics of running moves are included, as Kafka's tool includes them.)
 */
export function computeReassignmentThrottles(ongoing: Iterable<RunningMove>, proposed: Iterable<ProposedMove>): ReassignmentThrottles {
  return runSteps(computeReassignmentThrottlesSteps(ongoing, proposed));
}

/**
 * A move of the move map with its (few) brokers in arrays, no Set per partition: `to` is the
 * running move's adding replicas or the proposed target; destinations = `to - sources`.
 */
interface ListedMove {
  readonly sources: readonly number[];
  readonly to: readonly number[];
}

/**
 * computeReassignmentThrottles in steps (plan.ts Steps): the same answer as the calculate*
 * functions above put together, yielding every STEP_ITEMS partitions and after each topic.
 * The lists are sorted as strings without building a string per entry first (stringOrderKey).
 */
export function* computeReassignmentThrottlesSteps(ongoing: Iterable<RunningMove>, proposed: Iterable<ProposedMove>): Steps<ReassignmentThrottles> {
  // calculateCurrentMoveMap, then calculateProposedMoveMap over it.
  const moves = new PartitionMap<ListedMove>();
  let steps = 0;
  for (const o of ongoing) {
    moves.set(o.topic, o.partition, { sources: distinctWithout(o.replicas, o.adding), to: o.adding });
    if (++steps % STEP_ITEMS === 0) yield;
  }
  for (const p of proposed) {
    const running = moves.get(p.topic, p.partition);
    const sources = running ? running.sources : distinctWithout(p.currentReplicas, NONE);
    if (sources.length === 0) throw new RangeError(`Trying to reassign a topic partition ${p.topic}-${p.partition} with 0 replicas`);
    moves.set(p.topic, p.partition, { sources, to: p.targetReplicas });
    if (++steps % STEP_ITEMS === 0) yield;
  }
  yield;
  // calculateLeaderThrottles, calculateFollowerThrottles, calculateReassigningBrokers.
  const brokers = new Set<number>();
  const brokerKeys = new Map<number, number>();
  const topics: TopicReplicaThrottles[] = [];
  for (const topic of Array.from(moves.topics(), ([t]) => t).sort()) {
    const partitions = moves.topic(topic)!;
    const ids = Array.from(partitions.keys());
    const simple = ids.every(isPlainId);
    const keys = new Float64Array(ids.length);
    for (let i = 0; i < ids.length; i++) keys[i] = simple ? stringOrderKey(ids[i]!, true) : 0;
    const order = Array.from(ids.keys());
    if (simple) order.sort((x, y) => keys[x]! - keys[y]!);
    // In string order already (simple ids): joined as they come; else sorted as strings.
    const leader: string[] = [];
    const follower: string[] = [];
    for (const i of order) {
      const partition = ids[i]!;
      const move = partitions.get(partition)!;
      const dests = distinctWithout(move.to, move.sources);
      for (const b of move.sources) brokers.add(b);
      for (const b of dests) brokers.add(b);
      if (simple && !(move.sources.every(isPlainId) && dests.every(isPlainId))) {
        // An id Kafka would not have (negative, fractional): the reference path for it all.
        return runSteps(computeReassignmentThrottlesSlowly(ongoing, proposed));
      }
      for (const b of simple ? sortedAsStrings(move.sources, brokerKeys) : move.sources) leader.push(replicaEntry(partition, b));
      for (const b of simple ? sortedAsStrings(dests, brokerKeys) : dests) follower.push(replicaEntry(partition, b));
      if (++steps % STEP_ITEMS === 0) yield;
    }
    topics.push({
      topic,
      leader: simple ? leader.join(',') : formatThrottledReplicas(leader),
      follower: simple ? follower.join(',') : formatThrottledReplicas(follower),
    });
  }
  return { topics, brokers: [...brokers].sort((a, b) => a - b) };
}

/** The calculate* functions put together, as Kafka's tool does (the reference for the steps above). */
export function* computeReassignmentThrottlesSlowly(ongoing: Iterable<RunningMove>, proposed: Iterable<ProposedMove>): Steps<ReassignmentThrottles> {
  const moves = calculateProposedMoveMap(ongoing, proposed);
  const leader = calculateLeaderThrottles(moves);
  const follower = calculateFollowerThrottles(moves);
  const topics = [...leader.keys()].sort().map((topic) => ({ topic, leader: leader.get(topic)!, follower: follower.get(topic)! }));
  return { topics, brokers: calculateReassigningBrokers(moves) };
}

const NONE: readonly number[] = Object.freeze([]);

/** `list - drop`, each id once, in list order (the ids of one partition: a handful). */
function distinctWithout(list: readonly number[], drop: readonly number[]): readonly number[] {
  if (list.length + drop.length > 64) {
    const seen = new Set(drop);
    const out: number[] = [];
    for (const b of list) if (!seen.has(b)) (seen.add(b), out.push(b));
    return out;
  }
  // Usually nothing to drop and no repeat: the list itself (read-only here).
  let same = true;
  for (let i = 0; i < list.length && same; i++) same = !drop.includes(list[i]!) && list.indexOf(list[i]!) === i;
  if (same) return list;
  const out: number[] = [];
  for (const b of list) if (!drop.includes(b) && !out.includes(b)) out.push(b);
  return out;
}

/** A non-negative int32: its decimal digits are all there is to its string. */
const isPlainId = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= 0x7fffffff;

/**
 * A number whose order is the string order (UTF-16, Java's TreeSet<String>) of `${id}:` (a
 * partition: ':' sorts after every digit) or `${id}` (a broker: the end of the string sorts
 * before every digit): the decimal digits (at most 10) in base 11, padded to 11 places.
 */
function stringOrderKey(id: number, colon: boolean): number {
  const digits = String(id);
  let key = 0;
  for (let i = 0; i < 11; i++) {
    let c: number;
    if (i < digits.length) c = digits.charCodeAt(i) - 48 + (colon ? 0 : 1);
    else c = colon && i === digits.length ? 10 : 0;
    key = key * 11 + c;
  }
  return key;
}

/** A partition's few broker ids in the string order of their decimal forms (`keys`: memo of stringOrderKey). */
function sortedAsStrings(ids: readonly number[], keys: Map<number, number>): readonly number[] {
  if (ids.length < 2) return ids;
  let sorted = true;
  for (let i = 1; i < ids.length && sorted; i++) sorted = brokerKey(ids[i - 1]!, keys) < brokerKey(ids[i]!, keys);
  if (sorted) return ids;
  const out = [...ids];
  // Insertion sort: a handful of ids.
  for (let i = 1; i < out.length; i++) {
    const b = out[i]!;
    const k = brokerKey(b, keys);
    let j = i - 1;
    while (j >= 0 && brokerKey(out[j]!, keys) > k) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = b;
  }
  return out;
}

function brokerKey(b: number, keys: Map<number, number>): number {
  let k = keys.get(b);
  if (k === undefined) keys.set(b, (k = stringOrderKey(b, false)));
  return k;
}

/** One config resource and the values Kafka's tool would SET on it. */
export interface ThrottleConfigSet {
  readonly resourceType: 'topic' | 'broker';
  readonly resourceName: string;
  readonly configs: readonly { readonly name: ThrottleConfigName; readonly value: string }[];
}

/**
 * The exact configs Kafka's tool writes for these throttles at `rate` bytes/s (both rates on
 * every reassigning broker), brokers first (ascending), then topics: what validateOnly shows.
 * What the gateway actually writes merges these into existing values (throttle-ledger.ts).
 */
export function reassignmentThrottleConfigs(throttles: ReassignmentThrottles, rate: number): ThrottleConfigSet[] {
  const value = String(rate);
  return [
    ...throttles.brokers.map((broker) => ({
      resourceType: 'broker' as const,
      resourceName: String(broker),
      configs: [
        { name: LEADER_THROTTLED_RATE, value },
        { name: FOLLOWER_THROTTLED_RATE, value },
      ],
    })),
    ...throttles.topics.map((t) => ({
      resourceType: 'topic' as const,
      resourceName: t.topic,
      configs: [
        { name: LEADER_THROTTLED_REPLICAS, value: t.leader },
        { name: FOLLOWER_THROTTLED_REPLICAS, value: t.follower },
      ],
    })),
  ];
}
