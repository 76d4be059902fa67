// DescribeLogDirs v2-v4 (the version negotiated with the broker, ./versions.ts; Kafka 2.8-3.1
// accept v2, 3.2 v3, 3.3+ v4), sent to *each* broker (a broker only describes its own log dirs):
// replica sizes. Inter-broker copy progress = an adding replica's size against the
// leader's. Future replicas (is_future_key: a move between log dirs of one broker) are
// left out of the sizes (reported in `placement`); an offline log dir (error 56) contributes nothing.
// The request is the same for v2-v4 (v4 below). The response differs:
//   v2: no top-level error_code (read as 0), no total_bytes / usable_bytes (read as -1, Kafka's
//       DescribeLogDirsResponse.UNKNOWN_VOLUME_BYTES: the dir's size and free space are unknown).
//   v3: + error_code after throttle_time_ms (KIP-784).
//   v4: + total_bytes and usable_bytes per log dir (KIP-827).
/*
  DescribeLogDirs Request (Version: 4) => [topics] TAG_BUFFER
    topics => topic [partitions] TAG_BUFFER
      topic => COMPACT_STRING
      partitions => INT32

  DescribeLogDirs Response (Version: 4) => throttle_time_ms error_code [results] TAG_BUFFER
    throttle_time_ms => INT32
    error_code => INT16
    results => error_code log_dir [topics] total_bytes usable_bytes TAG_BUFFER
      error_code => INT16
      log_dir => COMPACT_STRING
      topics => name [partitions] TAG_BUFFER
        name => COMPACT_STRING
        partitions => partition_index partition_size offset_lag is_future_key TAG_BUFFER
          partition_index => INT32
          partition_size => INT64
          offset_lag => INT64
          is_future_key => BOOLEAN
      total_bytes => INT64
      usable_bytes => INT64
*/
// Both are encoded and decoded here, not by the client: a broker's answer lists every replica
// asked about (100,000 partitions = 100,000 entries on a broker holding them all), and the
// client's parser made a BigInt per INT64 and an object per entry; here the entries are
// columns of typed arrays, sizes plain numbers. The request (every partition asked about) is
// written once into one Buffer and sent as it is to each broker; a caller asking about the same
// partitions pass after pass keeps it (ReplicaSizesRequest) and gets each broker's sizes as a
// column indexed by the request's slots (describeReplicaSizeColumns): no string key and no Map
// per partition per pass. describeReplicaSizes is the Map form, for the few small callers.
import { createAPI } from '@platformatic/kafka';
import { partitionKey } from '../../domain/partition-key.js';
import { kafkaErrorInfo, kafkaErrorName, NONE, toKafkaRequestError } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import type { KafkaErrorInfo } from '../types.js';
import { MalformedResponseError, WireReader } from '../wire/reader.js';
import { drain, type Steps } from '../../domain/steps.js';
import { ENTRIES_PER_STEP, inSlices } from '../wire/slices.js';
import type { UndecodedAnswer } from '../wire/undecoded.js';
import { compactStringSize, int32ArraySize, payloadOf, uvarintSize, WireWriter } from '../wire/writer.js';
import { GATEWAY_APIS, pick } from './versions.js';
import type { PartitionRef } from './list-partition-reassignments-v0.js';
import { keysOf, topicsOfSteps, type KeyTable } from './describe-log-dirs-keys.js';

export interface ReplicaSizes {
  broker: number;
  /** `${topic}:${partition}` -> bytes. A replica the broker does not hold is absent. */
  sizes: Map<string, number>;
  /** The broker's log dirs with their error code (56 = offline). */
  dirs?: { dir: string; errorCode: number }[];
  /**
   * `${topic}:${partition}` -> the dir of the replica and of its future replica (intra-broker
   * move), if any. Only when asked for (`placement: true`).
   */
  placement?: Map<string, { dir: string | null; futureDir: string | null }>;
}

