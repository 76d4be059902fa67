// The shapes of a reassignment's validation and plan (plan.ts): the cluster snapshot it is
// checked against, the targets, per-partition errors and warnings, and the plan.
import type { KafkaErrorRef, OngoingPartitionReassignment, PartitionAssignment, TopicPartition } from './types.js';

/** One partition of a topic as Metadata describes it. */
export interface PartitionReplicas {
  readonly partition: number;
  /** Metadata's replicas (while moving this includes the adding replicas). */
  readonly replicas: readonly number[];
  /** Current leader; -1 or absent when unknown. Used to attribute bytes to a source broker. */
  readonly leader?: number;
}

/** A topic and its partitions (a src/kafka TopicDescription fits as is). */
export interface TopicReplicas {
  readonly name: string;
  readonly partitions: readonly PartitionReplicas[];
}

/** What the validation needs to know about the cluster, read just before validating. */
export interface ClusterSnapshot {
  /** Brokers alive now (DescribeCluster / Metadata). */
  readonly liveBrokers: readonly number[];
  /**
   * Brokers registered with the controller, alive or not: Kafka accepts these as targets.
   * Default: live brokers plus every broker named in a replica list of the snapshot (a stopped
   * broker still hosts replicas, which is how the gateway sees it without controller access).
   */
  readonly registeredBrokers?: readonly number[];
  readonly topics: readonly TopicReplicas[];
  /** ListPartitionReassignments, each with the gateway reassignment that owns it (if any). */
  readonly ongoing: readonly OngoingPartitionReassignment[];
}

/** What to move (a ReassignmentRequest fits). */
export interface ReassignmentTargets {
  readonly partitions: readonly PartitionAssignment[];
  /** Re-target partitions that are already moving instead of refusing them. */
  readonly addToExisting?: boolean;
}

export interface ValidateOptions {
  /**
   * The gateway reassignment these targets are added to (e.g. a rollback of it): its own moving
   * partitions are not conflicts.
   */
  readonly reassignmentId?: string;
}

export type PartitionErrorCode =
  | 'EMPTY_PARTITION_LIST'
  | 'DUPLICATE_PARTITION'
  | 'UNKNOWN_TOPIC'
  | 'UNKNOWN_PARTITION'
  | 'EMPTY_REPLICA_LIST'
  | 'UNKNOWN_BROKER'
  | 'DUPLICATE_BROKER'
  | 'INCOMPLETE_REPLICATION_FACTOR_CHANGE'
  | 'INCONSISTENT_REPLICATION_FACTOR'
  | 'REASSIGNMENT_CONFLICT'
  | 'LOG_DIR_NOT_FOUND'
  | 'LOG_DIR_OFFLINE';

/** One validation error. Topic-level errors have `partition: null`; request-level ones both null. */
export interface PartitionError {
  readonly topic: string | null;
  readonly partition: number | null;
  /** Position in the request's `partitions` (first occurrence), null for topic/request-level errors. */
  readonly index: number | null;
  readonly code: PartitionErrorCode;
  readonly message: string;
  /** The Kafka error this corresponds to; null when Kafka has no such check (treat as 422). */
  readonly kafkaError: KafkaErrorRef | null;
  /** REASSIGNMENT_CONFLICT only: who moves it now (null = started outside the gateway). */
  readonly conflictingReassignmentId?: string | null;
}

export type PlanWarningCode =
  /** Target equals what the partition has (or is already moving to): nothing will happen. */
  | 'NO_OP'
  /** addToExisting: the running move of this partition is replaced by this target. */
  | 'REPLACES_ONGOING_MOVE'
  /** addToExisting with the original replicas as target: the running move is undone. */
  | 'REVERTS_ONGOING_MOVE'
  /** A target broker is registered but not alive: its copy will not start until it returns. */
  | 'BROKER_NOT_LIVE';

export interface PlanWarning extends TopicPartition {
  readonly code: PlanWarningCode;
  readonly message: string;
}

/** One partition of the plan. Its four replica lists are shared and frozen (src/domain/replica-list.ts): a record holds them as they are. */
export interface PartitionMovePlan extends TopicPartition {
  /**
   * The replicas before this move: Metadata's replicas, or for a partition already moving its
   * original replicas as Kafka derives them (`replicas - adding`, in the mid-move order: the
   * original order is only known to whoever started that move; the gateway's own records have it).
   */
  readonly currentReplicas: readonly number[];
  readonly targetReplicas: readonly number[];
  /** `target - current`, in target order: replicas that must copy the log. */
  readonly adding: readonly number[];
  /** `current - target`, in current order: replicas dropped at completion. */
  readonly removing: readonly number[];
  /** Current leader when known (the broker the new replicas copy from). */
  readonly leader: number | null;
  /** Nothing will change (see the NO_OP warning). Kept in the plan: Kafka's tool sends it too. */
  readonly noOp: boolean;
  /** The move running now for this partition (only with addToExisting or the same reassignment). */
  readonly alreadyMoving: OngoingPartitionReassignment | null;
}

export interface ReplicationFactorChange {
  readonly topic: string;
  /** Distinct current replication factors, ascending (usually one). */
  readonly from: readonly number[];
  readonly to: number;
}

export interface ReassignmentPlan {
  /** In request order. */
  readonly partitions: readonly PartitionMovePlan[];
  /** Current replicas of every partition in the plan: formatReassignmentFile() makes the rollback file. */
  readonly rollback: readonly PartitionAssignment[];
  readonly replicationFactorChanges: readonly ReplicationFactorChange[];
  readonly warnings: readonly PlanWarning[];
}

export type ValidationResult =
  { readonly ok: true; readonly plan: ReassignmentPlan } | { readonly ok: false; readonly errors: readonly PartitionError[] };
