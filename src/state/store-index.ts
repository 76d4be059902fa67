// The store's record index: the view materialised from the state topic (store.ts), and how one
// record read (or one own write acknowledged) is applied to it: claims and fence markers decided
// in log order (claims.ts, fence.ts), reassignments assembled from their chunks (layout.ts),
// finished ones packed (cold-partitions.ts). No I/O: the tail (store-tail.ts) feeds it.
import { ClaimTable, CLAIM_PREFIX, decodeClaim } from './claims.js';
import { decodeFence, FENCE_PREFIX, FenceCursor, type FenceMarker } from './fence.js';
import {
  assemble,
  assembleWith,
  CHUNK_PREFIX,
  chunkKey,
  decodeChunk,
  decodeHeader,
  makePacer,
  type ReassignmentChunk,
  type ReassignmentHeader,
} from './layout.js';
import { coldChunk, coldRecord, coldSourceOf, isCold, isColdChunk, packable, packedFrom, packPartitions } from './cold-partitions.js';
import { ObservedMap } from './observed-map.js';
import type { WebhookDeliveryRecord, WebhookRecord } from './webhooks.js';
import {
  decodeValue,
  parseKey,
  TERMINAL_STATES,
  type LedgerRecord,
  type ProgressRecord,
  type ReassignmentRecord,
  type StateValue,
  type ThrottleRequestRecord,
} from './records.js';
import type { Decoded } from './store-batches.js';
import { OWN_LEASE_MARGIN_MS, type RefusedWrites, type StateEvent, type StateView } from './store-types.js';

export class StoreIndex {
  readonly claims = new ClaimTable();
  /** Ledger records this instance had read before the topic was reset or went missing. */
  readonly lostLedger = new Map<string, LedgerRecord>();
  readonly #onEvent: (e: StateEvent) => void;
  /** Monotonic milliseconds: leases are measured on it (claims.ts), never on the wall clock. */
  readonly mono: () => number;
  /** Claims this instance wrote and holds: when it started writing each (monotonic) and its lease. */
  readonly ownClaims = new Map<string, { start: number; ttlMs: number }>();
  readonly fence = new FenceCursor();
  /** Refused writes whose keys are still latest in the log, by their claim's resources (fence.ts). */
  readonly refused = new Map<string, RefusedWrites>();
  /** An own write applied when acknowledged turned out refused: the view is rebuilt from the log. */
  rebuild = false;
  /** Offsets of own fenced batches applied when acknowledged, until the position passes them. */
  readonly ownFenced = new Set<bigint>();
  /** Refused batches already reported (`claim@offset`), so a re-read does not count one twice. */
  readonly #refusalsSeen = new Set<string>();
  readonly maps = {
    // Observed: every version of a record applied (src/events/reassignment-changes.ts).
    reassignment: new ObservedMap<string, ReassignmentRecord>(),
    'throttle-request': new Map<string, ThrottleRequestRecord>(),
    ledger: new Map<string, LedgerRecord>(),
    progress: new Map<string, ProgressRecord>(),
    webhook: new Map<string, WebhookRecord>(),
    'webhook-delivery': new Map<string, WebhookDeliveryRecord>(),
  };
  /** Reassignment headers (v2) by id, as assembled into maps.reassignment. */
  readonly headers = new Map<string, ReassignmentHeader>();
  /** Every reassignment chunk read or written, by key (named by a header or not). */
  readonly chunks = new Map<string, ReassignmentChunk>();
  /**
   * What this instance wrote last under a key (not claims, not chunks) and the object it put
   * in the view for it, until the next refresh reads that record back: decoding it again
   * (a 100-topic throttle ledger, a reassignment header) would only rebuild the same value.
   */
  readonly own = new Map<string, { raw: string; applied: object }>();
  /** Finished reassignments whose partitions are to be packed (#cool). */
  readonly #toCool = new Set<string>();
  #cooling: Promise<void> | undefined;

  constructor(opts: { onEvent: (e: StateEvent) => void; mono: () => number }) {
    this.#onEvent = opts.onEvent;
    this.mono = opts.mono;
  }

  /** The view as of the last refresh or write of this instance (may lag other instances). */
  view(): StateView {
    return {
      reassignments: this.maps.reassignment,
      throttleRequests: this.maps['throttle-request'],
      ledger: this.maps.ledger,
      progress: this.maps.progress,
      webhooks: this.maps.webhook,
      webhookDeliveries: this.maps['webhook-delivery'],
    };
  }

