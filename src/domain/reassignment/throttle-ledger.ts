// Ownership of replication throttles: which config values the gateway added, and the exact
// IncrementalAlterConfigs operations that bring the cluster to "what is demanded now" while
// removing only what the gateway added, restoring what was there before, and never touching
// what someone else set.
//
// Three inputs, all plain data:
// - `current`: the throttle configs as DescribeConfigs reads them now;
// - `demand`: what must be in place now (every running gateway reassignment with its throttle,
//   plus explicit throttles still alive), merged with mergeThrottleDemands;
// - `ledger`: what the gateway has added (per topic list config: the value before it first
//   touched it and the entries it added; per broker rate: the value before and the values it
//   wrote).
// reconcileThrottles() answers the operations plus two ledgers: persist `ledgerBeforeOps` BEFORE
// sending the operations (so anything about to be added is already owned: a crash leaves nothing
// unowned behind) and `ledgerAfterOps` once every operation succeeded. Re-running it with the
// same inputs, or with either ledger after a crash, converges: every step is idempotent.
//
// Rules
// - Lists (`partition:broker`): entries are added or removed one by one and the rest of the value
//   is kept, so entries set by others (before or since) survive. An entry the gateway added that
//   is no longer demanded is removed; when the value is back to exactly the entries that were
//   there before, the prior value is restored verbatim (DELETE when there was none).
//   `*` from someone else already throttles everything: nothing is added to it, nothing removed
//   from it. `*` demanded by the gateway replaces the value (it is a whole-value setting); when it
//   is no longer demanded, the prior value plus what is still demanded comes back.
// - Rates: a demanded rate is SET (remembering the prior value). When nothing demands it any
//   more it is restored (prior value, or DELETE) ONLY if it still holds a value the gateway
//   wrote. A value that is neither the prior nor one the gateway wrote was set by someone else
//   after the gateway: left alone (reported in `overridden`) and, once not demanded, forgotten.
//   When several demands name one broker, the lowest rate wins (throttles protect the cluster).
//
// Known limit: the read (DescribeConfigs) and the write are not atomic; a change made by
// someone else between the two can be overwritten for that one list (Kafka offers no compare-
// and-set on configs). APPEND/SUBTRACT would avoid it for lists but cannot restore prior values.

import {
  ALL_REPLICAS,
  FOLLOWER_THROTTLED_RATE,
  FOLLOWER_THROTTLED_REPLICAS,
  LEADER_THROTTLED_RATE,
  LEADER_THROTTLED_REPLICAS,
  LOG_DIRS_THROTTLED_RATE,
  formatThrottledReplicas,
  parseThrottledReplicas,
  type RateConfigName,
  type ReplicaListConfigName,
  type ThrottleConfigName,
} from './throttle-configs.js';
import type { ReassignmentThrottles } from './throttles.js';
import { drain, type Steps } from '../steps.js';
import { union, sortedUnion, setOf, sameSet } from './throttle-entries.js';

/** Entries demanded for one list config: `*` or `partition:broker` entries. */
export type ReplicaDemand = typeof ALL_REPLICAS | readonly string[];

export interface TopicThrottleDemand {
  readonly leader?: ReplicaDemand;
  readonly follower?: ReplicaDemand;
}

export interface BrokerThrottleDemand {
  /** bytes/s */
  readonly leaderRate?: number;
  /** bytes/s */
  readonly followerRate?: number;
  /** bytes/s of intra-broker moves (replica.alter.log.dirs.io.max.bytes.per.second) */
  readonly logDirRate?: number;
}

/** What must be throttled now. Broker keys are broker ids as strings (JSON-friendly). */
export interface ThrottleDemand {
  readonly topics: Readonly<Record<string, TopicThrottleDemand>>;
  readonly brokers: Readonly<Record<string, BrokerThrottleDemand>>;
}

/**
 * Current config values, read with DescribeConfigs. A resource present with a config absent or
 * null = the config is not set; a resource ABSENT = not read: reconcile leaves it alone.
 */
