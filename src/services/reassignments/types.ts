// The reassignment service's typed inputs, outcomes and dependencies (src/http maps the
// outcomes to statuses), and the context its steps share (start-*.ts, list.ts, steer.ts, ...).
import type { AheadRead } from '../../reconcile/health.js';
import type {
  ConcurrencyBounds,
  FieldError,
  LogDirMove,
  MoveEstimate,
  OngoingPartitionReassignment,
  PacingOrder,
  PartitionError,
  PlanWarning,
  ReassignmentFile,
  ReassignmentPlan,
  ReassignmentRequest,
  SnapshotProgress,
  ThrottleConfigSet,
  WaveSchedule,
} from '../../domain/reassignment/index.js';
import type { Safety } from '../../domain/reassignment/health.js';
import type { KafkaAdmin, MovingPartition } from '../../kafka/kafka-admin.js';
import type { RecentRead } from '../../kafka/recent-read.js';
import type { Logger } from '../../observability/logger.js';
import type { ReassignmentMetrics } from '../../observability/reassignment-metrics.js';
import type { ReassignmentConfig } from '../../reconcile/config.js';
import type { HealthInterlock } from '../../reconcile/health.js';
import type { Pacer } from '../../reconcile/pacer.js';
import type { ProgressTracker } from '../../reconcile/progress.js';
import type { ThrottleSync, ThrottleSyncResult } from '../../reconcile/throttle-sync.js';
import type { PartitionState, ReassignmentRecord } from '../../state/records.js';
import type { StateStore, StateView } from '../../state/store.js';
import type { StartHealthWarning } from './start-health.js';

export interface ReassignmentDeps {
  kafka: KafkaAdmin;
  store: StateStore;
  throttles: ThrottleSync;
  progress: ProgressTracker;
  config: ReassignmentConfig;
  metrics?: ReassignmentMetrics;
  logger?: Logger;
  /** Starts the next wave of a paced reassignment (the reconciler's; PATCH uses it to resume at once). */
  pacer?: Pick<Pacer, 'advance'>;
  /** Unthrottled copy speed per broker when known (the embedded simulator's), for estimates. */
  bandwidthBytesPerSecond?: number | null;
  now?: () => number;
  /** Every move in the cluster as GET /reassignments reads it, shared with the reconciler's passes (movesRead). */
  movesRead?: RecentRead<MovingPartition[]>;
}

/** What validateOnly answers and a started reassignment reports. */
export interface PlanView {
  partitions: ReassignmentPlan['partitions'];
  warnings: readonly PlanWarning[];
  throttle: number | null;
  throttleConfigs: ThrottleConfigSet[];
  estimate: MoveEstimate;
  rollback: ReassignmentFile;
  /** Paced execution: the bounds, the order and the waves it would run (null = everything at once). */
  pacing: { concurrency: ConcurrencyBounds; order: PacingOrder; schedule: WaveSchedule } | null;
  /** Intra-broker moves (`log_dirs` other than "any"), with the dir each replica is in now (null = not hosted yet). */
  logDirMoves?: (LogDirMove & { currentLogDir: string | null })[];
  /** Health interlocks at the start: the cluster's trouble (held, or for validateOnly whether it would be). */
  healthWarning?: StartHealthWarning;
}

/** GET models the remaining waves of a paced reassignment up to this many open partitions (cost). */
export const PACED_ETA_MODEL_MAX = 20_000;

/** validateOnly lists at most this many waves (the duration covers all of them). */
export const MAX_WAVES_SHOWN = 100;

export type StartResult =
  | { kind: 'bad-request'; errors: readonly FieldError[] }
  /** Refused, nothing changed. `problem` says why (src/http maps it to a status). */
  | { kind: 'invalid'; problem: InvalidKind; errors: readonly PartitionError[] }
  | { kind: 'plan'; plan: PlanView }
  | { kind: 'started'; record: ReassignmentRecord; plan: PlanView }
  | { kind: 'start-failed'; record: ReassignmentRecord; plan: PlanView };

export interface PartitionStatus {
  topic: string;
  partition: number;
  originalReplicas: readonly number[];
  targetReplicas: readonly number[];
  status: 'pending' | 'moving' | 'done' | 'reverted' | 'failed' | 'superseded';
  replicas: readonly number[];
  adding: readonly number[];
  removing: readonly number[];
  error?: { code: number; name: string; message: string };
  supersededBy?: string;
}

