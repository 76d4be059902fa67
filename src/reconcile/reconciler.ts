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
import type { TopicPartitions } from '../kafka/kafka-admin.js';
import type { StateView } from '../state/store.js';
import { attributeMovesPaced, type AttributedMoves, type Pace } from './ownership.js';
import type { Pacer } from './pacer.js';
import { observeLogDirMoves } from './log-dir-moves.js';
import { makePacer } from '../state/layout.js';
import { END_WATCH_MAX_PARTITIONS, endWatchSample, type EndWatchPartition } from './end-watch.js';
import type { HealthInterlock } from './health.js';
import type { DeadlinePacing } from './deadline-pacing.js';
import { reconcilerParts } from './reconciler-parts.js';
import { PendingDeadlines } from './pending-due.js';
import type { LeaderElections } from './leader-elections.js';
import type { PassContext, ReconcilerDeps } from './pass/context.js';
import { endedTopics, movesEndedRecords, passMayBeCut } from './pass/ended.js';
import { markMovesEnded, recordEnds, resolveRecords, retire } from './pass/records.js';
import { expireRequests, observeProgress, recordRemovals, removalPendingSeconds } from './pass/throttle-ends.js';
import { advancePaced, cancelLateStarts, pacedMoveEnded, sampleEndedSince, sampleListed } from './pass/kafka-moves.js';

/** End watch period, and the most partitions it asks Kafka about (its sample; end-watch.ts). */
export const END_WATCH_MS = 250;
export { END_WATCH_MAX_PARTITIONS };
// The steps of a pass live in ./pass/ (importable from here as before).
export { endedTopics, movesEndedRecords, passMayBeCut } from './pass/ended.js';
export { RECORD_CLAIM_WAIT_MS, type ReconcilerDeps } from './pass/context.js';

/** Longest a pass computes before it yields to the event loop (ms): /healthz and the GETs answer meanwhile. */
export const PASS_SLICE_MS = 10;

export class Reconciler {
  readonly #d: ReconcilerDeps;
  readonly #now: () => number;
  /** Pending records' start timeouts, on this instance's clock (pending-due.ts). */
  readonly #pending: PendingDeadlines;
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
  /** What the pass steps (./pass/) share with this loop. */
  readonly #ctx: PassContext;