export interface ThrottleConfigValues {
  readonly topics: Readonly<Record<string, { readonly leader?: string | null; readonly follower?: string | null }>>;
  readonly brokers: Readonly<
    Record<string, { readonly leaderRate?: string | null; readonly followerRate?: string | null; readonly logDirRate?: string | null }>
  >;
}

/** The gateway's additions to one list config. */
export interface ReplicaListOwnership {
  /** The config value before the gateway first changed it (null = not set). */
  readonly prior: string | null;
  /** Entries the gateway added (absent when it added them), sorted; `*` when it set `*`. */
  readonly added: readonly string[];
}

/** The gateway's ownership of one rate config. */
export interface RateOwnership {
  /** The config value before the gateway first changed it (null = not set). */
  readonly prior: string | null;
  /** Values the gateway wrote (more than one only while a change is in flight). */
  readonly values: readonly string[];
}

export interface ThrottleLedger {
  readonly topics: Readonly<Record<string, { readonly leader?: ReplicaListOwnership; readonly follower?: ReplicaListOwnership }>>;
  readonly brokers: Readonly<
    Record<string, { readonly leaderRate?: RateOwnership; readonly followerRate?: RateOwnership; readonly logDirRate?: RateOwnership }>
  >;
}

export const EMPTY_THROTTLE_DEMAND: ThrottleDemand = Object.freeze({ topics: Object.freeze({}), brokers: Object.freeze({}) });
export const EMPTY_THROTTLE_LEDGER: ThrottleLedger = Object.freeze({ topics: Object.freeze({}), brokers: Object.freeze({}) });

/** One IncrementalAlterConfigs operation (SET with the exact resulting value, or DELETE). */
export interface ConfigAlteration {
  readonly name: ThrottleConfigName;
  readonly operation: 'SET' | 'DELETE';
  /** The value to SET; null for DELETE. */
  readonly value: string | null;
}

/** The operations for one config resource (one entry of an IncrementalAlterConfigs request). */
export interface ResourceAlteration {
  readonly resourceType: 'topic' | 'broker';
  readonly resourceName: string;
  readonly configs: readonly ConfigAlteration[];
}

/** A config the gateway owned that someone else changed since: left as they set it. */
export interface OverriddenThrottle {
  readonly resourceType: 'topic' | 'broker';
  readonly resourceName: string;
  readonly name: ThrottleConfigName;
  readonly value: string | null;
}

export interface ThrottleReconciliation {
  /** Brokers (ascending) then topics (sorted); empty when nothing has to change. */
  readonly alterations: readonly ResourceAlteration[];
  /** Persist before sending `alterations`. */
  readonly ledgerBeforeOps: ThrottleLedger;
  /** Persist after every alteration succeeded. */
  readonly ledgerAfterOps: ThrottleLedger;
  readonly overridden: readonly OverriddenThrottle[];
  /** Resources in demand or ledger that `current` did not include: skipped, ledger kept as is. */
  readonly unread: { readonly topics: readonly string[]; readonly brokers: readonly number[] };
  /** List values that are not valid throttled-replicas values: left alone. */
  readonly invalid: readonly OverriddenThrottle[];
}

// ---------------------------------------------------------------------------------------------
// Demands
// ---------------------------------------------------------------------------------------------

/** The demand of one reassignment: its throttle lists, and `rate` on its brokers (none when null). */
export function throttleDemandFor(throttles: ReassignmentThrottles, rate: number | null): ThrottleDemand {
  return drain(throttleDemandForSteps(throttles, rate));
}

/**
 * throttleDemandFor as steps, one topic per step: the lists are parsed back into entries, and
 * a start of 100,000 partitions (100 topics of 3,000 entries per list) spent ~50 ms in one go.
 */
export function* throttleDemandForSteps(throttles: ReassignmentThrottles, rate: number | null): Steps<ThrottleDemand> {
  const topics: Record<string, TopicThrottleDemand> = {};
  for (const t of throttles.topics) {
    topics[t.topic] = { leader: listEntries(t.leader), follower: listEntries(t.follower) };
    yield;
  }
  const brokers: Record<string, BrokerThrottleDemand> = {};
  if (rate !== null) for (const b of throttles.brokers) brokers[String(b)] = { leaderRate: rate, followerRate: rate };
  return { topics, brokers };
}