export type BrokerLogDirs = ({ ok: true } & ReplicaSizes) | { broker: number; ok: false; error: KafkaErrorInfo };

export interface ReplicaSizesOptions {
  /** Also report where each replica is (ReplicaSizes.placement): log-dir moves need it, sizes alone do not. */
  placement?: boolean;
}

/** `topic:partition`: the gateway's one partition key (interned, src/domain/partition-key.ts). */
export const replicaKey: (topic: string, partition: number) => string = partitionKey;

/** One log dir of a DescribeLogDirs answer; its replica entries are [start, end) of each topic's range in the columns. */
export interface LogDirResult {
  errorCode: number;
  logDir: string;
  /** The dir's size and free space in bytes; -1 = unknown (below v4). */
  totalBytes: number;
  usableBytes: number;
  topics: { name: string; start: number; end: number }[];
}

/**
 * A decoded DescribeLogDirs v2-v4 response. Replica entry i (in the order of the answer) is
 * partitionIndex[i], partitionSize[i], isFutureKey[i] (1/0); i < replicaCount. offset_lag is
 * not kept (the gateway does not use it).
 */
export interface LogDirsAnswer {
  throttleTimeMs: number;
  errorCode: number;
  results: LogDirResult[];
  replicaCount: number;
  partitionIndex: Int32Array;
  partitionSize: Float64Array;
  isFutureKey: Uint8Array;
}

/** Bytes of the smallest replica entry: INT32 + INT64 + INT64 + BOOLEAN + an empty TAG_BUFFER. */
const MIN_REPLICA_ENTRY_BYTES = 22;

/**
 * The response after its header, in steps (a yield every ENTRIES_PER_STEP replica entries).
 * A top-level or per-dir error is returned, not thrown. A null array (which the grammar does
 * not allow) reads as empty, as the client's parser reads it.
 */
export function* decodeDescribeLogDirsSteps(r: WireReader, version = 4): Steps<LogDirsAnswer> {
  const throttleTimeMs = r.int32();
  const errorCode = version >= 3 ? r.int16() : 0;
  // Every entry read takes at least MIN_REPLICA_ENTRY_BYTES of the answer (a read past its end
  // throws first), so the columns never fill up.
  const capacity = Math.floor(r.remaining / MIN_REPLICA_ENTRY_BYTES);
  const partitionIndex = new Int32Array(capacity);
  const partitionSize = new Float64Array(capacity);
  const isFutureKey = new Uint8Array(capacity);
  let n = 0;
  const results: LogDirResult[] = [];
  const dirCount = r.compactLength();
  for (let d = 0; d < dirCount; d++) {
    const dirError = r.int16();
    const logDir = r.compactString();
    const topics: LogDirResult['topics'] = [];
    const topicCount = r.compactLength();
    for (let t = 0; t < topicCount; t++) {
      const name = r.compactString();
      const start = n;
      const entries = r.compactLength();
      const buf = r.buf;
      for (let p = 0; p < entries; p++, n++) {
        // The fixed 21 bytes of an entry read in place (this loop runs once per replica).
        const at = r.pos;
        if (at + 21 > buf.length) throw new MalformedResponseError('response ends inside a replica entry');
        // Big-endian words from the bytes, not readInt32BE/readUInt32BE: a call not inlined
        // returns a value above 2^30 (most sizes' low word) as a heap number, one per entry.
        partitionIndex[n] = (buf[at] << 24) | (buf[at + 1] << 16) | (buf[at + 2] << 8) | buf[at + 3];
        const high = (buf[at + 4] << 24) | (buf[at + 5] << 16) | (buf[at + 6] << 8) | buf[at + 7];
        const low = ((buf[at + 8] << 24) | (buf[at + 9] << 16) | (buf[at + 10] << 8) | buf[at + 11]) >>> 0;
        partitionSize[n] = high * 4294967296 + low;
        // at + 12: offset_lag, not used
        isFutureKey[n] = buf[at + 20] !== 0 ? 1 : 0;
        r.pos = at + 21;
        r.skipTaggedFields();
        if (n % ENTRIES_PER_STEP === 0) yield;
      }
      r.skipTaggedFields();
      topics.push({ name, start, end: n });
    }
    const totalBytes = version >= 4 ? r.int64() : -1;
    const usableBytes = version >= 4 ? r.int64() : -1;
    r.skipTaggedFields();
    results.push({ errorCode: dirError, logDir, totalBytes, usableBytes, topics });
  }
  r.skipTaggedFields();
  return { throttleTimeMs, errorCode, results, replicaCount: n, partitionIndex, partitionSize, isFutureKey };
}

