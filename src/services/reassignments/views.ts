// What src/http needs of a reassignment record to answer with it, beside the service's outcomes:
// its partition count (a finished record's partitions are packed), its rollback file's order,
// its health policy and the re-plan hint of a hold.
import { ANY_LOG_DIR, compareTopicPartitions, REASSIGNMENT_FILE_VERSION } from '../../domain/reassignment/index.js';
import { replanHint, safetyOf } from '../../domain/reassignment/health.js';
import { partitionCount } from '../../state/cold-partitions.js';
import type { ReassignmentPartitionRecord, ReassignmentRecord } from '../../state/records.js';

export { ANY_LOG_DIR, partitionCount, REASSIGNMENT_FILE_VERSION, replanHint, safetyOf };

/** The record's partitions in the order of Kafka's reassignment file (topics by name, partitions ascending). */
export function inFileOrder(r: ReassignmentRecord): readonly ReassignmentPartitionRecord[] {
  const ordered = r.partitions;
  for (let i = 1; i < ordered.length; i++) {
    // Records keep their partitions in file order already; sort a copy only if they are not.
    if (compareTopicPartitions(ordered[i - 1], ordered[i]) > 0) return [...ordered].sort(compareTopicPartitions);
  }
  return ordered;
}
