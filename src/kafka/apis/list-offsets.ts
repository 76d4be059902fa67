// ListOffsets v6-v9 (the version negotiated with the broker, ./versions.ts; Kafka 2.8 accepts
// v6, 3.0-3.4 v7, 3.5-3.8 v8, 3.9+ v9), sent to the partition's leader: the offset of one partition at a
// timestamp, or at one of the special timestamps EARLIEST (-2: the log start offset) and
// LATEST (-1: the log end offset). The state topic reads [start, end) with it.
// The grammar (v9 below) is the same for v6-v9: v7 only allows MAX_TIMESTAMP (-3, KIP-734), v8 the
// EARLIEST_LOCAL timestamp (-4, KIP-405), v9 LATEST_TIERED (-5, KIP-1005) in the request; the
// gateway asks only EARLIEST (-2) and LATEST (-1), which every version answers alike.
/*
  ListOffsets Request (Version: 9) => replica_id isolation_level [topics] TAG_BUFFER
    replica_id => INT32
    isolation_level => INT8
    topics => name [partitions] TAG_BUFFER
      name => COMPACT_STRING
      partitions => partition_index current_leader_epoch timestamp TAG_BUFFER
        partition_index => INT32
        current_leader_epoch => INT32
        timestamp => INT64

  ListOffsets Response (Version: 9) => throttle_time_ms [topics] TAG_BUFFER
    throttle_time_ms => INT32
    topics => name [partitions] TAG_BUFFER
      name => COMPACT_STRING
      partitions => partition_index error_code timestamp offset leader_epoch TAG_BUFFER
        partition_index => INT32
        error_code => INT16
        timestamp => INT64
        offset => INT64
        leader_epoch => INT32
*/
import { listOffsetsV6, listOffsetsV7, listOffsetsV8, listOffsetsV9 } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo } from '../errors-map.js';
import { firstErrorName, type RequestSender } from '../request.js';
import { GATEWAY_APIS, pick } from './versions.js';

const LIST_OFFSETS_BY_VERSION = { 6: listOffsetsV6, 7: listOffsetsV7, 8: listOffsetsV8, 9: listOffsetsV9 };

/** Special timestamps: the log start offset, the log end offset. */
export const EARLIEST = -2n;
export const LATEST = -1n;

/**
 * The offset of partition `partition` of `topic` at `timestamp` (EARLIEST, LATEST or a time),
 * asked of broker `leader` as a consumer (replica id -1, READ_UNCOMMITTED). An error code in
 * the answer is thrown as a KafkaRequestError (kind 'kafka').
 */
export async function listOffset(kafka: RequestSender, leader: number, topic: string, partition: number, timestamp: bigint): Promise<bigint> {
  const res = await kafka.sendRequest(
    'ListOffsets',
    { broker: leader },
    async (conn) => (await pick(conn, GATEWAY_APIS.ListOffsets, LIST_OFFSETS_BY_VERSION)).module.api.async(conn, -1, 0, [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp }] }]),
    (r) => firstErrorName(r.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))),
  );
  const p = res.topics[0]?.partitions[0];
  if (!p || p.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(p?.errorCode ?? -1));
  return p.offset;
}
