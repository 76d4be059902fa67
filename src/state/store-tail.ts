// The store's tail of the state topic (store.ts): the position read up to, refreshes (settled
// by the end offset alone when the position has reached it; otherwise a read, one queued behind
// the running one, shared by every caller meanwhile), resets, health, and the
// one-batch write whose acknowledged records join the view at once and are passed, not read
// back, when the position reaches them. What a record does to the view is the index's
// (store-index.ts).
import { CLAIM_PREFIX } from './claims.js';
import { decodeFence, FENCE_PREFIX } from './fence.js';
import { CHUNK_PREFIX, makePacer } from './layout.js';
import { askedAfterEachCall, settledBy, type LogOffsets } from './log-offsets.js';
import { predecode, Queue, type Decoded } from './store-batches.js';
import type { StoreIndex } from './store-index.js';
import { StateTopicMissingError, type StateEvent, type StateHealth, type StateLog, type StateView } from './store-types.js';

export class StoreTail {
  readonly #log: StateLog;
  readonly #index: StoreIndex;
  /** The store whose refresh() a write waits for before its first read (callers may wrap it). */
  readonly #host: { refresh(): Promise<StateView> };
  readonly #queue = new Queue();
  /** The refresh queued behind the running one, not started yet (shared by every caller meanwhile). */
  #nextRefresh: Promise<StateView> | undefined;
  /** The whole read under way, settled either way (refresh() waits for it before asking for one more). */
  #running: Promise<void> | undefined;
  /** The log's offsets, asked after each call; callers meanwhile share one request (log-offsets.ts). */
  readonly #endOffsets: () => Promise<LogOffsets>;
  #position = 0n;
  #ready = false;
  /** The topic id this view was read from (null until first read). */
  #topicId: string | null = null;
  /** This process has read the topic once: from then on a missing topic is never re-created. */
  #seen = false;
  #health: StateHealth = { status: 'ok' };
  readonly #onEvent: (e: StateEvent) => void;
  readonly #now: () => number;
  /** A refresh is reading the log (its end offset was asked before our latest write, maybe). */
  #reading = false;
  /** Own batches applied when acknowledged, by offset, that the position has not passed yet. */
  readonly #ownBatches = new Map<bigint, readonly { key: string; value: string | null }[]>();
  /** Told (synchronously) when the position may have moved: store.ts observePosition. */
  readonly #positionObservers = new Set<() => void>();

  constructor(opts: {
    log: StateLog;
    index: StoreIndex;
    host: { refresh(): Promise<StateView> };
    onEvent: (e: StateEvent) => void;
    now: () => number;
  }) {
    this.#log = opts.log;
    this.#index = opts.index;
    this.#host = opts.host;
    this.#onEvent = opts.onEvent;
    this.#now = opts.now;
    this.#endOffsets = askedAfterEachCall(() => this.#log.offsets());
  }

  /** Whether the state topic has been read once since this process started (or since a reset). */
  get ready(): boolean {
    return this.#ready;
  }

  /** Whether the state topic could be read the last time it was tried. */
  health(): StateHealth {
    return this.#health;
  }

  /**
   * The position (every record below it is applied to the view) and the topic id it counts in;
   * null before the first read, while the view is due for a rebuild (its position says nothing
   * then) and while the topic cannot be read. The view may hold more than the position: own writes applied when
   * acknowledged, a read under way.
   */
  position(): { position: bigint; topicId: string } | null {
    if (!this.#ready || this.#index.rebuild || this.#topicId === null || this.#health.status !== 'ok') return null;
    return { position: this.#position, topicId: this.#topicId };
  }

  /** Calls `observer` (synchronously; keep it cheap) whenever the position may have moved. Returns the function that stops. */
  observePosition(observer: () => void): () => void {
    this.#positionObservers.add(observer);
    return () => void this.#positionObservers.delete(observer);
  }

  #moved(): void {
    for (const o of this.#positionObservers) {
      try {
        o();
      } catch {
        // An observer's failure is its own.
      }
    }
  }

  #ok(): void {
    if (this.#health.status !== 'ok') {
      this.#health = { status: 'ok' };
      this.#onEvent({ type: 'recovered' });
      this.#moved();
    }
  }

