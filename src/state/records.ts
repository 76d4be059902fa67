// What the gateway keeps in its compacted state topic: reassignment records and the
// throttle-ownership ledger. Keys decide compaction (the latest record per key wins, a
// tombstone deletes it), so every kind of record has its own key prefix:
//
//   reassignment/<id>   a reassignment's header (everything but its partitions), written LAST
//   reassignment-chunk/<id>/p<i>.<gen>  up to 500 of its partitions (chunk i, generation gen)
//   reassignment-chunk/<id>/d<i>.<gen>  part of its throttle demand's topic lists (large moves)
//   progress/<id>       the latest progress snapshots of a running reassignment (bounded)
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

/**
 * v2: chunked reassignments (header + chunks, see "Layout of a reassignment" below). A v1
 * reassignment record (one message with every partition inline) is still read.
 */
export const RECORD_VERSION = 2;

export type ReassignmentState = 'pending' | 'running' | 'completed' | 'cancelled' | 'failed';
export const TERMINAL_STATES: ReadonlySet<ReassignmentState> = new Set(['completed', 'cancelled', 'failed']);

/**
 * Where one partition of a reassignment is:
 * - queued: not sent to Kafka yet (a pending record; with paced execution, waiting for its wave);
 * - moving: sent to Kafka (AlterPartitionReassignments accepted it), not seen finished yet;
 * - completed: Kafka finished it at its target;
 * - failed: Kafka refused to start it (`startError`);
 * - cancelled: cancelled (DELETE or outside the gateway), reverted, or handed to a later
 *   reassignment (`supersededBy`).
 */
export type PartitionState = 'queued' | 'moving' | 'completed' | 'failed' | 'cancelled';
export const PARTITION_STATES: readonly PartitionState[] = ['queued', 'moving', 'completed', 'failed', 'cancelled'];

export interface ReassignmentPartitionRecord {
  topic: string;
  partition: number;
  /** Replicas before the move (for a partition already moving: replicas - adding). */
  original: number[];
  target: number[];
  state: PartitionState;
  /** Bytes to copy for it (leader's partition size x adding replicas) when it was planned; null = unknown. */
  bytesTotal?: number | null;
  /** When it was sent to Kafka / seen finished (completed, failed or cancelled). */
  startedAt?: number;
  endedAt?: number;
  /** Kafka refused to start this partition (the others may still run). Message at most 500 chars. */
  startError?: { code: number; name: string; message: string };
  /** Kafka's `log_dirs` paired with `target` ("any" or an absolute dir); absent = all "any". */
  logDirs?: string[];
  /** A later reassignment re-targeted this partition (addToExisting): it is that one's now. */
  supersededBy?: string;
}

/** Paced execution (issue 9): limits on partitions moving at once; null = no limit. */
export interface ReassignmentConcurrency {
  perBroker: number | null;
  cluster: number | null;
}
export type ReassignmentOrder = 'size-asc' | 'size-desc' | 'as-given';

export interface ReassignmentRecord {
  kind: 'reassignment';
  v: number;
  id: string;
  state: ReassignmentState;
  /**
   * In request order (stored in chunks of at most CHUNK_MAX_PARTITIONS). Never grows or shrinks
   * after the record is created. Treat as immutable: to change partitions, build a new array
   * that reuses the unchanged entries (same object) and replaces the changed ones: the store
   * rewrites only the chunks holding a replaced entry.
   */
  partitions: readonly ReassignmentPartitionRecord[];
  /** Paced execution (issue 9), passed through by the store: null = everything at once. */
  concurrency: ReassignmentConcurrency | null;
  order: ReassignmentOrder;
  /** Paced execution: no further partitions are sent to Kafka while true. */
  paused: boolean;
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

/**
 * Progress snapshots of one reassignment (at most PROGRESS_MAX_SNAPSHOTS, the newest last),
 * written by whichever instance reconciles, at most one per reconcile interval: every instance
 * computes rate, ETA and stall from the same snapshots. Tombstoned with the reassignment.
 */
export interface ProgressRecord {
  kind: 'progress';
  v: number;
  /** The reassignment's id. */
  id: string;
  snapshots: ProgressSnapshot[];
  /** When bytesDone last grew (stall detection), null = never. */
  lastProgressAt: number | null;
  updatedAt: number;
}
export interface ProgressSnapshot {
  /** ms since the epoch */
  t: number;
  bytesTotal: number;
  bytesDone: number;
}
export const PROGRESS_MAX_SNAPSHOTS = 30;

export type StateValue = ReassignmentRecord | ThrottleRequestRecord | LedgerRecord | ProgressRecord;

const PREFIX = { reassignment: 'reassignment/', 'throttle-request': 'throttle-request/', ledger: 'ledger/', progress: 'progress/' } as const;
export const reassignmentKey = (id: string): string => PREFIX.reassignment + id;
export const progressKey = (id: string): string => PREFIX.progress + id;
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
  if (value.kind === 'reassignment') return normalizeInlineReassignment(value);
  return value;
}

/**
 * A reassignment written in ONE message with its partitions inline (v1, and encodeValue's
 * output): filled up with the fields v2 added. A v2 header (partitions in chunks, see
 * layout.ts) is not a whole record: undefined here (the store assembles it).
 */
export function normalizeInlineReassignment(r: ReassignmentRecord): ReassignmentRecord | undefined {
  if (!Array.isArray(r.partitions)) return undefined;
  const derived = (p: ReassignmentPartitionRecord): PartitionState => {
    if (p.startError) return 'failed';
    if (p.supersededBy) return 'cancelled';
    if (r.state === 'pending') return 'queued';
    if (r.state === 'running') return 'moving';
    return r.state === 'completed' ? 'completed' : 'cancelled';
  };
  return {
    ...r,
    partitions: r.partitions.map((p) => (p.state ? p : { ...p, state: derived(p) })),
    concurrency: r.concurrency ?? null,
    order: r.order ?? 'as-given',
    paused: r.paused ?? false,
  };
}

export function encodeValue(value: StateValue): string {
  return JSON.stringify(value);
}
