// Plain data of the planner (POST /plans): the cluster as read just before planning, the request,
// and the plan. No Kafka client types: src/kafka's answers are converted into these shapes.
import type { KafkaErrorRef } from '../reassignment/types.js';

/** `leaders`: re-order replica lists only, to even preferred leaders (./leaders-goal.ts; zero bytes). */
export type PlanGoal = 'decommission' | 'rebalance' | 'replication-factor' | 'rack-repair' | 'leaders';
export const PLAN_GOALS: readonly PlanGoal[] = ['decommission', 'rebalance', 'replication-factor', 'rack-repair', 'leaders'];

export type PlanWeight = 'replicas' | 'bytes';

export interface PlanBroker {
  readonly id: number;
  /** broker.rack; null when the broker has none. */
  readonly rack: string | null;
}

export interface PlanPartition {
  readonly partition: number;
  /** Metadata's replicas, preferred leader first. */
  readonly replicas: readonly number[];
  /** Size of the partition (the largest replica DescribeLogDirs reports); null = unknown (counts as 0). */
  readonly bytes: number | null;
  /** A reassignment is moving it now: the planner leaves it alone (and says so). */
  readonly moving?: boolean;
}

export interface PlanTopic {
  readonly name: string;
  readonly partitions: readonly PlanPartition[];
}

/** The cluster the plan starts from. */
export interface PlanCluster {
  /** Brokers alive now (DescribeCluster / Metadata). Replicas may also name brokers that are not alive. */
  readonly brokers: readonly PlanBroker[];
  readonly topics: readonly PlanTopic[];
}

export interface PlanRequest {
  readonly goal: PlanGoal;
  /**
   * decommission: the brokers to empty. rebalance: the brokers to even out (default every live
   * broker). replication-factor, rack-repair: the brokers new replicas may go to (default every
   * live broker).
   */
  readonly brokers?: readonly number[];
  /** Topic names or `/regex/` (JavaScript syntax, anchored by the caller if wanted). Default: every topic. */
  readonly topics?: readonly string[];
  readonly excludeTopics?: readonly string[];
  /** replication-factor only. */
  readonly replicationFactor?: number;
  /** Default: true when the brokers have racks. */
  readonly rackAware?: boolean;
  /** Even out preferred leaders (first replica) by reordering replicas; no data moves. Default true. */
  readonly balanceLeaders?: boolean;
  /** Balance replica counts (default) or bytes. */
  readonly weight?: PlanWeight;
}

export interface PlannedPartition {
  readonly topic: string;
  readonly partition: number;
  readonly currentReplicas: readonly number[];
  readonly targetReplicas: readonly number[];
  /** Replicas that copy the log (target - current). */
  readonly adding: readonly number[];
  readonly removing: readonly number[];
  /** Partition size; null when unknown. */
  readonly bytes: number | null;
}

export interface BrokerLoad {
  readonly broker: number;
  readonly rack: string | null;
  readonly live: boolean;
  readonly replicas: number;
  /** Preferred leaders (first replica): what leadership converges to after a preferred leader election. */
  readonly leaders: number;
  readonly bytes: number;
}

export type PlanWarningCode =
  | 'GOAL_NOT_REACHED'
  | 'RACK_CONSTRAINT'
  | 'LEADERS_NOT_BALANCED'
  | 'PARTITIONS_MOVING'
  | 'BROKER_NOT_LIVE'
  | 'NO_RACKS'
  | 'MISSING_RACKS'
  | 'PATTERN_MATCHES_NOTHING'
  | 'SIZES_UNKNOWN';

export interface PlanWarning {
  readonly code: PlanWarningCode;
  readonly message: string;
  readonly topic?: string;
  readonly broker?: number;
}

export interface MovementBound {
  readonly movedReplicas: number;
  readonly movedBytes: number;
}

export interface Plan {
  readonly goal: PlanGoal;
  /** Only the partitions that change, sorted by topic then partition. */
  readonly partitions: readonly PlannedPartition[];
  readonly movedReplicas: number;
  readonly movedBytes: number;
  /** What any plan reaching the goal must move, computed from the input alone (not from this plan). */
  readonly lowerBound: MovementBound;
  readonly before: readonly BrokerLoad[];
  readonly after: readonly BrokerLoad[];
  readonly warnings: readonly PlanWarning[];
  /** The options as applied (defaults resolved). */
  readonly options: {
    readonly rackAware: boolean;
    readonly balanceLeaders: boolean;
    readonly weight: PlanWeight;
    readonly brokers: readonly number[];
    readonly topics: number;
  };
}

export type PlanErrorCode =
  | 'UNKNOWN_BROKER'
  | 'UNKNOWN_TOPIC'
  | 'INVALID_TOPIC_PATTERN'
  | 'NOT_ENOUGH_BROKERS'
  | 'REPLICATION_FACTOR_TOO_LARGE'
  | 'MISSING_FIELD'
  | 'NO_TOPICS';

/** One problem with one item of the request; `path` is a JSON Pointer into the body. */
export interface PlanError {
  readonly path: string;
  readonly code: PlanErrorCode;
  readonly message: string;
  readonly topic?: string;
  readonly broker?: number;
  readonly kafkaError: KafkaErrorRef | null;
}

export type PlanResult = { readonly ok: true; readonly plan: Plan } | { readonly ok: false; readonly errors: readonly PlanError[] };