/** `demand` plus `rate` as replica.alter.log.dirs.io.max.bytes.per.second on `brokers` (those with intra-broker moves). */
export function withLogDirThrottle(demand: ThrottleDemand, brokers: Iterable<number>, rate: number | null): ThrottleDemand {
  if (rate === null) return demand;
  const out: Record<string, BrokerThrottleDemand> = { ...demand.brokers };
  for (const b of brokers) out[String(b)] = { ...out[String(b)], logDirRate: rate };
  return { topics: demand.topics, brokers: out };
}

/**
 * Union of demands: list entries are united (`*` wins), the lowest rate wins. Lists come back
 * sorted and deduplicated. Memoised: called again with the same demand objects (by identity,
 * in the same order) it answers the previous result object, so callers can compare results by
 * identity (the throttle sync calls it twice per pass, every pass, with unchanged demands).
 */
export function mergeThrottleDemands(demands: Iterable<ThrottleDemand>): ThrottleDemand {
  const inputs = Array.isArray(demands) ? (demands as readonly ThrottleDemand[]) : [...demands];
  const last = lastMerge;
  if (last && last.inputs.length === inputs.length && last.inputs.every((d, i) => d === inputs[i])) return last.output;
  const output = mergeUncached(inputs);
  lastMerge = { inputs: [...inputs], output };
  return output;
}

let lastMerge: { inputs: readonly ThrottleDemand[]; output: ThrottleDemand } | undefined;

function mergeUncached(demands: readonly ThrottleDemand[]): ThrottleDemand {
  // Per topic and list: every contributing list (or `*`); united once at the end, linearly
  // when a single sorted list contributes (the usual case: one reassignment per topic).
  const topics = new Map<string, { leader?: ReplicaDemand[] | '*'; follower?: ReplicaDemand[] | '*' }>();
  const brokers: Record<string, { leaderRate?: number; followerRate?: number; logDirRate?: number }> = {};
  const collect = (into: ReplicaDemand[] | '*' | undefined, more: ReplicaDemand | undefined): ReplicaDemand[] | '*' | undefined => {
    if (more === undefined) return into;
    if (into === ALL_REPLICAS || more === ALL_REPLICAS) return ALL_REPLICAS;
    const lists = into ?? [];
    lists.push(more);
    return lists;
  };
  for (const d of demands) {
    for (const [topic, t] of Object.entries(d.topics)) {
      let merged = topics.get(topic);
      if (!merged) topics.set(topic, (merged = {}));
      merged.leader = collect(merged.leader, t.leader);
      merged.follower = collect(merged.follower, t.follower);
    }
    for (const [broker, b] of Object.entries(d.brokers)) {
      const merged = (brokers[broker] ??= {});
      if (b.leaderRate !== undefined) merged.leaderRate = Math.min(merged.leaderRate ?? Infinity, b.leaderRate);
      if (b.followerRate !== undefined) merged.followerRate = Math.min(merged.followerRate ?? Infinity, b.followerRate);
      if (b.logDirRate !== undefined) merged.logDirRate = Math.min(merged.logDirRate ?? Infinity, b.logDirRate);
    }
  }
  const united = (lists: ReplicaDemand[] | '*'): ReplicaDemand => {
    if (lists === ALL_REPLICAS) return ALL_REPLICAS;
    let out: readonly string[] = [];
    for (const l of lists) out = sortedUnion(out, l as readonly string[]);
    // Frozen (so its sortedness and entry set can be memoised), never one of the inputs.
    return Object.isFrozen(out) ? out : Object.freeze(lists.includes(out) ? [...out] : out);
  };
  // A list equal to the one the previous merge answered for the same topic and field is that
  // same (frozen) array: demands re-read from the state topic (new objects, same content) keep
  // the identity the per-list memos downstream (reconcileReplicaList) key on.
  const previous = lastLists;
  const next = new Map<string, readonly string[]>();
  const stable = (key: string, list: ReplicaDemand): ReplicaDemand => {
    if (list === ALL_REPLICAS) return list;
    const before = previous.get(key);
    const out = before !== undefined && sameList(before, list) ? before : list;
    next.set(key, out);
    return out;
  };
  const outTopics: Record<string, TopicThrottleDemand> = {};
  for (const [topic, t] of topics) {
    const entry: { leader?: ReplicaDemand; follower?: ReplicaDemand } = {};
    if (t.leader !== undefined) entry.leader = stable(`${topic}\u0000leader`, united(t.leader));
    if (t.follower !== undefined) entry.follower = stable(`${topic}\u0000follower`, united(t.follower));
    outTopics[topic] = entry;
  }
  lastLists = next;
  return { topics: outTopics, brokers };
}

