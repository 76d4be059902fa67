// The store's writer (store.ts): a write of values and tombstones laid out as the state topic
// keeps them (layout.ts: chunks in batches first, then one batch with every header), fenced by
// the claim it is done under (fence.ts), and the sweep of chunks no header names. Each batch
// goes through the tail (store-tail.ts), which puts it into the view once acknowledged.
import { randomBytes } from 'node:crypto';
import { encodeFence, FencedWriteError, fenceKey } from './fence.js';
import { chunkKeysOf, chunkOwner, encodeReassignment, makePacer, type ReassignmentChunk, type ReassignmentHeader } from './layout.js';
import { encodeValue, keyOf, parseKey, progressKey, reassignmentKey, type ReassignmentRecord, type StateValue } from './records.js';
import { BatchPipeline, type Decoded } from './store-batches.js';
import type { StoreIndex } from './store-index.js';
import type { StoreTail } from './store-tail.js';
import { BATCH_MAX_BYTES, ORPHAN_CHUNK_GRACE_MS, type StateEvent, type StateView, type StoreHooks } from './store-types.js';

/** The store as its writer calls it back (its public refresh() and holds(): callers may wrap them). */
export interface WriterHost {
  refresh(): Promise<StateView>;
  holds(claim: { id: string }, forMs?: number): boolean;
}

export class StoreWriter {
  readonly #index: StoreIndex;
  readonly #tail: StoreTail;
  readonly #host: WriterHost;
  readonly #onEvent: (e: StateEvent) => void;
  readonly #now: () => number;
  readonly #hooks: StoreHooks;
  #gen = 0;

  constructor(opts: {
    index: StoreIndex;
    tail: StoreTail;
    host: WriterHost;
    onEvent: (e: StateEvent) => void;
    now: () => number;
    hooks: StoreHooks;
  }) {
    this.#index = opts.index;
    this.#tail = opts.tail;
    this.#host = opts.host;
    this.#onEvent = opts.onEvent;
    this.#now = opts.now;
    this.#hooks = opts.hooks;
  }

  /**
   * Writes values and tombstones, reassignments in their layout (layout.ts): first the changed
   * chunks (in batches under BATCH_MAX_BYTES, each acknowledged before the next), then ONE
   * batch with every header, the other values, the tombstones and `tail` (a claim's release),
   * so readers see all of those or none. Tombstoning `reassignment/<id>` also tombstones its
   * chunks and its progress record. Chunks replaced by a new version are tombstoned in the last
   * batch (or after it when they do not fit: a chunk no header names is never read).
   */
  async writeAll(
    values: StateValue[],
    deleteKeys: string[],
    opts: { tail?: { key: string; value: string | null }[]; fence?: string | undefined; fresh?: boolean },
  ): Promise<void> {
    const tail = opts.tail ?? [];
    const fence = opts.fence;
    if (!this.#tail.ready) await this.#host.refresh();
    // Under a claim whose lease is over by our clock: nothing is written (fence.ts).
    if (fence !== undefined && !this.#host.holds({ id: fence })) {
      this.#onEvent({ type: 'fenced', claim: fence, where: 'before-write', own: true, records: values.length + deleteKeys.length });
      throw new FencedWriteError(fence, 'before-write');
    }
    const resources = fence === undefined ? [] : (this.#index.claims.get(fence)?.resources ?? []);
    /** A batch of a fenced write: its marker first, the marker's tombstone after what it covers (then `rest`). */
    const fenced = <R extends { key: string; value: string | null }>(
      records: R[],
      rest: R[] = [],
    ): { key: string; value: string | null }[] =>
      fence === undefined
        ? [...records, ...rest]
        : [
            { key: fenceKey(fence), value: encodeFence({ claim: fence, resources, count: records.length }) },
            ...records,
            { key: fenceKey(fence), value: null },
            ...rest,
          ];
    /** Applies an acknowledged fenced batch unless its claim is already seen ended (then read back and refused). */
    let refused = false;
    const applyFenced =
      (apply: (decoded: Decoded) => void) =>
      (decoded: Decoded, offset: bigint): void => {
        if (fence !== undefined && !this.#index.claims.fenceHolds(fence)) {
          refused = true;
          return;
        }
        if (fence !== undefined) this.#index.ownFenced.add(offset);
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
      const prevRecord = opts.fresh ? undefined : this.#index.maps.reassignment.get(v.id);
      const prevHeader = opts.fresh ? undefined : this.#index.headers.get(v.id);
      const gen = `${now.toString(36)}${(this.#gen++).toString(36)}${randomBytes(2).toString('hex')}`;
      const enc = await encodeReassignment(
        v,
        prevRecord && prevHeader ? { record: prevRecord, header: prevHeader } : undefined,
        gen,
        now,
        pace,
      );
      chunks.push(...enc.chunks);
      final.push({ key: reassignmentKey(v.id), value: enc.headerValue });
      for (const k of enc.obsolete) trailing.push({ key: k, value: null });
      headers.push({ record: v, header: enc.header, raw: enc.headerValue });
    }
    for (const key of deleteKeys) {
      final.push({ key, value: null });
      const k = parseKey(key);
      if (k?.kind !== 'reassignment') continue;
      if (this.#index.maps.progress.has(k.id)) final.push({ key: progressKey(k.id), value: null });
      for (const c of this.#index.chunks.keys()) if (chunkOwner(c) === k.id) trailing.push({ key: c, value: null });
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
        this.#tail.write(
          written.map((c) => ({ key: c.key, value: c.value })),
          () => {
            for (const c of written) {
              this.#index.chunks.set(c.key, c.chunk);
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
        await looseBatches.add((after) =>
          this.#tail.write(
            batchOf,
            applyFenced(() => batchOf.forEach((r) => this.#index.apply(null, r.key, r.value))),
            after,
          ),
        );
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
    await this.#tail.write(
      last,
      applyFenced((decoded) => {
        for (const r of last) {
          const h = r.key.startsWith('reassignment/') && r.value !== null ? own.get(r.key.slice('reassignment/'.length)) : undefined;
          if (h) {
            // Our own record as the caller built it (same partition objects: the next write compares them).
            this.#index.headers.set(h.record.id, h.header);
            this.#index.own.set(r.key, { raw: h.raw, applied: h.header });
            this.#index.maps.reassignment.set(h.record.id, h.record);
            this.#index.coolLater(h.record);
          } else this.#index.apply(null, r.key, r.value, decoded);
        }
      }),
    );
    if (refused && fence !== undefined) throw new FencedWriteError(fence, 'in-log');
    if (!fits) {
      for (let i = 0; i < trailing.length; i += 5000) {
        const part = trailing.slice(i, i + 5000);
        await this.#tail.write(
          fenced(part),
          applyFenced(() => {
            for (const r of part) this.#index.chunks.delete(r.key);
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
    for (const h of this.#index.headers.values()) for (const k of chunkKeysOf(h)) named.add(k);
    const orphans: { key: string; value: null }[] = [];
    for (const [k, c] of this.#index.chunks) if (!named.has(k) && c.writtenAt <= now - graceMs) orphans.push({ key: k, value: null });
    for (let i = 0; i < orphans.length; i += 5000) {
      const part = orphans.slice(i, i + 5000);
      await this.#tail.write(part, () => {
        for (const r of part) this.#index.chunks.delete(r.key);
      });
    }
    return orphans.length;
  }
}
