// AlterPartitionReassignments v0 (KIP-455), sent to the controller. It answers per partition
// (unknown topic/partition 3, bad replica list 39, cancel of a partition not moving 85); a
// top-level error (e.g. 31 without ALTER on CLUSTER) fails the whole call and is thrown.
// `replicas: null` cancels a move.
/*
  AlterPartitionReassignments Request (Version: 0) => timeout_ms [topics] TAG_BUFFER
    timeout_ms => INT32
    topics => name [partitions] TAG_BUFFER
      name => COMPACT_STRING
      partitions => partition_index [replicas] TAG_BUFFER
        partition_index => INT32
        replicas => INT32

  AlterPartitionReassignments Response (Version: 0) => throttle_time_ms error_code error_message [responses] TAG_BUFFER
    throttle_time_ms => INT32
    error_code => INT16
    error_message => COMPACT_NULLABLE_STRING
    responses => name [partitions] TAG_BUFFER
      name => COMPACT_STRING
      partitions => partition_index error_code error_message TAG_BUFFER
        partition_index => INT32
        error_code => INT16
        error_message => COMPACT_NULLABLE_STRING
*/
import { alterPartitionReassignmentsV0 } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo, kafkaErrorName, NONE } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import type { KafkaErrorInfo } from '../types.js';
import { groupByTopic, type PartitionRef } from './list-partition-reassignments-v0.js';

export interface PartitionMove extends PartitionRef {
  /** The target replicas; null cancels the move in progress. */
  replicas: readonly number[] | null;
}

export type PartitionMoveResult = PartitionRef & ({ ok: true } | { ok: false; error: KafkaErrorInfo });

/** Starts (or, with null replicas, cancels) moves; one result per requested partition, in request order. */
export async function alterPartitionReassignments(kafka: RequestSender, moves: PartitionMove[]): Promise<PartitionMoveResult[]> {
  if (moves.length === 0) return [];
  const topics = [...groupByTopic(moves)].map(([name, ps]) => ({
    name,
    partitions: ps.map((p) => ({ partitionIndex: p.partition, replicas: p.replicas as number[] })),
  }));
  const res = await kafka.sendRequest(
    'AlterPartitionReassignments',
    'controller',
    (conn) => alterPartitionReassignmentsV0.api.async(conn, kafka.requestTimeoutMs, false, topics),
    (r) => {
      if (r.errorCode !== 0) return kafkaErrorName(r.errorCode);
      const code = r.responses.flatMap((t) => t.partitions).find((p) => p.errorCode !== 0)?.errorCode;
      return code === undefined ? NONE : kafkaErrorName(code);
    },
  );
  if (res.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(res.errorCode, res.errorMessage));
  const answered = new Map<string, { errorCode: number; errorMessage: string | null | undefined }>();
  for (const t of res.responses) for (const p of t.partitions) answered.set(`${t.name}\u0000${p.partitionIndex}`, p);
  return moves.map((m): PartitionMoveResult => {
    const a = answered.get(`${m.topic}\u0000${m.partition}`);
    if (!a) return { topic: m.topic, partition: m.partition, ok: false, error: kafkaErrorInfo(-1, 'No result for this partition in the response') };
    return a.errorCode === 0 ? { topic: m.topic, partition: m.partition, ok: true } : { topic: m.topic, partition: m.partition, ok: false, error: kafkaErrorInfo(a.errorCode, a.errorMessage) };
  });
}
