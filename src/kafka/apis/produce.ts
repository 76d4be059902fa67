// Produce v9-v13 with acks=-1 (the version negotiated with the broker, ./versions.ts; Kafka
// 2.8-3.6 accept v9, 3.7 v10, 3.8-3.9 v11, 4.0 v12, 4.1+ v13), sent to the partition's leader: appends keyed records to one
// partition and answers the offset of the first. No producer id and no transactions: the
// state topic (src/kafka/state-topic.ts) relies only on acks=-1 (durable once the in-sync
// replicas have it). A null value is written as a tombstone.
//
// Encoded and decoded here, not by the client: its record writer took each key and value as a
// Buffer (the state topic made one per value from its JSON text), appended them to a chain
// of Buffers, and joined the batch once more to checksum it. A 100,000-partition start writes
// ~14 MB of state twice; that was ~80 MB of short-lived Buffers per start, outside V8's heap.
// Here the text goes straight into one request Buffer, sized in advance, and the CRC is
// computed over it in place (../wire/crc32c.ts). The bytes are the client encoder's (a test
// compares them), so brokers see exactly what they saw before.
// What differs between the versions (v13 below):
//   v9-v12: each topic is named by name (topic_data => name COMPACT_STRING; responses => name
//        COMPACT_STRING) where v13 has topic_id.
//   v10: the response gains tagged fields (current_leader per partition, node_endpoints: KIP-951),
//        which are skipped. v11 only says the client handles TRANSACTION_ABORTABLE (KIP-890),
//        which a non-transactional produce never gets; v12 (4.0) is v11 (KIP-890's transactions V2).
//   v13 (4.1): topics by id (KIP-516); a topic id the broker does not know answers
//        UNKNOWN_TOPIC_ID (100). Sent only when the caller knows the id (the state topic does);
//        without one, v12, which every broker accepting v13 accepts too.
/*
  Produce Request (Version: 13) => transactional_id acks timeout_ms [topic_data] TAG_BUFFER
    transactional_id => COMPACT_NULLABLE_STRING
    acks => INT16
    timeout_ms => INT32
    topic_data => topic_id [partition_data] TAG_BUFFER
      topic_id => UUID
      partition_data => index records TAG_BUFFER
        index => INT32
        records => COMPACT_RECORDS

  Produce Response (Version: 13) => [responses] throttle_time_ms TAG_BUFFER
    responses => topic_id [partition_responses] TAG_BUFFER
      topic_id => UUID
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
/*
  COMPACT_RECORDS here: one record batch, magic 2, no compression, as the client wrote it:
    base_offset INT64 (0) | batch_length INT32 | partition_leader_epoch INT32 (0) | magic INT8 (2)
    | crc UINT32 (CRC-32C of what follows) | attributes INT16 (0) | last_offset_delta INT32
    | base_timestamp INT64 | max_timestamp INT64 (the same) | producer_id INT64 (-1)
    | producer_epoch INT16 (0) | base_sequence INT32 (0) | [record] (INT32 count)
  record => length VARINT | attributes INT8 (0) | timestamp_delta VARLONG (0) | offset_delta VARINT
    | key_length VARINT | key | value_length VARINT (-1: null) | value | [header] (VARINT count, 0)
*/
import { createAPI } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo, toKafkaRequestError } from '../errors-map.js';
import { firstErrorName, type RequestSender } from '../request.js';
import { crc32c } from '../wire/crc32c.js';
import { WireReader } from '../wire/reader.js';
import { compactStringSize, payloadOf, uvarintSize, varintSize, WireWriter } from '../wire/writer.js';
import { GATEWAY_APIS, versionFor } from './versions.js';

/** One record to append: key and value as text (UTF-8 on the wire), value null = tombstone. */
export interface ProducedRecord {
  key: string;
  value: string | null;
}

/** Where a batch holds its CRC, and where the CRC's range begins (its attributes). */
const BATCH_CRC_AT = 17;
const BATCH_CRC_FROM = 21;
/** A batch's fixed part: base_offset .. the record count. */
const BATCH_HEAD = 61;

/**
 * The request body: `records` as one batch to `partition` of `topic`, every record at
 * `timestamp`. `topicId` (32 hex digits) names the topic instead of its name: v13 (v9-v12 with null).
 */
export function encodeProduceRequest(
  acks: number,
  timeoutMs: number,
  topic: string,
  partition: number,
  records: readonly ProducedRecord[],
  timestamp: bigint,
  topicId: string | null = null,
): Buffer {
  // Sizes first (each string's UTF-8 length once), then one Buffer written front to back.
  const keyBytes = new Array<number>(records.length);
  const valueBytes = new Array<number>(records.length);
  const bodyBytes = new Array<number>(records.length);
  let recordsSize = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    const k = Buffer.byteLength(r.key, 'utf8');
    const v = r.value === null ? -1 : Buffer.byteLength(r.value, 'utf8');
    keyBytes[i] = k;
    valueBytes[i] = v;
    // attributes, timestamp_delta (0), offset_delta, key, value, header count (0)
    const body = 1 + 1 + varintSize(i) + varintSize(k) + k + varintSize(v) + Math.max(0, v) + 1;
    bodyBytes[i] = body;
    recordsSize += varintSize(body) + body;
  }
  const batchSize = BATCH_HEAD + recordsSize;
  const topicRef = topicId === null ? compactStringSize(topic) : 16;
  const size = 1 + 2 + 4 + uvarintSize(2) + topicRef + uvarintSize(2) + 4 + uvarintSize(batchSize + 1) + batchSize + 1 + 1 + 1;
  const w = new WireWriter(size)
    .uvarint(0) // transactional_id: null
    .int16(acks)
    .int32(timeoutMs)
    .compactLength(1);
  if (topicId === null) w.compactString(topic);
  else w.pos += Buffer.from(topicId, 'hex').copy(w.buf, w.pos, 0, 16);
  w.compactLength(1)
    .int32(partition)
    .uvarint(batchSize + 1);
  const batchAt = w.pos;
  w.int64(0n)
    .int32(batchSize - 12) // batch_length: what follows it
    .int32(0) // partition_leader_epoch
    .int8(2) // magic
    .int32(0) // crc, below
    .int16(0) // attributes
    .int32(records.length - 1)
    .int64(timestamp)
    .int64(timestamp)
    .int64(-1n) // producer_id
    .int16(0) // producer_epoch
    .int32(0) // base_sequence
    .int32(records.length);
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    w.varint(bodyBytes[i]).int8(0).varint(0).varint(i).varint(keyBytes[i]).utf8(r.key, keyBytes[i]).varint(valueBytes[i]);
    if (r.value !== null) w.utf8(r.value, valueBytes[i]);
    w.varint(0);
  }
  w.buf.writeUInt32BE(crc32c(w.buf, batchAt + BATCH_CRC_FROM, w.pos), batchAt + BATCH_CRC_AT);
  return w.noTaggedFields().noTaggedFields().noTaggedFields().done();
}

