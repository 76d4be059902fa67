// Replication throttles exactly as kafka-reassign-partitions.sh --execute --throttle computes them
// (ReassignPartitionsCommand: calculateCurrentMoveMap, calculateProposedMoveMap,
// calculateLeaderThrottles, calculateFollowerThrottles, calculateReassigningBrokers,
// modifyTopicThrottles, modifyInterBrokerThrottle; SEMANTICS.md §4). The config names and the
// `partition:broker` list values are in throttle-configs.ts.
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
import {
  FOLLOWER_THROTTLED_RATE,
  FOLLOWER_THROTTLED_REPLICAS,
  formatThrottledReplicas,
  LEADER_THROTTLED_RATE,
  LEADER_THROTTLED_REPLICAS,
  replicaEntry,
  type ThrottleConfigName,
} from './throttle-configs.js';
import { drain, STEP_ITEMS, type Steps } from '../steps.js';
import type { TopicPartition } from './types.js';

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
  return drain(computeReassignmentThrottlesSteps(ongoing, proposed));
}

/**
 * The moves of one topic, in the order they were given (running ones first): partition ids and
 * their sources and `to` (the running move's adding replicas or the proposed target;
 * destinations = `to - sources`), one parallel array each, no object per partition.
 */
interface TopicMoves {
  readonly partitions: number[];
  readonly sources: (readonly number[])[];
  readonly to: (readonly number[])[];
  /** The first `running` entries are running moves, the rest proposed ones. */
  running: number;
}

/**
 * computeReassignmentThrottles in steps (plan.ts Steps): the same answer as the calculate*
 * functions above put together, yielding every STEP_ITEMS partitions and after each topic.
 *
 * Built for 100,000 partitions without a move map: the moves are grouped per topic in parallel
 * arrays; each topic's are sorted in the string order of `${partition}:` (stringOrderKey, a
 * stable sort: the entries of one partition stay in the order given), which is the order of
 * the `p:b` lists, and of the entries of one partition only what the move map would hold is
 * kept (see `resolve` below). The lists are written as bytes and decoded once per topic: no
 * string per entry. Any id Kafka would not have (negative, fractional) takes the reference
 * path (computeReassignmentThrottlesSlowly) for it all.
 */
