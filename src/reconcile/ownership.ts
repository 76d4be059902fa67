// Which gateway reassignment a moving partition belongs to, and which demands for throttles
// are alive: derived from the state view alone (plain functions, no I/O).
import { partitionKey } from '../domain/partition-key.js';
import type { OngoingPartitionReassignment, ThrottleDemand, ThrottleLedger } from '../domain/reassignment/index.js';
import type { MovingPartition } from '../kafka/kafka-admin.js';
import { TERMINAL_STATES, type LedgerRecord, type ReassignmentPartitionRecord, type ReassignmentRecord } from '../state/records.js';
import type { StateView } from '../state/store.js';

/** `topic:partition`, interned (see src/domain/partition-key.ts: no new string per call on per-pass paths). */
export const partitionId: (topic: string, partition: number) => string = partitionKey;

/** Partitions a record is (still) responsible for: started without error and not handed to a later reassignment. */
export function activePartitions(r: ReassignmentRecord): ReassignmentPartitionRecord[] {
  return r.partitions.filter((p) => !p.startError && !p.supersededBy);
}

export const isLive = (r: ReassignmentRecord): boolean => !TERMINAL_STATES.has(r.state);

/** Last answer of partitionOwners per view map, valid while the same live record objects are in it. */
const ownersCache = new WeakMap<object, { live: ReassignmentRecord[]; owners: Map<string, string> }>();

/** Yields to the event loop when its time slice is used up (src/state/layout.ts makePacer). */
export type Pace = () => Promise<void>;
/** Loop iterations between two calls of a Pace (each call reads the clock). */
export const PACE_EVERY = 256;

function cachedOwners(view: StateView): { live: ReassignmentRecord[]; hit: Map<string, string> | undefined } {
  const live = [...view.reassignments.values()].filter(isLive);
  const cached = ownersCache.get(view.reassignments);
  const hit = cached && cached.live.length === live.length && cached.live.every((r, i) => r === live[i]) ? cached.owners : undefined;
  return { live, hit };
}

/** Newest first (a stable sort: among equal createdAt the first in view order), so the first record to name a partition is its owner. */
const newestFirst = (live: readonly ReassignmentRecord[]) => (live.length > 1 ? [...live].sort((a, b) => b.createdAt - a.createdAt) : live);

/**
 * `topic:partition` -> id of the live gateway reassignment moving it (the newest wins). O(total
 * partitions of live records) when a live record changed since the last call on this view, else
 * O(number of records) (records are immutable: a change is a new object).
 */
export function partitionOwners(view: StateView): Map<string, string> {
  const { live, hit } = cachedOwners(view);
  if (hit) return hit;
  // One map, no per-partition bookkeeping objects.
  const out = new Map<string, string>();
  for (const r of newestFirst(live)) {
    for (const p of r.partitions) {
      if (p.startError || p.supersededBy) continue; // activePartitions(r), without the copy
      const k = partitionId(p.topic, p.partition);
      if (!out.has(k)) out.set(k, r.id);
    }
  }
  ownersCache.set(view.reassignments, { live, owners: out });
  return out;
}

/**
 * partitionOwners, yielding to the event loop (`pace`) while it builds the map: the same answer
 * and the same cache. The live records are taken when it is called (the view may change while
 * it yields; the answer is for the records as they were then).
 */
export async function partitionOwnersPaced(view: StateView, pace: Pace): Promise<Map<string, string>> {
  const { live, hit } = cachedOwners(view);
  if (hit) return hit;
  const out = new Map<string, string>();
  for (const r of newestFirst(live)) {
    const ps = r.partitions;
    for (let i = 0; i < ps.length; i++) {
      if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
      const p = ps[i];
      if (p.startError || p.supersededBy) continue;
      const k = partitionId(p.topic, p.partition);
      if (!out.has(k)) out.set(k, r.id);
    }
  }
  ownersCache.set(view.reassignments, { live, owners: out });
  return out;
}

