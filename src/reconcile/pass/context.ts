// What the steps of a reconcile pass (src/reconcile/pass/*.ts) share with the Reconciler that
// runs them (reconciler.ts): its dependencies, its clock and what it remembers between passes.
import type { Logger } from '../../observability/logger.js';
import type { ReassignmentMetrics } from '../../observability/reassignment-metrics.js';
import type { KafkaAdmin, MovingPartition } from '../../kafka/kafka-admin.js';
import type { RecentRead } from '../../kafka/recent-read.js';
import type { ReassignmentRecord } from '../../state/records.js';
import type { StateStore } from '../../state/store.js';
import type { ReassignmentConfig } from '../config.js';
import type { ProgressTracker } from '../progress.js';
import type { ThrottleSync } from '../throttle-sync.js';

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

/** How long a pass waits for another holder of a record's claim before leaving the write to the next pass. */
export const RECORD_CLAIM_WAIT_MS = 2000;

/** The Reconciler as its pass steps see it (the maps are its own: see their comments there). */
export interface PassContext {
  readonly d: ReconcilerDeps;
  readonly now: () => number;
  /** Whether a pending record's writer has had its start timeout (Reconciler #pendingDue). */
  readonly pendingDue: (r: ReassignmentRecord) => boolean;
  /** When this instance first saw a throttle request's reason end. */
  readonly endSeen: Map<string, number>;
  /** Per running reassignment: the last time this instance saw one of its partitions still moving. */
  readonly lastSeenMoving: Map<string, number>;
}
