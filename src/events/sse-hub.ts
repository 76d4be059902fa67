// The Server-Sent Events streams of reassignments (GET /reassignments/events and
// /reassignments/{id}/events): what each stream is sent and when. No HTTP here: a stream is a
// sink of text frames (src/http/routes/reassignment-events.ts writes them to the response).
//
// One hub per gateway instance serves every open stream, so N followers cost what one does:
// - state changes come from the change feed (src/events/reassignment-changes.ts), each rendered
//   once and its frame written to every stream that follows that reassignment;
// - progress: one timer, running only while a stream is open, refreshes the state view once per
//   `progressIntervalMs` (one read of the state topic for all streams, where N pollers made N)
//   and sends a `progress` event for each live reassignment whose record or progress snapshot
//   changed since the last tick: at most one per reassignment per interval per stream;
// - heartbeats: one timer writes a comment to every stream.
// A stream is sent the summary only (counts, bytes, rate), never partition rows. Memory is
// O(streams + live reassignments); a client that does not read (its socket buffer over
// `maxBufferedBytes`) is dropped and reconnects with Last-Event-ID.
import { TERMINAL_STATES, type ReassignmentRecord } from '../state/records.js';
import type { StateView } from '../state/store.js';
import type { ReassignmentDetail } from '../services/reassignments/reassignment-service.js';
import type { ReassignmentRuntime } from '../reconcile/index.js';
import type { ReassignmentChange, ReassignmentChangeFeed } from './reassignment-changes.js';
import { sseComment, sseFrame, sseRetry } from './sse-format.js';

/** Where a stream's frames go. */
export interface StreamSink {
  write(frame: string): void;
  /** Bytes written but not yet taken by the client (the socket's buffer). */
  buffered(): number;
  /** Ends the stream from the server's side (drain, a client that does not read). */
  end(): void;
}

/** What the hub reads: the state view (refreshed from the topic) and the summaries of its records. */
export interface SummarySource {
  refresh(): Promise<Pick<StateView, 'reassignments' | 'progress'>>;
  view(): Pick<StateView, 'reassignments' | 'progress'>;
  /** Counts and progress of a record (cached per record: ReassignmentService.brief). */
  brief(record: ReassignmentRecord): ReassignmentDetail;
}

export interface StreamHubOptions {
  source: SummarySource;
  /** The change feed; without it, state changes are found by the progress tick (no ids, no replay). */
  feed?: Pick<ReassignmentChangeFeed, 'subscribe' | 'since' | 'get'> | undefined;
  /** The API's JSON of a summary (src/http maps records to the contract's shapes). */
  render: (d: ReassignmentDetail) => unknown;
  /** Open streams at most (beyond: refused). */
  maxStreams: number;
  progressIntervalMs: number;
  heartbeatMs: number;
  /** Finished reassignments in the all-stream's snapshot (newest first; every live one is there). */
  snapshotFinishedMax?: number;
  /** Changes replayed for one Last-Event-ID at most (the feed's history is bounded anyway). */
  replayMax?: number;
  maxBufferedBytes?: number;
  /** Checked each tick: true ends every stream (the server is draining). */
  closing?: () => boolean;
  /** Reconnection delay suggested to clients. */
  retryMs?: number;
}

export type OpenResult = { kind: 'opened'; close: () => void } | { kind: 'limit'; open: number } | { kind: 'not-found' };

interface Stream {
  /** null: every reassignment. */
  readonly id: string | null;
  readonly sink: StreamSink;
  /** Changes up to this feed sequence were reflected in its snapshot or replay. */
  readonly afterSeq: number;
}

const isTerminal = (r: ReassignmentRecord) => TERMINAL_STATES.has(r.state);
const sameFinished = (a: ReassignmentRecord, b: ReassignmentRecord) =>
  a.state === b.state && a.throttlesRemovedAt === b.throttlesRemovedAt && a.reason === b.reason;
const DEFAULT_BUFFER_MAX = 1 << 20;
/** Longest run of summary computations between two yields to the event loop. */
const WARM_SLICE_MS = 15;

export class ReassignmentStreamHub {
  readonly #o: StreamHubOptions;
  readonly #streams = new Set<Stream>();
  /** Per reassignment: the record and progress objects its last event was rendered from (both immutable: same objects = same summary). */
  readonly #sent = new Map<string, { record: ReassignmentRecord; progress: unknown }>();
  /** Changes heard from the feed, sent at the next turn (the feed calls back from inside the store's read). */
  #pending: ReassignmentChange[] = [];
  #flushScheduled = false;
  /** The sequence and id of the last change heard (a snapshot's cursor). */
  #lastSeq = 0;
  #lastEventId: string | undefined;
  #unsubscribe: (() => void) | undefined;
  #tick: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #ticking = false;
  /** Counters for the metrics. */
  refused = 0;
  dropped = 0;