/** The lists of the last merge by `topic\0field` (replaced by every merge: no growth). */
let lastLists = new Map<string, readonly string[]>();

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Topics and brokers whose throttle configs reconcileThrottles needs in `current`. */
export function throttleResourcesToRead(demand: ThrottleDemand, ledger: ThrottleLedger): { topics: string[]; brokers: number[] } {
  const topics = new Set([...Object.keys(demand.topics), ...Object.keys(ledger.topics)]);
  const brokers = new Set([...Object.keys(demand.brokers), ...Object.keys(ledger.brokers)].map(Number));
  return { topics: [...topics].sort(), brokers: [...brokers].sort((a, b) => a - b) };
}

// ---------------------------------------------------------------------------------------------
// Reconciliation
// ---------------------------------------------------------------------------------------------

/** The operations and ledgers that bring `current` to `demand` owning only what the gateway adds. */
export function reconcileThrottles(current: ThrottleConfigValues, demand: ThrottleDemand, ledger: ThrottleLedger): ThrottleReconciliation {
  const alterations: ResourceAlteration[] = [];
  const overridden: OverriddenThrottle[] = [];
  const invalid: OverriddenThrottle[] = [];
  const unread = { topics: [] as string[], brokers: [] as number[] };
  const before = {
    topics: {} as Record<string, Record<string, ReplicaListOwnership>>,
    brokers: {} as Record<string, Record<string, RateOwnership>>,
  };
  const after = {
    topics: {} as Record<string, Record<string, ReplicaListOwnership>>,
    brokers: {} as Record<string, Record<string, RateOwnership>>,
  };
  const { topics, brokers } = throttleResourcesToRead(demand, ledger);

  for (const broker of brokers) {
    const key = String(broker);
    const owned = ledger.brokers[key] ?? {};
    const values = current.brokers[key];
    if (!values) {
      unread.brokers.push(broker);
      if (Object.keys(owned).length > 0) before.brokers[key] = after.brokers[key] = { ...owned };
      continue;
    }
    const configs: ConfigAlteration[] = [];
    const slots: [RateConfigName, 'leaderRate' | 'followerRate' | 'logDirRate'][] = [
      [LEADER_THROTTLED_RATE, 'leaderRate'],
      [FOLLOWER_THROTTLED_RATE, 'followerRate'],
      [LOG_DIRS_THROTTLED_RATE, 'logDirRate'],
    ];
    for (const [name, field] of slots) {
      const r = reconcileRate(values[field] ?? null, demand.brokers[key]?.[field], owned[field]);
      if (r.op) configs.push({ name, ...r.op });
      if (r.overridden) overridden.push({ resourceType: 'broker', resourceName: key, name, value: values[field] ?? null });
      if (r.before) (before.brokers[key] ??= {})[field] = r.before;
      if (r.after) (after.brokers[key] ??= {})[field] = r.after;
    }
    if (configs.length > 0) alterations.push({ resourceType: 'broker', resourceName: key, configs });
  }

  for (const topic of topics) {
    const owned = ledger.topics[topic] ?? {};
    const values = current.topics[topic];
    if (!values) {
      unread.topics.push(topic);
      if (Object.keys(owned).length > 0) before.topics[topic] = after.topics[topic] = { ...owned };
      continue;
    }
    const configs: ConfigAlteration[] = [];
    const slots: [ReplicaListConfigName, 'leader' | 'follower'][] = [
      [LEADER_THROTTLED_REPLICAS, 'leader'],
      [FOLLOWER_THROTTLED_REPLICAS, 'follower'],
    ];
    for (const [name, field] of slots) {
      const value = values[field] ?? null;
      const r = reconcileReplicaList(value, demand.topics[topic]?.[field], owned[field]);
      if (r.op) configs.push({ name, ...r.op });
      if (r.overridden) overridden.push({ resourceType: 'topic', resourceName: topic, name, value });
      if (r.invalid) invalid.push({ resourceType: 'topic', resourceName: topic, name, value });
      if (r.before) (before.topics[topic] ??= {})[field] = r.before;
      if (r.after) (after.topics[topic] ??= {})[field] = r.after;
    }
    if (configs.length > 0) alterations.push({ resourceType: 'topic', resourceName: topic, configs });
  }

  return { alterations, ledgerBeforeOps: before, ledgerAfterOps: after, overridden, unread, invalid };
}