  /** The topic went missing: the ledger read so far is what the orphaned-throttles cleanup may remove. */
  keepLostLedger(): void {
    for (const [id, r] of this.maps.ledger) this.lostLedger.set(id, r);
  }

  /**
   * Whether claim `id` still holds: granted, not released or taken over (as of the last refresh),
   * and, for a claim of ours, its lease not over for at least `forMs` more (StateStore.holds).
   */
  claimHolds(id: string, forMs = 0): boolean {
    if (!this.claims.fenceHolds(id) || !this.claims.get(id)) return false;
    const own = this.ownClaims.get(id);
    return own === undefined || this.mono() + forMs + Math.min(OWN_LEASE_MARGIN_MS, own.ttlMs / 10) < own.start + own.ttlMs;
  }

  /** Forgets everything read (the view is rebuilt from the log start: store-tail.ts). */
  clear(): void {
    // What the gateway owned before the loss: the only record of throttles now orphaned.
    for (const [id, r] of this.maps.ledger) this.lostLedger.set(id, r);
    for (const m of Object.values(this.maps)) m.clear();
    this.headers.clear();
    this.chunks.clear();
    this.own.clear();
    this.claims.clear();
    this.fence.reset();
    this.refused.clear();
    this.ownFenced.clear();
  }

  /** `decoded`: values already decoded from `raw` by key (predecode), not decoded again. */
  apply(offset: bigint | null, key: string, raw: string | null, decoded?: Decoded): void {
    if (key.startsWith(CLAIM_PREFIX)) {
      // Claims are decided in log order: only ever applied as read, at their offset.
      if (offset === null) return;
      const id = key.slice(CLAIM_PREFIX.length);
      if (raw === null) this.claims.apply(offset, id, null, this.mono());
      else {
        const c = decodeClaim(key, raw);
        if (c) this.claims.apply(offset, id, c, this.mono());
      }
      return;
    }
    if (key.startsWith(FENCE_PREFIX)) {
      // A fenced batch starts here (fence.ts): decided in log order, like a claim.
      const m = offset !== null && raw !== null ? decodeFence(key, raw) : undefined;
      // Refused, and it is one of ours applied when acknowledged: the view is rebuilt (StoreTail's refresh).
      if (m && offset !== null && !this.enterFence(offset, m) && this.ownFenced.has(offset)) this.rebuild = true;
      return;
    }
    if (offset !== null) {
      const refused = this.fence.refusedAt(offset);
      if (refused) {
        this.noteRefused(refused.resources, key);
        return;
      }
      this.acceptedKey(key);
    }
    if (key.startsWith(CHUNK_PREFIX)) {
      if (raw === null) this.chunks.delete(key);
      else if (!this.chunks.has(key)) {
        // A chunk key is written once (new generation = new key): one already held is the same.
        const c = decodeChunk(key, raw);
        if (c) this.chunks.set(key, c);
      }
      return;
    }
    if (raw === null) {
      const k = parseKey(key);
      if (k) this.maps[k.kind].delete(k.id);
      if (k?.kind === 'reassignment') this.headers.delete(k.id);
      this.own.delete(key);
      return;
    }
    if (offset !== null) {
      const own = this.own.get(key);
      if (own && own.raw === raw) {
        // Our own write read back in log order: nothing to do while the view still holds what
        // we applied for it (a record of another instance read in between would have replaced it).
        this.own.delete(key);
        if (this.holds(key, own.applied)) return;
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
        const chunkOf = (k: string) => this.chunks.get(k);
        // A cold record's header written again (throttlesRemovedAt): assembled cold, not unpacked.
        const packed = coldSourceOf(
          h.layout.chunks.map((ref) => ({ s: ref.s, n: ref.n, chunk: chunkOf(chunkKey(h.id, 'p', ref.i, ref.g)) })),
          h.layout.partitionCount,
        );
        const warm = packed ? assembleWith(h, [], chunkOf) : undefined;
        const record = packed ? warm && coldRecord(warm, packed) : assemble(h, chunkOf);
        // A header whose chunks are missing is not a record (never happens in log order): keep what we had.
        if (!record) return;
        this.headers.set(h.id, h);
        this.maps.reassignment.set(h.id, record);
        if (offset === null) this.own.set(key, { raw, applied: h });
        this.coolLater(record);
        return;
      }
    }
    const value = decoded?.has(key) ? decoded.get(key) : decodeValue(key, raw);
    if (!value) return;
    if (value.kind === 'reassignment') this.headers.delete(value.id);
    (this.maps[value.kind] as Map<string, StateValue>).set(value.id, value);
    if (offset === null) this.own.set(key, { raw, applied: value });
  }

