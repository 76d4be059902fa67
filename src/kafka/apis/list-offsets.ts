// ListOffsets v6-v11 (the version negotiated with the broker, ./versions.ts; Kafka 2.8 accepts
// v6, 3.0-3.4 v7, 3.5-3.8 v8, 3.9 v9, 4.0-4.1 v10, 4.2+ v11), sent to the partition's leader: the offset of one partition at a
// timestamp, or at one of the special timestamps EARLIEST (-2: the log start offset) and
// LATEST (-1: the log end offset). The state topic reads [start, end) with it.
// What differs (v11 below): v6-v9 have no timeout_ms (the last field of the request); v7 only
// allows MAX_TIMESTAMP (-3, KIP-734), v8 the EARLIEST_LOCAL timestamp (-4, KIP-405), v9
// LATEST_TIERED (-5, KIP-1005) in the request. v10 (4.0) adds timeout_ms, how long the broker may
// wait for remote (tiered) storage to answer (KIP-1075): the gateway's request timeout, as
// Kafka's consumer sends its own. v11 (4.2) allows EARLIEST_PENDING_UPLOAD (-6, KIP-1023), the
// grammar unchanged. The gateway asks only EARLIEST (-2) and LATEST (-1), which every version
// answers alike; the response is the same for v6-v11. The client writes v6-v9; v10 and v11 are
// written here and read with the client's v9 parser (the same response grammar).
/*
  ListOffsets Request (Version: 11) => replica_id isolation_level [topics] timeout_ms TAG_BUFFER
    replica_id => INT32
    isolation_level => INT8
    topics => name [partitions] TAG_BUFFER
      name => COMPACT_STRING
      partitions => partition_index current_leader_epoch timestamp TAG_BUFFER
        partition_index => INT32
        current_leader_epoch => INT32
        timestamp => INT64
    timeout_ms => INT32

  ListOffsets Response (Version: 11) => throttle_time_ms [topics] TAG_BUFFER
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

import { createAPI, listOffsetsV6, listOffsetsV7, listOffsetsV8, listOffsetsV9 } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo } from '../errors-map.js';
import { firstErrorName, type RequestSender } from '../request.js';
import { compactStringSize, payloadOf, uvarintSize, WireWriter } from '../wire/writer.js';
import { GATEWAY_APIS, versionFor } from './versions.js';

type ListOffsetsTopics = Parameters<typeof listOffsetsV9.createRequest>[2];
type ListOffsetsResponse = ReturnType<typeof listOffsetsV9.parseResponse>;

/** The v10/v11 request body: v9's fields, then timeout_ms. */
export function encodeListOffsetsRequest(replicaId: number, isolationLevel: number, topics: ListOffsetsTopics, timeoutMs: number): Buffer {
  let size = 4 + 1 + uvarintSize(topics.length + 1) + 4 + 1;
  for (const t of topics)
    size += compactStringSize(t.name) + uvarintSize(t.partitions.length + 1) + t.partitions.length * (4 + 4 + 8 + 1) + 1;
  const w = new WireWriter(size).int32(replicaId).int8(isolationLevel).compactLength(topics.length);
  for (const t of topics) {
    w.compactString(t.name).compactLength(t.partitions.length);
    for (const p of t.partitions) w.int32(p.partitionIndex).int32(p.currentLeaderEpoch).int64(p.timestamp).noTaggedFields();
    w.noTaggedFields();
  }
  return w.int32(timeoutMs).noTaggedFields().done();
}

const listOffsetsWithTimeout = (version: 10 | 11) =>
  createAPI<[body: Buffer], ListOffsetsResponse>(GATEWAY_APIS.ListOffsets.key, version, payloadOf, listOffsetsV9.parseResponse);
const LIST_OFFSETS_BY_VERSION = { 6: listOffsetsV6, 7: listOffsetsV7, 8: listOffsetsV8, 9: listOffsetsV9 };
const LIST_OFFSETS_WITH_TIMEOUT = { 10: listOffsetsWithTimeout(10), 11: listOffsetsWithTimeout(11) };

/** Special timestamps: the log start offset, the log end offset. */
export const EARLIEST = -2n;
export const LATEST = -1n;

/**
 * The offset of partition `partition` of `topic` at `timestamp` (EARLIEST, LATEST or a time),
 * asked of broker `leader` as a consumer (replica id -1, READ_UNCOMMITTED). An error code in
 * the answer is thrown as a KafkaRequestError (kind 'kafka').
 */
export async function listOffset(
  kafka: RequestSender,
  leader: number,
  topic: string,
  partition: number,
  timestamp: bigint,
): Promise<bigint> {
  const res = await kafka.sendRequest(
    'ListOffsets',
    { broker: leader },
    async (conn) => {
      const version = await versionFor(conn, GATEWAY_APIS.ListOffsets);
      const topics: ListOffsetsTopics = [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp }] }];
      if (version >= 10)
        return LIST_OFFSETS_WITH_TIMEOUT[version as 10 | 11].async(conn, encodeListOffsetsRequest(-1, 0, topics, kafka.requestTimeoutMs));
      return LIST_OFFSETS_BY_VERSION[version as 6 | 7 | 8 | 9].api.async(conn, -1, 0, topics);
    },
    (r) => firstErrorName(r.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))),
  );
  const p = res.topics[0]?.partitions[0];
  if (!p || p.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(p?.errorCode ?? -1));
  return p.offset;
}
