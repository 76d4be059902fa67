// What the reconciler and the reassignment service report about reassignments and throttles,
// and its prom-client implementation on the app's registry. Both live below src/http so that
// services and the worker thread need no HTTP code. Gauges are set from what the reconciler last
// observed (every instance observes the whole cluster, so any instance can be scraped); counters
// count what THIS instance did.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './metrics.js';

export interface ReassignmentMetrics {
  /** Partitions moving now: owner = gateway (one of its reassignments) or external. */
  setPartitionsMoving(owner: 'gateway' | 'external', n: number): void;
  /** Per running reassignment; ids not passed are dropped (finished ones must not linger). */
  setProgress(
    list: { id: string; bytesRemaining: number; etaSeconds: number | null; stalled?: boolean; queued?: number; moving?: number }[],
  ): void;
  /**
   * Throttle rates configured now, per broker and direction, on the brokers the gateway's
   * demands or ledger name (read by every throttle sync); brokers not passed are dropped.
   */
  setThrottleRates(list: { broker: number; leader: number | null; follower: number | null }[]): void;
  throttleRemoved(cause: string, delaySeconds: number | null): void;
  /** Health interlocks (src/reconcile/health.ts): the reassignments held now, with the kinds of trouble; ids not passed are dropped. */
  setHeld?(list: { id: string; reasons: string[] }[]): void;
  /** A hold began (counted per kind of trouble) or ended. */
  holdChanged?(event: 'held' | 'resumed', reasons: string[]): void;
  /** Per running deadline reassignment (finishBy): seconds between its expected end and finishBy (negative: late), and whether it holds; ids not passed are dropped. */
  setDeadlines?(list: { id: string; slackSeconds: number; holds: boolean }[]): void;
  reconcilerError(step: string): void;
  /** How long one step of a pass took (wall time, including waits on Kafka and the state topic). */
  reconcileStep?(step: string, seconds: number): void;
  /** The state topic: readable (1) or not (0), missing (1 = deleted outside the gateway), view rebuilt after a reset. */
  stateStore(event: { type: 'ok' | 'unavailable' | 'missing' } | { type: 'reset'; cause: string }): void;
  /**
   * A state-topic write under a claim that was refused (src/state/fence.ts): `before-write`, by
   * this instance's own lease check (nothing produced); `in-log`, a record read in the log whose
   * claim had ended (anyone's write; each refused batch counted once by every instance that reads it).
   */
  fencedWrite?(where: 'before-write' | 'in-log'): void;
  /**
   * A pass ended. `ok` = every step succeeded: only then does the last-success timestamp move,
   * so an alert on its age catches a reconciler that runs but keeps failing a step. `seconds`:
   * the pass's wall time (Kafka and state-topic waits and event-loop yields included).
   */
  reconciled(ok?: boolean, seconds?: number): void;
  /** RECONCILE_INTERVAL_MS, exported so alerts can say "N intervals" without repeating the setting. */
  setReconcileInterval(seconds: number): void;
  /**
   * Seconds since the oldest gateway-owned throttle whose reason ended (its reassignment
   * finished, its request expired) is still waiting to be removed; 0 when nothing waits.
   */
  setThrottleRemovalPending(seconds: number): void;
}

