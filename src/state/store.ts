// The gateway's view of its state topic, materialised like a KTable: read every record
// from the log start to the end offset once, then only what was appended since. Any
// instance builds the same view from the topic alone; nothing is kept on local disk.
//
// refresh() is how a reader makes sure it has seen every write acknowledged before the
// call: it reads up to the end offset it asked for first. That ordering is what makes the
// write-ahead ledger work across instances: a config value found in the cluster was set
// after its claim was acknowledged, so a refresh() started after reading the config sees
// the claim.
//
// Resets: when the topic was re-created (a new topic id) or truncated (its end offset below
// our position), the view is rebuilt from the log start; records we never read that were
// removed (start offset beyond our position) likewise. A topic this process has already used
// that disappears is NOT re-created (that would hide lost state): the store reports it as
// missing (health(), the onEvent hook) and every read and write fails until an operator acts.
//
// The parts: store-types.ts (the contract), store-index.ts (the view and how a record applies
// to it), store-tail.ts (refreshes, resets, health, the one-batch write), store-writer.ts
// (values laid out in chunks and headers, fenced), store-batches.ts (plumbing). This class
// wires them and keeps the compare-and-set of claims (claims.ts, fence.ts).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { claimKey, CLAIM_VERSION, MAX_CLAIM_TTL_MS, type ClaimValue, type DecidedClaim } from './claims.js';
import { ambientClaim, FencedWriteError } from './fence.js';
import { CHUNK_PREFIX, chunkOwner, type ReassignmentHeader } from './layout.js';
import type { MapObserver } from './observed-map.js';
import { parseKey, reassignmentKey, type LedgerRecord, type ReassignmentRecord, type StateValue } from './records.js';
import { StoreIndex } from './store-index.js';
import { StoreTail } from './store-tail.js';
import { StoreWriter } from './store-writer.js';
import {
  ORPHAN_CHUNK_GRACE_MS,
  type ClaimOptions,
  type ClaimResult,
  type RefusedWrites,
  type StateEvent,
  type StateHealth,
  type StateLog,
  type StateView,
  type StoreHooks,
} from './store-types.js';

export {
  BATCH_MAX_BYTES,
  ORPHAN_CHUNK_GRACE_MS,
  OWN_LEASE_MARGIN_MS,
  StateTopicMissingError,
  type ClaimOptions,
  type ClaimResult,
  type RefusedWrites,
  type StateEvent,
  type StateHealth,
  type StateLog,
  type StateView,
  type StoreHooks,
} from './store-types.js';

export class StateStore {
  readonly #log: StateLog;
  readonly #index: StoreIndex;
  readonly #tail: StoreTail;
  readonly #writer: StoreWriter;
  readonly #now: () => number;
  /** Monotonic milliseconds: leases are measured on it (claims.ts), never on the wall clock. */
  readonly #mono: () => number;

  constructor(
    log: StateLog,
    opts: { onEvent?: (e: StateEvent) => void; now?: () => number; monotonic?: () => number; hooks?: StoreHooks } = {},
  ) {
    this.#log = log;
    const onEvent = opts.onEvent ?? (() => undefined);
    this.#now = opts.now ?? Date.now;
    this.#mono = opts.monotonic ?? (() => performance.now());
    this.#index = new StoreIndex({ onEvent, mono: this.#mono });
    // The tail and the writer call this store's refresh() and holds() (as before the split: a
    // caller that wraps them, a test counting refreshes, sees every call).
    this.#tail = new StoreTail({ log, index: this.#index, host: this, onEvent, now: this.#now });
    this.#writer = new StoreWriter({ index: this.#index, tail: this.#tail, host: this, onEvent, now: this.#now, hooks: opts.hooks ?? {} });
  }

  /** Whether the state topic could be read the last time it was tried. */
  health(): StateHealth {
    return this.#tail.health();
  }

  get topic(): string {
    return this.#log.name;
  }

  /**
   * Tells `observer` every reassignment record version this view applies, in the order applied
   * (see observed-map.ts: called synchronously, must be cheap). Returns the function that stops.
   */
  observeReassignments(observer: MapObserver<string, ReassignmentRecord>): () => void {
    return this.#index.maps.reassignment.observe(observer);
  }

  /**
   * The log position the view has applied everything below, and the topic id it counts in
   * (store-tail.ts); null when it says nothing (before the first read, a rebuild due, the topic
   * unreadable). A summary rendered from view() now holds every write below it.
   */
  position(): { position: bigint; topicId: string } | null {
    return this.#tail.position();
  }

  /** Calls `observer` (synchronously; keep it cheap) whenever position() may have changed. Returns the function that stops. */
  observePosition(observer: () => void): () => void {
    return this.#tail.observePosition(observer);
  }

  /** The view as of the last refresh or write of this instance (may lag other instances). */
  view(): StateView {
    return this.#index.view();
  }

