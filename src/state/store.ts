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
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CLAIM_PREFIX, claimKey, ClaimTable, CLAIM_VERSION, decodeClaim, MAX_CLAIM_TTL_MS, type ClaimValue, type DecidedClaim } from './claims.js';
import { ambientClaim, decodeFence, encodeFence, FENCE_PREFIX, FenceCursor, FencedWriteError, fenceKey, type FenceMarker } from './fence.js';
import { assemble, assembleWith, CHUNK_PREFIX, chunkKey, chunkKeysOf, chunkOwner, decodeChunk, decodeHeader, encodeReassignment, makePacer, MESSAGE_MAX_BYTES, type ReassignmentChunk, type ReassignmentHeader } from './layout.js';
import { coldChunk, coldRecord, coldSourceOf, isCold, isColdChunk, packable, packedFrom, packPartitions } from './cold-partitions.js';
import { ObservedMap, type MapObserver } from './observed-map.js';
import type { WebhookDeliveryRecord, WebhookRecord } from './webhooks.js';
import { decodeValue, encodeValue, keyOf, parseKey, progressKey, reassignmentKey, TERMINAL_STATES, type LedgerRecord, type ProgressRecord, type ReassignmentRecord, type StateValue, type ThrottleRequestRecord } from './records.js';

/** Produce batches the store writes stay under this (Kafka's default max.message.bytes is 1 MiB per batch). */
export const BATCH_MAX_BYTES = MESSAGE_MAX_BYTES;
/** Chunks no header names are tombstoned once they are this old (their writer died between chunks and header). */
export const ORPHAN_CHUNK_GRACE_MS = 5 * 60_000;

/** The log the store reads and writes (src/kafka/state-topic.ts implements it on Kafka). */
export interface StateLog {
  readonly name: string;
  /**
   * Makes sure the topic exists. `create`: create it when missing (first use); otherwise a
   * missing topic is a StateTopicMissingError.
   */
  ensure(opts?: { create: boolean }): Promise<void>;
  /** [start, end) of the partition, and the topic's id (a new id = the topic was re-created). */
  offsets(): Promise<{ start: bigint; end: bigint; topicId?: string }>;
  /**
   * Records with from <= offset < to, in offset order. `skip(key)`: the reader already holds
   * that key's value (it is written once): a record of it that is not a tombstone may be left
   * out, so its value is never decoded from the fetched bytes.
   */
  read(from: bigint, to: bigint, opts?: { skip?: (key: string) => boolean }): Promise<{ offset: bigint; key: string; value: string | null }[]>;
  write(records: { key: string; value: string | null }[]): Promise<bigint>;
}

/** Produce batches of one write that are out at once (chunks; independent values). */
const BATCHES_IN_FLIGHT = 3;

/**
 * Batches of one write produced while earlier ones are out: at 100,000 partitions a start
 * writes ~12 batches of ~900 KB, and one at a time the gateway waited for each
 * acknowledgement before encoding the next. Each batch is applied to the view after the
 * previous one (`after`, settled either way), so the view follows the log's order; the first
 * failure is thrown by add() or drain() (later batches may still land: the caller writes no
 * header then, and chunks no header names are swept).
 */
class BatchPipeline {
  #out: Promise<unknown>[] = [];
  #last: Promise<unknown> = Promise.resolve();