export function* computeReassignmentThrottlesSteps(
  ongoing: Iterable<RunningMove>,
  proposed: Iterable<ProposedMove>,
): Steps<ReassignmentThrottles> {
  // Indexed loops (generators allocate an iterator result per for-of step); the reference path may need them again.
  const running: readonly RunningMove[] = Array.isArray(ongoing) ? ongoing : Array.from(ongoing);
  const asked: readonly ProposedMove[] = Array.isArray(proposed) ? proposed : Array.from(proposed);
  const slowly = () => drain(computeReassignmentThrottlesSlowly(running, asked));
  const byTopic = new Map<string, TopicMoves>();
  const group = (topic: string): TopicMoves => {
    let g = byTopic.get(topic);
    if (g === undefined) byTopic.set(topic, (g = { partitions: [], sources: [], to: [], running: 0 }));
    return g;
  };
  // calculateCurrentMoveMap: sources = replicas - adding (the proposed partitions that are moving take these).
  const runningSources = new PartitionMap<readonly number[]>();
  let steps = 0;
  for (let i = 0; i < running.length; i++) {
    const o = running[i];
    if (!isPlainId(o.partition)) return slowly();
    const sources = distinctWithout(o.replicas, o.adding);
    runningSources.set(o.topic, o.partition, sources);
    const g = group(o.topic);
    g.partitions.push(o.partition);
    g.sources.push(sources);
    g.to.push(o.adding);
    g.running++;
    if (++steps % STEP_ITEMS === 0) yield;
  }
  // calculateProposedMoveMap: sources = the running move's, else the current replicas.
  for (let i = 0; i < asked.length; i++) {
    const p = asked[i];
    const sources =
      (runningSources.size > 0 ? runningSources.get(p.topic, p.partition) : undefined) ?? distinctWithout(p.currentReplicas, NONE);
    if (sources.length === 0) throw new RangeError(`Trying to reassign a topic partition ${p.topic}-${p.partition} with 0 replicas`);
    if (!isPlainId(p.partition)) return slowly();
    const g = group(p.topic);
    g.partitions.push(p.partition);
    g.sources.push(sources);
    g.to.push(p.targetReplicas);
    if (++steps % STEP_ITEMS === 0) yield;
  }
  yield;
  // calculateLeaderThrottles, calculateFollowerThrottles, calculateReassigningBrokers.
  const out = new ListWriter();
  const topics: TopicReplicaThrottles[] = [];
  const names = Array.from(byTopic.keys()).sort();
  for (let t = 0; t < names.length; t++) {
    const topic = names[t];
    const g = byTopic.get(topic)!;
    const n = g.partitions.length;
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = stringOrderKey(g.partitions[i], true);
    const order = new Array<number>(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((x, y) => keys[x] - keys[y]); // stable: one partition's entries keep their order
    for (let k = 0; k < n;) {
      k = out.write(g, keys, order, k, Math.min(n, k + STEP_ITEMS));
      if (k < 0) return slowly();
      yield;
    }
    topics.push({ topic, leader: out.leader.take(), follower: out.follower.take() });
  }
  return { topics, brokers: [...out.brokers].sort((a, b) => a - b) };
}

/**
 * The `p:b` lists of computeReassignmentThrottlesSteps, written partition by partition (a plain
 * function: no number is boxed across the generator's yields), with the brokers seen.
 */
class ListWriter {
  readonly leader = new AsciiWriter();
  readonly follower = new AsciiWriter();
  readonly brokers = new Set<number>();
  readonly #brokerKeys = new Map<number, number>();
  /** One partition's destinations, then its brokers in string order (reused: never shrunk). */
  readonly #dests: number[] = [];
  readonly #sorted: number[] = [];

  /**
   * The partitions at order[k..] (in string order) up to the one that starts at `limit` or
   * later; returns where the next one starts, or -1 for an id Kafka would not have.
   */
  write(g: TopicMoves, keys: Float64Array, order: readonly number[], k: number, limit: number): number {
    const n = order.length;
    while (k < n && k < limit) {
      // The entries of one partition: order[k..end). The move map holds the last one's `to`
      // and, when a proposed move is among them, the first proposed one's sources (a proposed
      // move takes the sources of the move already in the map: the running one's, else its own).
      let end = k + 1;
      while (end < n && keys[order[end]] === keys[order[k]]) end++;
      const last = order[end - 1];
      let from = last;
      for (let j = k; j < end; j++) {
        if (order[j] >= g.running) {
          from = order[j]!;
          break;
        }
      }
      k = end;
      const sources = g.sources[from];
      const to = g.to[last];
      const partition = g.partitions[last];
      let dests = 0;
      for (let j = 0; j < to.length; j++) {
        const b = to[j];
        if (sources.includes(b)) continue;
        let seen = false;
        for (let i = 0; i < dests && !seen; i++) seen = this.#dests[i] === b;
        if (!seen) this.#dests[dests++] = b;
      }
      for (let j = 0; j < sources.length; j++) if (!isPlainId(sources[j])) return -1;
      for (let j = 0; j < dests; j++) if (!isPlainId(this.#dests[j])) return -1;
      for (let j = 0; j < sources.length; j++) this.brokers.add(sources[j]);
      for (let j = 0; j < dests; j++) this.brokers.add(this.#dests[j]);
      const s = this.#sortAsStrings(sources, sources.length);
      for (let j = 0; j < s; j++) this.leader.entry(partition, this.#sorted[j]);
      const d = this.#sortAsStrings(this.#dests, dests);
      for (let j = 0; j < d; j++) this.follower.entry(partition, this.#sorted[j]);
    }
    return k;
  }

  /** ids[0..count) (a partition's few broker ids) into #sorted, in the string order of their decimal forms; returns count. */
  #sortAsStrings(ids: readonly number[], count: number): number {
    const out = this.#sorted;
    // Insertion sort: a handful of ids.
    for (let i = 0; i < count; i++) {
      const b = ids[i];
      const k = this.#brokerKey(b);
      let j = i - 1;
      while (j >= 0 && this.#brokerKey(out[j]) > k) {
        out[j + 1] = out[j]!;
        j--;
      }
      out[j + 1] = b;
    }
    return count;
  }

  #brokerKey(b: number): number {
    let k = this.#brokerKeys.get(b);
    if (k === undefined) this.#brokerKeys.set(b, (k = stringOrderKey(b, false)));
    return k;
  }
}

/** The calculate* functions put together, as Kafka's tool does (the reference for the steps above). */
// eslint-disable-next-line require-yield -- the reference has the stepped version's shape (tests drain both alike) but does its work in one step
export function* computeReassignmentThrottlesSlowly(
  ongoing: Iterable<RunningMove>,
  proposed: Iterable<ProposedMove>,
): Steps<ReassignmentThrottles> {
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
    for (const b of list) {
      if (!seen.has(b)) {
        seen.add(b);
        out.push(b);
      }
    }
    return out;
  }
  // Usually nothing to drop and no repeat: the list itself (read-only here).
  let same = true;
  for (let i = 0; i < list.length && same; i++) same = !drop.includes(list[i]) && list.indexOf(list[i]) === i;
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
 * (Digits by arithmetic: no string per id.)
 */
function stringOrderKey(id: number, colon: boolean): number {
  let length = 1;
  for (let p = 10; p <= id; p *= 10) length++;
  let div = 10 ** (length - 1);
  let key = 0;
  for (let i = 0; i < 11; i++) {
    let c: number;
    if (i < length) {
      c = (Math.floor(id / div) % 10) + (colon ? 0 : 1);
      div /= 10;
    } else c = colon && i === length ? 10 : 0;
    key = key * 11 + c;
  }
  return key;
}

/**
 * A comma-separated `partition:broker` list written as ASCII bytes and decoded once (`take`):
 * one string per list instead of one per entry plus the join. The buffer is reused.
 */
class AsciiWriter {
  #bytes = new Uint8Array(4096);
  #length = 0;

  entry(partition: number, broker: number): void {
    if (this.#bytes.length - this.#length < 32) {
      const grown = new Uint8Array(this.#bytes.length * 2);
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    if (this.#length > 0) this.#bytes[this.#length++] = 44; // ','
    this.#digits(partition);
    this.#bytes[this.#length++] = 58; // ':'
    this.#digits(broker);
  }

  /** The list so far; the writer starts over empty. */
  take(): string {
    const s = this.#length === 0 ? '' : ASCII.decode(this.#bytes.subarray(0, this.#length));
    this.#length = 0;
    return s;
  }

  #digits(n: number): void {
    let div = 1;
    while (div * 10 <= n) div *= 10;
    for (; div >= 1; div /= 10) this.#bytes[this.#length++] = 48 + (Math.floor(n / div) % 10);
  }
}

const ASCII = new TextDecoder('latin1');

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
