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

import { replicaEntryKey } from '../domain/partition-key.js';
import type { ThrottleDemand, ThrottleLedger } from '../domain/reassignment/throttle-ledger.js';
import type { WebhookDeliveryRecord, WebhookRecord } from './webhooks.js';
import type { DeadlineState } from '../domain/reassignment/deadline.js';
import type { HoldState, Safety } from '../domain/reassignment/health.js';
import type { LeaderElectionTally } from '../domain/leaders.js';
import type { ReassignmentOrigin } from '../domain/reassignment/origin.js';

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
  original: readonly number[];
  target: readonly number[];
  state: PartitionState;
  /** Bytes to copy for it (leader's partition size x adding replicas) when it was planned; null = unknown. */
  bytesTotal?: number | null;
  /**
   * When it was sent to Kafka: by a start, the time of its write-ahead (the partition is written
   * as started just before the request; a refused one has none); by the pacer, when it sent it.
   * endedAt: when it was seen finished (completed, failed or cancelled).
   */
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
  /** Deadline pacing (issue 30): `throttle` is re-decided every pass to end by `deadline.finishBy`; absent = a fixed throttle. */
  deadline?: DeadlineState;
  /** Gateway instance that wrote the record first, and the caller who asked. */
  owner: string;
  requestedBy: string | null;
  /** A rollback of another reassignment. */
  rollbackOf?: string;
  /**
   * The plan goal it was started from, or the caller's label (issue 33, the console's history).
   * Header only, bounded (origin.ts); absent = none given ("manual"), and in records written before it existed.
   */
  origin?: ReassignmentOrigin;
  /** Elect each completed partition's preferred leader (src/reconcile/leader-elections.ts); every rollback does. */
  electLeaders?: boolean;
  /** What those elections gave so far (absent until the first pass that counted them). */
  leaderElections?: LeaderElectionTally;
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
  /**
   * A running record whose moves all ended (none listed, none queued) but whose end (completed
   * or cancelled, which takes the partitions' placement) is not recorded yet: it demands no
   * throttles from then on, in every instance (the reconciler writes this header-only change
   * before it removes the throttles, then records the end; reconciler.ts).
   */
  movesEndedAt?: number;
  updatedAt: number;
  /** Why it failed / how it was cancelled. */
  reason?: string;
  /** Health interlocks (issue 30): its policy when the caller gave one (absent = DEFAULT_SAFETY). */
  safety?: Safety;
  /** Held by the health interlocks (src/reconcile/health.ts): a running record that starts no new move; the API says `held`. */
  hold?: HoldState;
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
  /** Deadline pacing only (a reassignment with finishBy): bytes left per broker [id, in, out] as of the snapshot at `t` (src/reconcile/deadline-bytes.ts). */
  bytesLeft?: { t: number; brokers: [number, number, number][] };
  updatedAt: number;
}
export interface ProgressSnapshot {
  /** ms since the epoch */
  t: number;
  bytesTotal: number;
  bytesDone: number;
}
export const PROGRESS_MAX_SNAPSHOTS = 30;

export type StateValue = ReassignmentRecord | ThrottleRequestRecord | LedgerRecord | ProgressRecord | WebhookRecord | WebhookDeliveryRecord;

// Webhooks (src/state/webhooks.ts): `webhook/<id>`, `webhook-delivery/<id>`.
const PREFIX = {
  reassignment: 'reassignment/',
  'throttle-request': 'throttle-request/',
  ledger: 'ledger/',
  progress: 'progress/',
  webhook: 'webhook/',
  'webhook-delivery': 'webhook-delivery/',
} as const;
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
  if (typeof v.v !== 'number' || typeof v.id !== 'string') return undefined;
  if (v.v > (v.kind === 'ledger' ? LEDGER_PACKED_VERSION : RECORD_VERSION)) return undefined;
  const value = parsed as StateValue;
  if (!(value.kind in PREFIX) || key !== keyOf(value)) return undefined;
  if (value.kind === 'reassignment') return normalizeInlineReassignment(value);
  if (value.kind === 'ledger' && value.v === LEDGER_PACKED_VERSION) return unpackLedger(value);
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
    partitions: (r.partitions as readonly ReassignmentPartitionRecord[]).map((p) => (p.state ? p : { ...p, state: derived(p) })),
    concurrency: r.concurrency ?? null,
    order: r.order ?? 'as-given',
    paused: r.paused ?? false,
  };
}

