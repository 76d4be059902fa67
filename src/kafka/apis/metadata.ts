// Metadata v11-v13 (Kafka 2.8-3.0 accept v11, 3.1-3.9 v12, 4.0+ v13; the version negotiated with the broker,
// ./versions.ts): brokers, controller, and the partition placement of topics (replicas,
// leader, ISR). The transport (src/kafka/transport.ts) sends it to learn the brokers and the
// controller; the gateway lists topics, describes a topic's partitions and the placement of
// many topics with it; the state topic learns its id and its leader with it.
// The request is the same for v11-v13 (v12 only lets a request name a topic by id alone, name
// null, which the gateway never does). The response of v11 and v12 is v13's without the
// top-level error_code at its end (KIP-1102, 4.0): a broker sets it to ask the client to
// re-bootstrap (REBOOTSTRAP_REQUIRED, 129); such an answer is thrown as a KafkaRequestError
// with that code (its brokers and topics are not to be used). v13 in full:
/*
  Metadata Request (Version: 13) => [topics] allow_auto_topic_creation include_topic_authorized_operations TAG_BUFFER
    topics => topic_id name TAG_BUFFER
      topic_id => UUID
      name => COMPACT_NULLABLE_STRING
    allow_auto_topic_creation => BOOLEAN
    include_topic_authorized_operations => BOOLEAN

  Metadata Response (Version: 13) => throttle_time_ms [brokers] cluster_id controller_id [topics] error_code TAG_BUFFER
    throttle_time_ms => INT32
    brokers => node_id host port rack TAG_BUFFER
      node_id => INT32
      host => COMPACT_STRING
      port => INT32
      rack => COMPACT_NULLABLE_STRING
    cluster_id => COMPACT_NULLABLE_STRING
    controller_id => INT32
    topics => error_code name topic_id is_internal [partitions] topic_authorized_operations TAG_BUFFER
      error_code => INT16
      name => COMPACT_NULLABLE_STRING
      topic_id => UUID
      is_internal => BOOLEAN
      partitions => error_code partition_index leader_id leader_epoch [replica_nodes] [isr_nodes] [offline_replicas] TAG_BUFFER
        error_code => INT16
        partition_index => INT32
        leader_id => INT32
        leader_epoch => INT32
        replica_nodes => INT32
        isr_nodes => INT32
        offline_replicas => INT32
      topic_authorized_operations => INT32
    error_code => INT16
*/

// Both are encoded and decoded here, not by the client: every reconcile pass reads the
// placement of the moving topics (100 topics x 1000 partitions at issue 8's scale), and the
// client's parser allocated ~280 MB per such answer (a closure-driven readArray per INT32 list,
// an object per partition, reads through a list of socket chunks) that describePartitions then
// copied into its own objects (~95 MB more). Here each partition is read once from one Buffer
// into the object the callers keep: its replica lists are arrays sized once, and
// describePartitions (placement: replicas and leader) does not make the ISR and offline lists.
import type { Connection } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { ERROR_CODES, kafkaErrorInfo, NONE } from '../errors-map.js';
import { firstErrorName, type RequestSender, type Transport } from '../request.js';
import type { PartitionDescription, TopicDescription, TopicSummary } from '../types.js';
import { MalformedResponseError, WireReader } from '../wire/reader.js';
import { drain, type Steps } from '../../domain/steps.js';
import { ENTRIES_PER_STEP, inSlices } from '../wire/slices.js';
import { rawAnswerApi } from '../wire/undecoded.js';
import { compactStringSize, uvarintSize, WireWriter } from '../wire/writer.js';
import { topicIdOrNull } from './topic-items.js';
import { GATEWAY_APIS, pick } from './versions.js';

// The answer's types live in metadata-answer.ts, which imports nothing: src/kafka/request.ts
// names MetadataAnswer without importing this module (no cycle).
import type { MetadataAnswer, MetadataBroker, MetadataTopic, Placement, PartitionPlacement } from './metadata-answer.js';
export type { MetadataAnswer, MetadataBroker, MetadataTopic, PartitionPlacement, Placement } from './metadata-answer.js';

/** Bytes of the smallest partition entry: INT16 + 3 INT32 + three empty arrays + an empty TAG_BUFFER. */
const MIN_PARTITION_BYTES = 18;