export interface PartitionCounts {
  total: number;
  queued: number;
  moving: number;
  completed: number;
  failed: number;
  cancelled: number;
}

export interface ReassignmentDetail {
  record: ReassignmentRecord;
  counts: PartitionCounts;
  progress: SnapshotProgress;
}

/** One partition of GET /reassignments/{id}/partitions. */
export interface PartitionRow {
  topic: string;
  partition: number;
  state: PartitionState;
  originalReplicas: readonly number[];
  targetReplicas: readonly number[];
  replicas: readonly number[];
  addingReplicas: readonly number[];
  removingReplicas: readonly number[];
  bytesTotal: number | null;
  bytesDone: number | null;
  percent: number | null;
  error?: { code: number; name: string; message: string };
  supersededBy?: string;
}

export type PartitionPage = { kind: 'not-found' } | { kind: 'invalid-cursor' } | { kind: 'ok'; items: PartitionRow[]; next: string | null };

export interface ReassignmentListing {
  /** Per record: how many of its partitions Kafka lists as moving, and (detail) which. */
  reassignments: {
    record: ReassignmentRecord;
    counts: PartitionCounts;
    progress: SnapshotProgress;
    movingCount: number;
    moving?: MovingPartition[];
  }[];
  /** Moves of reassignments started elsewhere: the first EXTERNAL_SHOWN (every one with detail). */
  external: MovingPartition[];
  externalCount: number;
}

export type CancelResult =
  | { kind: 'not-found' }
  | { kind: 'done'; record: ReassignmentRecord; cancelled: { topic: string; partition: number }[]; rollback: StartResult | null };

/**
 * Why a request was refused: malformed (empty list, a partition twice), not-found (unknown
 * topic or partition), invalid (brokers, replication factor), conflict (only partitions
 * already moving under another reassignment).
 */
export type InvalidKind = 'malformed' | 'not-found' | 'invalid' | 'conflict';

/** What a POST /reassignments asks for: the domain's parsed request (parseStartRequest parses a body into it). */
export type StartRequest = ReassignmentRequest;

/** Options of a start: a rollback names the reassignment it undoes. */
export interface StartOptions {
  rollbackOf?: string;
  /** Reads begun when the request arrived, before its body was read (ReassignmentService.readAhead). */
  ahead?: StartAhead;
}

/**
 * What a start reads before its request is parsed (the health interlock's read: at 100,000
 * partitions the body's parse and validation take longer than the read, which then costs the
 * POST nothing). Opaque to the HTTP layer, which only hands it back to start().
 */
export interface StartAhead {
  readonly health: AheadRead | null;
}

export type SetThrottleResult =
  | { kind: 'not-found' }
  | { kind: 'not-running'; record: ReassignmentRecord }
  | { kind: 'ok'; record: ReassignmentRecord; sync: ThrottleSyncResult };

/** PATCH of a paced execution (see ReassignmentService.steer). */
export interface SteerPatch {
  concurrency?: ConcurrencyBounds | null;
  paused?: boolean;
  safety?: Safety | null;
}

export type SteerResult =
  { kind: 'not-found' } | { kind: 'not-running'; record: ReassignmentRecord } | { kind: 'ok'; record: ReassignmentRecord };

export interface CancelOptions {
  preserveThrottles: boolean;
  rollback: boolean;
}

/** Longest slice of synchronous work a start or a read does before giving the event loop a turn. */
export const PACE_BUDGET_MS = 15;

/** What the service's steps share: its dependencies, its clock and the caches it keeps. */
export interface ServiceContext {
  readonly d: ReassignmentDeps;
  readonly now: () => number;
  /** What moves, as GET /reassignments reads it: shared by the GETs within POLLED_READ_MAX_AGE_MS (kafka/recent-read.ts). */
  readonly moves: RecentRead<MovingPartition[]>;
  /** The health interlocks' read and decision, for the check before a first wave (start-health.ts). */
  health(): HealthInterlock;
  /** Indexes of a record's partitions in (topic, partition) order (partitions-page.ts PartitionOrders). */
  order(r: ReassignmentRecord, pace: () => Promise<void>): Promise<Uint32Array>;
  /** Every moving partition in the cluster, attributed to the gateway's live reassignments. */
  ongoing(view?: StateView): Promise<{ moving: MovingPartition[]; attributed: OngoingPartitionReassignment[] }>;
}

export type { PartitionState, ReassignmentRecord };
