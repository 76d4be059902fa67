// Replica sizes, as free functions over KafkaAdmin: kept so callers written before
// KafkaAdmin keep their imports. The request is src/kafka/apis/describe-log-dirs.ts.
import type { PartitionRef } from './apis/list-partition-reassignments-v0.js';
import type { BrokerLogDirs, BrokerSizeColumns, ReplicaSizesOptions, ReplicaSizesRequest } from './apis/describe-log-dirs.js';
import type { KafkaAdmin } from './kafka-admin.js';

export {
  replicaKey,
  replicaSizesRequest,
  givenAt,
  slotOf,
  type BrokerLogDirs,
  type BrokerSizeColumns,
  type KeyTable,
  type ReplicaSizes,
  type ReplicaSizesOptions,
  type ReplicaSizesRequest,
} from './apis/describe-log-dirs.js';

/** Sizes of the given partitions on each of `brokers`; a broker that does not answer fails alone. */
export function describeReplicaSizes(kafka: KafkaAdmin, brokers: number[], partitions: readonly PartitionRef[], opts?: ReplicaSizesOptions): Promise<BrokerLogDirs[]> {
  return kafka.describeReplicaSizes(brokers, partitions, opts);
}

/** The same in columns indexed by the slots of `request` (see KafkaAdmin.describeReplicaSizeColumns). */
export function describeReplicaSizeColumns(kafka: KafkaAdmin, brokers: number[], request: ReplicaSizesRequest, opts?: ReplicaSizesOptions): Promise<BrokerSizeColumns[]> {
  return kafka.describeReplicaSizeColumns(brokers, request, opts);
}