interface SlotResult<O> {
  op?: { operation: 'SET' | 'DELETE'; value: string | null };
  before?: O;
  after?: O;
  overridden?: boolean;
  invalid?: boolean;
}

/** One rate config (see the rules at the top). */
export function reconcileRate(
  current: string | null,
  demanded: number | undefined,
  owned: RateOwnership | undefined,
): SlotResult<RateOwnership> {
  if (demanded === undefined) {
    if (!owned) return {};
    const ours = current !== null && owned.values.includes(current);
    if (ours && current !== owned.prior) {
      // Restore what was there before the gateway (nothing -> DELETE).
      return { op: owned.prior === null ? del() : set(owned.prior), before: owned };
    }
    // Already restored (== prior), or someone else's value now: nothing to do, forget it.
    return { before: owned, overridden: !ours && current !== owned.prior };
  }

  const want = String(demanded);
  if (owned && current !== owned.prior && !(current !== null && owned.values.includes(current))) {
    // Someone else changed (or deleted) it after the gateway set it: theirs wins for as long as
    // it is demanded. (Back at the prior value means the gateway's write never landed: redo it.)
    return { before: owned, after: owned, overridden: true };
  }
  if (current === want) {
    // Already right. Ours only if the gateway owned it; an equal value someone else set stays theirs.
    const kept = owned ? { prior: owned.prior, values: [want] } : undefined;
    return { before: owned, after: kept };
  }
  const prior = owned ? owned.prior : current;
  return {
    op: set(want),
    before: { prior, values: union(owned?.values ?? [], [want]) },
    after: { prior, values: [want] },
  };
}

/**
 * One throttled-replicas list config (see the rules at the top). Memoised per demanded list
 * (the frozen lists mergeThrottleDemands answers): the same list, the same config value and the
 * same ledger entry object give the previous (immutable) answer, so a pass where one topic's
 * value changed recomputes that topic only.
 */
export function reconcileReplicaList(
  current: string | null,
  demanded: ReplicaDemand | undefined,
  owned: ReplicaListOwnership | undefined,
): SlotResult<ReplicaListOwnership> {
  if (demanded === undefined || demanded === ALL_REPLICAS || !Object.isFrozen(demanded))
    return reconcileReplicaListUncached(current, demanded, owned);
  // Keyed by list AND ledger entry: topics with equal lists may share one list object.
  let byOwned = slotMemo.get(demanded);
  if (!byOwned) slotMemo.set(demanded, (byOwned = new WeakMap()));
  const ownedKey = owned ?? NOT_OWNED;
  const hit = byOwned.get(ownedKey);
  if (hit && hit.current === current) return hit.result;
  const result = reconcileReplicaListUncached(current, demanded, owned);
  byOwned.set(ownedKey, { current, result });
  return result;
}

const NOT_OWNED = Object.freeze({});
const slotMemo = new WeakMap<readonly string[], WeakMap<object, { current: string | null; result: SlotResult<ReplicaListOwnership> }>>();

