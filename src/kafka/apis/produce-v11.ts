// Produce v11 with acks=-1, sent to the partition's leader: appends keyed records to one
// partition and answers the offset of the first. No producer id and no transactions: the
// state topic (src/kafka/state-topic.ts) relies only on acks=-1 (durable once the in-sync
// replicas have it). The client builds the record batch (COMPACT_RECORDS); a null value is
// written as a tombstone.
/*
  Produce Request (Version: 11) => transactional_id acks timeout_ms [topic_data] TAG_BUFFER
    transactional_id => COMPACT_NULLABLE_STRING
    acks => INT16
    timeout_ms => INT32
    topic_data => name [partition_data] TAG_BUFFER
      name => COMPACT_STRING
      partition_data => index records TAG_BUFFER
        index => INT32
        records => COMPACT_RECORDS

  Produce Response (Version: 11) => [responses] throttle_time_ms TAG_BUFFER
    responses => name [partition_responses] TAG_BUFFER
      name => COMPACT_STRING
      partition_responses => index error_code base_offset log_append_time_ms log_start_offset [record_errors] error_message TAG_BUFFER
        index => INT32
        error_code => INT16
        base_offset => INT64
        log_append_time_ms => INT64
        log_start_offset => INT64
        record_errors => batch_index batch_index_error_message TAG_BUFFER
          batch_index => INT32
          batch_index_error_message => COMPACT_NULLABLE_STRING
        error_message => COMPACT_NULLABLE_STRING
    throttle_time_ms => INT32
*/
import { produceV11 } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo, NONE } from '../errors-map.js';
import { firstErrorName, type RequestSender } from '../request.js';

/** One record to append: key and value as bytes, value null = tombstone. */
export interface ProducedRecord {
  key: Buffer;
  value: Buffer | null;
}

/**
 * Appends `records`, in order, to partition `partition` of `topic` on broker `leader`, with
 * acks=-1 and the broker-side `timeoutMs`. Resolves with the offset of the first record; an
 * error code in the answer is thrown as a KafkaRequestError (kind 'kafka').
 */
export async function produceRecords(
  kafka: RequestSender,
  leader: number,
  topic: string,
  partition: number,
  records: ProducedRecord[],
  timeoutMs: number,
): Promise<bigint> {
  const res = await kafka.sendRequest(
    'Produce',
    { broker: leader },
    (conn) =>
      produceV11.api.async(
        conn,
        -1,
        timeoutMs,
        records.map((r) => ({
          topic,
          partition,
          key: r.key,
          // The client's types want a Buffer; its record writer encodes null as a tombstone.
          value: r.value as Buffer,
        })),
      ),
    (r) => (typeof r === 'boolean' ? NONE : firstErrorName(r.responses.flatMap((t) => t.partitionResponses.map((p) => p.errorCode)))),
  );
  if (typeof res === 'boolean') throw new KafkaRequestError('kafka', kafkaErrorInfo(-1, 'Produce with acks=-1 got no response'));
  const p = res.responses[0]?.partitionResponses[0];
  if (!p) throw new KafkaRequestError('kafka', kafkaErrorInfo(-1, `Empty Produce response for ${topic}`));
  if (p.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(p.errorCode, p.errorMessage));
  return p.baseOffset;
}
