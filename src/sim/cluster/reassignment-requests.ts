// AlterPartitionReassignments on the simulator's cluster model (ClusterModel's reassignment
// requests, ./model.ts): every entry planned against the state before the request and the good
// ones applied after, in one block or, for a large request, in slices that yield to the event
// loop, one request after the other as the controller's event queue runs them; and the listeners
// told of every entry applied. The replica copies themselves are ./partition-moves.ts's.
import type { ClusterState } from './cluster-state.js';
import { KafkaError } from './errors.js';
import type { AlteredReassignment, ReassignmentRecord } from './partition-moves.js';

/** AlterPartitionReassignments up to this many entries run in one block (about a millisecond). */
const SMALL_ALTER = 1000;

/** Lets the event loop run (other connections, timers) before going on. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class ReassignmentRequests {
  /** onReassignmentAltered listeners. */
  private readonly alteredListeners = new Set<(a: AlteredReassignment) => void>();

  constructor(private readonly s: ClusterState) {}

  /**
   * One partition of AlterPartitionReassignments: `replicas` is the target, null cancels.
   * Throws KafkaError (3, 39, 85) and then changes nothing.
   */
  alterPartitionReassignment(topic: string, partition: number, replicas: readonly number[] | null): void {
    this.s.sync(); // copies ran at the old rates until now
    this.s.moves.alter(topic, partition, replicas);
  }

  /**
   * AlterPartitionReassignments: every entry is checked against the state before the request,
   * then the good ones are applied in order (as KRaft's controller generates records first and
   * replays them after). Returns, per entry, null or the KafkaError it failed with.
   */
  alterPartitionReassignments(
    entries: readonly { topic: string; partition: number; replicas: readonly number[] | null }[],
    source: AlteredReassignment['source'] = null,
  ): (KafkaError | null)[] {
    return this.s.atOneInstant(() => {
      this.s.sync();
      this.s.moves.beginBatch();
      try {
        return this.alterInOneBlock(entries, source);
      } finally {
        this.s.moves.endBatch();
      }
    });
  }

  private alterInOneBlock(
    entries: readonly { topic: string; partition: number; replicas: readonly number[] | null }[],
    source: AlteredReassignment['source'],
  ): (KafkaError | null)[] {
    {
      const planned = entries.map((e) => {
        try {
          return this.s.moves.plan(e.topic, e.partition, e.replicas);
        } catch (err) {
          if (err instanceof KafkaError) return err;
          throw err;
        }
      });
      for (let i = 0; i < planned.length; i++) {
        const r = planned[i];
        if (!(r instanceof KafkaError)) this.applyAltered(r, entries[i].replicas, source);
      }
      return planned.map((r) => (r instanceof KafkaError ? r : null));
    }
  }

  /** Sliced AlterPartitionReassignments requests, one after the other (the controller's queue). */
  private controllerQueue: Promise<unknown> = Promise.resolve();
  private slicedInFlight = 0;

  /**
   * AlterPartitionReassignments with the semantics of alterPartitionReassignments (every entry
   * planned against the state before the request, then the good ones applied in order), done in
   * slices of about `sliceMs` (default 10) of work that yield to the event loop between them, so that a
   * request of 100,000 partitions does not stop every other connection for its whole duration.
   * The request runs at one instant of the clock (copies do not advance until it is done: one
   * controller event); the copies' rate classes are settled slice by slice, so the first read
   * after it costs nothing extra. Two such requests run one after the other, as the controller's
   * event queue does; other changes (a topic deleted, a broker stopped) may land between slices,
   * and then count as having come before the entries not yet planned or applied.
   */
  alterPartitionReassignmentsSliced(
    entries: readonly { topic: string; partition: number; replicas: readonly number[] | null }[],
    opts: { sliceMs?: number; pause?: () => Promise<void>; source?: AlteredReassignment['source'] } = {},
  ): Promise<(KafkaError | null)[]> {
    const source = opts.source ?? null;
    // A small request with none queued before it runs at once, in one block, as it always did.
    if (this.slicedInFlight === 0 && entries.length <= SMALL_ALTER)
      return Promise.resolve(this.alterPartitionReassignments(entries, source));
    this.slicedInFlight++;
    const result = this.controllerQueue
      .then(() => this.alterSliced(entries, opts.sliceMs ?? 10, opts.pause ?? yieldToEventLoop, source))
      .finally(() => this.slicedInFlight--);
    this.controllerQueue = result.catch(() => undefined);
    return result;
  }

  private async alterSliced(
    entries: readonly { topic: string; partition: number; replicas: readonly number[] | null }[],
    sliceMs: number,
    pause: () => Promise<void>,
    source: AlteredReassignment['source'],
  ): Promise<(KafkaError | null)[]> {
    // Decoding the request was one block already: start on a turn of its own.
    await pause();
    const pinned = this.s.instant === null;
    if (pinned) this.s.instant = this.s.clock.now();
    this.s.moves.beginBatch();
    const errors = new Array<KafkaError | null>(entries.length);
    try {
      this.s.sync();
      let sliceStart = performance.now();
      const due = (i: number): boolean => (i & 127) === 127 && performance.now() - sliceStart >= sliceMs;
      const yieldNow = async (): Promise<void> => {
        this.s.sync(); // settle the rate classes of what this slice changed, at the same instant
        await pause();
        sliceStart = performance.now();
      };
      const planned = new Array<ReassignmentRecord | KafkaError>(entries.length);
      // A slice is `sliceMs` of planning or applying plus the settling of its copies (sync),
      // which costs about as much again when applying.
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        try {
          planned[i] = this.s.moves.plan(e.topic, e.partition, e.replicas);
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          planned[i] = err;
        }
        if (due(i)) await yieldNow();
      }
      for (let i = 0; i < planned.length; i++) {
        const r = planned[i];
        if (r instanceof KafkaError) {
          errors[i] = r;
        } else {
          errors[i] = null;
          this.applyAltered(r, entries[i].replicas, source);
        }
        if (due(i)) await yieldNow();
      }
      this.s.sync();
    } finally {
      this.s.moves.endBatch();
      if (pinned) this.s.instant = null;
    }
    // Building and encoding the answer is one more block: on a turn of its own too.
    await pause();
    return errors;
  }

  /** moves.apply of one accepted entry, told to the onReassignmentAltered listeners (if any). */
  private applyAltered(r: ReassignmentRecord, target: readonly number[] | null, source: AlteredReassignment['source']): void {
    if (this.alteredListeners.size === 0) return this.s.moves.apply(r);
    const p = r.partition;
    const replicasBefore = [...p.replicas];
    const leaderBefore = p.leader;
    const wasMoving = this.s.moves.isMoving(p);
    this.s.moves.apply(r);
    const event: AlteredReassignment = {
      topic: r.topic.name,
      partition: p.partition,
      target: target === null ? null : [...target],
      wasMoving,
      moving: this.s.moves.isMoving(p),
      replicasBefore,
      replicas: [...p.replicas],
      leaderBefore,
      leader: p.leader,
      at: this.s.instant ?? this.s.clock.now(),
      source,
    };
    for (const listener of this.alteredListeners) listener(event);
  }

  /**
   * Calls `listener` for every entry of AlterPartitionReassignments the controller applies (see
   * AlteredReassignment), synchronously, in the order they are applied. Returns unsubscribe.
   */
  onReassignmentAltered(listener: (a: AlteredReassignment) => void): () => void {
    this.alteredListeners.add(listener);
    return () => this.alteredListeners.delete(listener);
  }
}