export const decodeDescribeLogDirs = (r: WireReader, version = 4): LogDirsAnswer => drain(decodeDescribeLogDirsSteps(r, version));

/** The request body: these topics' partitions (the gateway always names them; a null array would ask for every replica). */
export function encodeDescribeLogDirsRequest(topics: { name: string; partitions: number[] }[]): Buffer {
  let size = uvarintSize(topics.length + 1) + 1;
  for (const t of topics) size += compactStringSize(t.name) + int32ArraySize(t.partitions.length) + 1;
  const w = new WireWriter(size).compactLength(topics.length);
  for (const t of topics) w.compactString(t.name).int32Array(t.partitions).noTaggedFields();
  return w.noTaggedFields().done();
}

/**
 * DescribeLogDirs at `version` with a pre-encoded request body; the answer kept as bytes, with
 * its top-level error code (v3+; none before) for the transport's metrics label.
 */
const describeAt = (version: number) =>
  createAPI<[body: Buffer], UndecodedAnswer & { version: number }>(
    GATEWAY_APIS.DescribeLogDirs.key,
    version,
    payloadOf,
    (_correlationId, _apiKey, _apiVersion, reader) => {
      const answer = WireReader.fromClientReader(reader);
      return { version, errorCode: version >= 3 ? answer.buf.readInt16BE(answer.pos + 4) : 0, answer }; // after throttle_time_ms
    },
  );
const DESCRIBE_LOG_DIRS_BY_VERSION = { 2: describeAt(2), 3: describeAt(3), 4: describeAt(4) };

export { slotOf, topicsOf, topicsOfSteps, type KeyTable, type TopicSlots } from './describe-log-dirs-keys.js';

/**
 * A DescribeLogDirs request for a list of partitions: its key table and its body, sent as it is
 * to each broker. Built once for a list and reusable for as long as the list does not change
 * (a progress snapshot asks about the same moving partitions pass after pass).
 */
export interface ReplicaSizesRequest {
  readonly keys: KeyTable;
  readonly body: Buffer;
}

export function* replicaSizesRequestSteps(partitions: readonly PartitionRef[]): Steps<ReplicaSizesRequest> {
  const { topics, keys } = yield* topicsOfSteps(partitions);
  return { keys, body: encodeDescribeLogDirsRequest(topics) };
}

/** The request for `partitions`, built in slices (see inSlices). */
export const replicaSizesRequest = (partitions: readonly PartitionRef[]): Promise<ReplicaSizesRequest> =>
  inSlices(replicaSizesRequestSteps(partitions));

/**
 * Whether the i-th partition given to `request` was `topic`/`partition`: a caller walking its
 * partitions again in the same order finds with it, allocating nothing, whether the request it
 * keeps still names the same list (then it can be sent again as it is).
 */
export function givenAt(request: ReplicaSizesRequest, i: number, topic: string, partition: number): boolean {
  const { inputSlot, topicNames, slotTopic, slotPartition } = request.keys;
  if (i >= inputSlot.length) return false;
  const s = inputSlot[i];
  return slotPartition[s] === partition && topicNames[slotTopic[s]] === topic;
}

type Placement = { dir: string | null; futureDir: string | null };

/**
 * One broker's answer in columns: sizes[slot] is the size of the replica of the table's slot
 * (NaN = the broker does not hold it). Entries of partitions not asked about (a broker answers
 * only those asked: kept for safety) are keyed, in `extraSizes`.
 */
