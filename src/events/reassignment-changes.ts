// The change feed: one event per state change of a reassignment, as this instance's view of
// the state topic observes it (src/state/observed-map.ts). Every instance runs one; the ids
// are derived from the records alone (reassignment-milestones.ts), so two instances name the
// same change with the same id, and a consumer that hears both (or one after the other,
// across a crash) deduplicates by id.
//
// Consumers: the webhooks' delivery (webhook-delivery.ts) and the Server-Sent Events streams.
// subscribe() hears changes as they are applied; since() replays the recent ones (bounded:
// the last `maxEvents`) after a given event id, for a stream that reconnects with
// Last-Event-ID or a delivery that takes over from another instance.
//
// Cost: O(1) per record version applied (header fields only: a 100,000-partition record's
// partitions are never read), memory O(maxEvents + live reassignments).

import { isCold } from '../state/cold-partitions.js';
import type { MapObserver } from '../state/observed-map.js';
import { TERMINAL_STATES, type ReassignmentRecord, type ReassignmentState } from '../state/records.js';
import type { StateStore } from '../state/store.js';
import { changesBetween, type ReassignmentChangeType, type RecordHead } from './reassignment-milestones.js';

export type { ReassignmentChangeType } from './reassignment-milestones.js';

export interface ReassignmentChange {
  /** The same on every instance for the same change: deduplicate by it. */
  eventId: string;
  reassignmentId: string;
  type: ReassignmentChangeType;
  /** The reassignment's state after the change. */
  state: string;
  /** Its state before (null: the change is its creation). */
  previousState: string | null;
  /** When it happened, from the record (ISO 8601). */
  at: string;
  /** This instance's order of the changes it observed (1, 2, ...): not comparable across instances. */
  seq: number;
  /** Cheap summary fields of the record at the change (never its partitions). */
  paused: boolean;
  /** How many partitions it moves (null: not known without reading them all). */
  partitions: number | null;
  requestedBy: string | null;
  reason: string | null;
  rollbackOf: string | null;
}

export type ChangeListener = (change: ReassignmentChange) => void;

export interface ReassignmentChangeFeed {
  /** Hears every change from now on, synchronously as it is observed (be quick; errors are ignored). Returns the unsubscribe function. */
  subscribe(listener: ChangeListener): () => void;
  /**
   * The retained changes after the one with id `after` (all retained ones when undefined), oldest
   * first, at most `limit`. `complete` is false when `after` is no longer retained (or never
   * was): changes may be missing between it and the first returned.
   */
  since(after?: string, opts?: { reassignmentId?: string; limit?: number }): { changes: ReassignmentChange[]; complete: boolean };
  /** A retained change by id. */
  get(eventId: string): ReassignmentChange | undefined;
  /** How many changes are retained. */
  readonly size: number;
}

/** What the feed needs of the store. */
export type ObservableStore = Pick<StateStore, 'observeReassignments' | 'header'>;

export interface ChangeFeedOptions {
  /** Changes retained for since() (default 10,000). */
  maxEvents?: number;
}

export const DEFAULT_MAX_EVENTS = 10_000;

export class ReassignmentChanges implements ReassignmentChangeFeed {
  readonly #max: number;
  readonly #store: ObservableStore;
  /** Retained changes, oldest first; #events[i].seq === #firstSeq + i. */
  #events: ReassignmentChange[] = [];
  #firstSeq = 1;
  readonly #byId = new Map<string, ReassignmentChange>();
  /** The last version seen of each reassignment in the view (header fields only). */
  readonly #heads = new Map<string, RecordHead>();
  readonly #listeners = new Set<ChangeListener>();
  readonly #stop: () => void;

  constructor(store: ObservableStore, opts: ChangeFeedOptions = {}) {
    this.#max = Math.max(1, opts.maxEvents ?? DEFAULT_MAX_EVENTS);
    this.#store = store;
    const observer: MapObserver<string, ReassignmentRecord> = {
      set: (id, record) => this.#observe(id, record),
      delete: (id) => void this.#heads.delete(id),
      // The view is re-read from the log start: versions come again from the first, and the
      // changes they make are the ones already retained (same ids: not emitted twice).
      clear: () => this.#heads.clear(),
    };
    this.#stop = store.observeReassignments(observer);
  }

  /** Stops observing the store. */
  close(): void {
    this.#stop();
    this.#listeners.clear();
  }

  get size(): number {
    return this.#events.length;
  }

