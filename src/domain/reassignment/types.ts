// Plain data shared by the reassignment domain (request, plan, throttles, estimate, progress).
// No Kafka client types here: src/kafka converts its answers into these shapes.
import { ERROR_CODES, type KafkaErrorName } from '../kafka-error-codes.js';

/** A partition of a topic. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** A replica list for one partition: a target (request) or a current assignment (rollback). */
export interface PartitionAssignment extends TopicPartition {
  /** Broker ids in preference order: the first is the preferred leader. */
  readonly replicas: readonly number[];
  /**
   * Kafka's `log_dirs`, paired with `replicas` (same length): the absolute log dir each replica
   * must end up in, or `"any"`. Absent when every dir is `"any"` (no intra-broker move).
   */
  readonly logDirs?: readonly string[];
}

/**
 * A partition moving right now, as ListPartitionReassignments reports it, plus which gateway
 * reassignment owns it according to the gateway's records.
 */
export interface OngoingPartitionReassignment extends TopicPartition {
  /** Replicas while moving: `target ++ sorted(original - target)` (SEMANTICS.md §4). */
  readonly replicas: readonly number[];
  /** `target - original`: replicas being copied. */
  readonly adding: readonly number[];
  /** `original - target`: replicas dropped when the move completes. */
  readonly removing: readonly number[];
  /** Id of the gateway reassignment this partition belongs to; null = started elsewhere. */
  readonly reassignmentId: string | null;
}

/** The Kafka error a domain error corresponds to (drives the HTTP status via src/http/errors.ts). */
export interface KafkaErrorRef {
  readonly code: number;
  readonly name: string;
}

/** A row of Kafka's error table (../kafka-error-codes.ts) as a KafkaErrorRef. */
const ref = (name: KafkaErrorName): KafkaErrorRef => Object.freeze({ code: ERROR_CODES[name], name });

/** The Kafka errors this module answers with (SEMANTICS.md §2). */
export const KAFKA_ERRORS = Object.freeze({
  UNKNOWN_TOPIC_OR_PARTITION: ref('UNKNOWN_TOPIC_OR_PARTITION'),
  INVALID_REPLICATION_FACTOR: ref('INVALID_REPLICATION_FACTOR'),
  INVALID_REPLICA_ASSIGNMENT: ref('INVALID_REPLICA_ASSIGNMENT'),
  INVALID_REQUEST: ref('INVALID_REQUEST'),
  REASSIGNMENT_IN_PROGRESS: ref('REASSIGNMENT_IN_PROGRESS'),
  KAFKA_STORAGE_ERROR: ref('KAFKA_STORAGE_ERROR'),
  LOG_DIR_NOT_FOUND: ref('LOG_DIR_NOT_FOUND'),
} satisfies Record<string, KafkaErrorRef>);

/** `topic-partition`, Kafka's TopicPartition.toString(); used in messages only. */
export function partitionLabel(tp: TopicPartition): string {
  return `${tp.topic}-${tp.partition}`;
}
