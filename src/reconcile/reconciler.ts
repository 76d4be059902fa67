// The convergence loop (the Kubernetes controller pattern). Every RECONCILE_INTERVAL_MS, in
// every gateway instance: read the desired state (the state topic), read the actual state
// (ListPartitionReassignments, Metadata, throttle configs) and apply the difference:
//
// - a pending record past its start deadline (its writer died or hung): adopted as running when
//   Kafka shows its partitions moving, completed when they are already at their target, failed
//   otherwise. Failing is the safe choice: the caller never got a 202 (or got one and sees
//   `failed`), and starting a move hours after it was asked for would surprise everybody;
// - a running record none of whose partitions moves any more: completed when they reached the
//   target, cancelled otherwise (someone cancelled it outside the gateway);
// - throttle requests past their ttl, or whose awaited moves finished (autoRemove): dropped;
// - then one throttle sync: whatever no live demand needs any more is removed, restoring prior
//   values and leaving other people's throttles alone (see throttle-sync.ts);
// - finished records past the retention: tombstoned.
//
// Every step is idempotent and safe to run in several instances at once: they write the same
// conclusions from the same observations (last write wins with equal content), and the throttle
// sync computes the same operations from the same configs.
import { performance } from 'node:perf_hooks';
import type { Logger } from '../observability/logger.js';
import type { ReassignmentMetrics } from '../observability/reassignment-metrics.js';
import type { KafkaAdmin } from '../kafka/kafka-admin.js';
import { describePartitions, type TopicPartitions } from '../kafka/partitions.js';
import { alterPartitionReassignments, listPartitionReassignments, type MovingPartition } from '../kafka/reassignments.js';
import type { RecentRead } from '../kafka/recent-read.js';
import { throttleRequestKey, reassignmentKey, type PartitionState, type ReassignmentPartitionRecord, type ReassignmentRecord, type StateValue, type ThrottleRequestRecord } from '../state/records.js';
import type { StateStore, StateView } from '../state/store.js';
import type { ReassignmentConfig } from './config.js';
import { activePartitions, attributeMovesPaced, isLive, lateStartsOfCancelled, PACE_EVERY, partitionId, type AttributedMoves, type Pace } from './ownership.js';
import type { ProgressTracker } from './progress.js';
import { keptThrottles } from './reassignment-service.js';
import type { ThrottleSync } from './throttle-sync.js';
import { Pacer, pacedMoving, withRecordClaim } from './pacer.js';
import { observeLogDirMoves, type LogDirObservation } from './log-dir-moves.js';
import { boundedError, makePacer } from '../state/layout.js';
import { END_WATCH_MAX_PARTITIONS, endWatchSample, type EndWatchPartition } from './end-watch.js';
import { HealthInterlock } from './health.js';
import { DeadlinePacing } from './deadline-pacing.js';
import { LeaderElections } from './leader-elections.js';

export interface ReconcilerDeps {
  kafka: KafkaAdmin;
  store: StateStore;
  throttles: ThrottleSync;
  progress: ProgressTracker;
  config: ReassignmentConfig;
  metrics?: ReassignmentMetrics;
  logger?: Logger;
  now?: () => number;
  /** Every move in the cluster, shared with GET /reassignments (reassignment-service.ts movesRead); each pass reads it fresh. */
  movesRead?: RecentRead<MovingPartition[]>;
  /** Unthrottled copy speed per broker when known (the embedded simulator's): deadline pacing's forecast. */
  bandwidthBytesPerSecond?: number | null;
  /** TEST ONLY: forced interleavings (a pass held after deciding a record's write, before taking its claim). */
  hooks?: { gate?: (point: 'before-record-write', id: string) => Promise<void> | void };
}

const sameSet = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x) => b.includes(x));
const MOVING: ReadonlySet<PartitionState> = new Set(['moving']);
/** End watch period, and the most partitions it asks Kafka about (its sample; end-watch.ts). */
export const END_WATCH_MS = 250;
export { END_WATCH_MAX_PARTITIONS };
const QUEUED_OR_MOVING: ReadonlySet<PartitionState> = new Set(['queued', 'moving']);

/**
 * Whether a pass stops short (the next one starts at once and does everything): only a pass of
 * the loop (`scheduled`), only when the end watch saw an end after the pass read Kafka's moves
 * (`movesStale`), and not right after a cut pass, so that a burst of ends cannot cut pass after
 * pass; unless the watch saw its whole sample end (`sampleDrained`: the moves with the most
 * bytes left, likely the last). Without that, the pass after a cut one, having read the moves
 * just before the last one ended, spent ~0.5 s rewriting records on a stale list at 100k
 * partitions before the next pass could remove the throttles (0.86 s after Kafka's last end).
 * A drained sample is picked again only by a full pass, from fewer moves each time.
 */
export function passMayBeCut(s: { scheduled: boolean; cutLast: boolean; movesStale: boolean; sampleDrained: boolean }): boolean {
  return s.scheduled && s.movesStale && (!s.cutLast || s.sampleDrained);
}

/**
 * Topics of partitions that a live record has sent to Kafka (moving) and that Kafka no longer
 * lists as moving (`movingIds`: partitionId of each move Kafka lists), plus those of pending
 * records past their start deadline (`pendingDue`). O(partitions of live records), yielding to
 * the event loop (`pace`) on the way. Only the records `include` accepts.
 */
export async function endedTopics(
  view: StateView,
  movingIds: ReadonlySet<string>,
  pendingDue: (r: ReassignmentRecord) => boolean,
  pace: Pace = async () => {},
  include: (r: ReassignmentRecord) => boolean = () => true,
): Promise<Set<string>> {
  const topics = new Set<string>();
  for (const r of [...view.reassignments.values()]) {
    if (!include(r)) continue;
    let open: ReadonlySet<PartitionState>;
    if (r.state === 'pending') {
      if (!pendingDue(r)) continue;
      open = QUEUED_OR_MOVING;
    } else if (r.state === 'running') open = MOVING;
    else continue;
    const ps = r.partitions;
    for (let i = 0; i < ps.length; i++) {
      if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
      const p = ps[i]!;
      if (!p.supersededBy && open.has(p.state) && !topics.has(p.topic) && !movingIds.has(partitionId(p.topic, p.partition))) topics.add(p.topic);
    }
  }
  return topics;
}