  /** Starts a batch (`write(after)`); waits while BATCHES_IN_FLIGHT are out. */
  async add(write: (after: Promise<unknown>) => Promise<unknown>): Promise<void> {
    const p = write(this.#last);
    p.catch(() => undefined); // awaited by add() or drain()
    this.#last = p.then(
      () => undefined,
      () => undefined,
    );
    this.#out.push(p);
    if (this.#out.length >= BATCHES_IN_FLIGHT) await this.#out.shift();
  }

  /** Waits for every batch; throws the first failure. */
  async drain(): Promise<void> {
    const out = this.#out;
    this.#out = [];
    const results = await Promise.allSettled(out);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/** Values decodeValue made of a batch's records, by key (undefined: not a valid value). */
type Decoded = Map<string, StateValue | undefined>;

/**
 * decodeValue of the records #apply would decode (not claims, chunks or reassignment headers:
 * those are applied their own way), yielding every ~15 ms. The last record of a key wins, as
 * applying them in order does.
 */
async function predecode(records: readonly { key: string; value: string | null }[]): Promise<Decoded> {
  const out: Decoded = new Map();
  const pace = makePacer();
  for (const r of records) {
    if (r.value === null || r.key.startsWith(CLAIM_PREFIX) || r.key.startsWith(FENCE_PREFIX) || r.key.startsWith(CHUNK_PREFIX) || r.key.startsWith('reassignment/')) {
      out.delete(r.key);
      continue;
    }
    out.set(r.key, decodeValue(r.key, r.value));
    await pace();
  }
  return out;
}

/** The state topic this process used is gone (deleted outside the gateway). */
export class StateTopicMissingError extends Error {
  readonly topic: string;
  constructor(topic: string) {
    super(
      `The gateway's state topic ${topic} does not exist any more (deleted outside the gateway?). The gateway does not re-create it over lost state: see "Recovering the state topic" in the README.`,
    );
    this.name = 'StateTopicMissingError';
    this.topic = topic;
  }
}

export type StateHealth =
  | { status: 'ok' }
  | { status: 'missing' | 'unavailable'; reason: string; since: number };

export type StateEvent =
  | { type: 'reset'; cause: 'new-topic-id' | 'end-below-position' | 'start-beyond-position' | 'own-write-refused'; position: bigint; start: bigint; end: bigint }
  /** A write under a claim refused (fence.ts): before producing (`own`, lease over) or read in the log (anyone's). */
  | { type: 'fenced'; claim: string; where: 'before-write' | 'in-log'; own: boolean; records: number }
  | { type: 'missing'; topic: string }
  | { type: 'unavailable'; reason: string }
  | { type: 'recovered' };

export interface ClaimOptions {
  /** What it is for (logs, 409 details). */
  purpose: string;
  /** Gateway instance writing it. */
  owner: string;
  /** Lease: the claim holds at most this long (<= MAX_CLAIM_TTL_MS). */
  ttlMs: number;
  now?: () => number;
}

/** What a holder's own lease check keeps in reserve (a tenth of shorter leases): fencing refuses what lands later. */
export const OWN_LEASE_MARGIN_MS = 1000;

/** Writes refused in the log, to be written again as accepted (fence.ts): by the resources of their claim. */
export interface RefusedWrites {
  resources: string[];
  /** Keys whose latest record is a refused one. */
  keys: Set<string>;
}

export type ClaimResult =
  | { granted: true; claim: DecidedClaim }
  /** Lost (the claim record is already tombstoned): `holder` held one of the resources. */
  | { granted: false; claimId: string; holder: DecidedClaim | undefined };

export interface StateView {
  readonly reassignments: ReadonlyMap<string, ReassignmentRecord>;
  readonly throttleRequests: ReadonlyMap<string, ThrottleRequestRecord>;
  /** By ledger id (`topic/<name>`, `broker/<id>`). */
  readonly ledger: ReadonlyMap<string, LedgerRecord>;
  /** Progress snapshots by reassignment id. */
  readonly progress: ReadonlyMap<string, ProgressRecord>;
  /** Webhooks and their delivery progress by webhook id (src/state/webhooks.ts). */
  readonly webhooks?: ReadonlyMap<string, WebhookRecord>;
  readonly webhookDeliveries?: ReadonlyMap<string, WebhookDeliveryRecord>;
}

export interface StoreHooks {
  /** TEST HOOK: called after each batch of reassignment chunks is acknowledged, before the header. */
  afterChunkBatch?: () => void;
}

/** Serialises refreshes: two overlapping reads would apply the same records twice, out of order. */
class Queue {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(fn, fn);
    this.#tail = next.catch(() => undefined);
    return next;
  }
}

export class StateStore {
  readonly #log: StateLog;
  readonly #queue = new Queue();
  /** The refresh queued behind the running one, not started yet (shared by every caller meanwhile). */
  #nextRefresh: Promise<StateView> | undefined;
  #position = 0n;
  #ready = false;
  /** The topic id this view was read from (null until first read). */
  #topicId: string | null = null;
  /** This process has read the topic once: from then on a missing topic is never re-created. */
  #seen = false;
  #health: StateHealth = { status: 'ok' };
  readonly #claims = new ClaimTable();
  /** Ledger records this instance had read before the topic was reset or went missing. */
  readonly #lostLedger = new Map<string, LedgerRecord>();
  readonly #onEvent: (e: StateEvent) => void;
  readonly #now: () => number;
  /** Monotonic milliseconds: leases are measured on it (claims.ts), never on the wall clock. */
  readonly #mono: () => number;
  /** Claims this instance wrote and holds: when it started writing each (monotonic) and its lease. */
  readonly #ownClaims = new Map<string, { start: number; ttlMs: number }>();
  readonly #fence = new FenceCursor();
  /** Refused writes whose keys are still latest in the log, by their claim's resources (fence.ts). */
  readonly #refused = new Map<string, RefusedWrites>();
  /** An own write applied when acknowledged turned out refused: the view is rebuilt from the log. */
  #rebuild = false;
  /** Offsets of own fenced batches applied when acknowledged, until the position passes them. */
  readonly #ownFenced = new Set<bigint>();
  /** Refused batches already reported (`claim@offset`), so a re-read does not count one twice. */
  readonly #refusalsSeen = new Set<string>();
  readonly #maps = {
    // Observed: every version of a record applied (src/events/reassignment-changes.ts).
    reassignment: new ObservedMap<string, ReassignmentRecord>(),
    'throttle-request': new Map<string, ThrottleRequestRecord>(),
    ledger: new Map<string, LedgerRecord>(),
    progress: new Map<string, ProgressRecord>(),
    webhook: new Map<string, WebhookRecord>(),
    'webhook-delivery': new Map<string, WebhookDeliveryRecord>(),
  };
  /** Reassignment headers (v2) by id, as assembled into #maps.reassignment. */
  readonly #headers = new Map<string, ReassignmentHeader>();
  /** Every reassignment chunk read or written, by key (named by a header or not). */
  readonly #chunks = new Map<string, ReassignmentChunk>();
  /**
   * What this instance wrote last under a key (not claims, not chunks) and the object it put
   * in the view for it, until the next refresh reads that record back: decoding it again
   * (a 100-topic throttle ledger, a reassignment header) would only rebuild the same value.
   */
  readonly #own = new Map<string, { raw: string; applied: object }>();
  readonly #hooks: StoreHooks;
  #gen = 0;
  /** A refresh is reading the log (its end offset was asked before our latest write, maybe). */
  #reading = false;
  /** Own batches applied when acknowledged, by offset, that the position has not passed yet. */
  readonly #ownBatches = new Map<bigint, readonly { key: string; value: string | null }[]>();
  /** Finished reassignments whose partitions are to be packed (#cool). */
  readonly #toCool = new Set<string>();
  #cooling: Promise<void> | undefined;

  constructor(log: StateLog, opts: { onEvent?: (e: StateEvent) => void; now?: () => number; monotonic?: () => number; hooks?: StoreHooks } = {}) {
    this.#log = log;
    this.#onEvent = opts.onEvent ?? (() => undefined);
    this.#now = opts.now ?? Date.now;
    this.#mono = opts.monotonic ?? (() => performance.now());
    this.#hooks = opts.hooks ?? {};
  }

  /** Whether the state topic could be read the last time it was tried. */
  health(): StateHealth {
    return this.#health;
  }

  #ok(): void {
    if (this.#health.status !== 'ok') {
      this.#health = { status: 'ok' };
      this.#onEvent({ type: 'recovered' });
    }
  }

