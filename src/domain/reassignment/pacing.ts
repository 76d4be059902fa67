// Paced execution (issue 9), pure: which queued moves start next without exceeding the bounds,
// the wave schedule a paced reassignment would run, and its duration / ETA given a rate.
//
// Rules:
// - A broker TAKES PART in a move as a destination (a replica being added: target − current) or
//   as the source (the partition's current leader; the first current replica when unknown).
//   A move with nothing to add (a reorder or a shrink) involves its leader only.
// - Bounds: at no time more than `perBroker` moves in flight in which one broker takes part, nor
//   more than `cluster` moves in flight in total (null = no bound). Each bound is ≥ 1, so the
//   first queued move always fits when nothing is in flight: every queued move eventually starts.
// - Order: the queue is sorted once (size-asc: smallest first, the default; size-desc; as-given:
//   the request's order); ties keep the request's order. Starting is greedy in that order: a
//   queued move is started unless one of its brokers is full or the cluster bound is reached, so
//   a later move overtakes an earlier one only when the earlier one does not fit right now.
//
// The picker is incremental so that a whole schedule of 100k moves stays near-linear: a queued
// move that does not fit is parked on one of its full brokers and looked at again only when that
// broker frees a slot (the result is exactly the greedy in-order scan; the tests compare both).
//
// The schedule (planWaves) runs the moves on a model of Kafka's replication: each copy flows
// from the leader to one destination at min(rate / copies out of the leader, rate / copies into
// the destination), `rate` being the throttle (both leader and follower rates) or the brokers'
// bandwidth; a move completes when all its copies have. Moves in flight keep the bytes they have
// done (bytesDone), so the same function gives the ETA of a running reassignment, queue included.

import { drain, STEP_ITEMS, type Steps } from '../steps.js';
import type { TopicPartition } from './types.js';

export type MoveState = 'queued' | 'moving' | 'completed' | 'failed' | 'cancelled';
export const MOVE_STATES: readonly MoveState[] = Object.freeze(['queued', 'moving', 'completed', 'failed', 'cancelled']);

export type PacingOrder = 'size-asc' | 'size-desc' | 'as-given';
export const PACING_ORDERS: readonly PacingOrder[] = Object.freeze(['size-asc', 'size-desc', 'as-given']);
export const DEFAULT_PACING_ORDER: PacingOrder = 'size-asc';

/** Bounds on moves in flight; null = unbounded. Each number is an integer ≥ 1. */
export interface ConcurrencyBounds {
  readonly perBroker: number | null;
  readonly cluster: number | null;
}

export const UNBOUNDED: ConcurrencyBounds = Object.freeze({ perBroker: null, cluster: null });

/** One partition of a paced reassignment. */
export interface PacedPartition extends TopicPartition {
  /** Replicas before the move (kept as they were when it started, while it moves). */
  readonly currentReplicas: readonly number[];
  /** Current leader; null = unknown (the first current replica is assumed). */
  readonly leader: number | null;
  readonly targetReplicas: readonly number[];
  /** Size of the partition's log on its leader, bytes. */
  readonly sizeBytes: number;
  readonly state: MoveState;
  /** For a moving partition: bytes already copied per destination (the slowest copy's); default 0. */
  readonly bytesDone?: number;
}

/** The brokers taking part in a move: its source (leader) and its destinations, ascending. */
export function moveBrokers(p: Pick<PacedPartition, 'currentReplicas' | 'leader' | 'targetReplicas'>): number[] {
  const source = moveSource(p);
  const out = new Set<number>(moveDestinations(p));
  if (source !== undefined) out.add(source);
  return [...out].sort((a, b) => a - b);
}

/** The replicas a move adds: target − current, in target order. */
export function moveDestinations(p: Pick<PacedPartition, 'currentReplicas' | 'targetReplicas'>): number[] {
  const current = new Set(p.currentReplicas);
  return p.targetReplicas.filter((b) => !current.has(b));
}

function moveSource(p: Pick<PacedPartition, 'currentReplicas' | 'leader'>): number | undefined {
  return p.leader ?? p.currentReplicas[0];
}

/** Validate bounds (integers ≥ 1 or null); returns an error message or null. */
export function checkBounds(bounds: ConcurrencyBounds): string | null {
  for (const [name, v] of [
    ['perBroker', bounds.perBroker],
    ['cluster', bounds.cluster],
  ] as const) {
    if (v === null) continue;
    if (!Number.isSafeInteger(v) || v < 1) return `concurrency.${name} must be an integer ≥ 1`;
  }
  return null;
}