  /** A fence marker at `offset` (read, or an own batch passed): whether its claim held there. */
  enterFence(offset: bigint, m: FenceMarker): boolean {
    const holds = this.claims.fenceHolds(m.claim);
    this.fence.enter(offset, m, holds);
    if (!holds) {
      // Once per refused batch, however often it is read again (a rebuild, another read).
      const seen = `${m.claim}@${offset}`;
      if (!this.#refusalsSeen.has(seen)) {
        if (this.#refusalsSeen.size >= 10_000) this.#refusalsSeen.clear();
        this.#refusalsSeen.add(seen);
        this.#onEvent({
          type: 'fenced',
          claim: m.claim,
          where: 'in-log',
          own: this.ownFenced.has(offset) || this.ownClaims.has(m.claim),
          records: m.count,
        });
      }
    }
    return holds;
  }

  noteRefused(resources: string[], key: string): void {
    const id = [...resources].sort().join('\u0000');
    let entry = this.refused.get(id);
    if (!entry) this.refused.set(id, (entry = { resources, keys: new Set() }));
    entry.keys.add(key);
  }

  /** An accepted record of `key` (in log order): a refused one before it is no longer its latest. */
  acceptedKey(key: string): void {
    if (this.refused.size === 0) return;
    for (const [id, e] of this.refused) if (e.keys.delete(key) && e.keys.size === 0) this.refused.delete(id);
  }

  /** Resolves once the finished reassignments that entered the view so far are packed (#cool). */
  async cooled(): Promise<void> {
    while (this.#cooling) await this.#cooling;
  }

  /** A finished reassignment's partitions are packed soon after it enters the view (#cool). */
  coolLater(r: ReassignmentRecord): void {
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
      const r = this.maps.reassignment.get(id);
      const h = this.headers.get(id);
      if (!r || !h || isCold(r) || !TERMINAL_STATES.has(r.state) || !packable(r.partitions)) continue;
      await pace();
      // A cold record spread and written again (throttlesRemovedAt) packs to what it came from.
      const packed = packedFrom(r.partitions) ?? (await packPartitions(r.partitions, pace));
      if (this.maps.reassignment.get(id) !== r || this.headers.get(id) !== h) continue;
      const cold = coldRecord(r, packed);
      this.maps.reassignment.set(id, cold);
      for (const ref of h.layout.chunks) {
        const key = chunkKey(id, 'p', ref.i, ref.g);
        const c = this.chunks.get(key);
        if (c && !isColdChunk(c)) this.chunks.set(key, coldChunk(c, cold, ref.s, ref.n));
      }
    }
  }

  /** Whether the view still holds `applied` (a header, or a value) for `key`. */
  holds(key: string, applied: object): boolean {
    const k = parseKey(key);
    if (!k) return false;
    if (k.kind === 'reassignment' && this.headers.get(k.id) === applied) return true;
    return this.maps[k.kind].get(k.id) === applied;
  }

  /**

  /** Whether the view still holds what applying this own batch put there (a key's last record counts). */
  batchStillApplied(batch: readonly { key: string; value: string | null }[]): boolean {
    const seen = new Set<string>();
    for (let i = batch.length - 1; i >= 0; i--) {
      const r = batch[i];
      if (seen.has(r.key)) continue;
      seen.add(r.key);
      if (!this.stillApplied(r)) return false;
    }
    return true;
  }

  /** Whether the view still holds what applying this own record put there. */
  stillApplied(r: { key: string; value: string | null }): boolean {
    // A chunk key is written once, by its writer only (a new generation is a new key).
    if (r.key.startsWith(CHUNK_PREFIX)) return true;
    const k = parseKey(r.key);
    if (!k) return true; // not a key the view holds
    if (r.value === null) return !this.maps[k.kind].has(k.id);
    const own = this.own.get(r.key);
    return own !== undefined && own.raw === r.value && this.holds(r.key, own.applied);
  }
}