  #failed(err: unknown): never {
    if (err instanceof StateTopicMissingError) {
      for (const [id, r] of this.#maps.ledger) this.#lostLedger.set(id, r);
      if (this.#health.status !== 'missing') {
        this.#health = { status: 'missing', reason: err.message, since: this.#now() };
        this.#onEvent({ type: 'missing', topic: this.#log.name });
      }
    } else {
      const reason = err instanceof Error ? err.message : String(err);
      if (this.#health.status !== 'unavailable') this.#onEvent({ type: 'unavailable', reason });
      this.#health = { status: 'unavailable', reason, since: this.#health.status === 'unavailable' ? this.#health.since : this.#now() };
    }
    throw err;
  }

  get topic(): string {
    return this.#log.name;
  }

  /**
   * Tells `observer` every reassignment record version this view applies, in the order applied
   * (see observed-map.ts: called synchronously, must be cheap). Returns the function that stops.
   */
  observeReassignments(observer: MapObserver<string, ReassignmentRecord>): () => void {
    return this.#maps.reassignment.observe(observer);
  }

  /** The view as of the last refresh or write of this instance (may lag other instances). */
  view(): StateView {
    return {
      reassignments: this.#maps.reassignment,
      throttleRequests: this.#maps['throttle-request'],
      ledger: this.#maps.ledger,
      progress: this.#maps.progress,
      webhooks: this.#maps.webhook,
      webhookDeliveries: this.#maps['webhook-delivery'],
    };
  }

  /**
   * Reads everything appended up to now; afterwards view() holds every acknowledged write.
   *
   * Callers that arrive while a refresh runs share the one queued after it: it starts after
   * each of them called, so it reads every write acknowledged before any of them did. Three
   * console pages polling while a reconcile pass reads each waited for a read of their own in
   * turn (a summary GET 200-300 ms behind two other GETs' reads at 100,000 moving partitions).
   */
  refresh(): Promise<StateView> {
    if (this.#nextRefresh) return this.#nextRefresh;
    const next: Promise<StateView> = this.#queue.run(async () => {
      // Started: whoever calls from now on needs a read that starts after them.
      if (this.#nextRefresh === next) this.#nextRefresh = undefined;
      try {
        await this.#refresh();
      } catch (err) {
        this.#failed(err);
      }
      this.#ok();
      return this.view();
    });
    this.#nextRefresh = next;
    return next;
  }

  async #refresh(): Promise<void> {
    this.#reading = true;
    try {
      await this.#read();
      // An own write applied when acknowledged was refused in the log: read it all again.
      if (this.#rebuild) await this.#read();
    } finally {
      this.#reading = false;
    }
    this.#passOwnBatches();
  }

  async #read(): Promise<void> {
    if (!this.#ready) {
      // Only the first use in this process may create it; later, a missing topic is lost state.
      await this.#log.ensure({ create: !this.#seen });
      this.#ready = true;
      this.#seen = true;
    }
    const { start, end, topicId } = await this.#log.offsets();
    let cause: Extract<StateEvent, { type: 'reset' }>['cause'] | null = null;
    if (topicId !== undefined && this.#topicId !== null && topicId !== this.#topicId) cause = 'new-topic-id';
    else if (end < this.#position) cause = 'end-below-position';
    else if (start > this.#position) cause = 'start-beyond-position';
    if (topicId !== undefined) this.#topicId = topicId;
    if (cause === null && this.#rebuild) cause = 'own-write-refused';
    if (cause !== null) {
      // The log we read is not the log there is now: rebuild from scratch rather than keep a
      // view with holes or with records that no longer exist.
      const position = this.#position;
      this.#clear();
      this.#rebuild = false;
      this.#position = start;
      if (cause !== 'start-beyond-position' || position > 0n) this.#onEvent({ type: 'reset', cause, position, start, end });
    }
    // Own batches acknowledged by now that start at the position are passed before fetching,
    // as they would have been with no read under way (this read has applied nothing yet): a
    // pass's chunks, written while pollers' GETs refresh, are not fetched back (one such read
    // of 55 chunk batches took ~100 ms at 100,000 partitions).
    if (cause === null) this.#passOwnBatches(true);
    if (end > this.#position) {
      const pace = makePacer();
      // Chunks already held (our own writes read back, mostly) are skipped unread: a chunk key
      // is written once, so the record holds the value we have.
      const skip = (key: string) => key.startsWith(CHUNK_PREFIX) && this.#chunks.has(key);
      for (const r of await this.#log.read(this.#position, end, { skip })) {
        this.#apply(r.offset, r.key, r.value);
        // Chunks are invisible until their header: yielding after one never exposes half a batch.
        if (r.key.startsWith(CHUNK_PREFIX)) await pace();
      }
      this.#position = end;
    }
  }

  #clear(): void {
    // What the gateway owned before the loss: the only record of throttles now orphaned.
    for (const [id, r] of this.#maps.ledger) this.#lostLedger.set(id, r);
    for (const m of Object.values(this.#maps)) m.clear();
    this.#headers.clear();
    this.#chunks.clear();
    this.#own.clear();
    this.#ownBatches.clear();
    this.#claims.clear();
    this.#fence.reset();
    this.#refused.clear();
    this.#ownFenced.clear();
  }

  /** `decoded`: values already decoded from `raw` by key (predecode), not decoded again. */
  #apply(offset: bigint | null, key: string, raw: string | null, decoded?: Decoded): void {
    if (key.startsWith(CLAIM_PREFIX)) {
      // Claims are decided in log order: only ever applied as read, at their offset.
      if (offset === null) return;
      const id = key.slice(CLAIM_PREFIX.length);
      if (raw === null) this.#claims.apply(offset, id, null, this.#mono());
      else {
        const c = decodeClaim(key, raw);
        if (c) this.#claims.apply(offset, id, c, this.#mono());
      }
      return;
    }
    if (key.startsWith(FENCE_PREFIX)) {
      // A fenced batch starts here (fence.ts): decided in log order, like a claim.
      const m = offset !== null && raw !== null ? decodeFence(key, raw) : undefined;
      // Refused, and it is one of ours applied when acknowledged: the view is rebuilt (#refresh).
      if (m && offset !== null && !this.#enterFence(offset, m) && this.#ownFenced.has(offset)) this.#rebuild = true;
      return;
    }
    if (offset !== null) {
      const refused = this.#fence.refusedAt(offset);
      if (refused) {
        this.#noteRefused(refused.resources, key);
        return;
      }
      this.#acceptedKey(key);
    }
    if (key.startsWith(CHUNK_PREFIX)) {
      if (raw === null) this.#chunks.delete(key);
      else if (!this.#chunks.has(key)) {
        // A chunk key is written once (new generation = new key): one already held is the same.
        const c = decodeChunk(key, raw);
        if (c) this.#chunks.set(key, c);
      }
      return;
    }
    if (raw === null) {
      const k = parseKey(key);
      if (k) this.#maps[k.kind].delete(k.id);
      if (k?.kind === 'reassignment') this.#headers.delete(k.id);
      this.#own.delete(key);
      return;
    }
    if (offset !== null) {
      const own = this.#own.get(key);
      if (own && own.raw === raw) {
        // Our own write read back in log order: nothing to do while the view still holds what
        // we applied for it (a record of another instance read in between would have replaced it).
        this.#own.delete(key);
        if (this.#holds(key, own.applied)) return;
      }
    }
    if (key.startsWith('reassignment/')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        return;
      }
      if (typeof parsed === 'object' && parsed !== null && 'layout' in parsed) {
        const h = decodeHeader(key, parsed);
        if (!h) return;
        const chunkOf = (k: string) => this.#chunks.get(k);
        // A cold record's header written again (throttlesRemovedAt): assembled cold, not unpacked.
        const packed = coldSourceOf(h.layout.chunks.map((ref) => ({ s: ref.s, n: ref.n, chunk: chunkOf(chunkKey(h.id, 'p', ref.i, ref.g)) })), h.layout.partitionCount);
        const warm = packed ? assembleWith(h, [], chunkOf) : undefined;
        const record = packed ? warm && coldRecord(warm, packed) : assemble(h, chunkOf);
        // A header whose chunks are missing is not a record (never happens in log order): keep what we had.
        if (!record) return;
        this.#headers.set(h.id, h);
        this.#maps.reassignment.set(h.id, record);
        if (offset === null) this.#own.set(key, { raw, applied: h });
        this.#coolLater(record);
        return;
      }
    }
    const value = decoded?.has(key) ? decoded.get(key) : decodeValue(key, raw);
    if (!value) return;
    if (value.kind === 'reassignment') this.#headers.delete(value.id);
    (this.#maps[value.kind] as Map<string, StateValue>).set(value.id, value);
    if (offset === null) this.#own.set(key, { raw, applied: value });
  }

  /** A fence marker at `offset` (read, or an own batch passed): whether its claim held there. */
  #enterFence(offset: bigint, m: FenceMarker): boolean {
    const holds = this.#claims.fenceHolds(m.claim);
    this.#fence.enter(offset, m, holds);
    if (!holds) {
      // Once per refused batch, however often it is read again (a rebuild, another read).
      const seen = `${m.claim}@${offset}`;
      if (!this.#refusalsSeen.has(seen)) {
        if (this.#refusalsSeen.size >= 10_000) this.#refusalsSeen.clear();
        this.#refusalsSeen.add(seen);
        this.#onEvent({ type: 'fenced', claim: m.claim, where: 'in-log', own: this.#ownFenced.has(offset) || this.#ownClaims.has(m.claim), records: m.count });
      }
    }
    return holds;
  }

  #noteRefused(resources: string[], key: string): void {
    const id = [...resources].sort().join('\u0000');
    let entry = this.#refused.get(id);
    if (!entry) this.#refused.set(id, (entry = { resources, keys: new Set() }));
    entry.keys.add(key);
  }

  /** An accepted record of `key` (in log order): a refused one before it is no longer its latest. */
  #acceptedKey(key: string): void {
    if (this.#refused.size === 0) return;
    for (const [id, e] of this.#refused) if (e.keys.delete(key) && e.keys.size === 0) this.#refused.delete(id);
  }

  /** Resolves once the finished reassignments that entered the view so far are packed (#cool). */
  async cooled(): Promise<void> {
    while (this.#cooling) await this.#cooling;
  }

  /** A finished reassignment's partitions are packed soon after it enters the view (#cool). */
  #coolLater(r: ReassignmentRecord): void {
    if (!TERMINAL_STATES.has(r.state) || isCold(r)) return;
    this.#toCool.add(r.id);
    // Packing only saves memory: a failure leaves the records as they are (and never rejects unawaited).
    this.#cooling ??= this.#cool()
      .catch(() => undefined)
      .finally(() => (this.#cooling = undefined));
  }

  /**
   * Packs the partitions of finished reassignments (cold-partitions.ts): the view gets the same
   * record with packed partitions and its chunks drop their entries, so the ~17 MiB of objects
   * per 100,000 partitions a finished record held for its retention leave V8's heap. Paced;
   * a record changed meanwhile is left as it is (its new version is queued by its own entry).
   */
  async #cool(): Promise<void> {
    const pace = makePacer();
    while (this.#toCool.size > 0) {
      const id = this.#toCool.values().next().value!;
      this.#toCool.delete(id);
      const r = this.#maps.reassignment.get(id);
      const h = this.#headers.get(id);
      if (!r || !h || isCold(r) || !TERMINAL_STATES.has(r.state) || !packable(r.partitions)) continue;
      await pace();
      // A cold record spread and written again (throttlesRemovedAt) packs to what it came from.
      const packed = packedFrom(r.partitions) ?? (await packPartitions(r.partitions, pace));
      if (this.#maps.reassignment.get(id) !== r || this.#headers.get(id) !== h) continue;
      const cold = coldRecord(r, packed);
      this.#maps.reassignment.set(id, cold);
      for (const ref of h.layout.chunks) {
        const key = chunkKey(id, 'p', ref.i, ref.g);
        const c = this.#chunks.get(key);
        if (c && !isColdChunk(c)) this.#chunks.set(key, coldChunk(c, cold, ref.s, ref.n));
      }
    }
  }

  /** Whether the view still holds `applied` (a header, or a value) for `key`. */
  #holds(key: string, applied: object): boolean {
    const k = parseKey(key);
    if (!k) return false;
    if (k.kind === 'reassignment' && this.#headers.get(k.id) === applied) return true;
    return this.#maps[k.kind].get(k.id) === applied;
  }

  /**
   * Writes the values (and tombstones for `deleteKeys`) in ONE produce request, acks=-1: one
   * record batch, so a reader sees all of them or none. Resolves once Kafka acknowledged.
   */
  async write(values: StateValue[], deleteKeys: string[] = []): Promise<void> {
    await this.#writeAll(values, deleteKeys, { fence: ambientClaim.getStore() });
  }

  /**
   * Runs `fn` as work done holding `claim`: every write() in it (and in what it calls) is
   * fenced by the claim (fence.ts), and refused once the claim has ended.
   */
  underClaim<T>(claim: Pick<ClaimValue, 'id'>, fn: () => Promise<T>): Promise<T> {
    return ambientClaim.run(claim.id, fn);
  }

  /**
   * Writes values and tombstones, reassignments in their layout (layout.ts): first the changed
   * chunks (in batches under BATCH_MAX_BYTES, each acknowledged before the next), then ONE
   * batch with every header, the other values, the tombstones and `tail` (a claim's release),
   * so readers see all of those or none. Tombstoning `reassignment/<id>` also tombstones its
   * chunks and its progress record. Chunks replaced by a new version are tombstoned in the last
   * batch (or after it when they do not fit: a chunk no header names is never read).
   */
  async #writeAll(
    values: StateValue[],
    deleteKeys: string[],
    opts: { tail?: { key: string; value: string | null }[]; fence?: string | undefined; fresh?: boolean },
  ): Promise<void> {
    const tail = opts.tail ?? [];
    const fence = opts.fence;
    if (!this.#ready) await this.refresh();
    // Under a claim whose lease is over by our clock: nothing is written (fence.ts).
    if (fence !== undefined && !this.holds({ id: fence })) {
      this.#onEvent({ type: 'fenced', claim: fence, where: 'before-write', own: true, records: values.length + deleteKeys.length });
      throw new FencedWriteError(fence, 'before-write');
    }
    const resources = fence === undefined ? [] : (this.#claims.get(fence)?.resources ?? []);
    /** A batch of a fenced write: its marker first, the marker's tombstone after what it covers (then `rest`). */
    const fenced = <R extends { key: string; value: string | null }>(records: R[], rest: R[] = []): { key: string; value: string | null }[] =>
      fence === undefined
        ? [...records, ...rest]
        : [{ key: fenceKey(fence), value: encodeFence({ claim: fence, resources, count: records.length }) }, ...records, { key: fenceKey(fence), value: null }, ...rest];
    /** Applies an acknowledged fenced batch unless its claim is already seen ended (then read back and refused). */
    let refused = false;
    const applyFenced =
      (apply: (decoded: Decoded) => void) =>
      (decoded: Decoded, offset: bigint): void => {
        if (fence !== undefined && !this.#claims.fenceHolds(fence)) {
          refused = true;
          return;
        }
        if (fence !== undefined) this.#ownFenced.add(offset);
        apply(decoded);
      };
    const pace = makePacer();
    const now = this.#now();
    const chunks: { key: string; value: string; chunk: ReassignmentChunk }[] = [];
    const final: { key: string; value: string | null }[] = [];
    /** Values other than reassignment headers: independent records, may go ahead in batches of their own. */
    const loose: { key: string; value: string }[] = [];
    const trailing: { key: string; value: null }[] = [];
    const headers: { record: ReassignmentRecord; header: ReassignmentHeader; raw: string }[] = [];
    for (const v of values) {
      if (v.kind !== 'reassignment') {
        loose.push({ key: keyOf(v), value: encodeValue(v) });
        // Packing one topic's ledger of 1,000 moving partitions takes ~0.3 ms: 100 of them in a row would block.
        await pace();
        continue;
      }
      // `fresh`: every chunk written anew (a repair: a refused write may have tombstoned old ones).
      const prevRecord = opts.fresh ? undefined : this.#maps.reassignment.get(v.id);
      const prevHeader = opts.fresh ? undefined : this.#headers.get(v.id);
      const gen = `${now.toString(36)}${(this.#gen++).toString(36)}${randomBytes(2).toString('hex')}`;
      const enc = await encodeReassignment(v, prevRecord && prevHeader ? { record: prevRecord, header: prevHeader } : undefined, gen, now, pace);
      chunks.push(...enc.chunks);
      final.push({ key: reassignmentKey(v.id), value: enc.headerValue });
      for (const k of enc.obsolete) trailing.push({ key: k, value: null });
      headers.push({ record: v, header: enc.header, raw: enc.headerValue });
    }
    for (const key of deleteKeys) {
      final.push({ key, value: null });
      const k = parseKey(key);
      if (k?.kind !== 'reassignment') continue;
      if (this.#maps.progress.has(k.id)) final.push({ key: progressKey(k.id), value: null });
      for (const c of this.#chunks.keys()) if (chunkOwner(c) === k.id) trailing.push({ key: c, value: null });
    }

    // 1. Chunks, in batches, up to BATCHES_IN_FLIGHT produced at once (see BatchPipeline).
    const chunkBatches = new BatchPipeline();
    let batch: typeof chunks = [];
    let bytes = 0;
    const flush = async () => {
      if (!batch.length) return;
      const written = batch;
      batch = [];
      bytes = 0;
      await chunkBatches.add((after) =>
        this.#write(
          written.map((c) => ({ key: c.key, value: c.value })),
          () => {
            for (const c of written) {
              this.#chunks.set(c.key, c.chunk);
              // Written: its JSON (~60 KB for 500 partitions) can go now, not when the last batch is acknowledged.
              c.value = '';
            }
            this.#hooks.afterChunkBatch?.();
          },
          after,
        ),
      );
    };
    for (const c of chunks) {
      const size = c.key.length + c.value.length + 64;
      if (batch.length && bytes + size > BATCH_MAX_BYTES) {
        await flush();
        // Encoding a batch (~900 KB) is a block of its own: with room for BATCHES_IN_FLIGHT, the
        // next ones were encoded in the same task (one such task took 144 ms at a 100,000-partition
        // start, in a CPU profile of bench:scale's gateway).
        await pace();
      }
      batch.push(c);
      bytes += size;
    }
    await flush();
    await chunkBatches.drain();

    // 2. Headers and everything else at once (+ the replaced chunks' tombstones when they fit).
    // Many independent values (e.g. the throttle ledger of 100 topics) would exceed a batch:
    // they go first, in batches of their own, each acknowledged before the last batch.
    const size = (rs: { key: string; value: string | null }[]) => rs.reduce((n, r) => n + r.key.length + (r.value?.length ?? 0) + 64, 0);
    if (size(loose) + size(final) > BATCH_MAX_BYTES) {
      const looseBatches = new BatchPipeline();
      let part: typeof loose = [];
      let partBytes = 0;
      const send = async () => {
        if (!part.length) return;
        const records = part;
        part = [];
        partBytes = 0;
        const batchOf = fenced(records);
        await looseBatches.add((after) => this.#write(batchOf, applyFenced(() => batchOf.forEach((r) => this.#apply(null, r.key, r.value))), after));
      };
      for (const r of loose) {
        const n = size([r]);
        if (part.length && partBytes + n > BATCH_MAX_BYTES) await send();
        part.push(r);
        partBytes += n;
      }
      await send();
      await looseBatches.drain();
    } else final.unshift(...loose);
    const fits = size(final) + size(trailing) + size(tail) <= BATCH_MAX_BYTES;
    // The claim's release (`tail`) after the marker's range: claims are never fenced.
    const last = fenced(fits ? [...final, ...trailing] : final, tail);
    const own = new Map(headers.map((h) => [h.record.id, h]));
    await this.#write(last, applyFenced((decoded) => {
      for (const r of last) {
        const h = r.key.startsWith('reassignment/') && r.value !== null ? own.get(r.key.slice('reassignment/'.length)) : undefined;
        if (h) {
          // Our own record as the caller built it (same partition objects: the next write compares them).
          this.#headers.set(h.record.id, h.header);
          this.#own.set(r.key, { raw: h.raw, applied: h.header });
          this.#maps.reassignment.set(h.record.id, h.record);
          this.#coolLater(h.record);
        } else this.#apply(null, r.key, r.value, decoded);
      }
    }));
    if (refused && fence !== undefined) throw new FencedWriteError(fence, 'in-log');
    if (!fits) {
      for (let i = 0; i < trailing.length; i += 5000) {
        const part = trailing.slice(i, i + 5000);
        await this.#write(
          fenced(part),
          applyFenced(() => {
            for (const r of part) this.#chunks.delete(r.key);
          }),
        );
      }
    }
  }

  /**
   * Tombstones chunks that no header names and that are older than `graceMs` (their writer
   * died after writing them and before the header, or lost a race with another writer).
   * Returns how many.
   */
  async sweepOrphanChunks(now = this.#now(), graceMs = ORPHAN_CHUNK_GRACE_MS): Promise<number> {
    const named = new Set<string>();
    for (const h of this.#headers.values()) for (const k of chunkKeysOf(h)) named.add(k);
    const orphans: { key: string; value: null }[] = [];
    for (const [k, c] of this.#chunks) if (!named.has(k) && c.writtenAt <= now - graceMs) orphans.push({ key: k, value: null });
    for (let i = 0; i < orphans.length; i += 5000) {
      const part = orphans.slice(i, i + 5000);
      await this.#write(part, () => {
        for (const r of part) this.#chunks.delete(r.key);
      });
    }
    return orphans.length;
  }

  /** Diagnostics and tests: chunk keys held (named by a header or not). */
  chunkKeys(): string[] {
    return [...this.#chunks.keys()];
  }

  /** The layout header of a reassignment (diagnostics and tests). */
  header(id: string): ReassignmentHeader | undefined {
    return this.#headers.get(id);
  }

  /**
   * Writes one batch; once acknowledged, `apply` puts it into the view (true: each record as
   * read; a function: the caller's own way, called at once, before anything else can run).
   */
  async #write(records: { key: string; value: string | null }[], apply: boolean | ((decoded: Decoded, offset: bigint) => void) = true, after?: Promise<unknown>): Promise<bigint> {
    if (records.length === 0) return -1n;
    if (!this.#ready) await this.refresh();
    const writing = this.#log.write(records);
    writing.catch(() => undefined); // awaited below: not an unhandled rejection while we decode
    // The values are decoded while Kafka acknowledges, in slices: the apply below must run at
    // once (a batch is visible all together), and decoding the 100 topics' ledger records of
    // a 100,000-partition start in it held the event loop ~50 ms.
    const decoded = apply === false ? new Map() : await predecode(records);
    let offset: bigint;
    try {
      offset = await writing;
    } catch (err) {
      this.#failed(err);
    }
    // A batch produced while an earlier one was out is applied after it (log order).
    if (after) await after;
    // Our own write is visible to us at once; the next refresh re-reads it in log order...
    if (apply === true) for (const r of records) this.#apply(null, r.key, r.value, decoded);
    else if (apply) apply(decoded, offset);
    // ...unless the position reaches it with nothing else between (now, or once the read under
    // way or the batches ahead of it are through: #passOwnBatches): then the position moves past
    // it (re-reading a 100,000-partition start would fetch ~12 MB back for nothing). Claims
    // are decided only at their offsets: they are applied when the position passes them (with
    // everything before them applied, as a read would), not before.
    // A chunk's value is not needed to pass it (and ~10 MB of them would stay alive meanwhile).
    this.#ownBatches.set(offset, records.map((r) => (r.value !== null && r.key.startsWith(CHUNK_PREFIX) ? { key: r.key, value: '' } : r)));
    this.#passOwnBatches();
    return offset;
  }

  /**
   * Moves the position past own batches that start right at it, already applied when they were
   * acknowledged. A read under way then may have applied older values of their keys after them
   * (it reads the log up to where it began): such a batch is read back instead, in log order,
   * and so is every batch after it. Batches the position went past (read back) are dropped.
   * `beforeFetch`: called by a read that has not applied anything yet (as if none were under way).
   */
  #passOwnBatches(beforeFetch = false): void {
    if (this.#reading && !beforeFetch) return;
    for (const offset of this.#ownBatches.keys()) if (offset < this.#position) this.#ownBatches.delete(offset);
    for (;;) {
      const batch = this.#ownBatches.get(this.#position);
      if (!batch || !this.#batchStillApplied(batch)) return;
      const at = this.#position;
      // A fenced batch is decided here as a read would (every record before it applied): if
      // its claim had ended, what we applied when it was acknowledged goes (read it all again).
      const marker = batch[0]?.key.startsWith(FENCE_PREFIX) && batch[0].value !== null ? decodeFence(batch[0].key, batch[0].value) : undefined;
      if (marker && !this.#enterFence(at, marker)) {
        this.#rebuild = true;
        return;
      }
      this.#ownFenced.delete(at);
      this.#ownBatches.delete(at);
      this.#position += BigInt(batch.length);
      // A claim (or its release) at its offset, as a read would apply it: every record before
      // it is applied, so the claims table decides it as every other reader of the log does.
      // (A release per reconcile pass, read back, held every batch after it to a fetch.)
      for (let i = 0; i < batch.length; i++) {
        const r = batch[i]!;
        if (r.key.startsWith(CLAIM_PREFIX)) this.#apply(at + BigInt(i), r.key, r.value);
        else this.#own.delete(r.key);
      }
    }
  }

  /** Whether the view still holds what applying this own batch put there (a key's last record counts). */
  #batchStillApplied(batch: readonly { key: string; value: string | null }[]): boolean {
    const seen = new Set<string>();
    for (let i = batch.length - 1; i >= 0; i--) {
      const r = batch[i]!;
      if (seen.has(r.key)) continue;
      seen.add(r.key);
      if (!this.#stillApplied(r)) return false;
    }
    return true;
  }

  /** Whether the view still holds what applying this own record put there. */
  #stillApplied(r: { key: string; value: string | null }): boolean {
    // A chunk key is written once, by its writer only (a new generation is a new key).
    if (r.key.startsWith(CHUNK_PREFIX)) return true;
    const k = parseKey(r.key);
    if (!k) return true; // not a key the view holds
    if (r.value === null) return !this.#maps[k.kind].has(k.id);
    const own = this.#own.get(r.key);
    return own !== undefined && own.raw === r.value && this.#holds(r.key, own.applied);
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
      takesOver: this.#claims.leaseOverOn(sorted, start),
    };
    this.#ownClaims.set(id, { start, ttlMs: opts.ttlMs });
    for (const [old, c] of this.#ownClaims) if (c.start + MAX_CLAIM_TTL_MS < start) this.#ownClaims.delete(old); // never released
    try {
      await this.#write([{ key: claimKey(id), value: JSON.stringify(value) }]);
      await this.refresh();
    } catch (err) {
      this.#ownClaims.delete(id);
      throw err;
    }
    const decided = this.#claims.get(id);
    if (!decided) {
      this.#ownClaims.delete(id);
      // Tombstoned before we read it back: another instance swept it as garbage (it lost, or
      // its lease was over by that instance's clock). Either way it does not hold.
      const ended = this.#claims.ended(id);
      if (ended) return { granted: false, claimId: id, holder: ended.blockedBy !== undefined ? this.#claims.get(ended.blockedBy) : undefined };
      // Read up to the end offset after the write: ours must be there (unless the topic was reset meanwhile).
      throw new Error(`claim ${id} not found in the state topic after writing it (reset?)`);
    }
    if (decided.granted) return { granted: true, claim: decided };
    this.#ownClaims.delete(id);
    const holder = decided.blockedBy !== undefined ? this.#claims.get(decided.blockedBy) : undefined;
    await this.#write([{ key: claimKey(id), value: null }]).catch(() => undefined); // swept later otherwise
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
      if (values.length === 0 && deleteKeys.length === 0) await this.#write([tombstone]);
      else {
        try {
          await this.#writeAll(values, deleteKeys, { tail: [tombstone], fence: claim.id });
        } catch (err) {
          // Not written: the claim is still tombstoned (harmless, whoever holds what now).
          if (err instanceof FencedWriteError && err.where === 'before-write') await this.#write([tombstone]).catch(() => undefined);
          throw err;
        }
      }
    } finally {
      this.#ownClaims.delete(claim.id);
    }
  }

  /** The granted claim holding `resource` whose lease is not over by this process's clock, as of the last refresh. */
  holder(resource: string, mono = this.#mono()): DecidedClaim | undefined {
    return this.#claims.holder(resource, mono);
  }

  /**
   * Whether `claim` still holds: granted, not released or taken over (as of the last refresh),
   * and, for a claim of ours, its lease (measured from before its record was written, on our
   * monotonic clock) not over for at least `forMs` more plus OWN_LEASE_MARGIN_MS. Asked before
   * an action that must end within the lease (a Kafka request: forMs = its timeout).
   */
  holds(claim: Pick<ClaimValue, 'id'>, forMs = 0): boolean {
    if (!this.#claims.fenceHolds(claim.id) || !this.#claims.get(claim.id)) return false;
    const own = this.#ownClaims.get(claim.id);
    return own === undefined || this.#mono() + forMs + Math.min(OWN_LEASE_MARGIN_MS, own.ttlMs / 10) < own.start + own.ttlMs;
  }

  /**
   * Tombstones claims that lost or whose lease is over by this process's clock (their writers
   * died, or a code path of ours never released one: our own lease ended before we saw it over,
   * and nothing of ours writes under it any more). Returns how many.
   */
  async sweepClaims(mono = this.#mono()): Promise<number> {
    const garbage = this.#claims.garbage(mono);
    if (garbage.length) await this.#write(garbage.map((c) => ({ key: claimKey(c.id), value: null })));
    return garbage.length;
  }

  /** Writes refused in the log whose keys are still latest there (fence.ts); repairRefused() writes them again. */
  refusedWrites(): RefusedWrites[] {
    return [...this.#refused.values()];
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
      const claimed = await this.claim(entry.resources.length ? entry.resources : ['repair/state'], { purpose: 'repair refused writes', owner, ttlMs });
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
          const v = this.#maps[k.kind].get(k.id);
          if (v) values.push(v);
          else deletes.push(key);
        }
      }
      for (const id of ids) {
        const r = this.#maps.reassignment.get(id);
        if (r) values.push(r);
        else deletes.push(reassignmentKey(id));
      }
      const keys = [...entry.keys];
      await this.underClaim(claimed.claim, () => this.#writeAll(values, deletes, { tail: [{ key: claimKey(claimed.claim.id), value: null }], fence: claimed.claim.id, fresh: true }));
      this.#ownClaims.delete(claimed.claim.id);
      for (const key of keys) this.#acceptedKey(key);
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
    return this.#lostLedger;
  }

  forgetLost(ids: Iterable<string>): void {
    for (const id of ids) this.#lostLedger.delete(id);
  }

  /** Live claims (as of the last refresh), for diagnostics and tests. */
  claims(): DecidedClaim[] {
    return [...this.#claims.values()];
  }
}