  constructor(deps: ReconcilerDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
    this.#pending = new PendingDeadlines(() => deps.store.view());
    this.#ctx = {
      d: deps,
      now: this.#now,
      pendingDue: (r) => this.#pending.due(r),
      endSeen: this.#endSeen,
      lastSeenMoving: this.#lastSeenMoving,
    };
    const parts = reconcilerParts(deps, this.#now);
    this.#deadlines = parts.deadlines;
    this.#pacer = parts.pacer;
    this.#elections = parts.elections;
    this.#health = parts.health;
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
      const { sampled, seen } = await sampleListed(this.#d.kafka, sample);
      const now = this.#now();
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
    if (await sampleEndedSince(this.#ctx, view, moves, pace)) {
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
    const task = this.#step('progress', () => observeProgress(this.#ctx, this.#d.store.view(), moves, pace)).finally(() => {
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
      await this.#step('pacing', () => advancePaced(this.#pacer, this.#d.store.view()));
      const done = [...this.#d.store.view().reassignments.values()].some(
        (r) =>
          r.state === 'running' &&
          r.concurrency !== null &&
          !r.partitions.some((p) => !p.supersededBy && (p.state === 'queued' || p.state === 'moving')),
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
    if (await pacedMoveEnded(this.#d, () => this.#pacing !== undefined)) this.kick();
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
    this.#d.metrics?.setThrottleRemovalPending(removalPendingSeconds(this.#ctx, this.#d.store.view()));
    this.#d.metrics?.reconciled(this.#failedSteps === 0, (performance.now() - started) / 1000);
  }

  /**
   * The steps of a pass. Returns true when it was cut short: the end watch saw an end after
   * this pass had read Kafka's moves, so the rest of it would act on a stale list and the end
   * would wait for it (at 100k moving partitions, seconds). The next pass starts right after
   * (#passSoon) and does everything; a scheduled pass may be cut, never two in a row unless
   * the end watch saw its whole sample end (passMayBeCut).
   */
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
      const moving = await (this.#d.movesRead ? this.#d.movesRead.fresh() : this.#d.kafka.listPartitionReassignments());
      return { moving, moves: view ? await attributeMovesPaced(moving, view, pace) : undefined };
    });
    const moving = observed?.moving;
    const moves = observed?.moves;
    // Intra-broker moves (log_dirs): re-send what is not placed yet; done/failed per partition.
    // Before the placement read: the view may change under an await (a start writing its record).
    const dirs =
      view && moves
        ? await this.#step('log-dirs', () => observeLogDirMoves(this.#d.kafka, view, moves.movingIds, this.#dirAbsent))
        : undefined;
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
      if (candidates.size > 0)
        movesEnded = (await this.#step('moves-ended', () => markMovesEnded(this.#ctx, view, candidates))) ?? movesEnded;
    }
    let placement: TopicPartitions[] | undefined;
    let placementMs = 0;
    if (view && moves) {
      // Placement (Metadata) only for topics with a partition whose move ended since the last
      // pass (to tell completed from cancelled): none while everything still moves. Not yet
      // for the records just marked (after the throttle sync, below).
      const topics = await endedTopics(
        view,
        moves.movingIds,
        (r) => this.#pending.due(r),
        pace,
        (r) => !movesEnded.has(r.id),
      );
      const started = performance.now();
      placement = topics.size === 0 ? [] : await this.#step('placement', () => this.#d.kafka.describePartitions([...topics]));
      placementMs = performance.now() - started;
    }

    // Metadata of many topics took longer than the watch's period (~0.5-0.8 s at 100k
    // partitions), and Kafka's last moves may have ended meanwhile: then this pass would write a
    // record the next one writes again (at 100k, ~1 s each) before the throttles can go. Asked
    // once (the watch's sample may be spent already: it saw the first of these ends, and this
    // pass read the rest still moving).
    if (view && moves && placementMs > END_WATCH_MS && scheduled && !this.#cutLast)
      await this.#step('recheck', () => this.#recheckEnds(view, moves, pace));
    if (cut()) return true;
    if (view && moves && placement && dirs && recordsBeforeObservation)
      await this.#step('reassignments', () => resolveRecords(this.#ctx, view, recordsBeforeObservation, moves, placement, dirs, pace, cut));
    if (cut()) return true;
    // Health interlocks: hold (or resume) paced reassignments before the pacer looks for a wave.
    // Preferred leaders of the partitions whose moves completed (records with electLeaders).
    if (view) await this.#step('leader-elections', () => this.#elections.pass(this.#d.store.view()));
    if (view && moves) await this.#step('health', () => this.#health.pass(this.#d.store.view(), moves.movingIds));
    if (view && moving) await this.#step('pacing', () => advancePaced(this.#pacer, this.#d.store.view()));
    // Only moves no live reassignment owns can be late starts: none (the usual pass, 100k moves
    // of one running reassignment included) -> no look at the cancelled records at all.
    if (view && moving && moves && moves.external > 0) await this.#step('late-starts', () => cancelLateStarts(this.#ctx, moving));
    if (view && moves) await this.#step('throttle-requests', () => expireRequests(this.#ctx, this.#d.store.view(), moves.movingIds));
    // Deadline pacing: this pass's throttle of each finishBy reassignment, applied by the sync below.
    if (view && moves) await this.#step('deadline', () => this.#deadlines.pass(this.#d.store.view()));
    // Another instance syncing the same resources: it does the work, we look again next pass.
    const sync = await this.#step('throttles', () => this.#d.throttles.sync({ wait: false, removalOnlyFallback: true }));
    const syncedAt = this.#now();
    if (movesEnded.size > 0 && moves && dirs) await this.#step('ends', () => recordEnds(this.#ctx, movesEnded, moves, dirs, pace));
    if (sync && !sync.busy) {
      // Per-resource failures do not throw, but a pass that could not apply them did not succeed:
      // counted as an error of the step, so the errors metric shows why successes stopped.
      if (!sync.converged) {
        this.#failedSteps++;
        this.#d.metrics?.reconcilerError('throttles');
      }
      this.#d.metrics?.setThrottleRates(sync.rates);
      for (const f of sync.failures)
        this.#d.logger?.warn('throttle change failed', { resource: f.resource, error: f.error.name, detail: f.error.message });
      if (sync.converged) await this.#step('throttles-removed', () => recordRemovals(this.#ctx, this.#d.store.view(), syncedAt));
    }
    if (moves) {
      // The sample just picked is asked about once before the progress step (seconds at 100k,
      // and its DescribeLogDirs can hold up the watch's own request): an end that happened
      // since this pass read Kafka's moves is acted on by the next pass, at once.
      await this.#watchEnds();
      if (cut()) return true;
      await this.#progressUnlessEnded(moves, pace);
    }
    if (view) await this.#step('retention', () => retire(this.#ctx, this.#d.store.view()));
    // Claims that lost or whose holder died (lease over): tombstoned by whoever sees them.
    if (view) await this.#step('claims', () => this.#d.store.sweepClaims());
    // Records refused by fencing that are still the latest of their keys: written again as
    // accepted, so that compaction never leaves a refused one behind (src/state/fence.ts).
    if (view && this.#d.store.refusedWrites().length > 0)
      await this.#step('fenced-repair', () => this.#d.store.repairRefused(this.#d.config.instanceId, this.#d.config.pacingLeaseMs));
    // Chunks of a record whose writer died before its header (see src/state/layout.ts).
    if (view) await this.#step('orphan-chunks', () => this.#d.store.sweepOrphanChunks());
    return false;
  }

  /** The end watch's sample, from what Kafka lists as moving now and the bytes left at the last snapshot (end-watch.ts). */
  async #pickEndSample(view: StateView, moves: AttributedMoves, pace: Pace): Promise<void> {
    const progress = this.#d.progress;
    this.#endSample = await endWatchSample(
      view.reassignments.values(),
      moves.movingOf,
      (id) => progress.likelyLast(id),
      END_WATCH_MAX_PARTITIONS,
      pace,
    );
  }
}