/** ListPartitionReassignments' answer, each partition attributed to its gateway reassignment (or null). */
export function attributeMoves(moving: MovingPartition[], view: StateView): OngoingPartitionReassignment[] {
  const owners = partitionOwners(view);
  return moving.map((m) => ({ ...m, reassignmentId: owners.get(partitionId(m.topic, m.partition)) ?? null }));
}

/** Kafka's moves as one pass reads them, attributed once and shared by every step of the pass. */
export interface AttributedMoves {
  /** Every partition Kafka lists as moving (`partitionId`). */
  readonly movingIds: ReadonlySet<string>;
  /** Per gateway reassignment id: its partitions Kafka lists as moving. */
  readonly movingOf: ReadonlyMap<string, ReadonlySet<string>>;
  /** Moves of gateway reassignments / of anybody else. */
  readonly gateway: number;
  readonly external: number;
}

/** attributeMoves summarised for a pass, yielding to the event loop (`pace`) on the way. O(moves) + partitionOwnersPaced. */
export async function attributeMovesPaced(moving: readonly MovingPartition[], view: StateView, pace: Pace): Promise<AttributedMoves> {
  const owners = await partitionOwnersPaced(view, pace);
  const movingIds = new Set<string>();
  // The usual case, one reassignment owning every move (100,000 of them in a large one), shares
  // movingIds as that owner's set instead of building a second 100k-entry set each pass.
  let soleOwner: string | undefined;
  let mixed = false;
  let gateway = 0;
  for (let i = 0; i < moving.length; i++) {
    if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
    const m = moving[i];
    const id = partitionId(m.topic, m.partition);
    movingIds.add(id);
    const owner = owners.get(id);
    if (owner === undefined) {
      mixed = true;
      continue;
    }
    gateway++;
    if (soleOwner === undefined) soleOwner = owner;
    else if (owner !== soleOwner) mixed = true;
  }
  const movingOf = new Map<string, ReadonlySet<string>>();
  if (!mixed) {
    if (soleOwner !== undefined) movingOf.set(soleOwner, movingIds);
    return { movingIds, movingOf, gateway, external: 0 };
  }
  for (let i = 0; i < moving.length; i++) {
    if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
    const m = moving[i];
    const id = partitionId(m.topic, m.partition);
    const owner = owners.get(id);
    if (owner === undefined) continue;
    let set = movingOf.get(owner) as Set<string> | undefined;
    if (!set) movingOf.set(owner, (set = new Set()));
    set.add(id);
  }
  return { movingIds, movingOf, gateway, external: moving.length - gateway };
}

/**
 * Whether a record's throttle demand is live: pending or running, and its moves not recorded as
 * ended (`movesEndedAt`: every instance, and a restarted one, reads the same from the state topic).
 */
export function demandsThrottles(r: ReassignmentRecord): boolean {
  return isLive(r) && r.throttleDemand !== null && r.movesEndedAt === undefined;
}

/**
 * Throttle demands alive at `now`: every pending or running reassignment's (unless its moves
 * are recorded as ended), and every throttle request that has not expired. Ended reassignments and expired requests demand nothing, so
 * the next throttle sync removes what they had the gateway add.
 */
export function liveDemands(view: StateView, now: number): ThrottleDemand[] {
  const out: ThrottleDemand[] = [];
  for (const r of view.reassignments.values()) if (demandsThrottles(r)) out.push(r.throttleDemand!);
  for (const t of view.throttleRequests.values()) if (t.expiresAt === null || t.expiresAt > now) out.push(t.demand);
  return out;
}

/**
 * The ledger records as the one ThrottleLedger the domain reconciles against. Memoised: the
 * same record objects (records are immutable; a change is a new object) in the same order give
 * the previous answer object, so a caller can tell "ledger unchanged" by identity.
 */
export function ledgerOf(records: Iterable<LedgerRecord>): ThrottleLedger {
  const list = [...records];
  const last = lastLedger;
  if (last && last.records.length === list.length && last.records.every((r, i) => r === list[i])) return last.ledger;
  const ledger = ledgerOfUncached(list);
  lastLedger = { records: list, ledger };
  return ledger;
}