  #failed(err: unknown): never {
    // Whoever follows the position hears of it (the view may be half rebuilt).
    queueMicrotask(() => this.#moved());
    if (err instanceof StateTopicMissingError) {
      this.#index.keepLostLedger();
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

  /**
   * Reads everything appended up to now; afterwards view() holds every acknowledged write.
   *
   * The log's end offset is asked at once, and the view is answered as soon as the position
   * has reached it: every write acknowledged before the call is below that end, and everything
   * below the position is applied. With this process's own writes passed when acknowledged,
   * that is usually at once, or when the read under way ends (its end and ours are the same
   * when nothing was written meanwhile). Before, every caller waited for the read under way
   * and then for a read of its own: a summary GET's refresh took up to 62 ms at 100,000
   * moving partitions (docs/worker-thread.md), with two round trips and a fetch to wait for.
   * Otherwise (something else was appended, the log is not the one read, a rebuild is due, the
   * end offset cannot be asked) a whole read follows, as below.
   */
  refresh(): Promise<StateView> {
    if (!this.#ready || this.#index.rebuild) return this.#readAll();
    return this.#settle();
  }

  async #settle(): Promise<StateView> {
    // Everything below the position is in the log: an end below it now means the log lost
    // records (a reset, which only a whole read decides). Later, our own writes passed when
    // acknowledged may take the position past the end asked.
    const before = this.#position;
    let offsets: LogOffsets;
    try {
      offsets = await this.#endOffsets();
    } catch {
      return this.#readAll();
    }
    const settled = () => !this.#index.rebuild && settledBy(offsets, before, this.#position, this.#topicId);
    if (!settled() && this.#running) await this.#running;
    if (!settled()) return this.#readAll();
    this.#ok();
    return this.#index.view();
  }

  /**
   * A whole read. Callers that arrive while one runs share the one queued after it: it starts
   * after each of them called, so it reads every write acknowledged before any of them did.
   */
  #readAll(): Promise<StateView> {
    if (this.#nextRefresh) return this.#nextRefresh;
    const next: Promise<StateView> = this.#queue.run(async () => {
      // Started: whoever calls from now on needs a read that starts after them.
      if (this.#nextRefresh === next) this.#nextRefresh = undefined;
      const running = (async () => {
        try {
          await this.#refresh();
        } catch (err) {
          this.#failed(err);
        }
        this.#ok();
      })();
      this.#running = running.catch(() => undefined);
      try {
        await running;
      } finally {
        this.#running = undefined;
      }
      return this.#index.view();
    });
    this.#nextRefresh = next;
    return next;
  }

  async #refresh(): Promise<void> {
    this.#reading = true;
    try {
      await this.#read();
      // An own write applied when acknowledged was refused in the log: read it all again.
      if (this.#index.rebuild) await this.#read();
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
    if (cause === null && this.#index.rebuild) cause = 'own-write-refused';
    if (cause !== null) {
      // The log we read is not the log there is now: rebuild from scratch rather than keep a
      // view with holes or with records that no longer exist.
      const position = this.#position;
      this.#clear();
      this.#index.rebuild = false;
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
      const skip = (key: string) => key.startsWith(CHUNK_PREFIX) && this.#index.chunks.has(key);
      for (const r of await this.#log.read(this.#position, end, { skip })) {
        this.#index.apply(r.offset, r.key, r.value);
        // Chunks are invisible until their header: yielding after one never exposes half a batch.
        if (r.key.startsWith(CHUNK_PREFIX)) await pace();
      }
      this.#position = end;
    }
    this.#moved();
  }

  /** Forgets everything read: the view is rebuilt from the log start. */
  #clear(): void {
    this.#index.clear();
    this.#ownBatches.clear();
  }

  /**
   * Writes one batch; once acknowledged, `apply` puts it into the view (true: each record as
   * read; a function: the caller's own way, called at once, before anything else can run).
   */
  async write(
    records: { key: string; value: string | null }[],
    apply: boolean | ((decoded: Decoded, offset: bigint) => void) = true,
    after?: Promise<unknown>,
  ): Promise<bigint> {
    if (records.length === 0) return -1n;
    if (!this.#ready) await this.#host.refresh();
    const writing = this.#log.write(records);
    writing.catch(() => undefined); // awaited below: not an unhandled rejection while we decode
    // The values are decoded while Kafka acknowledges, in slices: the apply below must run at
    // once (a batch is visible all together), and decoding the 100 topics' ledger records of
    // a 100,000-partition start in it held the event loop ~50 ms.
    const decoded: Decoded = apply === false ? new Map<string, undefined>() : await predecode(records);
    let offset: bigint;
    try {
      offset = await writing;
    } catch (err) {
      this.#failed(err);
    }
    // A batch produced while an earlier one was out is applied after it (log order).
    if (after) await after;
    // Our own write is visible to us at once; the next refresh re-reads it in log order...
    if (apply === true) for (const r of records) this.#index.apply(null, r.key, r.value, decoded);
    else if (apply) apply(decoded, offset);
    // ...unless the position reaches it with nothing else between (now, or once the read under
    // way or the batches ahead of it are through: #passOwnBatches): then the position moves past
    // it (re-reading a 100,000-partition start would fetch ~12 MB back for nothing). Claims
    // are decided only at their offsets: they are applied when the position passes them (with
    // everything before them applied, as a read would), not before.
    // A chunk's value is not needed to pass it (and ~10 MB of them would stay alive meanwhile).
    this.#ownBatches.set(
      offset,
      records.map((r) => (r.value !== null && r.key.startsWith(CHUNK_PREFIX) ? { key: r.key, value: '' } : r)),
    );
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
    const from = this.#position;
    try {
      this.#passFrom();
    } finally {
      if (this.#position !== from || this.#index.rebuild) this.#moved();
    }
  }

  #passFrom(): void {
    for (;;) {
      const batch = this.#ownBatches.get(this.#position);
      if (!batch || !this.#index.batchStillApplied(batch)) return;
      const at = this.#position;
      // A fenced batch is decided here as a read would (every record before it applied): if
      // its claim had ended, what we applied when it was acknowledged goes (read it all again).
      const marker =
        batch[0]?.key.startsWith(FENCE_PREFIX) && batch[0].value !== null ? decodeFence(batch[0].key, batch[0].value) : undefined;
      if (marker && !this.#index.enterFence(at, marker)) {
        this.#index.rebuild = true;
        return;
      }
      this.#index.ownFenced.delete(at);
      this.#ownBatches.delete(at);
      this.#position += BigInt(batch.length);
      // A claim (or its release) at its offset, as a read would apply it: every record before
      // it is applied, so the claims table decides it as every other reader of the log does.
      // (A release per reconcile pass, read back, held every batch after it to a fetch.)
      for (let i = 0; i < batch.length; i++) {
        const r = batch[i];
        if (r.key.startsWith(CLAIM_PREFIX)) this.#index.apply(at + BigInt(i), r.key, r.value);
        else this.#index.own.delete(r.key);
      }
    }
  }
}