/**
 * Running records with throttles to remove whose moves all ended: Kafka lists none of their
 * partitions (`moves`), none waits for a wave (queued) or for its intra-broker copy
 * (`dirs.pending`). Whatever their partitions' placement says, #decide ends them (completed or
 * cancelled): so their demand can be recorded as ended (`movesEndedAt`) before that placement
 * is read. Only records as they were when Kafka's moves were read (`before`).
 */
export async function movesEndedRecords(view: StateView, before: ReadonlyMap<string, ReassignmentRecord>, moves: AttributedMoves, pending: ReadonlySet<string>, pace: Pace): Promise<Set<string>> {
  const out = new Set<string>();
  for (const r of view.reassignments.values()) {
    if (r.state !== 'running' || r.movesEndedAt !== undefined || !r.throttleDemand || !r.autoRemoveThrottle) continue;
    if (before.get(r.id) !== r || (moves.movingOf.get(r.id)?.size ?? 0) > 0) continue;
    let open = false;
    const ps = r.partitions;
    for (let i = 0; i < ps.length && !open; i++) {
      if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
      const p = ps[i]!;
      if (p.supersededBy) continue;
      open = p.state === 'queued' || (p.state === 'moving' && p.logDirs !== undefined && pending.has(partitionId(p.topic, p.partition)));
    }
    if (!open) out.add(r.id);
  }
  return out;
}

/** Longest a pass computes before it yields to the event loop (ms): /healthz and the GETs answer meanwhile. */
export const PASS_SLICE_MS = 10;

/** How long a pass waits for another holder of a record's claim before leaving the write to the next pass. */
export const RECORD_CLAIM_WAIT_MS = 2000;

interface Observation {
  /** Per reassignment id: the partitions Kafka lists as moving that are its. */
  movingOf: ReadonlyMap<string, ReadonlySet<string>>;
  /** Current replicas of the observed partitions: by topic, indexed by partition number. */
  replicas: Map<string, (number[] | undefined)[]>;
  throttleRequests: ReadonlyMap<string, unknown>;
}

async function observation(view: StateView, moves: AttributedMoves, placement: TopicPartitions[], pace: Pace): Promise<Observation> {
  const replicas = new Map<string, (number[] | undefined)[]>();
  for (const t of placement) {
    const byPartition: (number[] | undefined)[] = [];
    for (const p of t.partitions) byPartition[p.partition] = p.replicas;
    replicas.set(t.name, byPartition);
    await pace();
  }
  return { movingOf: moves.movingOf, replicas, throttleRequests: view.throttleRequests };
}

export class Reconciler {
  readonly #d: ReconcilerDeps;
  readonly #now: () => number;
  /** Pending records by id -> when this instance first saw them pending (monotonic ms). */
  readonly #pendingSeen = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = true;
  /** When this instance first saw a throttle request's reason end (removal delay of explicit autoRemove/ttl). */
  readonly #endSeen = new Map<string, number>();
  readonly #pacer: Pacer;
  /** Health interlocks (issue 30): holds paced reassignments on cluster trouble (health.ts). */
  readonly #health: HealthInterlock;
  /** Deadline pacing (issue 30): the throttle of `finishBy` reassignments, each pass (deadline-pacing.ts). */
  readonly #deadlines: DeadlinePacing;
  /** Preferred leader elections of completed partitions (electLeaders: true; leader-elections.ts). */
  readonly #elections: LeaderElections;
  /** Intra-broker moves answered 9 after their partition stopped moving: passes so far (log-dir-moves.ts). */
  readonly #dirAbsent = new Map<string, number>();
  #pollTimer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  /** A pass was asked for while one ran: run another right after it. */
  #again = false;
  /** The pacing step started by kick(), and whether another was asked for meanwhile. */
  #pacing: Promise<void> | undefined;
  #pacingAgain = false;
  /**
   * Per running reassignment: the last time this instance saw one of its partitions still
   * moving (full pass or end watch). Kafka finished its last move after that: the removal delay
   * is measured from it (an over-estimate by at most one observation period).
   */
  readonly #lastSeenMoving = new Map<string, number>();
  /** What the end watch asks Kafka about: picked by each full pass (end-watch.ts). */
  #endSample: EndWatchPartition[] = [];
  #watchTimer: NodeJS.Timeout | undefined;
  /** The end watch's request in flight. */
  #watchTask: Promise<void> | undefined;
  /** The progress step in flight (it may outlive its pass: #progressUnlessEnded). */
  #progressTask: Promise<unknown> | undefined;
  /** Set while a pass waits for its progress step: the end watch calls it on an end. */
  #endSeenDuringPass: (() => void) | undefined;
  /** The end watch saw an end after the pass in flight read Kafka's moves (#passSteps). */
  #movesStale = false;
  /** The last pass was cut short (the next one is not, unless the watch's sample drains: passMayBeCut). */
  #cutLast = false;
  /**
   * The end watch saw every partition of its sample end since this pass read Kafka's moves:
   * the sample is those with the most bytes left, so these are likely the last ends.
   */
  #sampleDrained = false;
  /** The pass about to start was scheduled by the loop (only those are cut short). */
  #scheduledPass = false;

  constructor(deps: ReconcilerDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
    this.#deadlines = new DeadlinePacing({ store: deps.store, progress: deps.progress, config: deps.config, now: this.#now, bandwidth: deps.bandwidthBytesPerSecond ?? null, ...(deps.metrics && { metrics: deps.metrics }), ...(deps.logger && { logger: deps.logger }) });
    this.#pacer = new Pacer({ kafka: deps.kafka, store: deps.store, throttles: deps.throttles, config: deps.config, ...(deps.logger && { logger: deps.logger }), now: this.#now });
    this.#elections = new LeaderElections({ kafka: deps.kafka, store: deps.store, config: deps.config, now: this.#now, ...(deps.logger && { logger: deps.logger }) });
    this.#health = new HealthInterlock({ kafka: deps.kafka, store: deps.store, config: deps.config, now: this.#now, ...(deps.metrics && { metrics: deps.metrics }), ...(deps.logger && { logger: deps.logger }) });
  }