export function encodeValue(value: StateValue): string {
  if (value.kind === 'ledger') return JSON.stringify(packLedger(value));
  return JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------
// Compact ledger records
// ---------------------------------------------------------------------------------------------
//
// A topic's ledger names every `partition:broker` entry the gateway added (and the value that
// was there before): ~11 bytes an entry as JSON, so a topic of ~40,000 partitions moving would
// not fit in one Kafka message (1 MB). Lists of at least LEDGER_PACK_MIN entries are stored
// packed instead: per broker, its partitions either as a bitmap (base64, one bit per partition
// up to the highest) or as base-36 deltas, whichever is shorter. A moving topic of 50,000
// partitions (RF 3, 12 brokers) takes ~100 KB a list this way. Packed records carry
// v = LEDGER_PACKED_VERSION (older gateways leave them alone instead of misreading them);
// plain records (every older one, and small lists) are read as before. Packing is exact: only
// a list that is canonical (`p:b` entries, sorted as strings, no duplicates) is packed, and a
// prior value only when it is such a list formatted as Kafka's tool writes it; anything else
// stays verbatim.

/** v of a ledger record with packed lists. */
export const LEDGER_PACKED_VERSION = 3;
/** Lists shorter than this stay plain JSON (readable by any version). */
export const LEDGER_PACK_MIN = 256;

/** A packed `partition:broker` list: per broker id, `b<base64 bitmap>` or `d<base-36 deltas joined by '.'>`. */
export type PackedReplicaList = Record<string, string>;

type ListOwnership = { prior: string | null; added: readonly string[] };
type PackedOwnership = {
  prior?: string | null;
  priorPacked?: PackedReplicaList;
  added?: readonly string[];
  addedPacked?: PackedReplicaList;
};

/**
 * The value of `s[from, to)` when it is a canonical decimal (digits only, no leading zero,
 * at most Number.MAX_SAFE_INTEGER); -1 otherwise. Parsed by hand: a regex match and two
 * Number() calls per entry were most of the time (and garbage) packing 100,000 moving partitions.
 */
function canonicalInt(s: string, from: number, to: number): number {
  if (to <= from || to - from > 16 || (s.charCodeAt(from) === 48 && to - from > 1)) return -1;
  let v = 0;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return Number.isSafeInteger(v) ? v : -1;
}

/** Packs a canonical list (sorted as strings, unique `p:b`); undefined when it is not one. */
export function packReplicaList(entries: readonly string[]): PackedReplicaList | undefined {
  const byBroker = new Map<number, number[]>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (i > 0 && !(entries[i - 1] < e)) return undefined;
    const colon = e.indexOf(':');
    if (colon < 0) return undefined;
    const partition = canonicalInt(e, 0, colon);
    const broker = canonicalInt(e, colon + 1, e.length);
    if (partition < 0 || broker < 0 || partition > 0x7fffffff) return undefined;
    let ps = byBroker.get(broker);
    if (!ps) byBroker.set(broker, (ps = []));
    ps.push(partition);
  }
  const out: PackedReplicaList = {};
  for (const [broker, list] of [...byBroker].sort((a, b) => a[0] - b[0])) {
    // Partitions fit 31 bits: a typed array sorts numerically without a comparator call per pair.
    const ps = Uint32Array.from(list).sort();
    const deltasLength = writeDeltas(ps);
    const max = ps[ps.length - 1];
    const bitmapChars = Math.ceil((Math.ceil((max + 1) / 8) * 4) / 3);
    if (bitmapChars < deltasLength) {
      const bits = Buffer.alloc(Math.ceil((max + 1) / 8));
      for (const p of ps) bits[p >> 3] |= 1 << (p & 7);
      out[String(broker)] = `b${bits.toString('base64')}`;
    } else out[String(broker)] = `d${deltaScratch.toString('latin1', 0, deltasLength)}`;
  }
  return out;
}

/** Where writeDeltas writes (grown as needed, reused: no string per entry). */
let deltaScratch = Buffer.allocUnsafe(1 << 16);
const BASE36 = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz', 'latin1');

/**
 * The gaps between sorted partitions (first: p + 1 from -1, then p - prev - 1) in base 36 as
 * Number#toString(36) writes them, joined by '.', as ASCII into deltaScratch; returns the
 * length. A gap is below 2^31, at most 6 base-36 digits.
 */
function writeDeltas(ps: Uint32Array): number {
  if (deltaScratch.length < ps.length * 7) deltaScratch = Buffer.allocUnsafe(ps.length * 7);
  const out = deltaScratch;
  let pos = 0;
  let prev = -1;
  for (let k = 0; k < ps.length; k++) {
    if (k > 0) out[pos++] = 46; // '.'
    let d = ps[k] - prev - 1;
    prev = ps[k]!;
    if (d < 36) {
      out[pos++] = BASE36[d]!;
      continue;
    }
    let digits = 0;
    for (let v = d; v > 0; v = Math.floor(v / 36)) digits++;
    for (let i = pos + digits - 1; i >= pos; i--) {
      out[i] = BASE36[d % 36]!;
      d = Math.floor(d / 36);
    }
    pos += digits;
  }
  return pos;
}

