// Replica sizes, as a free function over KafkaAdmin: kept so callers written before
// KafkaAdmin keep their imports. The request is src/kafka/apis/describe-log-dirs-v4.ts.
import type { PartitionRef } from './apis/list-partition-reassignments-v0.js';
import type { BrokerLogDirs, ReplicaSizesOptions } from './apis/describe-log-dirs-v4.js';
import type { KafkaAdmin } from './kafka-admin.js';

export { replicaKey, type BrokerLogDirs, type ReplicaSizes, type ReplicaSizesOptions } from './apis/describe-log-dirs-v4.js';

/** Sizes of the given partitions on each of `brokers`; a broker that does not answer fails alone. */
export function describeReplicaSizes(kafka: KafkaAdmin, brokers: number[], partitions: PartitionRef[], opts?: ReplicaSizesOptions): Promise<BrokerLogDirs[]> {
  return kafka.describeReplicaSizes(brokers, partitions, opts);
}