export function createReassignmentMetrics(registry: Registry): ReassignmentMetrics {
  const moving = new Gauge({
    name: `${METRIC_PREFIX}reassignment_partitions_moving`,
    help: "Partitions being reassigned in the cluster, by owner (gateway = one of this gateway's reassignments, external = started elsewhere).",
    labelNames: ['owner'] as const,
    registers: [registry],
  });
  const bytesRemaining = new Gauge({
    name: `${METRIC_PREFIX}reassignment_bytes_remaining`,
    help: 'Bytes the adding replicas of a running reassignment still have to copy.',
    labelNames: ['reassignment'] as const,
    registers: [registry],
  });
  const eta = new Gauge({
    name: `${METRIC_PREFIX}reassignment_eta_seconds`,
    help: 'Estimated seconds until a running reassignment completes, from the observed copy rate (absent while unknown).',
    labelNames: ['reassignment'] as const,
    registers: [registry],
  });
  const rate = new Gauge({
    name: `${METRIC_PREFIX}replication_throttle_rate_bytes`,
    help: 'Replication throttle rate set on a broker (bytes/s), by direction (leader, follower).',
    labelNames: ['broker', 'direction'] as const,
    registers: [registry],
  });
  const removed = new Counter({
    name: `${METRIC_PREFIX}throttles_removed_total`,
    help: 'Throttle ledger entries whose throttles this instance removed automatically, by cause (completed, cancelled, failed, ttl, auto-remove, deleted, abandoned).',
    labelNames: ['cause'] as const,
    registers: [registry],
  });
  const delay = new Histogram({
    name: `${METRIC_PREFIX}throttle_removal_delay_seconds`,
    help: "Seconds between a reassignment's end being observed and its throttles being removed.",
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const stateAvailable = new Gauge({
    name: `${METRIC_PREFIX}state_store_available`,
    help: 'Whether the gateway could read its state topic the last time it tried (1) or not (0).',
    registers: [registry],
  });
  stateAvailable.set(1);
  const stateMissing = new Gauge({
    name: `${METRIC_PREFIX}state_topic_missing`,
    help: 'The state topic this instance used does not exist any more (1): deleted outside the gateway; see the README recovery.',
    registers: [registry],
  });
  stateMissing.set(0);
  const fenced = new Counter({
    name: `${METRIC_PREFIX}state_fenced_writes_total`,
    help: "State-topic writes refused because the claim they were made under had ended (before-write: by this instance's lease check; in-log: read in the state topic).",
    labelNames: ['where'] as const,
    registers: [registry],
  });
  const resets = new Counter({
    name: `${METRIC_PREFIX}state_store_resets_total`,
    help: 'Times the state view was rebuilt because the state topic was re-created or truncated, by cause (new-topic-id, end-below-position, start-beyond-position, own-write-refused).',
    labelNames: ['cause'] as const,
    registers: [registry],
  });
  const errors = new Counter({
    name: `${METRIC_PREFIX}reconciler_errors_total`,
    help: 'Reconciliation steps that failed (retried at the next interval), by step.',
    labelNames: ['step'] as const,
    registers: [registry],
  });
  const stepSeconds = new Histogram({
    name: `${METRIC_PREFIX}reconciler_step_duration_seconds`,
    help: 'Wall time of each step of a reconciliation pass (Kafka and state-topic waits included), by step.',
    labelNames: ['step'] as const,
    buckets: [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const runs = new Counter({
    name: `${METRIC_PREFIX}reconciler_runs_total`,
    help: 'Completed reconciliation passes of this instance.',
    registers: [registry],
  });
  const passSeconds = new Histogram({
    name: `${METRIC_PREFIX}reconciler_pass_duration_seconds`,
    help: 'Wall time of each reconciliation pass (Kafka and state-topic waits and event-loop yields included); a pass longer than reconciler_interval_seconds delays the next.',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers: [registry],
  });
  const lastRun = new Gauge({
    name: `${METRIC_PREFIX}reconciler_last_success_timestamp_seconds`,
    help: "Unix time of this instance's last reconciliation pass in which every step succeeded.",
    registers: [registry],
  });
  const stalled = new Gauge({
    name: `${METRIC_PREFIX}reassignment_stalled`,
    help: 'Per running reassignment: 1 when its bytes remaining have not fallen for STALL_AFTER_SECONDS, else 0.',
    labelNames: ['reassignment'] as const,
    registers: [registry],
  });
  const queuedMoves = new Gauge({
    name: `${METRIC_PREFIX}reassignment_moves_queued`,
    help: 'Per running reassignment: partitions waiting for their wave (paced execution; 0 when everything was sent at once).',
    labelNames: ['reassignment'] as const,
    registers: [registry],
  });
  const inFlightMoves = new Gauge({
    name: `${METRIC_PREFIX}reassignment_moves_in_flight`,
    help: 'Per running reassignment: partitions sent to Kafka and not finished yet (as its record says).',
    labelNames: ['reassignment'] as const,
    registers: [registry],
  });
  const interval = new Gauge({
    name: `${METRIC_PREFIX}reconciler_interval_seconds`,
    help: 'Configured time between reconciliation passes (RECONCILE_INTERVAL_MS).',
    registers: [registry],
  });
  const held = new Gauge({
    name: `${METRIC_PREFIX}reassignment_held`,
    help: 'Per reassignment held by the health interlocks (no new move starts), 1 per kind of trouble that holds it (offline, underReplicated, underMinIsr, brokerGone).',
    labelNames: ['reassignment', 'reason'] as const,
    registers: [registry],
  });
  const holds = new Counter({
    name: `${METRIC_PREFIX}reassignment_holds_total`,
    help: "Holds this instance started (a reassignment's paced moves stopped on cluster trouble), by kind of trouble.",
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const resumes = new Counter({
    name: `${METRIC_PREFIX}reassignment_resumes_total`,
    help: "Holds this instance ended (the cluster healthy again for the reassignment's resumeAfterPasses passes).",
    registers: [registry],
  });
  let heldKeys = new Set<string>();
  const removalPending = new Gauge({
    name: `${METRIC_PREFIX}throttle_removal_pending_seconds`,
    help: 'Age of the oldest gateway-owned throttle whose reassignment ended (or request expired) and that is not removed yet; 0 when none.',
    registers: [registry],
  });
  removalPending.set(0);
  const deadlineSlack = new Gauge({
    name: `${METRIC_PREFIX}reassignment_deadline_slack_seconds`,
    help: 'Per running finishBy reassignment: finishBy minus its expected end at the throttle chosen (negative = expected late).',
    labelNames: ['reassignment'] as const,
    registers: [registry],
  });
  const deadlineHolds = new Gauge({
    name: `${METRIC_PREFIX}reassignment_deadline_holds`,
    help: 'Per running finishBy reassignment: 1 while it can still end by finishBy within its throttle bounds, else 0.',
    labelNames: ['reassignment'] as const,
    registers: [registry],
  });
  let deadlineIds = new Set<string>();
  let progressIds = new Set<string>();
  let rateKeys = new Set<string>();

  return {
    setPartitionsMoving: (owner, n) => moving.set({ owner }, n),
    setProgress(list) {
      const ids = new Set(list.map((p) => p.id));
      for (const old of progressIds) {
        if (!ids.has(old)) {
          bytesRemaining.remove({ reassignment: old });
          eta.remove({ reassignment: old });
          stalled.remove({ reassignment: old });
          queuedMoves.remove({ reassignment: old });
          inFlightMoves.remove({ reassignment: old });
        }
      }
      for (const p of list) {
        bytesRemaining.set({ reassignment: p.id }, p.bytesRemaining);
        if (p.queued !== undefined) queuedMoves.set({ reassignment: p.id }, p.queued);
        if (p.moving !== undefined) inFlightMoves.set({ reassignment: p.id }, p.moving);
        stalled.set({ reassignment: p.id }, p.stalled ? 1 : 0);
        if (p.etaSeconds === null) eta.remove({ reassignment: p.id });
        else eta.set({ reassignment: p.id }, p.etaSeconds);
      }
      progressIds = ids;
    },
    setThrottleRates(list) {
      const keys = new Set<string>();
      for (const r of list) {
        for (const direction of ['leader', 'follower'] as const) {
          const v = r[direction];
          if (v === null) continue;
          keys.add(`${r.broker}\u0000${direction}`);
          rate.set({ broker: String(r.broker), direction }, v);
        }
      }
      for (const old of rateKeys) {
        if (keys.has(old)) continue;
        const [broker, direction] = old.split('\u0000');
        rate.remove({ broker: broker, direction: direction });
      }
      rateKeys = keys;
    },
    setDeadlines(list) {
      const ids = new Set(list.map((d) => d.id));
      for (const old of deadlineIds) {
        if (ids.has(old)) continue;
        deadlineSlack.remove({ reassignment: old });
        deadlineHolds.remove({ reassignment: old });
      }
      for (const d of list) {
        deadlineSlack.set({ reassignment: d.id }, d.slackSeconds);
        deadlineHolds.set({ reassignment: d.id }, d.holds ? 1 : 0);
      }
      deadlineIds = ids;
    },
    setHeld(list) {
      const keys = new Set<string>();
      for (const h of list) {
        for (const reason of h.reasons) {
          keys.add(`${h.id}\u0000${reason}`);
          held.set({ reassignment: h.id, reason }, 1);
        }
      }
      for (const old of heldKeys) {
        if (keys.has(old)) continue;
        const [reassignment, reason] = old.split('\u0000');
        held.remove({ reassignment: reassignment, reason: reason });
      }
      heldKeys = keys;
    },
    holdChanged(event, reasons) {
      if (event === 'resumed') return void resumes.inc();
      for (const reason of reasons) holds.inc({ reason });
    },
    throttleRemoved(cause, delaySeconds) {
      removed.inc({ cause });
      if (delaySeconds !== null) delay.observe(Math.max(0, delaySeconds));
    },
    reconcilerError: (step) => errors.inc({ step }),
    reconcileStep: (step, seconds) => stepSeconds.observe({ step }, seconds),
    reconciled(ok = true, seconds) {
      runs.inc();
      if (seconds !== undefined) passSeconds.observe(seconds);
      if (ok) lastRun.set(Date.now() / 1000);
    },
    stateStore(e) {
      if (e.type === 'reset') return void resets.inc({ cause: e.cause });
      stateAvailable.set(e.type === 'ok' ? 1 : 0);
      stateMissing.set(e.type === 'missing' ? 1 : 0);
    },
    fencedWrite: (where) => fenced.inc({ where }),
    setReconcileInterval: (seconds) => interval.set(seconds),
    setThrottleRemovalPending: (seconds) => removalPending.set(Math.max(0, seconds)),
  };
}
