// Leader elections (ElectLeaders, ./apis/elect-leaders.ts) as free functions over KafkaAdmin,
// for the services: one request per call, its top-level error thrown.
import type { ElectionType, ElectLeadersAnswer, PartitionElection } from './apis/elect-leaders.js';
import type { PartitionRef } from './apis/list-partition-reassignments-v0.js';
import { KafkaRequestError } from './errors.js';
import { kafkaErrorInfo } from './errors-map.js';
import type { KafkaAdmin } from './kafka-admin.js';

export type { ElectionType, PartitionElection };

/** Partitions per ElectLeaders request: well under KRaft's 10,000 records per operation (MAX_RECORDS_PER_USER_OP). */
export const ELECTION_BATCH = 5000;

/** Whether this Kafka layer can hold elections (test fakes may not). */
export function canElectLeaders(kafka: KafkaAdmin): boolean {
  return typeof kafka.electLeaders === 'function';
}

/**
 * One ElectLeaders request for `partitions` (at most ELECTION_BATCH): one answer per partition.
 * A top-level error (v1+: 31 without ALTER on CLUSTER, 42 an unknown type) is thrown as a
 * KafkaRequestError, and so is a failure to reach the controller.
 */
export async function electLeaders(
  kafka: KafkaAdmin,
  type: ElectionType,
  partitions: readonly PartitionRef[],
): Promise<{ throttleTimeMs: number; partitions: PartitionElection[] }> {
  if (!kafka.electLeaders) throw new KafkaRequestError('kafka', kafkaErrorInfo(35, 'This Kafka layer cannot send ElectLeaders.'));
  const answer: ElectLeadersAnswer = await kafka.electLeaders(type, partitions);
  if (answer.errorCode !== 0) {
    const message = answer.partitions.find((p) => p.errorCode === answer.errorCode)?.errorMessage ?? null;
    throw new KafkaRequestError('kafka', kafkaErrorInfo(answer.errorCode, message, answer.throttleTimeMs));
  }
  return { throttleTimeMs: answer.throttleTimeMs, partitions: answer.partitions };
}