function uuidOf(r: WireReader): string {
  const at = r.pos;
  r.skip(16);
  // The client's form (Reader.readUUID), so topicIdOrNull and the state topic read it as before.
  const hex = r.buf.toString('hex', at, at + 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A topic entry up to its partitions' count; a count the bytes left cannot hold is refused. */
export function topicHead(r: WireReader): { errorCode: number; name: string | null; topicId: string; isInternal: boolean; count: number } {
  const errorCode = r.int16();
  const name = r.compactNullableString();
  const topicId = uuidOf(r);
  const isInternal = r.bool();
  const count = Math.max(0, r.compactLength());
  if (count * MIN_PARTITION_BYTES > r.remaining) throw new MalformedResponseError('response ends inside a partition list');
  return { errorCode, name, topicId, isInternal, count };
}

/**
 * The response after its header, in steps (a yield every ENTRIES_PER_STEP partitions). Error
 * codes are returned, not thrown. Read as the client's parser reads it: a null array (which
 * the grammar does not allow) as empty, a null COMPACT_STRING host as ''. With `lists` =
 * 'replicas', isr_nodes and offline_replicas are skipped, not made into arrays (Placement:
 * half the allocation of an answer that is read every reconcile pass).
 */
export function decodeMetadataSteps(r: WireReader, lists?: 'all', version?: number): Steps<MetadataAnswer>;
export function decodeMetadataSteps(r: WireReader, lists: 'replicas', version?: number): Steps<MetadataAnswer<Placement>>;
export function* decodeMetadataSteps(r: WireReader, lists: 'all' | 'replicas' = 'all', version = 12): Steps<MetadataAnswer<Placement>> {
  const all = lists === 'all';
  const throttleTimeMs = r.int32();
  const brokers: MetadataBroker[] = [];
  const brokerCount = r.compactLength();
  for (let b = 0; b < brokerCount; b++) {
    const nodeId = r.int32();
    const host = r.compactString();
    const port = r.int32();
    const rack = r.compactNullableString();
    r.skipTaggedFields();
    brokers.push({ nodeId, host, port, rack });
  }
  const clusterId = r.compactNullableString();
  const controllerId = r.int32();
  const topics: MetadataTopic<Placement>[] = [];
  const topicCount = r.compactLength();
  let n = 0;
  for (let t = 0; t < topicCount; t++) {
    const { errorCode, name, topicId, isInternal, count } = topicHead(r);
    // Sized once (topicHead refuses a count the bytes left cannot hold before the array is made).
    const partitions = new Array<Placement>(count);
    let partitionErrorCodes: Int16Array | null = null;
    const buf = r.buf;
    for (let p = 0; p < count; p++) {
      // The fixed 14 bytes read in place (this loop runs once per partition); the count check
      // above keeps them inside the buffer.
      const at = r.pos;
      const code = buf.readInt16BE(at);
      if (code !== 0) (partitionErrorCodes ??= new Int16Array(count))[p] = code;
      const partition = buf.readInt32BE(at + 2);
      const leader = buf.readInt32BE(at + 6);
      // at + 10: leader_epoch, not kept
      r.pos = at + 14;
      const replicas = r.int32Array();
      if (all) {
        const isr = r.int32Array();
        const offlineReplicas = r.int32Array();
        const placed: PartitionPlacement = { partition, leader, replicas, isr, offlineReplicas };
        partitions[p] = placed;
      } else {
        r.skipInt32Array();
        r.skipInt32Array();
        partitions[p] = { partition, leader, replicas };
      }
      r.skipTaggedFields();
      if (++n % ENTRIES_PER_STEP === 0) yield;
    }
    r.int32(); // topic_authorized_operations, not asked for
    r.skipTaggedFields();
    topics.push({ errorCode, name, topicId, isInternal, partitions, partitionErrorCodes });
  }
  topLevelError(r, version);
  r.skipTaggedFields();
  return { throttleTimeMs, brokers, clusterId, controllerId, topics };
}

/** v13's top-level error_code (after the topics), thrown when set; nothing below v13. */
export function topLevelError(r: WireReader, version: number): void {
  if (version < 13) return;
  const code = r.int16();
  if (code !== 0) {
    const message =
      code === ERROR_CODES.REBOOTSTRAP_REQUIRED ? 'REBOOTSTRAP_REQUIRED: the broker asks the client to bootstrap again (KIP-1102)' : null;
    throw new KafkaRequestError('kafka', kafkaErrorInfo(code, message));
  }
}

/** A topic of the answer without its partitions (decodeTopicSummariesSteps). */
export interface MetadataTopicSummary {
  errorCode: number;
  name: string | null;
  topicId: string;
  isInternal: boolean;
  partitions: number;
  /** The longest replica list of its partitions. */
  replicationFactor: number;
}

/**
 * The topics of the response after its header, counted instead of decoded: per topic its
 * partitions and the longest replica list, no object or array per partition. listTopics wants
 * no more, and GET /throttles lists every topic on each poll: at 100,000 partitions the full
 * decode was most of that request's time and a third of a million arrays of garbage.
 */
export function* decodeTopicSummariesSteps(r: WireReader, version = 12): Steps<MetadataTopicSummary[]> {
  r.int32(); // throttle_time_ms
  const brokerCount = r.compactLength();
  for (let b = 0; b < brokerCount; b++) {
    r.int32();
    r.compactNullableString();
    r.int32();
    r.compactNullableString();
    r.skipTaggedFields();
  }
  r.compactNullableString(); // cluster_id
  r.int32(); // controller_id
  const topics: MetadataTopicSummary[] = [];
  const topicCount = r.compactLength();
  let n = 0;
  for (let t = 0; t < topicCount; t++) {
    const { errorCode, name, topicId, isInternal, count } = topicHead(r);
    let replicationFactor = 0;
    for (let p = 0; p < count; p++) {
      r.pos += 14; // error_code, partition_index, leader_id, leader_epoch (inside the buffer: the count check above)
      const replicas = r.compactLength();
      if (replicas > 0) {
        if (replicas > replicationFactor) replicationFactor = replicas;
        r.skip(replicas * 4);
      }
      r.skipInt32Array();
      r.skipInt32Array();
      r.skipTaggedFields();
      if (++n % ENTRIES_PER_STEP === 0) yield;
    }
    r.int32(); // topic_authorized_operations
    r.skipTaggedFields();
    topics.push({ errorCode, name, topicId, isInternal, partitions: count, replicationFactor });
  }
  topLevelError(r, version);
  r.skipTaggedFields();
  return topics;
}

export function decodeMetadata(r: WireReader, lists?: 'all', version?: number): MetadataAnswer;
export function decodeMetadata(r: WireReader, lists: 'replicas', version?: number): MetadataAnswer<Placement>;
export function decodeMetadata(r: WireReader, lists: 'all' | 'replicas' = 'all', version = 12): MetadataAnswer<Placement> {
  return drain(decodeMetadataSteps(r, lists as 'replicas', version));
}

/**
 * The request body for `topics` (null = every topic, a null array; [] = none: brokers and
 * controller only), each named with a null topic id; no auto-creation, no authorized operations.
 */
export function encodeMetadataRequest(topics: readonly string[] | null): Buffer {
  let size = (topics ? uvarintSize(topics.length + 1) : 1) + 3;
  for (const t of topics ?? []) size += 16 + compactStringSize(t) + 1;
  const w = new WireWriter(size).compactLength(topics ? topics.length : -1);
  for (const t of topics ?? []) w.zeros(16).compactString(t).noTaggedFields();
  return w.bool(false).bool(false).noTaggedFields().done();
}

const METADATA_BY_VERSION = {
  11: rawAnswerApi(GATEWAY_APIS.Metadata.key, 11),
  12: rawAnswerApi(GATEWAY_APIS.Metadata.key, 12),
  13: rawAnswerApi(GATEWAY_APIS.Metadata.key, 13),
};

/** Send `body` on `conn` at the version negotiated with its broker; the answer's bytes and its version. */
export async function sendRaw(conn: Connection, body: Buffer): Promise<{ answer: WireReader; version: number }> {
  const { version, module } = await pick(conn, GATEWAY_APIS.Metadata, METADATA_BY_VERSION);
  return { answer: await module.async(conn, body), version };
}

/**
 * Send a pre-encoded request on `conn` and decode the answer in slices. The decode is part of
 * the call (as the client's parser was), so the metrics label and the request's duration see
 * the decoded answer; a malformed answer fails the call.
 */
async function sendMetadata(conn: Connection, body: Buffer): Promise<MetadataAnswer> {
  const { answer, version } = await sendRaw(conn, body);
  return inSlices(decodeMetadataSteps(answer, 'all', version));
}

/** sendMetadata for describePartitions: replica lists only. */
async function sendMetadataPlacement(conn: Connection, body: Buffer): Promise<MetadataAnswer<Placement>> {
  const { answer, version } = await sendRaw(conn, body);
  return inSlices(decodeMetadataSteps(answer, 'replicas', version));
}

/** The request for `topics` (null = every topic, [] = none: brokers and controller only). */
export function metadataRequest(topics: string[] | null): (conn: Connection) => Promise<MetadataAnswer> {
  const body = encodeMetadataRequest(topics);
  return (conn) => sendMetadata(conn, body);
}

/** Label of a Metadata answer for the metrics: the first topic error, else NONE. */
export function metadataErrorName(res: MetadataAnswer<Placement>): string {
  return firstErrorName(res.topics.map((t) => t.errorCode));
}

/** `partitions` by partition id, in place; an answer already in order (Kafka lists them so) is not sorted. */
function byPartition<T extends { partition: number }>(partitions: T[]): T[] {
  for (let i = 1; i < partitions.length; i++)
    if (partitions[i - 1].partition > partitions[i].partition) return partitions.sort((a, b) => a.partition - b.partition);
  return partitions;
}

const EVERY_TOPIC = encodeMetadataRequest(null);

/** Every topic, sorted by name (a Metadata request for every topic, its partitions counted: decodeTopicSummariesSteps). */
export async function listTopics(kafka: Transport): Promise<TopicSummary[]> {
  const topics = await kafka.sendRequest(
    'Metadata',
    'any',
    async (conn) => {
      const { answer, version } = await sendRaw(conn, EVERY_TOPIC);
      return inSlices(decodeTopicSummariesSteps(answer, version));
    },
    (res) => firstErrorName(res.map((t) => t.errorCode)),
  );
  return topics
    .filter((t) => t.name != null)
    .map((t) => ({
      name: t.name as string,
      topicId: topicIdOrNull(t.topicId),
      partitions: t.partitions,
      replicationFactor: t.replicationFactor,
      internal: t.isInternal,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** One topic's id, internal flag and partitions; throws KafkaRequestError(UNKNOWN_TOPIC_OR_PARTITION) for an unknown topic. */
export async function describeTopicPartitions(kafka: Transport, name: string): Promise<Omit<TopicDescription, 'configs'>> {
  const md = await kafka.withRetry('Metadata', async () => {
    const res = await kafka.metadata([name]);
    const t = res.topics.find((x) => x.name === name) ?? res.topics[0];
    if (!t) throw new KafkaRequestError('kafka', kafkaErrorInfo(ERROR_CODES.UNKNOWN_TOPIC_OR_PARTITION));
    if (t.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(t.errorCode));
    return t;
  });
  // The decoded partitions are this call's own: handed on as they are.
  const partitions: PartitionDescription[] = byPartition(md.partitions);
  return { name, topicId: topicIdOrNull(md.topicId), internal: md.isInternal, partitions };
}

/** A topic's partitions: where they are (no ISR, no offline replicas: no caller of describePartitions reads them). */
export interface TopicPartitions {
  name: string;
  partitions: Placement[];
}

/**
 * What describePartitions answers from a decoded answer: the topics without an error, sorted by
 * name then partition. The partition objects are the answer's (sorted in place when needed).
 */
export function placementOf(res: MetadataAnswer<Placement>): TopicPartitions[] {
  const out: TopicPartitions[] = [];
  for (const t of res.topics) if (t.errorCode === 0 && t.name != null) out.push({ name: t.name, partitions: byPartition(t.partitions) });
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Partition placement of many topics in one request, without the per-topic DescribeConfigs
 * that describeTopic() adds. Unknown topics are left out of the answer: callers that validate
 * report them themselves. Sorted by name then partition; `topics` null = every topic. The
 * request is encoded once, for every attempt.
 */
export async function describePartitions(kafka: RequestSender, topics: string[] | null): Promise<TopicPartitions[]> {
  if (topics && topics.length === 0) return [];
  const body = encodeMetadataRequest(topics ? [...new Set(topics)] : null);
  const res = await kafka.sendRequest(
    'Metadata',
    'any',
    (conn) => sendMetadataPlacement(conn, body),
    // Unknown topics are an expected answer here, not a failed request.
    () => NONE,
  );
  return placementOf(res);
}

/**
 * The id of `topic` and the leader of its partition `partition` (-1: none, or no such
 * partition), for the state topic (src/kafka/state-topic.ts); null when the topic does not
 * exist (UNKNOWN_TOPIC_OR_PARTITION). Any other topic error is thrown as a KafkaRequestError.
 */
export async function partitionLeader(
  kafka: RequestSender,
  topic: string,
  partition: number,
): Promise<{ topicId: string; leader: number } | null> {
  const res = await kafka.sendRequest('Metadata', 'any', metadataRequest([topic]), metadataErrorName);
  const t = res.topics.find((x) => x.name === topic);
  if (!t || t.errorCode === ERROR_CODES.UNKNOWN_TOPIC_OR_PARTITION) return null;
  if (t.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(t.errorCode));
  const p = t.partitions.find((x) => x.partition === partition);
  return { topicId: t.topicId, leader: p ? p.leader : -1 };
}
