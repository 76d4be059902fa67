// Wires the reassignment/throttle machinery of one gateway instance: the state topic, the
// throttle sync, progress sampling, the services the HTTP routes call, and the reconciler.
import type { Logger } from '../observability/logger.js';
import type { ReassignmentMetrics } from '../observability/reassignment-metrics.js';
import type { KafkaAdmin } from '../kafka/kafka-admin.js';
import { StateStore } from '../state/store.js';
import { crashPoint, type ReassignmentConfig } from './config.js';
import { ProgressTracker } from './progress.js';
import { movesRead } from './moves-read.js';
import { ReassignmentService } from '../services/reassignments/reassignment-service.js';
import { Reconciler } from './reconciler.js';
import { ThrottleService } from '../services/throttles.js';
import { ThrottleSync, type ThrottleSyncHooks } from './throttle-sync.js';

export interface ReassignmentRuntime {
  readonly config: ReassignmentConfig;
  readonly store: StateStore;
  readonly reassignments: ReassignmentService;
  readonly throttles: ThrottleService;
  /** The throttle sync the services and the reconciler share. */
  readonly throttleSync: ThrottleSync;
  readonly reconciler: Reconciler;
}

export interface RuntimeOptions {
  kafka: KafkaAdmin;
  config: ReassignmentConfig;
  metrics?: ReassignmentMetrics;
  logger?: Logger;
  /** Unthrottled copy speed per broker, when known (estimates without a throttle). */
  bandwidthBytesPerSecond?: number | null;
  now?: () => number;
  /** Monotonic milliseconds for claim leases (default performance.now()); tests move it by hand. */
  monotonic?: () => number;
  /** TEST ONLY: gates in the throttle sync (see ThrottleSyncHooks.gate). */
  syncGate?: ThrottleSyncHooks['gate'];
}

export function createReassignmentRuntime(opts: RuntimeOptions): ReassignmentRuntime {
  const now = opts.now ?? Date.now;
  const store = new StateStore(opts.kafka.stateTopic({ name: opts.config.stateTopic }), {
    // The wall clock goes into what the store writes (claims' createdAt, chunks' writtenAt);
    // leases run on the monotonic clock, so a skewed `now` decides nothing (src/state/claims.ts).
    now,
    ...(opts.monotonic && { monotonic: opts.monotonic }),
    hooks: { afterChunkBatch: () => crashPoint(opts.config, 'reassignment-chunks') },
    onEvent: (e) => {
      const log = opts.logger;
      if (e.type === 'missing') {
        opts.metrics?.stateStore({ type: 'missing' });
        log?.error(
          'state topic missing: it was deleted outside the gateway; the gateway will not re-create it over lost state (see the README: Recovering the state topic)',
          { topic: e.topic },
        );
      } else if (e.type === 'unavailable') {
        opts.metrics?.stateStore({ type: 'unavailable' });
        log?.warn('state topic unreadable', { topic: opts.config.stateTopic, reason: e.reason });
      } else if (e.type === 'fenced') {
        opts.metrics?.fencedWrite?.(e.where);
        // A holder that outlived its lease (a pause, a slow request): what it wrote changed nothing.
        log?.warn('state write refused: its claim had ended (fencing)', { claim: e.claim, where: e.where, own: e.own, records: e.records });
      } else if (e.type === 'recovered') {
        opts.metrics?.stateStore({ type: 'ok' });
        log?.info('state topic readable again', { topic: opts.config.stateTopic });
      } else {
        opts.metrics?.stateStore({ type: 'reset', cause: e.cause });
        log?.warn('state topic reset: the view was rebuilt from the log start', {
          topic: opts.config.stateTopic,
          cause: e.cause,
          position: String(e.position),
          start: String(e.start),
          end: String(e.end),
        });
      }
    },
  });
  // (Claims' leases run on each instance's monotonic clock, never on `now`: they bound real pauses.)
  const throttleSync = new ThrottleSync({
    kafka: opts.kafka,
    store,
    now,
    owner: opts.config.instanceId,
    leaseMs: opts.config.pacingLeaseMs,
    requestTimeoutMs: opts.config.kafkaRequestTimeoutMs,
    hooks: {
      afterLedgerWrite: () => crashPoint(opts.config, 'ledger-write'),
      afterConfigWrite: () => crashPoint(opts.config, 'throttle-write'),
      ...(opts.syncGate && { gate: opts.syncGate }),
    },
  });
  const progress = new ProgressTracker({
    kafka: opts.kafka,
    store,
    options: { stallAfterMs: opts.config.stallAfterSeconds * 1000 },
    intervalMs: opts.config.reconcileIntervalMs,
    now,
  });
  const common = { kafka: opts.kafka, store, throttles: throttleSync, config: opts.config, now };
  // Kafka's moves: every pass reads them, and GET /reassignments shares the latest read.
  const moves = movesRead(opts.kafka);
  const reconciler = new Reconciler({
    ...common,
    progress,
    movesRead: moves,
    bandwidthBytesPerSecond: opts.bandwidthBytesPerSecond ?? null,
    ...(opts.metrics && { metrics: opts.metrics }),
    ...(opts.logger && { logger: opts.logger }),
  });
  return {
    config: opts.config,
    store,
    reassignments: new ReassignmentService({
      ...common,
      progress,
      movesRead: moves,
      pacer: reconciler.pacer,
      bandwidthBytesPerSecond: opts.bandwidthBytesPerSecond ?? null,
      ...(opts.metrics && { metrics: opts.metrics }),
      ...(opts.logger && { logger: opts.logger }),
    }),
    throttles: new ThrottleService(common),
    throttleSync,
    reconciler,
  };
}

export { loadReassignmentConfig, type ReassignmentConfig } from './config.js';