  /**
   * Reads everything appended up to now; afterwards view() holds every acknowledged write.
   * Callers that arrive while a refresh runs share the one queued after it (store-tail.ts).
   */
  refresh(): Promise<StateView> {
    return this.#tail.refresh();
  }

  /** Resolves once the finished reassignments that entered the view so far are packed (store-index.ts). */
  cooled(): Promise<void> {
    return this.#index.cooled();
  }

  /**
   * Writes the values (and tombstones for `deleteKeys`) in ONE produce request, acks=-1: one
   * record batch, so a reader sees all of them or none. Resolves once Kafka acknowledged.
   */
  async write(values: StateValue[], deleteKeys: string[] = []): Promise<void> {
    await this.#writer.writeAll(values, deleteKeys, { fence: ambientClaim.getStore() });
  }

  /**
   * Runs `fn` as work done holding `claim`: every write() in it (and in what it calls) is
   * fenced by the claim (fence.ts), and refused once the claim has ended.
   */
  underClaim<T>(claim: Pick<ClaimValue, 'id'>, fn: () => Promise<T>): Promise<T> {
    return ambientClaim.run(claim.id, fn);
  }

  /**
   * Tombstones chunks that no header names and that are older than `graceMs` (their writer
   * died after writing them and before the header, or lost a race with another writer).
   * Returns how many.
   */
  sweepOrphanChunks(now = this.#now(), graceMs = ORPHAN_CHUNK_GRACE_MS): Promise<number> {
    return this.#writer.sweepOrphanChunks(now, graceMs);
  }

