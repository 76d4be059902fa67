// Partition reassignments (KIP-455), as free functions over KafkaAdmin: kept so callers written
// before KafkaAdmin keep their imports. The requests are src/kafka/apis/list-partition-
// reassignments-v0.ts and alter-partition-reassignments.ts.
import type { PartitionMove, PartitionMoveResult } from './apis/alter-partition-reassignments.js';
import type { MovingPartition, PartitionRef } from './apis/list-partition-reassignments-v0.js';
import type { KafkaAdmin } from './kafka-admin.js';

export type { MovingPartition, PartitionMove, PartitionMoveResult, PartitionRef };

/** Every partition moving in the cluster (`partitions` omitted), or those among `partitions` that move. */
export function listPartitionReassignments(kafka: KafkaAdmin, partitions?: PartitionRef[]): Promise<MovingPartition[]> {
  return kafka.listPartitionReassignments(partitions);
}

/** Starts (or, with null replicas, cancels) moves; one result per requested partition, in request order. */
export function alterPartitionReassignments(kafka: KafkaAdmin, moves: PartitionMove[]): Promise<PartitionMoveResult[]> {
  return kafka.alterPartitionReassignments(moves);
}