export interface ReplicaSizeColumns {
  sizes: Float64Array;
  dirs: { dir: string; errorCode: number }[];
  extraSizes?: Map<string, number>;
  /** As ReplicaSizes.placement: only when asked for. */
  placement?: Map<string, Placement>;
}

/**
 * Sizes (and placement, if asked) of one broker's answer, as the gateway has always read it:
 * entries of offline dirs (any dir error) are left out; a replica's size is the largest of its
 * non-future entries (at least 0); placement holds the last dir of its entries and of its
 * future entries.
 */
export function* replicaSizeColumnsSteps(answer: LogDirsAnswer, table: KeyTable, withPlacement: boolean): Steps<ReplicaSizeColumns> {
  const { slots } = table;
  const { partitionIndex, partitionSize, isFutureKey } = answer;
  const dirs: { dir: string; errorCode: number }[] = [];
  // Per slot: the size (NaN = no entry), the dir index and the future dir index (-1 = none).
  const best = new Float64Array(table.count).fill(NaN);
  const dirOf = withPlacement ? new Int32Array(table.count).fill(-1) : null;
  const futureDirOf = withPlacement ? new Int32Array(table.count).fill(-1) : null;
  let extraSizes: Map<string, number> | undefined;
  let extraPlacement: Map<string, Placement> | null = null;
  for (let d = 0; d < answer.results.length; d++) {
    const dir = answer.results[d];
    dirs.push({ dir: dir.logDir, errorCode: dir.errorCode });
    if (dir.errorCode !== 0) continue;
    for (const t of dir.topics) {
      const at = slots.get(t.name);
      const dense = at instanceof Int32Array ? at : null;
      const sparse = at instanceof Map ? at : null;
      for (let i = t.start; i < t.end; i++) {
        const future = isFutureKey[i] === 1;
        const pi = partitionIndex[i];
        const slot = dense !== null ? (pi >= 0 && pi < dense.length ? dense[pi] : -1) : sparse !== null ? (sparse.get(pi) ?? -1) : -1;
        if (slot < 0) {
          const k = replicaKey(t.name, partitionIndex[i]);
          if (withPlacement) {
            extraPlacement ??= new Map();
            const at = extraPlacement.get(k) ?? { dir: null, futureDir: null };
            extraPlacement.set(k, future ? { ...at, futureDir: dir.logDir } : { ...at, dir: dir.logDir });
          }
          if (!future) (extraSizes ??= new Map()).set(k, Math.max(extraSizes.get(k) ?? 0, partitionSize[i]));
          continue;
        }
        if (future) {
          if (futureDirOf) futureDirOf[slot] = d;
          continue;
        }
        if (dirOf) dirOf[slot] = d;
        const before = best[slot];
        best[slot] = Math.max(before === before ? before : 0, partitionSize[i]); // before !== before: NaN, no entry yet
        if (i % ENTRIES_PER_STEP === 0) yield;
      }
    }
  }
  const out: ReplicaSizeColumns = { sizes: best, dirs, ...(extraSizes && { extraSizes }) };
  if (!dirOf || !futureDirOf) return out;
  const keys = keysOf(table);
  const placement = new Map<string, Placement>();
  for (let slot = 0; slot < dirOf.length; slot++) {
    const d = dirOf[slot];
    const f = futureDirOf[slot];
    if (d >= 0 || f >= 0) placement.set(keys[slot], { dir: d >= 0 ? dirs[d].dir : null, futureDir: f >= 0 ? dirs[f].dir : null });
    if (slot % ENTRIES_PER_STEP === 0) yield;
  }
  if (extraPlacement) for (const [k, at] of extraPlacement) placement.set(k, at);
  return { ...out, placement };
}

