// Fetch v12-v18 (the version negotiated with the broker, ./versions.ts; Kafka 2.8-3.0 accept
// v12, 3.1-3.4 v13, 3.5-3.6 v15, 3.7-3.8 v16, 3.9-4.0 v17, 4.1+ v18), sent to the partition's leader: the
// record batches of one partition from an offset on. A full fetch every time (session id 0,
// epoch 0: no fetch session is kept), READ_UNCOMMITTED (nothing the gateway reads is
// transactional), max wait 0 (callers fetch below the end offset they already know, so the data
// is there). The client's per-version modules write and read v12-v17; what differs:
//   v12: the request starts with replica_id INT32 (-1, a consumer) and names topics by name
//        (topic => COMPACT_STRING, in topics and forgotten_topics_data); responses name them too.
//   v13-v14: topics by id (topic_id => UUID) in the request and the response (KIP-516).
//   v15+: no replica_id in the request (a consumer sends none; replica_state is a tagged field
//        for followers, KIP-903).
//   v16: the response gains the tagged node_endpoints (KIP-951), not read.
//   v17: the request gains the tagged replica_directory_id (KIP-853), not sent.
//   v18 (4.1): the request gains a follower's tagged high_watermark per partition (KIP-1166, tag 1
//        after replica_directory_id), not sent; the response is v17's. The client has no v18
//        module: v18 is sent with its v17 writer and parser, whose bytes are exactly v18's
//        without the tagged fields a consumer leaves out (test/kafka/newest-versions.integration.test.ts
//        reads the state topic with it from the simulator at 4.1 and 4.2).
// v18 in full (tagged fields are not shown):
/*
  Fetch Request (Version: 18) => max_wait_ms min_bytes max_bytes isolation_level session_id session_epoch [topics] [forgotten_topics_data] rack_id TAG_BUFFER
    max_wait_ms => INT32
    min_bytes => INT32
    max_bytes => INT32
    isolation_level => INT8
    session_id => INT32
    session_epoch => INT32
    topics => topic_id [partitions] TAG_BUFFER
      topic_id => UUID
      partitions => partition current_leader_epoch fetch_offset last_fetched_epoch log_start_offset partition_max_bytes TAG_BUFFER
        partition => INT32
        current_leader_epoch => INT32
        fetch_offset => INT64
        last_fetched_epoch => INT32
        log_start_offset => INT64
        partition_max_bytes => INT32
    forgotten_topics_data => topic_id [partitions] TAG_BUFFER
      topic_id => UUID
      partitions => INT32
    rack_id => COMPACT_STRING

  Fetch Response (Version: 18) => throttle_time_ms error_code session_id [responses] TAG_BUFFER
    throttle_time_ms => INT32
    error_code => INT16
    session_id => INT32
    responses => topic_id [partitions] TAG_BUFFER
      topic_id => UUID
      partitions => partition_index error_code high_watermark last_stable_offset log_start_offset [aborted_transactions] preferred_read_replica records TAG_BUFFER
        partition_index => INT32
        error_code => INT16
        high_watermark => INT64
        last_stable_offset => INT64
        log_start_offset => INT64
        aborted_transactions => producer_id first_offset TAG_BUFFER
          producer_id => INT64
          first_offset => INT64
        preferred_read_replica => INT32
        records => COMPACT_RECORDS
*/
import { createAPI, fetchV12, fetchV13, fetchV14, fetchV15, fetchV16, fetchV17 } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo, kafkaErrorName } from '../errors-map.js';
import { firstErrorName, type RequestSender } from '../request.js';
import { GATEWAY_APIS, pick } from './versions.js';

type FetchResponse = Awaited<ReturnType<typeof fetchV17.api.async>>;

/** v18: v17's grammar (the tagged high_watermark is a follower's), at version 18. */
export const fetchV18 = {
  api: createAPI<Parameters<typeof fetchV17.createRequest>, FetchResponse>(
    GATEWAY_APIS.Fetch.key,
    18,
    fetchV17.createRequest,
    fetchV17.parseResponse,
  ),
};

const FETCH_BY_VERSION = { 12: fetchV12, 13: fetchV13, 14: fetchV14, 15: fetchV15, 16: fetchV16, 17: fetchV17, 18: fetchV18 };

/** The record batches of one partition, as the client parses them. */
export type FetchedBatch = NonNullable<FetchResponse['responses'][number]['partitions'][number]['records']>[number];

/**
 * The batches of partition `partition` of topic `topic` (its id `topicId` in hex, see uuidHex:
 * v13+ name it so; v12 by name) from `offset` on, at most `maxBytes`, asked of broker `leader`. An error code in the answer (top-level or
 * the partition's) is thrown as a KafkaRequestError (kind 'kafka').
 */
export async function fetchRecords(
  kafka: RequestSender,
  leader: number,
  topic: string,
  topicId: string,
  partition: number,
  offset: bigint,
  maxBytes: number,
): Promise<FetchedBatch[]> {
  const res = await kafka.sendRequest(
    'Fetch',
    { broker: leader },
    async (conn) => {
      const { version, module } = await pick(conn, GATEWAY_APIS.Fetch, FETCH_BY_VERSION);
      // The client's v12 writer puts the topic field's string on the wire: the name there.
      const topicRef = version >= 13 ? topicId : topic;
      return (module as typeof fetchV17).api.async(
        conn,
        0, // max wait: we only fetch below the end offset, so data is there
        0,
        maxBytes,
        0, // READ_UNCOMMITTED
        0,
        0, // session epoch 0 with session id 0: a full fetch, no session kept
        [
          {
            topicId: topicRef,
            partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, partitionMaxBytes: maxBytes }],
          },
        ],
        [],
        '',
      );
    },
    (r) =>
      r.errorCode !== 0 ? kafkaErrorName(r.errorCode) : firstErrorName(r.responses.flatMap((t) => t.partitions.map((p) => p.errorCode))),
  );
  if (res.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(res.errorCode));
  const p = res.responses[0]?.partitions[0];
  if (!p) throw new KafkaRequestError('kafka', kafkaErrorInfo(-1, 'Empty Fetch response'));
  if (p.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(p.errorCode));
  return p.records ?? [];
}

/**
 * The client's Fetch writer wants the topic id as hex (dashes optional); Metadata gives it
 * in Kafka's printable form (URL-safe base64 of the 16 bytes).
 */
export function uuidHex(id: string): string {
  return /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(id) ? id : Buffer.from(id, 'base64url').toString('hex');
}