/** What the gateway reads of a Produce answer. */
export interface ProduceAnswer {
  /** name: '' in v13, which names the topic by topicId (32 hex digits; '' below v13). */
  responses: {
    name: string;
    topicId: string;
    partitionResponses: { index: number; errorCode: number; baseOffset: bigint; errorMessage: string | null }[];
  }[];
  throttleTimeMs: number;
}

/**
 * The answer after its header, at `version` (v13: topics by id); fields the gateway does not use
 * (times, record errors, tagged fields) are skipped.
 */
export function decodeProduceAnswer(r: WireReader, version = 11): ProduceAnswer {
  const responses: ProduceAnswer['responses'] = [];
  const topics = r.compactLength();
  for (let t = 0; t < topics; t++) {
    let name = '';
    let topicId = '';
    if (version >= 13) {
      topicId = r.buf.toString('hex', r.pos, r.pos + 16);
      r.skip(16);
    } else name = r.compactString();
    const partitionResponses: ProduceAnswer['responses'][number]['partitionResponses'] = [];
    const partitions = r.compactLength();
    for (let p = 0; p < partitions; p++) {
      const index = r.int32();
      const errorCode = r.int16();
      const baseOffset = r.bigint64();
      r.skip(16); // log_append_time_ms, log_start_offset
      const recordErrors = r.compactLength();
      for (let e = 0; e < recordErrors; e++) {
        r.int32();
        r.compactNullableString();
        r.skipTaggedFields();
      }
      const errorMessage = r.compactNullableString();
      r.skipTaggedFields();
      partitionResponses.push({ index, errorCode, baseOffset, errorMessage });
    }
    r.skipTaggedFields();
    responses.push({ name, topicId, partitionResponses });
  }
  const throttleTimeMs = r.int32();
  r.skipTaggedFields();
  return { responses, throttleTimeMs };
}

// Produce at each version the gateway speaks, with our body and our parser.
const produceAt = (version: number) =>
  createAPI<[body: Buffer], ProduceAnswer>(GATEWAY_APIS.Produce.key, version, payloadOf, (_correlationId, _apiKey, _apiVersion, reader) =>
    decodeProduceAnswer(WireReader.fromClientReader(reader), version),
  );
const PRODUCE_BY_VERSION = { 9: produceAt(9), 10: produceAt(10), 11: produceAt(11), 12: produceAt(12), 13: produceAt(13) };

/**
 * Appends `records`, in order, to partition `partition` of `topic` on broker `leader`, with
 * acks=-1 and the broker-side `timeoutMs`. `topicId` (hex, see uuidHex in ./fetch.ts), when
 * known, lets a broker that accepts v13 be sent v13; without it v12 is the most sent. Resolves
 * with the offset of the first record; an error code in the answer is thrown as a
 * KafkaRequestError (kind 'kafka').
 */
export async function produceRecords(
  kafka: RequestSender,
  leader: number,
  topic: string,
  partition: number,
  records: readonly ProducedRecord[],
  timeoutMs: number,
  topicId?: string,
): Promise<bigint> {
  const timestamp = BigInt(Date.now());
  const id = topicId === undefined ? null : topicId.replaceAll('-', '');
  // One body per grammar, made once (a retried request re-sends the same bytes).
  let byName: Buffer | undefined;
  let byId: Buffer | undefined;
  let res: ProduceAnswer;
  try {
    res = await kafka.sendRequest(
      'Produce',
      { broker: leader },
      async (conn) => {
        const version = await versionFor(conn, GATEWAY_APIS.Produce);
        if (version >= 13 && id !== null)
          return PRODUCE_BY_VERSION[13].async(
            conn,
            (byId ??= encodeProduceRequest(-1, timeoutMs, topic, partition, records, timestamp, id)),
          );
        const body = (byName ??= encodeProduceRequest(-1, timeoutMs, topic, partition, records, timestamp));
        return PRODUCE_BY_VERSION[Math.min(version, 12) as 9 | 10 | 11 | 12].async(conn, body);
      },
      (r) => firstErrorName(r.responses.flatMap((t) => t.partitionResponses.map((p) => p.errorCode))),
    );
  } catch (err) {
    throw toKafkaRequestError(err, { api: 'Produce' }); // e.g. a malformed answer, as when the client's parser threw
  }
  const p = res.responses[0]?.partitionResponses[0];
  if (!p) throw new KafkaRequestError('kafka', kafkaErrorInfo(-1, `Empty Produce response for ${topic}`));
  if (p.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(p.errorCode, p.errorMessage));
  return p.baseOffset;
}
