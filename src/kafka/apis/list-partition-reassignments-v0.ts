// ListPartitionReassignments v0 (KIP-455), sent to the controller: every partition moving in
// the cluster, or those among the given partitions that move.
/*
  ListPartitionReassignments Request (Version: 0) => timeout_ms [topics] TAG_BUFFER
    timeout_ms => INT32
    topics => name [partition_indexes] TAG_BUFFER
      name => COMPACT_STRING
      partition_indexes => INT32

  ListPartitionReassignments Response (Version: 0) => throttle_time_ms error_code error_message [topics] TAG_BUFFER
    throttle_time_ms => INT32
    error_code => INT16
    error_message => COMPACT_NULLABLE_STRING
    topics => name [partitions] TAG_BUFFER
      name => COMPACT_STRING
      partitions => partition_index [replicas] [adding_replicas] [removing_replicas] TAG_BUFFER
        partition_index => INT32
        replicas => INT32
        adding_replicas => INT32
        removing_replicas => INT32
*/
// Both are encoded and decoded here, not by the client: the answer, polled every reconcile
// pass, is ~3 MB at 100,000 moving partitions, and the client's parser built an object per
// partition that we then copied into ours; a request naming many partitions was a Buffer per
// INT32 in the client's writer.
import { listPartitionReassignmentsV0 } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo, kafkaErrorName, NONE, toKafkaRequestError } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import { WireReader } from '../wire/reader.js';
import { drain, type Steps } from '../../domain/steps.js';
import { ENTRIES_PER_STEP, inSlices } from '../wire/slices.js';
import { undecodedApi } from '../wire/undecoded.js';
import { compactStringSize, int32ArraySize, uvarintSize, WireWriter } from '../wire/writer.js';
import { at, GATEWAY_APIS } from './versions.js';

export interface PartitionRef {
  topic: string;
  partition: number;
}

/** A partition Kafka reports as moving. `replicas` = target ++ sorted(current - target) while it moves. */
export interface MovingPartition extends PartitionRef {
  /** Shared frozen lists (src/domain/replica-list.ts): the same list for every partition naming it. */
  replicas: readonly number[];
  adding: readonly number[];
  removing: readonly number[];
}

/** A decoded ListPartitionReassignments v0 response: the moving partitions in the order of the answer. */
export interface ListedReassignments {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  moving: MovingPartition[];
}

/**
 * The response after its header, in steps (a yield every ENTRIES_PER_STEP partitions). A null
 * array (which the grammar does not allow) reads as empty, as the client's parser reads it; a
 * top-level error is returned, not thrown.
 */
export function* decodeListPartitionReassignmentsSteps(r: WireReader): Steps<ListedReassignments> {
  const throttleTimeMs = r.int32();
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const moving: MovingPartition[] = [];
  const topicCount = r.compactLength();
  for (let t = 0; t < topicCount; t++) {
    const topic = r.compactString();
    const partitionCount = r.compactLength();
    for (let p = 0; p < partitionCount; p++) {
      const partition = r.int32();
      const replicas = r.sharedInt32Array();
      const adding = r.sharedInt32Array();
      const removing = r.sharedInt32Array();
      r.skipTaggedFields();
      moving.push({ topic, partition, replicas, adding, removing });
      if (moving.length % ENTRIES_PER_STEP === 0) yield;
    }
    r.skipTaggedFields();
  }
  r.skipTaggedFields();
  return { throttleTimeMs, errorCode, errorMessage, moving };
}

export const decodeListPartitionReassignments = (r: WireReader): ListedReassignments => drain(decodeListPartitionReassignmentsSteps(r));

/** The request body; topics null = every moving partition (a null array). */
export function encodeListPartitionReassignmentsRequest(
  timeoutMs: number,
  topics: { name: string; partitionIndexes: number[] }[] | null,
): Buffer {
  let size = 4 + 1 + (topics ? uvarintSize(topics.length + 1) : 1);
  for (const t of topics ?? []) size += compactStringSize(t.name) + int32ArraySize(t.partitionIndexes.length) + 1;
  const w = new WireWriter(size).int32(timeoutMs).compactLength(topics ? topics.length : -1);
  for (const t of topics ?? []) w.compactString(t.name).int32Array(t.partitionIndexes).noTaggedFields();
  return w.noTaggedFields().done();
}

const listApi = undecodedApi(listPartitionReassignmentsV0.api.key, listPartitionReassignmentsV0.api.version);

export function groupByTopic<T extends PartitionRef>(items: T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const i of items) {
    const list = m.get(i.topic);
    if (list) list.push(i);
    else m.set(i.topic, [i]);
  }
  return m;
}

const byTopicPartition = (a: PartitionRef, b: PartitionRef): number =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;

/**
 * `moving` ordered by topic, then partition (stable, as one sort with byTopicPartition would
 * order it), without comparing strings per element: the topics are sorted once, each topic's
 * partitions by number. An answer already in order (the common case) is returned as it is.
 */
export function sortByTopicPartition(moving: MovingPartition[]): MovingPartition[] {
  let sorted = true;
  for (let i = 1; i < moving.length && sorted; i++) sorted = byTopicPartition(moving[i - 1], moving[i]) <= 0;
  if (sorted) return moving;
  const byTopic = groupByTopic(moving);
  const out: MovingPartition[] = [];
  // Default sort orders strings by UTF-16 code units, as `<` does.
  for (const topic of [...byTopic.keys()].sort()) {
    const ps = byTopic.get(topic)!.sort((a, b) => a.partition - b.partition);
    for (const p of ps) out.push(p);
  }
  return out;
}

/** Every partition moving in the cluster (`partitions` omitted), or those among `partitions` that move. */
export async function listPartitionReassignments(kafka: RequestSender, partitions?: PartitionRef[]): Promise<MovingPartition[]> {
  const topics = partitions
    ? [...groupByTopic(partitions)].map(([name, ps]) => ({ name, partitionIndexes: ps.map((p) => p.partition) }))
    : null;
  if (topics && topics.length === 0) return [];
  const res = await kafka.sendRequest(
    'ListPartitionReassignments',
    'controller',
    async (conn) =>
      (await at(conn, GATEWAY_APIS.ListPartitionReassignments, listApi)).async(
        conn,
        encodeListPartitionReassignmentsRequest(kafka.requestTimeoutMs, topics),
      ),
    (r) => (r.errorCode === 0 ? NONE : kafkaErrorName(r.errorCode)),
  );
  let listed: ListedReassignments;
  try {
    listed = await inSlices(decodeListPartitionReassignmentsSteps(res.answer));
  } catch (err) {
    throw toKafkaRequestError(err, { api: 'ListPartitionReassignments' }); // a malformed answer, as when the client's parser threw
  }
  if (listed.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(listed.errorCode, listed.errorMessage));
  return sortByTopicPartition(listed.moving);
}