function reconcileReplicaListUncached(
  current: string | null,
  demanded: ReplicaDemand | undefined,
  owned: ReplicaListOwnership | undefined,
): SlotResult<ReplicaListOwnership> {
  const parsed = parseThrottledReplicas(current);
  if (!parsed) return { before: owned, after: owned, invalid: true };
  const ownedAll = owned?.added.includes(ALL_REPLICAS) ?? false;
  const ownedEntries = ownedAll ? (owned?.added ?? []).filter((e) => e !== ALL_REPLICAS) : (owned?.added ?? []);

  if (parsed.all) {
    if (!ownedAll) {
      // Someone else's `*` already throttles everything: nothing to add, nothing ours to remove.
      if (!owned) return {};
      return demanded === undefined ? { before: owned, overridden: true } : { before: owned, after: owned, overridden: true };
    }
    if (demanded === ALL_REPLICAS) return { before: owned, after: owned };
    // The gateway's `*` is no longer demanded: back to the prior value plus what is still demanded.
    const priorParsed = parseThrottledReplicas(owned!.prior);
    const priorEntries = priorParsed && !priorParsed.all ? priorParsed.entries : [];
    const priorSet = new Set(priorEntries);
    const stillAdded = (demanded ?? []).filter((e) => !priorSet.has(e));
    const op = stillAdded.length === 0 ? restore(owned!.prior) : set(formatThrottledReplicas([...priorEntries, ...stillAdded]));
    return {
      op,
      before: { prior: owned!.prior, added: sortedUnion(owned!.added, stillAdded) },
      after: stillAdded.length > 0 ? { prior: owned!.prior, added: sortedUnion([], stillAdded) } : undefined,
    };
  }

  const prior = owned ? owned.prior : current;
  if (demanded === ALL_REPLICAS) {
    return {
      op: set(ALL_REPLICAS),
      before: { prior, added: sortedUnion(owned?.added ?? [], [ALL_REPLICAS]) },
      after: { prior, added: [ALL_REPLICAS] },
    };
  }

  const want = setOf(demanded ?? []);
  const have = setOf(parsed.entries);
  const staleList = ownedEntries.filter((e) => !want.has(e));
  const stale = new Set(staleList);
  const toAdd = [...want].filter((e) => !have.has(e));
  const removes = stale.size > 0 && parsed.entries.some((e) => stale.has(e));
  const addedAfter = sortedUnion(staleList.length === 0 ? ownedEntries : ownedEntries.filter((e) => want.has(e)), toAdd);
  const beforeOwned = owned || toAdd.length > 0 ? { prior, added: sortedUnion(owned?.added ?? [], toAdd) } : undefined;
  const afterOwned = addedAfter.length > 0 ? { prior, added: addedAfter } : undefined;
  if (!removes && toAdd.length === 0) return { before: beforeOwned, after: afterOwned };

  const next = [...parsed.entries.filter((e) => !stale.has(e)), ...toAdd];
  let op: SlotResult<ReplicaListOwnership>['op'];
  if (addedAfter.length === 0 && sameSet(next, priorEntriesOf(prior))) op = restore(prior);
  else if (next.length === 0) op = del();
  else op = set(formatThrottledReplicas(next));
  return { op, before: beforeOwned, after: afterOwned };
}

// ---------------------------------------------------------------------------------------------

function listEntries(value: string): ReplicaDemand {
  const parsed = parseThrottledReplicas(value);
  if (!parsed) throw new RangeError(`not a throttled replicas value: ${value}`);
  return parsed.all ? ALL_REPLICAS : parsed.entries;
}

function priorEntriesOf(prior: string | null): readonly string[] | null {
  const parsed = parseThrottledReplicas(prior);
  return parsed && !parsed.all ? parsed.entries : null;
}

function restore(prior: string | null): { operation: 'SET' | 'DELETE'; value: string | null } {
  return prior === null ? del() : set(prior);
}

function set(value: string): { operation: 'SET'; value: string } {
  return { operation: 'SET', value };
}

function del(): { operation: 'DELETE'; value: null } {
  return { operation: 'DELETE', value: null };
}