  constructor(opts: StreamHubOptions) {
    this.#o = opts;
    this.#unsubscribe = opts.feed?.subscribe((c) => this.#hear(c));
  }

  get openCount(): number {
    return this.#streams.size;
  }

  /**
   * Opens a stream for one reassignment (`id`) or all (null): refreshes the view (404 for an
   * unknown id), replays the changes after `lastEventId` that the feed still keeps, sends the
   * snapshot, then everything that follows until close() (or end() from the hub).
   */
  async open(id: string | null, lastEventId: string | null, sink: StreamSink): Promise<OpenResult> {
    if (this.#streams.size >= this.#o.maxStreams) {
      this.refused++;
      return { kind: 'limit', open: this.#streams.size };
    }
    const view = await this.#o.source.refresh();
    if (id !== null && !view.reassignments.has(id)) return { kind: 'not-found' };
    // The summaries' per-record caches filled now, a slice at a time (a finished record unpacks
    // its packed partitions once: 10-20 ms at 100,000), so the snapshot below, which must not
    // await, finds them computed.
    let since = performance.now();
    for (const r of this.#snapshotRecords(id, view)) {
      this.#o.source.brief(r);
      if (performance.now() - since > WARM_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        since = performance.now();
      }
    }
    // (Checked again: other streams may have opened while the view was read.)
    if (this.#streams.size >= this.#o.maxStreams) {
      this.refused++;
      return { kind: 'limit', open: this.#streams.size };
    }
    // From here to the registration nothing awaits: no change can fall between the replay or
    // snapshot and the stream's first live event.
    const stream: Stream = { id, sink, afterSeq: this.#lastSeq };
    sink.write(sseRetry(this.#o.retryMs ?? 3000));
    if (lastEventId !== null && this.#o.feed) {
      const { changes, complete } = this.#o.feed.since(lastEventId, {
        ...(id !== null && { reassignmentId: id }),
        limit: this.#o.replayMax ?? 1000,
      });
      // Not complete: the id is older than what is kept; the snapshot below stands for the gap.
      if (complete) for (const c of changes) if (c.seq <= stream.afterSeq) this.#write(stream, this.#changeFrame(c, this.#o.source.view()));
    }
    this.#write(stream, this.#snapshotFrame(id, this.#o.source.view()));
    this.#streams.add(stream);
    this.#startTimers();
    return { kind: 'opened', close: () => this.#remove(stream) };
  }

  /** Ends every stream and stops the timers (shutdown, tests). */
  close(): void {
    for (const s of [...this.#streams]) {
      this.#remove(s);
      s.sink.end();
    }
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  #remove(s: Stream): void {
    if (!this.#streams.delete(s)) return;
    if (this.#streams.size === 0) this.#stopTimers();
  }

  #write(s: Stream, frame: string): void {
    if (s.sink.buffered() > (this.#o.maxBufferedBytes ?? DEFAULT_BUFFER_MAX)) {
      // It does not read: end it rather than buffer without bound; it reconnects with Last-Event-ID.
      this.dropped++;
      this.#remove(s);
      s.sink.end();
      return;
    }
    s.sink.write(frame);
  }

  #hear(c: ReassignmentChange): void {
    this.#lastSeq = Math.max(this.#lastSeq, c.seq);
    this.#lastEventId = c.eventId;
    if (this.#streams.size === 0) return;
    this.#pending.push(c);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushScheduled = false;
    const changes = this.#pending;
    this.#pending = [];
    const view = this.#o.source.view();
    for (const c of changes) {
      let frame: string | undefined;
      for (const s of this.#streams) {
        if (c.seq <= s.afterSeq || (s.id !== null && s.id !== c.reassignmentId)) continue;
        this.#write(s, (frame ??= this.#changeFrame(c, view)));
      }
      // Sent with this summary: the progress tick sends it again only once it changes.
      const record = view.reassignments.get(c.reassignmentId);
      if (frame !== undefined && record) this.#sent.set(record.id, { record, progress: view.progress.get(record.id) });
    }
  }

  /** A change with the reassignment's summary as the view holds it now. */
  #changeFrame(c: ReassignmentChange, view: Pick<StateView, 'reassignments' | 'progress'>): string {
    const record = view.reassignments.get(c.reassignmentId);
    const change = { eventId: c.eventId, type: c.type, state: c.state, previousState: c.previousState, at: c.at };
    return this.#frame(c.type, c.eventId, { change, reassignment: record ? this.#o.render(this.#o.source.brief(record)) : null });
  }

  #snapshotFrame(id: string | null, view: Pick<StateView, 'reassignments' | 'progress'>): string {
    const cursor = this.#lastEventId !== undefined && this.#o.feed?.get(this.#lastEventId) ? this.#lastEventId : undefined;
    if (id !== null) {
      const record = view.reassignments.get(id);
      return this.#frame('snapshot', cursor, { change: null, reassignment: record ? this.#o.render(this.#o.source.brief(record)) : null });
    }
    return this.#frame('snapshot', cursor, {
      reassignments: this.#snapshotRecords(null, view).map((r) => this.#o.render(this.#o.source.brief(r))),
    });
  }

  /** The records a snapshot shows: the one, or every live one (newest first) and the newest finished ones. */
  #snapshotRecords(id: string | null, view: Pick<StateView, 'reassignments'>): ReassignmentRecord[] {
    if (id !== null) {
      const r = view.reassignments.get(id);
      return r ? [r] : [];
    }
    const live: ReassignmentRecord[] = [];
    const finished: ReassignmentRecord[] = [];
    for (const r of view.reassignments.values()) (isTerminal(r) ? finished : live).push(r);
    finished.sort((a, b) => (b.endedAt ?? b.updatedAt) - (a.endedAt ?? a.updatedAt));
    return [...live.sort((a, b) => b.createdAt - a.createdAt), ...finished.slice(0, this.#o.snapshotFinishedMax ?? 100)];
  }

  #frame(event: string, id: string | undefined, data: unknown): string {
    // Ids come from records (pattern-checked); one that could break the framing is left off.
    const safeId = id !== undefined && !/[\r\n\0]/.test(id) ? id : undefined;
    return sseFrame({
      event: /^[\w.-]+$/.test(event) ? event : 'change',
      ...(safeId !== undefined && { id: safeId }),
      data: JSON.stringify(data),
    });
  }

  #startTimers(): void {
    if (!this.#tick) {
      this.#tick = setInterval(() => void this.#progressTick(), this.#o.progressIntervalMs);
      this.#tick.unref();
    }
    if (!this.#heartbeat) {
      this.#heartbeat = setInterval(() => {
        const frame = sseComment('keep-alive');
        for (const s of [...this.#streams]) this.#write(s, frame);
      }, this.#o.heartbeatMs);
      this.#heartbeat.unref();
    }
  }

  #stopTimers(): void {
    clearInterval(this.#tick);
    clearInterval(this.#heartbeat);
    this.#tick = this.#heartbeat = undefined;
    this.#sent.clear();
  }

  /**
   * One read of the state view for every stream, then a `progress` event per reassignment that
   * is live (or was at the last tick: its final summary) and whose record or progress changed.
   */
  async #progressTick(): Promise<void> {
    if (this.#o.closing?.()) {
      for (const s of [...this.#streams]) {
        this.#remove(s);
        s.sink.end();
      }
      return;
    }
    if (this.#ticking || this.#streams.size === 0) return;
    this.#ticking = true;
    try {
      const view = await this.#o.source.refresh();
      for (const [id, record] of view.reassignments) {
        const last = this.#sent.get(id);
        const progress = view.progress.get(id);
        if (last && last.record === record && last.progress === progress) continue;
        // A finished record seen finished before: sent again only when what a reader sees
        // changed (its throttles removed), not when it is packed or its progress is dropped.
        if (isTerminal(record) && (!last || (isTerminal(last.record) && sameFinished(last.record, record)))) {
          this.#sent.set(id, { record, progress });
          continue;
        }
        this.#sent.set(id, { record, progress });
        // Without a feed, a state change is found here (an event of its state's name, no id).
        const event = !this.#o.feed && last && last.record.state !== record.state ? record.state : 'progress';
        let frame: string | undefined;
        for (const s of [...this.#streams]) {
          if (s.id !== null && s.id !== id) continue;
          this.#write(
            s,
            (frame ??= this.#frame(event, undefined, { change: null, reassignment: this.#o.render(this.#o.source.brief(record)) })),
          );
        }
      }
      for (const id of this.#sent.keys()) if (!view.reassignments.has(id)) this.#sent.delete(id);
    } catch {
      // The state topic unreadable for now: the next tick tries again (/readyz reports it).
    } finally {
      this.#ticking = false;
    }
  }
}

/** The hub's reads over one instance's reassignment runtime: its state store and service. */
export function summarySourceOf(runtime: Pick<ReassignmentRuntime, 'store' | 'reassignments'>): SummarySource {
  return { refresh: () => runtime.store.refresh(), view: () => runtime.store.view(), brief: (r) => runtime.reassignments.brief(r) };
}