/** The value of base-36 digits `s[from, to)` (lowercase, as written by writeDeltas); -1 when one is not a digit. */
function base36(s: string, from: number, to: number): number {
  if (to <= from || to - from > 10) return -1;
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 122 ? c - 87 : -1;
    if (d < 0) return -1;
    v = v * 36 + d;
  }
  return v;
}

/** The list packReplicaList packed: `p:b` entries sorted as strings. */
export function unpackReplicaList(packed: PackedReplicaList): string[] {
  const out: string[] = [];
  for (const [brokerKey, code] of Object.entries(packed)) {
    // Entries are interned (partition-key.ts): a 100k ledger names ~400,000 of them.
    const broker = canonicalInt(brokerKey, 0, brokerKey.length);
    if (broker < 0) throw new RangeError(`not a broker id in a packed list: ${JSON.stringify(brokerKey.slice(0, 20))}`);
    if (code.startsWith('b')) {
      const bits = Buffer.from(code.slice(1), 'base64');
      for (let i = 0; i < bits.length; i++) {
        const byte = bits[i];
        if (byte === 0) continue;
        for (let j = 0; j < 8; j++) if (byte & (1 << j)) out.push(replicaEntryKey(i * 8 + j, broker));
      }
    } else if (code.startsWith('d')) {
      let prev = -1;
      // Walk the deltas in place (no split() array of substrings).
      for (let at = 1; at < code.length;) {
        let end = code.indexOf('.', at);
        if (end < 0) end = code.length;
        // By hand: a slice and parseInt per entry were ~400,000 strings for a 100k ledger.
        const gap = base36(code, at, end);
        if (gap < 0) throw new RangeError(`not a base-36 gap in a packed list for broker ${broker}`);
        prev = prev + 1 + gap;
        out.push(replicaEntryKey(prev, broker));
        at = end + 1;
      }
    } else throw new RangeError(`unknown packed list code for broker ${broker}`);
  }
  return out.sort();
}

function packOwnership(o: ListOwnership): PackedOwnership | undefined {
  let packed: PackedOwnership | undefined;
  if (o.added.length >= LEDGER_PACK_MIN) {
    const addedPacked = packReplicaList(o.added);
    if (addedPacked) packed = { prior: o.prior, addedPacked };
  }
  if (o.prior !== null && o.prior.length >= LEDGER_PACK_MIN * 4) {
    const entries = o.prior.split(',');
    const priorPacked = entries.length >= LEDGER_PACK_MIN ? packReplicaList(entries) : undefined;
    // Exactly the prior value back (Kafka's format: sorted as strings, comma-joined, nothing else).
    if (priorPacked && unpackReplicaList(priorPacked).join(',') === o.prior) {
      packed = { ...(packed ?? { added: o.added }), priorPacked };
      delete packed.prior;
    }
  }
  return packed;
}

/** The record as stored: big canonical lists packed (v = LEDGER_PACKED_VERSION), else unchanged. */
export function packLedger(r: LedgerRecord): LedgerRecord {
  if (!r.topic) return r;
  const topic: Record<string, unknown> = { ...r.topic };
  let changed = false;
  for (const field of ['leader', 'follower'] as const) {
    const o = r.topic[field];
    const packed = o ? packOwnership(o) : undefined;
    if (packed) {
      topic[field] = packed;
      changed = true;
    }
  }
  return changed ? { ...r, v: LEDGER_PACKED_VERSION, topic } : r;
}

/** A stored ledger record back to its plain form (packed lists expanded). */
export function unpackLedger(r: LedgerRecord): LedgerRecord | undefined {
  if (!r.topic) return { ...r, v: RECORD_VERSION };
  const topic: Record<string, ListOwnership> = {};
  try {
    for (const [field, raw] of Object.entries(r.topic as Record<string, PackedOwnership>)) {
      if (!raw) continue;
      const prior = raw.priorPacked ? unpackReplicaList(raw.priorPacked).join(',') : (raw.prior ?? null);
      const added = raw.addedPacked ? unpackReplicaList(raw.addedPacked) : (raw.added ?? []);
      topic[field] = { prior, added };
    }
  } catch {
    return undefined; // not a packing this version knows: left alone
  }
  return { ...r, v: RECORD_VERSION, topic };
}