let lastLedger: { records: readonly LedgerRecord[]; ledger: ThrottleLedger } | undefined;

function ledgerOfUncached(records: readonly LedgerRecord[]): ThrottleLedger {
  const topics: Record<string, NonNullable<LedgerRecord['topic']>> = {};
  const brokers: Record<string, NonNullable<LedgerRecord['broker']>> = {};
  for (const r of records) {
    if (r.id.startsWith('topic/') && r.topic) topics[r.id.slice('topic/'.length)] = r.topic;
    else if (r.id.startsWith('broker/') && r.broker) brokers[r.id.slice('broker/'.length)] = r.broker;
  }
  return { topics, brokers };
}

/**
 * Ledger records copied from a state topic that was lost (deleted, re-created, reset) into the
 * new one, under ids `orphaned/topic/<t>` and `orphaned/broker/<id>` (keys
 * `ledger/orphaned/...`). ledgerOf() ignores them: nothing syncs them; they only tell any
 * instance, also one started after the loss, which throttle values the gateway had set, for
 * DELETE /throttles/orphaned.
 */
export const ORPHANED_PREFIX = 'orphaned/';
export const orphanedId = (ledgerId: string): string => (ledgerId.startsWith(ORPHANED_PREFIX) ? ledgerId : ORPHANED_PREFIX + ledgerId);
export const ownedId = (ledgerId: string): string =>
  ledgerId.startsWith(ORPHANED_PREFIX) ? ledgerId.slice(ORPHANED_PREFIX.length) : ledgerId;

/** The orphaned ledger: records copied from a lost topic (see ORPHANED_PREFIX) and `lost` (this process's memory of it), by owned id. */
export function orphanedLedger(view: StateView, lost: ReadonlyMap<string, LedgerRecord>): Map<string, LedgerRecord> {
  const out = new Map<string, LedgerRecord>();
  for (const [id, r] of lost) out.set(ownedId(id), { ...r, id: ownedId(id) });
  for (const [id, r] of view.ledger)
    if (id.startsWith(ORPHANED_PREFIX) && !out.has(ownedId(id))) out.set(ownedId(id), { ...r, id: ownedId(id) });
  return out;
}

/** How long after a cancel a move of one of its partitions still counts as its own late start. */
export const LATE_START_WINDOW_MS = 15 * 60_000;

/**
 * Moves Kafka lists that a cancelled reassignment started too late: a partition the record says
 * `cancelled`, moving now to exactly the record's target, not owned by any live reassignment,
 * within LATE_START_WINDOW_MS of the cancel. Kafka can apply an AlterPartitionReassignments
 * after the request timed out at the client (a wave in doubt), so such a wave can start after a
 * DELETE has read Kafka's moves; the cancel is honoured by cancelling these (issue 28, L1).
 * Another tool starting the very same move within minutes of a cancel would be cancelled too.
 */
export function lateStartsOfCancelled(moving: readonly MovingPartition[], view: StateView, now: number): MovingPartition[] {
  const targets = new Map<string, readonly number[]>();
  for (const r of view.reassignments.values()) {
    if (r.state !== 'cancelled' || r.endedAt === undefined || r.endedAt < now - LATE_START_WINDOW_MS) continue;
    for (const p of r.partitions) if (p.state === 'cancelled' && !p.supersededBy) targets.set(partitionId(p.topic, p.partition), p.target);
  }
  if (targets.size === 0) return [];
  const owners = partitionOwners(view);
  return moving.filter((m) => {
    const key = partitionId(m.topic, m.partition);
    const target = targets.get(key);
    if (!target || owners.has(key)) return false;
    const moveTarget = m.replicas.filter((b) => !m.removing.includes(b));
    return moveTarget.length === target.length && target.every((b) => moveTarget.includes(b));
  });
}