/** The Map form of one broker's columns (keys: replicaKey): the sizes asked about in slot order, then the others. */
export function* sizesMapSteps(columns: ReplicaSizeColumns, table: KeyTable): Steps<Map<string, number>> {
  const keys = keysOf(table);
  const { sizes: best, extraSizes } = columns;
  const sizes = new Map<string, number>();
  for (let slot = 0; slot < best.length; slot++) {
    const size = best[slot];
    if (size === size) sizes.set(keys[slot], size);
    if (slot % ENTRIES_PER_STEP === 0) yield;
  }
  if (extraSizes) for (const [k, size] of extraSizes) sizes.set(k, size);
  return sizes;
}

/** Sizes (and placement, if asked) of one broker's answer in the Map form (ReplicaSizes). */
export function* replicaSizesSteps(
  answer: LogDirsAnswer,
  table: KeyTable,
  withPlacement: boolean,
): Steps<Pick<ReplicaSizes, 'sizes' | 'dirs' | 'placement'>> {
  const columns = yield* replicaSizeColumnsSteps(answer, table, withPlacement);
  const sizes = yield* sizesMapSteps(columns, table);
  return columns.placement ? { sizes, dirs: columns.dirs, placement: columns.placement } : { sizes, dirs: columns.dirs };
}

export const replicaSizesOf = (
  answer: LogDirsAnswer,
  table: KeyTable,
  withPlacement: boolean,
): Pick<ReplicaSizes, 'sizes' | 'dirs' | 'placement'> => drain(replicaSizesSteps(answer, table, withPlacement));

export type BrokerSizeColumns = ({ broker: number; ok: true } & ReplicaSizeColumns) | { broker: number; ok: false; error: KafkaErrorInfo };

/**
 * Sizes of the partitions of `request` on each of `brokers`, in columns indexed by the slots of
 * request.keys; a broker that does not answer fails alone.
 */
export async function describeReplicaSizeColumns(
  kafka: RequestSender,
  brokers: number[],
  request: ReplicaSizesRequest,
  opts: ReplicaSizesOptions = {},
): Promise<BrokerSizeColumns[]> {
  return Promise.all(
    [...new Set(brokers)].map(async (broker): Promise<BrokerSizeColumns> => {
      try {
        const res = await kafka.sendRequest(
          'DescribeLogDirs',
          { broker },
          async (conn) => (await pick(conn, GATEWAY_APIS.DescribeLogDirs, DESCRIBE_LOG_DIRS_BY_VERSION)).module.async(conn, request.body),
          (r) => (r.errorCode !== 0 ? kafkaErrorName(r.errorCode) : NONE),
        );
        if (res.errorCode !== 0) return { broker, ok: false, error: kafkaErrorInfo(res.errorCode) };
        const answer = await inSlices(decodeDescribeLogDirsSteps(res.answer, res.version));
        return { broker, ok: true, ...(await inSlices(replicaSizeColumnsSteps(answer, request.keys, opts.placement === true))) };
      } catch (err) {
        return { broker, ok: false, error: toKafkaRequestError(err, { api: 'DescribeLogDirs' }).kafka };
      }
    }),
  );
}

/**
 * Sizes of the given partitions on each of `brokers` in the Map form; a broker that does not
 * answer fails alone. For the few small callers; a caller asking about many partitions again
 * and again uses describeReplicaSizeColumns with a request it keeps.
 */
export async function describeReplicaSizes(
  kafka: RequestSender,
  brokers: number[],
  partitions: readonly PartitionRef[],
  opts: ReplicaSizesOptions = {},
): Promise<BrokerLogDirs[]> {
  const request = await replicaSizesRequest(partitions);
  const answers = await describeReplicaSizeColumns(kafka, brokers, request, opts);
  const out: BrokerLogDirs[] = [];
  for (const a of answers) {
    if (!a.ok) {
      out.push(a);
      continue;
    }
    const sizes = await inSlices(sizesMapSteps(a, request.keys));
    out.push({ broker: a.broker, ok: true, sizes, dirs: a.dirs, ...(a.placement && { placement: a.placement }) });
  }
  return out;
}