  /** Diagnostics and tests: chunk keys held (named by a header or not). */
  chunkKeys(): string[] {
    return [...this.#index.chunks.keys()];
  }

  /** The layout header of a reassignment (diagnostics and tests). */
  header(id: string): ReassignmentHeader | undefined {
    return this.#index.headers.get(id);
  }

  // ------------------------------------------------------------------ compare-and-set

  /**
   * Claims `resources` exclusively (see claims.ts): writes a claim record, reads the log up to
   * it, and answers whether it was granted, i.e. whether no earlier granted, unexpired claim
   * names one of them. A lost claim is tombstoned before this returns: the caller must then
   * change nothing. A granted claim holds until release() or its lease ends.
   * Cost: one produce and one refresh (two for a loser).
   */
  async claim(resources: string[], opts: ClaimOptions): Promise<ClaimResult> {
    if (resources.length === 0) throw new RangeError('a claim names at least one resource');
    if (!(opts.ttlMs > 0 && opts.ttlMs <= MAX_CLAIM_TTL_MS)) throw new RangeError(`claim ttl must be in (0, ${MAX_CLAIM_TTL_MS}] ms`);
    const now = (opts.now ?? this.#now)();
    const id = `${now.toString(36)}-${randomBytes(6).toString('hex')}`;
    const sorted = [...new Set(resources)].sort();
    // Our lease starts before the record is written: it ends before anyone else's view of it.
    const start = this.#mono();
    const value: ClaimValue = {
      kind: 'claim',
      v: CLAIM_VERSION,
      id,
      resources: sorted,
      purpose: opts.purpose,
      owner: opts.owner,
      createdAt: now,
      expiresAt: now + opts.ttlMs,
      // Holders we have seen for a whole lease (by our monotonic clock): passed over in log order.
      takesOver: this.#index.claims.leaseOverOn(sorted, start),
    };
    this.#index.ownClaims.set(id, { start, ttlMs: opts.ttlMs });
    for (const [old, c] of this.#index.ownClaims) if (c.start + MAX_CLAIM_TTL_MS < start) this.#index.ownClaims.delete(old); // never released
    try {
      await this.#tail.write([{ key: claimKey(id), value: JSON.stringify(value) }]);
      await this.refresh();
    } catch (err) {
      this.#index.ownClaims.delete(id);
      throw err;
    }
    const decided = this.#index.claims.get(id);
    if (!decided) {
      this.#index.ownClaims.delete(id);
      // Tombstoned before we read it back: another instance swept it as garbage (it lost, or
      // its lease was over by that instance's clock). Either way it does not hold.
      const ended = this.#index.claims.ended(id);
      if (ended)
        return { granted: false, claimId: id, holder: ended.blockedBy !== undefined ? this.#index.claims.get(ended.blockedBy) : undefined };
      // Read up to the end offset after the write: ours must be there (unless the topic was reset meanwhile).
      throw new Error(`claim ${id} not found in the state topic after writing it (reset?)`);
    }
    if (decided.granted) return { granted: true, claim: decided };
    this.#index.ownClaims.delete(id);
    const holder = decided.blockedBy !== undefined ? this.#index.claims.get(decided.blockedBy) : undefined;
    await this.#tail.write([{ key: claimKey(id), value: null }]).catch(() => undefined); // swept later otherwise
    return { granted: false, claimId: id, holder };
  }

  /**
   * Ends a claim: its tombstone, in ONE batch with `values`/`deleteKeys` written while holding
   * it (fenced by it: refused if the claim ended first), so readers see the result and the
   * release together. With nothing to write, the tombstone alone, whatever the lease.
   */
  async release(claim: Pick<ClaimValue, 'id'>, values: StateValue[] = [], deleteKeys: string[] = []): Promise<void> {
    const tombstone = { key: claimKey(claim.id), value: null };
    try {
      if (values.length === 0 && deleteKeys.length === 0) await this.#tail.write([tombstone]);
      else {
        try {
          await this.#writer.writeAll(values, deleteKeys, { tail: [tombstone], fence: claim.id });
        } catch (err) {
          // Not written: the claim is still tombstoned (harmless, whoever holds what now).
          if (err instanceof FencedWriteError && err.where === 'before-write') await this.#tail.write([tombstone]).catch(() => undefined);
          throw err;
        }
      }
    } finally {
      this.#index.ownClaims.delete(claim.id);
    }
  }

  /** The granted claim holding `resource` whose lease is not over by this process's clock, as of the last refresh. */
  holder(resource: string, mono = this.#mono()): DecidedClaim | undefined {
    return this.#index.claims.holder(resource, mono);
  }

  /**
   * Whether `claim` still holds: granted, not released or taken over (as of the last refresh),
   * and, for a claim of ours, its lease (measured from before its record was written, on our
   * monotonic clock) not over for at least `forMs` more plus OWN_LEASE_MARGIN_MS. Asked before
   * an action that must end within the lease (a Kafka request: forMs = its timeout).
   */
  holds(claim: Pick<ClaimValue, 'id'>, forMs = 0): boolean {
    return this.#index.claimHolds(claim.id, forMs);
  }

  /**
   * Tombstones claims that lost or whose lease is over by this process's clock (their writers
   * died, or a code path of ours never released one: our own lease ended before we saw it over,
   * and nothing of ours writes under it any more). Returns how many.
   */
  async sweepClaims(mono = this.#mono()): Promise<number> {
    const garbage = this.#index.claims.garbage(mono);
    if (garbage.length) await this.#tail.write(garbage.map((c) => ({ key: claimKey(c.id), value: null })));
    return garbage.length;
  }

  /** Writes refused in the log whose keys are still latest there (fence.ts); repairRefused() writes them again. */
  refusedWrites(): RefusedWrites[] {
    return [...this.#index.refused.values()];
  }

  /**
   * Writes the accepted value of every key whose latest record was refused (fence.ts), under a
   * claim on the refused claim's resources, so that compaction can never leave a refused record
   * as the last of its key. A reassignment is written with all chunks new (a refused write may
   * have tombstoned chunks its accepted header names). Returns how many keys were written again.
   */
  async repairRefused(owner: string, ttlMs: number): Promise<number> {
    let repaired = 0;
    for (const entry of this.refusedWrites()) {
      const claimed = await this.claim(entry.resources.length ? entry.resources : ['repair/state'], {
        purpose: 'repair refused writes',
        owner,
        ttlMs,
      });
      if (!claimed.granted) continue; // its holder writes the keys anyway, or the next pass repairs
      const values: StateValue[] = [];
      const deletes: string[] = [];
      const ids = new Set<string>();
      for (const key of entry.keys) {
        const chunkOf = key.startsWith(CHUNK_PREFIX) ? chunkOwner(key) : undefined;
        const k = chunkOf !== undefined ? { kind: 'reassignment' as const, id: chunkOf } : parseKey(key);
        if (!k) continue;
        if (k.kind === 'reassignment') ids.add(k.id);
        else {
          const v = this.#index.maps[k.kind].get(k.id);
          if (v) values.push(v);
          else deletes.push(key);
        }
      }
      for (const id of ids) {
        const r = this.#index.maps.reassignment.get(id);
        if (r) values.push(r);
        else deletes.push(reassignmentKey(id));
      }
      const keys = [...entry.keys];
      await this.underClaim(claimed.claim, () =>
        this.#writer.writeAll(values, deletes, {
          tail: [{ key: claimKey(claimed.claim.id), value: null }],
          fence: claimed.claim.id,
          fresh: true,
        }),
      );
      this.#index.ownClaims.delete(claimed.claim.id);
      for (const key of keys) this.#index.acceptedKey(key);
      repaired += keys.length;
    }
    return repaired;
  }

  /**
   * The throttle ledger as this instance last read it before the state topic was reset or
   * went missing (empty when that never happened in this process): what the orphaned-throttles
   * cleanup may remove. forgetLost() drops entries once handled.
   */
  lostLedger(): ReadonlyMap<string, LedgerRecord> {
    return this.#index.lostLedger;
  }

  forgetLost(ids: Iterable<string>): void {
    for (const id of ids) this.#index.lostLedger.delete(id);
  }

  /** Live claims (as of the last refresh), for diagnostics and tests. */
  claims(): DecidedClaim[] {
    return [...this.#index.claims.values()];
  }
}