  get pacer(): Pacer {
    return this.#pacer;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
    this.#schedulePoll();
    this.#watchTimer = setInterval(() => void this.#watchEnds(), END_WATCH_MS);
    this.#watchTimer.unref();
  }

  /**
   * End watch (between full passes): every END_WATCH_MS one ListPartitionReassignments for the
   * sample the last full pass picked (at most END_WATCH_MAX_PARTITIONS of the partitions still
   * moving, those with the most bytes left: likely the last to finish). When none of a running
   * reassignment's sampled partitions moves any more, a full pass runs at once (right after the
   * one in flight, if any): it reads every move, completes the record (or re-picks the sample
   * when others still move) and removes the throttles. So an end is acted on within
   * END_WATCH_MS + one pass, not one interval, at any size.
   */
  #watchEnds(): Promise<void> {
    // One request at a time: a caller meanwhile gets the one in flight.
    if (this.#watchTask) return this.#watchTask;
    const task = this.#watchOnce().finally(() => (this.#watchTask = undefined));
    this.#watchTask = task;
    return task;
  }

  async #watchOnce(): Promise<void> {
    const sample = this.#endSample;
    if (this.#stopped || sample.length === 0) return;
    try {
      const listed = await listPartitionReassignments(this.#d.kafka, sample.map((s) => ({ topic: s.topic, partition: s.partition })));
      const now = this.#now();
      const still = new Set(listed.map((m) => partitionId(m.topic, m.partition)));
      const seen = new Set<string>();
      const sampled = new Set<string>();
      for (const s of sample) {
        sampled.add(s.id);
        if (still.has(partitionId(s.topic, s.partition))) seen.add(s.id);
      }
      for (const id of seen) this.#lastSeenMoving.set(id, now);
      const ended = [...sampled].filter((id) => !seen.has(id));
      // A full pass picked another sample meanwhile: this answer is about the old one.
      if (ended.length === 0 || this.#endSample !== sample || this.#stopped) return;
      // Watched no more until the next full pass picks again (a failing pass does not loop).
      const done = new Set(ended);
      this.#endSample = sample.filter((s) => !done.has(s.id));
      if (this.#endSample.length === 0) this.#sampleDrained = true;
      this.#passSoon();
    } catch {
      // The full pass reports errors; the watch just tries again.
    }
  }

  /**
   * Whether one of the records this pass saw moving has none of its moves listed any more,
   * asked about a sample picked like the end watch's (of the moves this pass read): then the
   * pass is stale (#movesStale) and the next one runs at once.
   */
  async #recheckEnds(view: StateView, moves: AttributedMoves, pace: Pace): Promise<void> {
    if (moves.movingOf.size === 0) return;
    const progress = this.#d.progress;
    const sample = await endWatchSample(view.reassignments.values(), moves.movingOf, (id) => progress.likelyLast(id), END_WATCH_MAX_PARTITIONS, pace);
    if (sample.length === 0) return;
    const listed = await listPartitionReassignments(this.#d.kafka, sample.map((s) => ({ topic: s.topic, partition: s.partition })));
    const still = new Set(listed.map((m) => partitionId(m.topic, m.partition)));
    const sampled = new Set<string>();
    const seen = new Set<string>();
    for (const s of sample) {
      sampled.add(s.id);
      if (still.has(partitionId(s.topic, s.partition))) seen.add(s.id);
    }
    if ([...sampled].some((id) => !seen.has(id))) {
      this.#movesStale = true;
      this.#again = true;
    }
  }

  /** A full pass now, or right after the one in flight (which stops waiting for its progress snapshot). */
  #passSoon(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      this.#movesStale = true;
      this.#endSeenDuringPass?.();
    } else this.#schedule(0);
  }

  /**
   * The progress step, which a pass stops waiting for when the end watch sees an end meanwhile:
   * at 100k moving partitions a snapshot (DescribeLogDirs of every moving partition) takes
   * seconds, and the end must not wait for it. It finishes in the background; passes skip the
   * step while it runs (one snapshot at a time).
   */
  async #progressUnlessEnded(moves: AttributedMoves, pace: Pace): Promise<void> {
    if (this.#progressTask) return;
    const task = this.#step('progress', () => this.#observeProgress(this.#d.store.view(), moves, pace)).finally(() => {
      this.#progressTask = undefined;
    });
    this.#progressTask = task;
    // An end seen earlier in this pass (one that may not be cut: #passSteps): the next pass
    // runs right after it, and the snapshot finishes in the background meanwhile.
    if (this.#movesStale) return;
    const ended = new Promise<void>((resolve) => (this.#endSeenDuringPass = resolve));
    try {
      await Promise.race([task, ended]);
    } finally {
      this.#endSeenDuringPass = undefined;
    }
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#again = false;
      this.#scheduledPass = true;
      this.#running = this.reconcileOnce().finally(() => {
        this.#running = undefined;
        this.#schedule(this.#again ? 0 : this.#d.config.reconcileIntervalMs);
      });
    }, ms);
    // The loop alone must not keep a process alive (tests, shutdown).
    this.#timer.unref();
  }

  /**
   * A paced move ended: a pacing step now, even while a regular pass runs (the pacer works under
   * its claim and re-reads the record and Kafka, so it is safe beside a pass), one at a time. A
   * record whose queue and moves are all done gets a full pass at once, which completes it and
   * removes its throttles.
   */
  kick(): void {
    if (this.#stopped) return;
    if (this.#pacing) {
      this.#pacingAgain = true;
      return;
    }
    this.#pacingAgain = false;
    this.#pacing = (async () => {
      await this.#step('pacing', () => this.#pace(this.#d.store.view()));
      const done = [...this.#d.store.view().reassignments.values()].some(
        (r) => r.state === 'running' && r.concurrency !== null && !r.partitions.some((p) => !p.supersededBy && (p.state === 'queued' || p.state === 'moving')),
      );
      if (done) {
        if (this.#running) this.#again = true;
        else this.#schedule(0);
      }
    })().finally(() => {
      this.#pacing = undefined;
      if (this.#pacingAgain) this.kick();
    });
  }

  /**
   * The fast poll of paced execution: while a paced reassignment has moves in flight (as this
   * instance's view of the state topic says), ask Kafka every PACING_POLL_MS which partitions
   * move (one ListPartitionReassignments, nothing else) and run a pass as soon as one of them
   * ended, so the next wave starts without waiting for RECONCILE_INTERVAL_MS.
   */
  #schedulePoll(): void {
    if (this.#stopped) return;
    this.#pollTimer = setTimeout(() => {
      this.#polling = this.#poll()
        .catch(() => undefined)
        .finally(() => {
          this.#polling = undefined;
          this.#schedulePoll();
        });
    }, this.#d.config.pacingPollMs);
    this.#pollTimer.unref();
  }

  async #poll(): Promise<void> {
    const records = [...this.#d.store.view().reassignments.values()].filter((r) => r.state === 'running' && r.concurrency !== null);
    if (records.length === 0 || this.#pacing) return;
    const inFlight = new Map(records.map((r) => [r.id, r.partitions.filter((p) => p.state === 'moving' && !p.supersededBy)]));
    const asked = [...inFlight.values()].flat().map((p) => ({ topic: p.topic, partition: p.partition }));
    // Nothing recorded in flight but a queue (paused, or a wave to start): the regular passes do it.
    if (asked.length === 0) return;
    // Asks Kafka about the moves in flight only (bounded by the concurrency), not every move in
    // the cluster: this poll runs every PACING_POLL_MS.
    const listed = pacedMoving(records, await listPartitionReassignments(this.#d.kafka, asked));
    for (const [id, ps] of inFlight) {
      if ((listed.get(id) ?? 0) < ps.length) {
        this.kick();
        return;
      }
    }
  }

  /** Stops the loop; resolves when a pass in flight has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#pollTimer);
    await this.#polling?.catch(() => undefined);
    await this.#pacing?.catch(() => undefined);
    clearInterval(this.#watchTimer);
    await this.#running?.catch(() => undefined);
    await this.#progressTask?.catch(() => undefined);
  }

  /** Steps of the pass in flight that failed (a pass succeeds only when none did). */
  #failedSteps = 0;

  async #step<T>(step: string, fn: () => Promise<T>): Promise<T | undefined> {
    const started = performance.now();
    try {
      return await fn();
    } catch (err) {
      this.#failedSteps++;
      this.#d.metrics?.reconcilerError(step);
      this.#d.logger?.warn('reconcile step failed', { step, err: err instanceof Error ? err.message : String(err) });
      return undefined;
    } finally {
      this.#d.metrics?.reconcileStep?.(step, (performance.now() - started) / 1000);
    }
  }

  /**
   * One pass. Never throws: a failing step is counted, logged, and retried next time. Each
   * observation is its own step, and the throttle sync runs whatever else failed: a pass that
   * cannot read Kafka's moves (or one topic's placement) still removes the throttles of
   * reassignments whose end the state topic already records.
   */
  async reconcileOnce(): Promise<void> {
    const started = performance.now();
    const scheduled = this.#scheduledPass;
    this.#scheduledPass = false;
    this.#failedSteps = 0;
    this.#d.metrics?.setReconcileInterval(this.#d.config.reconcileIntervalMs / 1000);
    const cut = await this.#passSteps(scheduled);
    this.#cutLast = cut;
    this.#d.metrics?.setThrottleRemovalPending(this.#removalPendingSeconds(this.#d.store.view()));
    this.#d.metrics?.reconciled(this.#failedSteps === 0, (performance.now() - started) / 1000);
  }

  /**
   * The steps of a pass. Returns true when it was cut short: the end watch saw an end after
   * this pass had read Kafka's moves, so the rest of it would act on a stale list and the end
   * would wait for it (at 100k moving partitions, seconds). The next pass starts right after
   * (#passSoon) and does everything; a scheduled pass may be cut, never two in a row unless
   * the end watch saw its whole sample end (passMayBeCut).
   */
  /**
   * Whether a pending record's writer has had its start timeout: measured on this instance's
   * monotonic clock from when it first saw the record pending, never by comparing the writer's
   * wall-clock deadline with ours (a survivor 23 s behind left a dead writer's record pending,
   * with its throttles, for longer than the harness waits: issue 28's harness, seed 70). The
   * timeout is the writer's own (startDeadline - createdAt: one clock, no skew in it).
   */
  #pendingDue(r: ReassignmentRecord): boolean {
    const mono = performance.now();
    let seen = this.#pendingSeen.get(r.id);
    if (seen === undefined) {
      // Forget records that are no longer pending (a map of the pending ones only).
      for (const id of this.#pendingSeen.keys()) if (this.#d.store.view().reassignments.get(id)?.state !== 'pending') this.#pendingSeen.delete(id);
      this.#pendingSeen.set(r.id, (seen = mono));
    }
    return mono - seen >= Math.max(0, r.startDeadline - r.createdAt);
  }

  /** A cancel is honoured even by a wave Kafka applied after it (ownership.ts lateStartsOfCancelled). */
  async #cancelLateStarts(moving: readonly MovingPartition[]): Promise<void> {
    const late = lateStartsOfCancelled(moving, this.#d.store.view(), this.#now());
    if (late.length === 0) return;
    this.#d.logger?.warn('cancelling moves that started after their reassignment was cancelled', { partitions: late.slice(0, 20).map((m) => partitionId(m.topic, m.partition)), count: late.length });
    const results = await alterPartitionReassignments(this.#d.kafka, late.map((m) => ({ topic: m.topic, partition: m.partition, replicas: null })));
    // 85 NO_REASSIGNMENT_IN_PROGRESS: it ended meanwhile (the next pass sees where it is).
    const failed = results.filter((r) => !r.ok && r.error.code !== 85);
    if (failed.length > 0) throw new Error(`cancelling late starts: ${failed.length} refused by Kafka`);
  }

  async #passSteps(scheduled: boolean): Promise<boolean> {
    const cut = () => passMayBeCut({ scheduled, cutLast: this.#cutLast, movesStale: this.#movesStale, sampleDrained: this.#sampleDrained });
    const view = await this.#step('state', () => this.#d.store.refresh());
    // After a loss of the state topic: the ledger this instance had read goes into the new one (orphaned/...).
    if (view) await this.#step('orphans', () => this.#d.throttles.persistLostLedger());
    // The records as they were before Kafka's moves are read: the view is live (a start on this
    // instance writes into it under any await), and a record written after the list below was
    // asked for must not be judged by it (its just-started partitions would look cancelled).
    const recordsBeforeObservation = view ? new Map(view.reassignments) : undefined;
    // Every loop of the pass over all moving / all record partitions yields at least every
    // PASS_SLICE_MS; Kafka's moves are attributed to records once, for every step below.
    const pace = makePacer(PASS_SLICE_MS);
    const observed = await this.#step('observe', async () => {
      this.#movesStale = false;
      this.#sampleDrained = false;
      // A fresh read, which GET /reassignments then shares (src/kafka/recent-read.ts).
      const moving = await (this.#d.movesRead ? this.#d.movesRead.fresh() : listPartitionReassignments(this.#d.kafka));
      return { moving, moves: view ? await attributeMovesPaced(moving, view, pace) : undefined };
    });
    const moving = observed?.moving;
    const moves = observed?.moves;
    // Intra-broker moves (log_dirs): re-send what is not placed yet; done/failed per partition.
    // Before the placement read: the view may change under an await (a start writing its record).
    const dirs = view && moves ? await this.#step('log-dirs', () => observeLogDirMoves(this.#d.kafka, view, moves.movingIds, this.#dirAbsent)) : undefined;
    // The end watch's sample, from the moves just read: the watch looks at them during the rest
    // of this pass (at 100k partitions, up to a second of placement and record writes while a
    // burst of moves ends), so Kafka's last end is seen within END_WATCH_MS, not after the pass.
    if (moves) await this.#step('end-watch', () => this.#pickEndSample(this.#d.store.view(), moves, pace));
    if (cut()) return true;
    // Records whose moves all ended are recorded as such first (a header-only write), so the
    // throttle sync below removes their throttles; their end (completed or cancelled: Metadata
    // of every partition, every chunk rewritten; at 100k partitions ~1 s) is written after it.
    let movesEnded = new Set<string>();
    if (view && moves && dirs && recordsBeforeObservation) {
      const candidates = await movesEndedRecords(view, recordsBeforeObservation, moves, dirs.pending, pace);
      if (candidates.size > 0) movesEnded = (await this.#step('moves-ended', () => this.#markMovesEnded(view, candidates))) ?? movesEnded;
    }
    let placement: TopicPartitions[] | undefined;
    let placementMs = 0;
    if (view && moves) {
      // Placement (Metadata) only for topics with a partition whose move ended since the last
      // pass (to tell completed from cancelled): none while everything still moves. Not yet
      // for the records just marked (after the throttle sync, below).
      const topics = await endedTopics(view, moves.movingIds, (r) => this.#pendingDue(r), pace, (r) => !movesEnded.has(r.id));
      const started = performance.now();
      placement = topics.size === 0 ? [] : await this.#step('placement', () => describePartitions(this.#d.kafka, [...topics]));
      placementMs = performance.now() - started;
    }

    // Metadata of many topics took longer than the watch's period (~0.5-0.8 s at 100k
    // partitions), and Kafka's last moves may have ended meanwhile: then this pass would write a
    // record the next one writes again (at 100k, ~1 s each) before the throttles can go. Asked
    // once (the watch's sample may be spent already: it saw the first of these ends, and this
    // pass read the rest still moving).
    if (view && moves && placementMs > END_WATCH_MS && scheduled && !this.#cutLast) await this.#step('recheck', () => this.#recheckEnds(view, moves, pace));
    if (cut()) return true;
    if (view && moves && placement && dirs && recordsBeforeObservation) await this.#step('reassignments', () => this.#resolveRecords(view, recordsBeforeObservation, moves, placement, dirs, pace, cut));
    if (cut()) return true;
    // Health interlocks: hold (or resume) paced reassignments before the pacer looks for a wave.
    // Preferred leaders of the partitions whose moves completed (records with electLeaders).
    if (view) await this.#step('leader-elections', () => this.#elections.pass(this.#d.store.view()));
    if (view && moves) await this.#step('health', () => this.#health.pass(this.#d.store.view(), moves.movingIds));
    if (view && moving) await this.#step('pacing', () => this.#pace(this.#d.store.view()));
    // Only moves no live reassignment owns can be late starts: none (the usual pass, 100k moves
    // of one running reassignment included) -> no look at the cancelled records at all.
    if (view && moving && moves && moves.external > 0) await this.#step('late-starts', () => this.#cancelLateStarts(moving));
    if (view && moves) await this.#step('throttle-requests', () => this.#expireRequests(this.#d.store.view(), moves.movingIds));
    // Deadline pacing: this pass's throttle of each finishBy reassignment, applied by the sync below.
    if (view && moves) await this.#step('deadline', () => this.#deadlines.pass(this.#d.store.view()));
    // Another instance syncing the same resources: it does the work, we look again next pass.
    const sync = await this.#step('throttles', () => this.#d.throttles.sync({ wait: false, removalOnlyFallback: true }));
    const syncedAt = this.#now();
    if (movesEnded.size > 0 && moves && dirs) await this.#step('ends', () => this.#recordEnds(movesEnded, moves, dirs, pace));
    if (sync && !sync.busy) {
      // Per-resource failures do not throw, but a pass that could not apply them did not succeed:
      // counted as an error of the step, so the errors metric shows why successes stopped.
      if (!sync.converged) {
        this.#failedSteps++;
        this.#d.metrics?.reconcilerError('throttles');
      }
      this.#d.metrics?.setThrottleRates(sync.rates);
      for (const f of sync.failures) this.#d.logger?.warn('throttle change failed', { resource: f.resource, error: f.error.name, detail: f.error.message });
      if (sync.converged) await this.#step('throttles-removed', () => this.#recordRemovals(this.#d.store.view(), syncedAt));
    }
    if (moves) {
      // The sample just picked is asked about once before the progress step (seconds at 100k,
      // and its DescribeLogDirs can hold up the watch's own request): an end that happened
      // since this pass read Kafka's moves is acted on by the next pass, at once.
      await this.#watchEnds();
      if (cut()) return true;
      await this.#progressUnlessEnded(moves, pace);
    }
    if (view) await this.#step('retention', () => this.#retire(this.#d.store.view()));
    // Claims that lost or whose holder died (lease over): tombstoned by whoever sees them.
    if (view) await this.#step('claims', () => this.#d.store.sweepClaims());
    // Records refused by fencing that are still the latest of their keys: written again as
    // accepted, so that compaction never leaves a refused one behind (src/state/fence.ts).
    if (view && this.#d.store.refusedWrites().length > 0) await this.#step('fenced-repair', () => this.#d.store.repairRefused(this.#d.config.instanceId, this.#d.config.pacingLeaseMs));
    // Chunks of a record whose writer died before its header (see src/state/layout.ts).
    if (view) await this.#step('orphan-chunks', () => this.#d.store.sweepOrphanChunks());
    return false;
  }

  /** The oldest ended reason whose gateway-owned throttles are still waiting to go (seconds; 0 = none). */
  #removalPendingSeconds(view: StateView): number {
    const now = this.#now();
    let oldest = now;
    for (const r of view.reassignments.values()) {
      // A running record whose moves are recorded as ended waits for its throttles to go too.
      if ((isLive(r) && r.movesEndedAt === undefined) || !r.throttleDemand || !r.autoRemoveThrottle || r.throttlesRemovedAt !== undefined) continue;
      oldest = Math.min(oldest, r.endedAt ?? r.movesEndedAt ?? r.updatedAt);
    }
    for (const t of view.throttleRequests.values()) {
      if (t.expiresAt !== null && t.expiresAt <= now) oldest = Math.min(oldest, this.#endSeen.get(t.id) ?? t.expiresAt);
    }
    return (now - oldest) / 1000;
  }

  async #resolveRecords(
    view: StateView,
    recordsBeforeObservation: ReadonlyMap<string, ReassignmentRecord>,
    moves: AttributedMoves,
    placement: TopicPartitions[],
    dirs: LogDirObservation,
    pace: Pace,
    stale: () => boolean = () => false,
  ): Promise<void> {
    const now = this.#now();
    const observed = await observation(view, moves, placement, pace);
    for (const r of view.reassignments.values()) {
      if (!isLive(r)) continue;
      // Written since Kafka's moves were read (a start, a wave, a PATCH): the next pass judges it.
      if (recordsBeforeObservation.get(r.id) !== r) continue;
      // The end watch saw an end since Kafka's moves were read: the pass is cut (#passSteps) and
      // the next one, right after, writes what this one would have, with the end in it. At 100k
      // partitions a record's write during a burst of ends takes ~0.5 s that the end would wait.
      if (stale()) return;
      const first = await this.#decide(r, observed, now, dirs, pace);
      if (!first || stale()) continue;
      // The write, under the record's claim (pacer.ts withRecordClaim), from the record as the
      // state topic has it now: written meanwhile (a PATCH, a wave, a cancel, on any instance)
      // -> Kafka is read again for it and the decision re-made on the fresh record, so the
      // other write is never overwritten. Another holder for too long: next pass.
      await this.#d.hooks?.gate?.('before-record-write', r.id);
      await withRecordClaim(this.#d.store, { owner: this.#d.config.instanceId, ttlMs: this.#d.config.pacingLeaseMs, purpose: 'reconcile', waitMs: RECORD_CLAIM_WAIT_MS }, r.id, async () => {
        const freshView = await this.#d.store.refresh();
        const fresh = freshView.reassignments.get(r.id);
        if (!fresh || !isLive(fresh)) return { result: undefined };
        if (fresh === r && first.extra.length === 0) {
          // Unchanged since it was decided: the same decision (#decide is pure in r and obs; a
          // kept-throttles request, `extra`, is checked against the fresh view below).
          if (first.next.state !== r.state) this.#d.logger?.info('reassignment state changed', { id: r.id, from: r.state, to: first.next.state, reason: first.next.reason });
          return { result: undefined, values: [first.next] };
        }
        let obs = observed;
        if (fresh !== r) {
          const nowMoving = await listPartitionReassignments(this.#d.kafka);
          const nowPlacement = await describePartitions(this.#d.kafka, [...new Set(fresh.partitions.map((p) => p.topic))]);
          obs = await observation(freshView, await attributeMovesPaced(nowMoving, freshView, pace), nowPlacement, pace);
        }
        const decided = await this.#decide(fresh, obs, this.#now(), dirs, pace);
        if (!decided) return { result: undefined };
        if (decided.next.state !== fresh.state) this.#d.logger?.info('reassignment state changed', { id: r.id, from: fresh.state, to: decided.next.state, reason: decided.next.reason });
        return { result: undefined, values: [decided.next, ...decided.extra] };
      });
    }
  }

  /**
   * What a pass writes for the live record `r` given what Kafka shows (`obs`), or undefined
   * (nothing to write). Pure in `r` and `obs` (`pace` only yields to the event loop).
   */
  async #decide(r: ReassignmentRecord, obs: Observation, now: number, dirs: LogDirObservation, pace: Pace): Promise<{ next: ReassignmentRecord; extra: StateValue[] } | undefined> {
    const still = obs.movingOf.get(r.id);
    // The moves ended when a pass recorded it (the end is written later, after the throttle sync).
    const endedAt = r.movesEndedAt ?? now;
    const reached = (p: ReassignmentPartitionRecord) => {
      const cur = obs.replicas.get(p.topic)?.[p.partition];
      return cur !== undefined && sameSet(cur, p.target);
    };
    const atTarget = async (x: ReassignmentRecord) => {
      const active = activePartitions(x);
      for (let i = 0; i < active.length; i++) {
        if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
        if (!reached(active[i]!)) return false;
      }
      return true;
    };
    /**
     * Partitions of `r` in `from` that Kafka does not list as moving any more: completed at
     * their target, cancelled otherwise; those still moving become `moving`. Unchanged entries
     * stay the same objects (the store rewrites only chunks with a changed entry).
     */
    const settle = async (from: ReadonlySet<PartitionState>): Promise<ReassignmentRecord['partitions']> => {
      let changed = false;
      const out: ReassignmentPartitionRecord[] = new Array(r.partitions.length);
      const one = (p: ReassignmentPartitionRecord): ReassignmentPartitionRecord => {
        if (!from.has(p.state) || p.supersededBy) return p;
        if (still?.has(partitionId(p.topic, p.partition))) {
          if (p.state === 'moving') return p;
          changed = true;
          return { ...p, state: 'moving' as const, startedAt: now };
        }
        // Paced: a partition still waiting for its wave stays queued (pacer.ts starts it).
        if (r.concurrency !== null && p.state === 'queued' && !reached(p)) return p;
        const id = partitionId(p.topic, p.partition);
        const dirError = p.logDirs && p.state === 'moving' ? dirs.failed.get(id) : undefined;
        if (dirError) {
          changed = true;
          return { ...p, state: 'failed' as const, endedAt, startError: boundedError(dirError) };
        }
        // Its intra-broker moves are still copying (or waiting to be re-sent): still moving.
        if (p.logDirs && p.state === 'moving' && dirs.pending.has(id)) return p;
        changed = true;
        return { ...p, state: reached(p) ? ('completed' as const) : ('cancelled' as const), endedAt };
      };
      for (let i = 0; i < r.partitions.length; i++) {
        if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
        out[i] = one(r.partitions[i]!);
      }
      return changed ? out : r.partitions;
    };

    const stillMoving = (still?.size ?? 0) > 0;
    let next: ReassignmentRecord | undefined;
    if (r.state === 'pending') {
      if (!this.#pendingDue(r)) return undefined; // its writer may still be starting it
      if (stillMoving) next = { ...r, partitions: await settle(QUEUED_OR_MOVING), state: 'running', startedAt: now, reason: 'adopted by the reconciler: its start was interrupted after Kafka accepted it' };
      else if (await atTarget(r)) next = { ...r, partitions: await settle(QUEUED_OR_MOVING), state: 'completed', startedAt: now, endedAt: now, reason: 'its start was interrupted; the partitions are at their target' };
      else {
        const partitions = r.partitions.map((p) => (p.state === 'queued' || p.state === 'moving' ? { ...p, state: 'cancelled' as const, endedAt: now } : p));
        next = { ...r, partitions, state: 'failed', endedAt: now, reason: 'its start was interrupted before Kafka accepted it (the gateway stopped); nothing was moved' };
      }
    } else if (r.state === 'running') {
      const partitions = await settle(MOVING);
      // Queued partitions (paced execution) keep it running even with nothing moving.
      const open = partitions.some((p) => !p.supersededBy && (p.state === 'moving' || p.state === 'queued'));
      if (!stillMoving && !open) {
        // Every partition it is responsible for completed (this pass or earlier ones).
        next = partitions.every((p) => p.supersededBy || p.state === 'completed' || p.state === 'failed')
          ? { ...r, partitions, state: 'completed', endedAt }
          : { ...r, partitions, state: 'cancelled', endedAt, reason: 'its moves ended without reaching the target: cancelled outside the gateway' };
      } else if (r.movesEndedAt !== undefined) {
        // Recorded as ended, yet moving again (re-sent outside the gateway): its demand is live again.
        const { movesEndedAt: _ended, ...rest } = r;
        return { next: { ...rest, partitions, updatedAt: now }, extra: [] };
      } else if (partitions !== r.partitions) {
        // Some partitions finished: only their chunks are rewritten.
        return { next: { ...r, partitions, updatedAt: now }, extra: [] };
      }
    }
    if (!next) return undefined;
    next = { ...next, updatedAt: now };
    // Throttles kept on purpose outlive the reassignment as a standing request.
    const extra: StateValue[] = [];
    if (!isLive(next) && next.throttleDemand && !next.autoRemoveThrottle && !obs.throttleRequests.has(`kept-${r.id}`)) extra.push(keptThrottles(next, now, r.requestedBy));
    return { next, extra };
  }

  /**
   * Records `movesEndedAt` on the records of `ids` (a header-only write: their partitions are
   * the same objects, so no chunk is rewritten), each under its claim and only if unchanged
   * since Kafka's moves were read. From then on they demand no throttles, in every instance.
   * Returns the ids written.
   */
  async #markMovesEnded(view: StateView, ids: ReadonlySet<string>): Promise<Set<string>> {
    const marked = new Set<string>();
    for (const id of ids) {
      const r = view.reassignments.get(id);
      if (!r) continue;
      const now = this.#now();
      const out = await withRecordClaim(this.#d.store, { owner: this.#d.config.instanceId, ttlMs: this.#d.config.pacingLeaseMs, purpose: 'reconcile', waitMs: RECORD_CLAIM_WAIT_MS }, id, async () => {
        const fresh = (await this.#d.store.refresh()).reassignments.get(id);
        // Written meanwhile (a PATCH, a cancel, on any instance): the regular path judges it.
        if (fresh !== r) return { result: false };
        return { result: true, values: [{ ...r, movesEndedAt: now, updatedAt: now }] };
      });
      if (out.granted && out.result) marked.add(id);
    }
    return marked;
  }

  /**
   * The end of the records marked by this pass (#markMovesEnded), after the throttle sync:
   * completed or cancelled from their partitions' placement (Metadata of their topics), judged
   * like any record from Kafka's moves as this pass read them (they had none).
   */
  async #recordEnds(ids: ReadonlySet<string>, moves: AttributedMoves, dirs: LogDirObservation, pace: Pace): Promise<void> {
    const view = this.#d.store.view();
    const marked = new Map<string, ReassignmentRecord>();
    for (const id of ids) {
      const r = view.reassignments.get(id);
      if (r && r.state === 'running' && r.movesEndedAt !== undefined) marked.set(id, r);
    }
    if (marked.size === 0) return;
    const topics = await endedTopics(view, moves.movingIds, (r) => this.#pendingDue(r), pace, (r) => marked.get(r.id) === r);
    const placement = topics.size === 0 ? [] : await describePartitions(this.#d.kafka, [...topics]);
    await this.#resolveRecords(view, marked, moves, placement, dirs, pace);
  }

  /** Paced reassignments: settle what ended, start the next waves (pacer.ts). */
  async #pace(view: StateView): Promise<void> {
    for (const r of view.reassignments.values()) {
      if (r.state !== 'running' || r.concurrency === null) continue;
      if (!r.partitions.some((p) => !p.supersededBy && (p.state === 'queued' || p.state === 'moving'))) continue;
      await this.#pacer.advance(r.id);
    }
  }

  async #expireRequests(view: StateView, movingIds: ReadonlySet<string>): Promise<void> {
    const now = this.#now();
    const writes: ThrottleRequestRecord[] = [];
    for (const t of view.throttleRequests.values()) {
      if (t.expiresAt !== null && t.expiresAt <= now) {
        if (!this.#endSeen.has(t.id)) this.#endSeen.set(t.id, t.expiresAt);
        continue; // already demands nothing; tombstoned once its throttles are gone
      }
      if (!t.autoRemove) continue;
      if (t.waitFor === null) {
        // Nothing was moving when it was set: wait for the next moves to start, then to end.
        if (movingIds.size > 0) writes.push({ ...t, waitFor: [...movingIds].sort(), updatedAt: now });
      } else if (!t.waitFor.some((id) => movingIds.has(id))) {
        if (!this.#endSeen.has(t.id)) this.#endSeen.set(t.id, now);
        writes.push({ ...t, expiresAt: now, updatedAt: now }); // demands nothing from now on
      }
    }
    if (writes.length) await this.#d.store.write(writes);
  }

  /** After a converged sync (done at `now`): ended reassignments and expired requests have no throttles left. */
  async #recordRemovals(view: StateView, now: number): Promise<void> {
    const writes: ReassignmentRecord[] = [];
    const deletes: string[] = [];
    for (const r of view.reassignments.values()) {
      if (isLive(r) || !r.throttleDemand || !r.autoRemoveThrottle || r.throttlesRemovedAt !== undefined) continue;
      writes.push({ ...r, throttlesRemovedAt: now, updatedAt: now });
      // From Kafka's completion as well as this instance can tell: the last time it saw a move
      // of it still in progress (else the end the records say).
      const from = this.#lastSeenMoving.get(r.id) ?? r.endedAt;
      this.#lastSeenMoving.delete(r.id);
      this.#d.metrics?.throttleRemoved(r.state, from !== undefined ? (now - from) / 1000 : null);
      this.#d.logger?.info('throttles removed', { reassignment: r.id, state: r.state, delaySeconds: from !== undefined ? (now - from) / 1000 : null });
    }
    for (const t of view.throttleRequests.values()) {
      if (t.expiresAt === null || t.expiresAt > now) continue;
      deletes.push(throttleRequestKey(t.id));
      const seen = this.#endSeen.get(t.id) ?? t.expiresAt;
      this.#endSeen.delete(t.id);
      this.#d.metrics?.throttleRemoved(t.autoRemove ? 'auto-remove' : 'ttl', (now - seen) / 1000);
    }
    if (writes.length || deletes.length) await this.#d.store.write(writes, deletes);
  }

  async #observeProgress(view: StateView, moves: AttributedMoves, pace: Pace): Promise<void> {
    const now = this.#now();
    for (const id of moves.movingOf.keys()) this.#lastSeenMoving.set(id, now);
    for (const id of this.#lastSeenMoving.keys()) if (!view.reassignments.has(id)) this.#lastSeenMoving.delete(id);
    this.#d.metrics?.setPartitionsMoving('gateway', moves.gateway);
    this.#d.metrics?.setPartitionsMoving('external', moves.external);
    const running = [...view.reassignments.values()].filter((r) => r.state === 'running');
    // One snapshot per running reassignment per interval, in the state topic (any instance).
    if (running.length > 0) await this.#d.progress.snapshot(running, pace);
    const gauges = [];
    for (const r of running) {
      const p = this.#d.progress.progress(r);
      let queued = 0;
      let inFlight = 0;
      for (const x of r.partitions) {
        if (x.supersededBy) continue;
        if (x.state === 'queued') queued++;
        else if (x.state === 'moving') inFlight++;
      }
      // Held by the health interlocks: not moving on purpose, not stalled (its own alert says so).
      gauges.push({ id: r.id, bytesRemaining: Math.max(0, p.bytesTotal - p.bytesDone), etaSeconds: p.etaSeconds, stalled: p.stalled && !r.hold, queued, moving: inFlight });
      await pace();
    }
    this.#d.metrics?.setProgress(gauges);
  }

  /** The end watch's sample, from what Kafka lists as moving now and the bytes left at the last snapshot (end-watch.ts). */
  async #pickEndSample(view: StateView, moves: AttributedMoves, pace: Pace): Promise<void> {
    const progress = this.#d.progress;
    this.#endSample = await endWatchSample(view.reassignments.values(), moves.movingOf, (id) => progress.likelyLast(id), END_WATCH_MAX_PARTITIONS, pace);
  }

  async #retire(view: StateView): Promise<void> {
    const cutoff = this.#now() - this.#d.config.retentionSeconds * 1000;
    const old = [...view.reassignments.values()].filter(
      (r) => !isLive(r) && (r.endedAt ?? r.updatedAt) < cutoff && (!r.throttleDemand || !r.autoRemoveThrottle || r.throttlesRemovedAt !== undefined),
    );
    if (old.length) await this.#d.store.write([], old.map((r) => reassignmentKey(r.id)));
  }
}