/** Indices of `partitions` in queue order (stable: ties keep the input order). */
export function queueOrder(partitions: readonly Pick<PacedPartition, 'sizeBytes'>[], order: PacingOrder): number[] {
  const idx = partitions.map((_, i) => i);
  if (order === 'size-asc') idx.sort((a, b) => partitions[a].sizeBytes - partitions[b].sizeBytes || a - b);
  else if (order === 'size-desc') idx.sort((a, b) => partitions[b].sizeBytes - partitions[a].sizeBytes || a - b);
  return idx;
}

// ---------------------------------------------------------------------------------------------
// The picker
// ---------------------------------------------------------------------------------------------

class MinHeap {
  private readonly a: number[] = [];
  get size(): number {
    return this.a.length;
  }
  peek(): number | undefined {
    return this.a[0];
  }
  push(v: number): void {
    const a = this.a;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p] <= v) break;
      a[i] = a[p];
      i = p;
    }
    a[i] = v;
  }
  pop(): number | undefined {
    const a = this.a;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && a[r] < a[l] ? r : l;
        if (a[c] >= last) break;
        a[i] = a[c];
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

/**
 * Greedy in-order starter over a fixed queue. `start()` returns the queue positions to start now
 * (in order); `finish(pos)` frees the slots of a move that ended. Loads of moves already in flight
 * are given with `occupy`. Positions index the `queue` array passed to the constructor.
 */
export class PacingPicker {
  private readonly load = new Map<number, number>();
  private inFlight = 0;
  private cursor = 0;
  private readonly parked = new Map<number, MinHeap>();
  private readonly done: Uint8Array;

  constructor(
    private readonly queue: readonly (readonly number[])[],
    private readonly bounds: ConcurrencyBounds,
  ) {
    this.done = new Uint8Array(queue.length);
  }

  /** Count a move already in flight (not from the queue). */
  occupy(brokers: readonly number[]): void {
    this.inFlight++;
    for (const b of brokers) this.load.set(b, (this.load.get(b) ?? 0) + 1);
  }

  /** Free a move in flight: its brokers' slots and one cluster slot. */
  release(brokers: readonly number[]): void {
    this.inFlight--;
    for (const b of brokers) this.load.set(b, (this.load.get(b) ?? 0) - 1);
  }

  /** Free the slots of queue position `pos` (started by start()). */
  finish(pos: number): void {
    this.release(this.queue[pos]);
  }

  get moving(): number {
    return this.inFlight;
  }

  /** Load of one broker (moves in flight it takes part in). */
  brokerLoad(broker: number): number {
    return this.load.get(broker) ?? 0;
  }

  private full(b: number): boolean {
    return this.bounds.perBroker !== null && (this.load.get(b) ?? 0) >= this.bounds.perBroker;
  }

  private clusterFull(): boolean {
    return this.bounds.cluster !== null && this.inFlight >= this.bounds.cluster;
  }

  /** Start every queued move that fits, in queue order. */
  start(): number[] {
    const started: number[] = [];
    while (!this.clusterFull()) {
      // The smallest candidate: the next never-examined position, or the head of a parked heap of
      // a broker with a free slot (moves parked on a full broker cannot fit).
      while (this.cursor < this.queue.length && this.done[this.cursor]) this.cursor++;
      let best = this.cursor < this.queue.length ? this.cursor : Infinity;
      let from: MinHeap | null = null;
      for (const [b, heap] of this.parked) {
        if (this.full(b)) continue;
        let head = heap.peek();
        while (head !== undefined && this.done[head]) {
          heap.pop();
          head = heap.peek();
        }
        if (head === undefined) {
          this.parked.delete(b);
          continue;
        }
        if (head < best) {
          best = head;
          from = heap;
        }
      }
      if (best === Infinity) break;
      if (from) from.pop();
      else this.cursor++;
      const brokers = this.queue[best];
      const blocker = brokers.find((b) => this.full(b));
      if (blocker !== undefined) {
        let heap = this.parked.get(blocker);
        if (!heap) this.parked.set(blocker, (heap = new MinHeap()));
        heap.push(best);
        continue;
      }
      this.done[best] = 1;
      this.occupy(brokers);
      started.push(best);
    }
    return started;
  }
}

/**
 * The queued partitions to start now, in queue order, given the ones moving (state 'moving'):
 * what the reconciler sends in its next AlterPartitionReassignments call. O(n log n).
 */
export function nextToStart<P extends PacedPartition>(partitions: readonly P[], bounds: ConcurrencyBounds, order: PacingOrder): P[] {
  return drain(nextToStartSteps(partitions, bounds, order));
}

/** nextToStart in steps (plan.ts Steps): the same answer, yielding every STEP_ITEMS partitions (the sort is one step). */
export function* nextToStartSteps<P extends PacedPartition>(
  partitions: readonly P[],
  bounds: ConcurrencyBounds,
  order: PacingOrder,
): Steps<P[]> {
  const queued: P[] = [];
  const picker0: (readonly number[])[] = [];
  for (const p of partitions) if (p.state === 'queued') queued.push(p);
  yield;
  const ordered = queueOrder(queued, order).map((i) => queued[i]);
  yield;
  for (let i = 0; i < ordered.length; i++) {
    picker0.push(moveBrokers(ordered[i]));
    if ((i + 1) % STEP_ITEMS === 0) yield;
  }
  const picker = new PacingPicker(picker0, bounds);
  for (const p of partitions) if (p.state === 'moving') picker.occupy(moveBrokers(p));
  yield;
  return picker.start().map((pos) => ordered[pos]);
}

// ---------------------------------------------------------------------------------------------
// Schedule, duration, ETA
// ---------------------------------------------------------------------------------------------

export interface Wave {
  /** 0 = the moves started at once (including the ones already moving when planning a running reassignment). */
  readonly index: number;
  /** Estimated seconds from now when this wave starts; null without a rate. */
  readonly startSeconds: number | null;
  readonly partitions: readonly TopicPartition[];
}

export interface WaveSchedule {
  /** The first `maxWaves` waves. */
  readonly waves: readonly Wave[];
  /** How many waves there are in all. */
  readonly waveCount: number;
  /** Estimated seconds until every move has completed; null without a rate; 0 when nothing to do. */
  readonly estimatedSeconds: number | null;
  /** Highest number of moves in flight at once in the schedule. */
  readonly peakInFlight: number;
  /** The rate per broker and direction used (min of throttle and bandwidth), or null. */
  readonly bytesPerSecond: number | null;
}

export interface ScheduleOptions {
  /** Throttle in bytes/s (leader and follower rate); null = none. */
  readonly throttle: number | null;
  /** Bytes/s a broker can copy unthrottled (e.g. the simulator's), when known. */
  readonly bandwidth?: number | null;
  /** Keep at most this many waves in the answer (the duration covers all). Default: all. */
  readonly maxWaves?: number;
}

interface Copy {
  readonly move: number;
  readonly from: number;
  readonly to: number;
  remaining: number;
}

/**
 * The waves a paced reassignment runs and how long it takes. Partitions 'moving' are in flight
 * from the start (with their bytesDone), 'queued' ones are started by the greedy picker as slots
 * free up; the others are ignored. Without a rate, the waves are computed with bytes as time
 * (their order and grouping are still the real ones) and the seconds are null.
 */
export function planWaves(
  partitions: readonly PacedPartition[],
  bounds: ConcurrencyBounds,
  order: PacingOrder,
  options: ScheduleOptions,
): WaveSchedule {
  return drain(planWavesSteps(partitions, bounds, order, options));
}

/** Events of the schedule handled between two yields of planWavesSteps. */
const WAVE_STEP_EVENTS = 64;

/** planWaves in steps (plan.ts Steps): the same schedule, yielding every WAVE_STEP_EVENTS completions. */
export function* planWavesSteps(
  partitions: readonly PacedPartition[],
  bounds: ConcurrencyBounds,
  order: PacingOrder,
  options: ScheduleOptions,
): Steps<WaveSchedule> {
  let events = 0;
  const rates = [options.throttle, options.bandwidth].filter((r): r is number => typeof r === 'number' && r > 0);
  const rate = rates.length > 0 ? Math.min(...rates) : null;
  const unit = rate ?? 1;
  const maxWaves = options.maxWaves ?? Infinity;

  const queued = partitions.filter((p) => p.state === 'queued');
  const ordered = queueOrder(queued, order).map((i) => queued[i]);
  const moving = partitions.filter((p) => p.state === 'moving');
  const all = [...moving, ...ordered]; // move index: moving first, then queue positions
  yield;
  const brokersOf: number[][] = [];
  for (let i = 0; i < all.length; i++) {
    brokersOf.push(moveBrokers(all[i]));
    if ((i + 1) % STEP_ITEMS === 0) yield;
  }
  const picker = new PacingPicker(brokersOf.slice(moving.length), bounds);

  const copies = new Set<Copy>();
  const copiesLeft = new Int32Array(all.length);
  const outCount = new Map<number, number>();
  const inCount = new Map<number, number>();
  const waves: Wave[] = [];
  let now = 0;
  let peak = 0;
  let inFlight = 0;
  let waveCount = 0;
  const instant: number[] = []; // moves with nothing to copy, completing at once

  const begin = (m: number): void => {
    const p = all[m];
    const source = moveSource(p);
    const dests = moveDestinations(p);
    const remaining = Math.max(0, p.sizeBytes - (p.state === 'moving' ? (p.bytesDone ?? 0) : 0));
    inFlight++;
    if (dests.length === 0 || source === undefined || remaining === 0) {
      instant.push(m);
      return;
    }
    copiesLeft[m] = dests.length;
    for (const to of dests) {
      copies.add({ move: m, from: source, to, remaining });
      outCount.set(source, (outCount.get(source) ?? 0) + 1);
      inCount.set(to, (inCount.get(to) ?? 0) + 1);
    }
  };
  const end = (m: number): void => {
    inFlight--;
    if (m < moving.length) picker.release(brokersOf[m]);
    else picker.finish(m - moving.length);
  };
  const startWave = (initial: number[]): void => {
    const started = [...initial];
    for (const pos of picker.start()) started.push(moving.length + pos);
    if (started.length === 0) return;
    for (const m of started) begin(m);
    peak = Math.max(peak, inFlight);
    if (waves.length < maxWaves) {
      waves.push({
        index: waveCount,
        startSeconds: rate === null ? null : now,
        partitions: started.map((m) => ({ topic: all[m].topic, partition: all[m].partition })),
      });
    }
    waveCount++;
  };

  for (let m = 0; m < moving.length; m++) picker.occupy(brokersOf[m]);
  startWave(moving.map((_, m) => m));

  for (;;) {
    if (++events % WAVE_STEP_EVENTS === 0) yield;
    // Moves with nothing to copy end now, and may start others at the same instant.
    while (instant.length > 0) {
      for (const m of instant.splice(0)) end(m);
      startWave([]);
    }
    if (copies.size === 0) break;
    // Rates, the next completion, advance.
    let dt = Infinity;
    const rateOf = new Map<Copy, number>();
    for (const c of copies) {
      const r = Math.min(unit / outCount.get(c.from)!, unit / inCount.get(c.to)!);
      rateOf.set(c, r);
      dt = Math.min(dt, c.remaining / r);
    }
    now += dt;
    const ended: number[] = [];
    for (const c of copies) {
      c.remaining -= rateOf.get(c)! * dt;
      if (c.remaining <= 1e-9 * Math.max(1, unit)) {
        copies.delete(c);
        outCount.set(c.from, outCount.get(c.from)! - 1);
        inCount.set(c.to, inCount.get(c.to)! - 1);
        if (--copiesLeft[c.move] === 0) ended.push(c.move);
      }
    }
    for (const m of ended) end(m);
    startWave([]);
  }

  return {
    waves,
    waveCount,
    estimatedSeconds: rate === null ? (all.length === 0 ? 0 : null) : now,
    peakInFlight: peak,
    bytesPerSecond: rate,
  };
}

/** Counts of partitions per state. */
export function countStates(partitions: Iterable<{ readonly state: MoveState }>): Record<MoveState, number> & { total: number } {
  const out = { total: 0, queued: 0, moving: 0, completed: 0, failed: 0, cancelled: 0 };
  for (const p of partitions) {
    out[p.state]++;
    out.total++;
  }
  return out;
}

/**
 * ETA of a running paced reassignment, queue included: the schedule of what is moving (with
 * the bytes it has done) and what is queued. With a rate (throttle or bandwidth) it is the model's
 * duration; without one, the remaining bytes through the busiest broker over the observed
 * aggregate rate scaled to that broker is unknowable, so it falls back to remaining bytes ÷
 * `observedBytesPerSecond` (null when that is unknown or 0).
 */
export function pacedEtaSeconds(
  partitions: readonly PacedPartition[],
  bounds: ConcurrencyBounds,
  order: PacingOrder,
  options: ScheduleOptions & { observedBytesPerSecond?: number | null },
): number | null {
  // Without a rate the schedule has no duration (null, or 0 with nothing left): not worth running it.
  if ([options.throttle, options.bandwidth].some((r) => typeof r === 'number' && r > 0)) {
    const schedule = planWaves(partitions, bounds, order, { ...options, maxWaves: 0 });
    if (schedule.estimatedSeconds !== null) return schedule.estimatedSeconds;
  } else if (!partitions.some((p) => p.state === 'queued' || p.state === 'moving')) return 0;
  const observed = options.observedBytesPerSecond;
  if (observed === null || observed === undefined || observed <= 0) return null;
  let remaining = 0;
  for (const p of partitions) {
    const copies = moveDestinations(p).length;
    if (p.state === 'queued') remaining += p.sizeBytes * copies;
    else if (p.state === 'moving') remaining += Math.max(0, p.sizeBytes - (p.bytesDone ?? 0)) * copies;
  }
  return remaining / observed;
}
