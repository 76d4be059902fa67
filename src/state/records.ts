// What the gateway keeps in its compacted state topic: reassignment records and the
// throttle-ownership ledger. Keys decide compaction (the latest record per key wins, a
// tombstone deletes it), so every kind of record has its own key prefix:
//
//   reassignment/<id>   a reassignment the gateway started (or was asked to start)
//   throttle-request/<id>  throttles set with PUT /throttles/* (a standing demand)
//   ledger/topic/<t>    what the gateway added to topic t's throttled-replicas lists
//   ledger/broker/<id>  the throttle rates the gateway set on a broker, and the prior values
//
// Demands (reassignments, throttle requests) say WHY throttles must exist; the ledger says
// WHAT the gateway changed. A ledger record is written BEFORE the config it describes is
// changed, and a reassignment record
// BEFORE the reassignment is started (write-ahead): whatever instance reads the topic later
// knows everything the gateway may have changed in the cluster, even if the writer died
// one instruction after its write. Values are JSON with a schema version `v`, so a newer
// gateway can read what an older one wrote.

import type { ThrottleDemand, ThrottleLedger } from '../domain/reassignment/throttle-ledger.js';

export const RECORD_VERSION = 1;

export type ReassignmentState = 'pending' | 'running' | 'completed' | 'cancelled' | 'failed';
export const TERMINAL_STATES: ReadonlySet<ReassignmentState> = new Set(['completed', 'cancelled', 'failed']);

export interface ReassignmentPartitionRecord {
  topic: string;
  partition: number;
  /** Replicas before the move (for a partition already moving: replicas - adding). */
  original: number[];
  target: number[];
  /** Kafka refused to start this partition (the others may still run). */
  startError?: { code: number; name: string; message: string };
  /** A later reassignment re-targeted this partition (addToExisting): it is that one's now. */
  supersededBy?: string;
}

export interface ReassignmentRecord {
  kind: 'reassignment';
  v: number;
  id: string;
  state: ReassignmentState;
  partitions: ReassignmentPartitionRecord[];
  /** Bytes/s for leader and follower rates; null = no throttle. */
  throttle: number | null;
  autoRemoveThrottle: boolean;
  /**
   * The throttles this reassignment demands while it is pending or running, exactly as Kafka's
   * tool computes them (merged with the moves in progress when it started); null = no throttle.
   */
  throttleDemand: ThrottleDemand | null;
  /** When the reconciler saw its throttles gone after its end (removal delay = this - endedAt). */
  throttlesRemovedAt?: number;
  /** Gateway instance that wrote the record first, and the caller who asked. */
  owner: string;
  requestedBy: string | null;
  /** A rollback of another reassignment. */
  rollbackOf?: string;
  createdAt: number;
  /**
   * A pending record whose start did not finish by this time is resolved by the reconciler
   * (adopted when Kafka shows it moving or done, failed otherwise). The writer never starts
   * it after this time, so the two cannot race.
   */
  startDeadline: number;
  startedAt?: number;
  /** When a reconciler first saw that nothing of it moves any more. */
  endedAt?: number;
  updatedAt: number;
  /** Why it failed / how it was cancelled. */
  reason?: string;
}

/**
 * Throttles set with PUT /throttles/rates or /throttles/replicas (or kept after a
 * reassignment with autoRemoveThrottle=false): a standing demand until it is deleted,
 * expires, or (autoRemove) the moves it waited for have finished.
 */
export interface ThrottleRequestRecord {
  kind: 'throttle-request';
  v: number;
  id: string;
  demand: ThrottleDemand;
  /** Removed once the partitions that were moving when it was set have all finished. */
  autoRemove: boolean;
  /**
   * autoRemove: the partitions (`topic:partition`) moving when it was set. null = nothing was
   * moving then: the reconciler arms it with the first moves it sees.
   */
  waitFor: string[] | null;
  /** Removed at this time whatever happens (ttlSeconds); null = no deadline. */
  expiresAt: number | null;
  /** Kept from a finished reassignment (autoRemoveThrottle=false). */
  fromReassignment?: string;
  owner: string;
  requestedBy: string | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * The ownership ledger of one config resource (a topic or a broker): which throttle values
 * the gateway added and what was there before (src/domain/reassignment/throttle-ledger.ts
 * computes it). Written BEFORE the configs are changed. Tombstoned when empty.
 */
export interface LedgerRecord {
  kind: 'ledger';
  v: number;
  /** `topic/<name>` or `broker/<id>`. */
  id: string;
  topic?: ThrottleLedger['topics'][string];
  broker?: ThrottleLedger['brokers'][string];
  updatedAt: number;
}

export type StateValue = ReassignmentRecord | ThrottleRequestRecord | LedgerRecord;

const PREFIX = { reassignment: 'reassignment/', 'throttle-request': 'throttle-request/', ledger: 'ledger/' } as const;
export const reassignmentKey = (id: string): string => PREFIX.reassignment + id;
export const throttleRequestKey = (id: string): string => PREFIX['throttle-request'] + id;
export const ledgerKey = (id: string): string => PREFIX.ledger + id;
export const topicLedgerId = (topic: string): string => `topic/${topic}`;
export const brokerLedgerId = (broker: number | string): string => `broker/${broker}`;

export function keyOf(value: StateValue): string {
  return PREFIX[value.kind] + value.id;
}

/** The kind and id a key names, or undefined for keys this version does not know. */
export function parseKey(key: string): { kind: StateValue['kind']; id: string } | undefined {
  for (const [kind, prefix] of Object.entries(PREFIX) as [StateValue['kind'], string][]) {
    if (key.startsWith(prefix)) return { kind, id: key.slice(prefix.length) };
  }
  return undefined;
}

/** Parses a stored value; undefined for records this version does not understand (left alone). */
export function decodeValue(key: string, raw: string): StateValue | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const v = parsed as { kind?: unknown; v?: unknown; id?: unknown };
  if (typeof v.v !== 'number' || v.v > RECORD_VERSION || typeof v.id !== 'string') return undefined;
  const value = parsed as StateValue;
  if (!(value.kind in PREFIX) || key !== keyOf(value)) return undefined;
  return value;
}

export function encodeValue(value: StateValue): string {
  return JSON.stringify(value);
}