  subscribe(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  get(eventId: string): ReassignmentChange | undefined {
    return this.#byId.get(eventId);
  }

  since(after?: string, opts: { reassignmentId?: string; limit?: number } = {}): { changes: ReassignmentChange[]; complete: boolean } {
    let from = 0;
    let complete = true;
    if (after !== undefined) {
      const e = this.#byId.get(after);
      if (e) from = e.seq - this.#firstSeq + 1;
      else complete = false;
    }
    const limit = opts.limit ?? Infinity;
    const out: ReassignmentChange[] = [];
    for (let i = from; i < this.#events.length && out.length < limit; i++) {
      const e = this.#events[i];
      if (opts.reassignmentId === undefined || e.reassignmentId === opts.reassignmentId) out.push(e);
    }
    return { changes: out, complete };
  }

  #observe(id: string, record: ReassignmentRecord): void {
    // Held (issue 30): a running record with a hold; read structurally (a record of any version).
    const hold = (record as { hold?: { since?: unknown; reasons?: readonly { kind?: unknown }[] } }).hold;
    const held = record.state === 'running' && hold !== undefined && hold !== null;
    const holdReasons: readonly { kind?: unknown }[] | undefined = Array.isArray(hold?.reasons) ? hold.reasons : undefined;
    // The state as the API answers it (routes/reassignments.ts): a paused running record is
    // `paused`, a held one `held` (paused wins), anything else its record state.
    const paused = record.paused ?? false;
    const state = record.state === 'running' && paused ? 'paused' : held ? 'held' : record.state;
    const next: RecordHead = {
      id,
      state,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      paused,
      startedAt: record.startedAt,
      endedAt: record.endedAt,
      heldSince: held && typeof hold.since === 'number' ? hold.since : undefined,
    };
    const prev = this.#heads.get(id);
    // An older version applied after a newer one (a read under way applies what it fetched
    // after our own newer write was applied at its acknowledgement): not a change; the newer
    // version stays the one compared with. A finished record never runs again.
    if (
      prev &&
      (next.updatedAt < prev.updatedAt ||
        (TERMINAL_STATES.has(prev.state as ReassignmentState) && !TERMINAL_STATES.has(next.state as ReassignmentState)))
    )
      return;
    this.#heads.set(id, next);
    // Nothing but progress changed (most versions of a running record): nothing to derive.
    if (
      prev &&
      prev.state === next.state &&
      prev.paused === next.paused &&
      prev.startedAt === next.startedAt &&
      prev.heldSince === next.heldSince
    )
      return;
    for (const c of changesBetween(prev, next)) {
      // A version applied again (the view re-read, or an older version read after our own write): known already.
      if (this.#byId.has(c.eventId)) continue;
      const change: ReassignmentChange = {
        eventId: c.eventId,
        reassignmentId: id,
        type: c.type,
        state: c.state,
        previousState: c.previousState,
        at: new Date(c.atMs).toISOString(),
        seq: this.#firstSeq + this.#events.length,
        paused: next.paused,
        partitions: this.#partitionCount(record),
        requestedBy: record.requestedBy ?? null,
        reason:
          record.reason ??
          (state === 'held' && holdReasons !== undefined ? `held: ${holdReasons.map((r) => String(r.kind)).join(', ')}` : null),
        rollbackOf: record.rollbackOf ?? null,
      };
      this.#retain(change);
      for (const l of this.#listeners) {
        try {
          l(change);
        } catch {
          // A listener's failure is its own.
        }
      }
    }
  }

  #partitionCount(r: ReassignmentRecord): number | null {
    const fromHeader = this.#store.header(r.id)?.layout.partitionCount;
    if (fromHeader !== undefined) return fromHeader;
    // A v1 record (partitions inline, warm): its array's length. A cold one would unpack them all.
    return isCold(r) ? null : r.partitions.length;
  }

  #retain(change: ReassignmentChange): void {
    this.#events.push(change);
    this.#byId.set(change.eventId, change);
    if (this.#events.length <= this.#max) return;
    // Drop the oldest tenth at once (amortised O(1) per change, no shift() per event).
    const drop = Math.max(1, Math.ceil(this.#max / 10));
    for (let i = 0; i < drop; i++) this.#byId.delete(this.#events[i].eventId);
    this.#events = this.#events.slice(drop);
    this.#firstSeq += drop;
  }
}

/** The change feed of one gateway instance over its state store. */
export function createReassignmentChangeFeed(store: ObservableStore, opts: ChangeFeedOptions = {}): ReassignmentChanges {
  return new ReassignmentChanges(store, opts);
}
