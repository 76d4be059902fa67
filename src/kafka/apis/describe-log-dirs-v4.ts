// DescribeLogDirs v4, sent to *each* broker (a broker only describes its own log dirs):
// replica sizes. Inter-broker copy progress = an adding replica's size against the
// leader's. Future replicas (is_future_key: a move between log dirs of one broker) are
// left out of the sizes (reported in `placement`); an offline log dir (error 56) contributes nothing.
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
// written once per call into one Buffer and sent as it is to each broker.
import { describeLogDirsV4 } from '@platformatic/kafka';
import { kafkaErrorInfo, kafkaErrorName, NONE, toKafkaRequestError } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import type { KafkaErrorInfo } from '../types.js';
import { MalformedResponseError, WireReader } from '../wire/reader.js';
import { drain, ENTRIES_PER_STEP, inSlices, type Steps } from '../wire/slices.js';
import { undecodedApi } from '../wire/undecoded.js';
import { compactStringSize, int32ArraySize, uvarintSize, WireWriter } from '../wire/writer.js';
import type { PartitionRef } from './list-partition-reassignments-v0.js';

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

export const replicaKey = (topic: string, partition: number): string => `${topic}:${partition}`;

/** One log dir of a DescribeLogDirs answer; its replica entries are [start, end) of each topic's range in the columns. */
export interface LogDirResult {
  errorCode: number;
  logDir: string;
  totalBytes: number;
  usableBytes: number;
  topics: { name: string; start: number; end: number }[];
}

/**
 * A decoded DescribeLogDirs v4 response. Replica entry i (in the order of the answer) is
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
export function* decodeDescribeLogDirsSteps(r: WireReader): Steps<LogDirsAnswer> {
  const throttleTimeMs = r.int32();
  const errorCode = r.int16();
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
        partitionIndex[n] = buf.readInt32BE(at);
        partitionSize[n] = buf.readInt32BE(at + 4) * 4294967296 + buf.readUInt32BE(at + 8);
        // at + 12: offset_lag, not used
        isFutureKey[n] = buf[at + 20] !== 0 ? 1 : 0;
        r.pos = at + 21;
        r.skipTaggedFields();
        if (n % ENTRIES_PER_STEP === 0) yield;
      }
      r.skipTaggedFields();
      topics.push({ name, start, end: n });
    }
    const totalBytes = r.int64();
    const usableBytes = r.int64();
    r.skipTaggedFields();
    results.push({ errorCode: dirError, logDir, totalBytes, usableBytes, topics });
  }
  r.skipTaggedFields();
  return { throttleTimeMs, errorCode, results, replicaCount: n, partitionIndex, partitionSize, isFutureKey };
}

export const decodeDescribeLogDirs = (r: WireReader): LogDirsAnswer => drain(decodeDescribeLogDirsSteps(r));

/** The request body: these topics' partitions (the gateway always names them; a null array would ask for every replica). */
export function encodeDescribeLogDirsRequest(topics: { name: string; partitions: number[] }[]): Buffer {
  let size = uvarintSize(topics.length + 1) + 1;
  for (const t of topics) size += compactStringSize(t.name) + int32ArraySize(t.partitions.length) + 1;
  const w = new WireWriter(size).compactLength(topics.length);
  for (const t of topics) w.compactString(t.name).int32Array(t.partitions).noTaggedFields();
  return w.noTaggedFields().done();
}

const describeApi = undecodedApi(describeLogDirsV4.api.key, describeLogDirsV4.api.version);

/**
 * The partitions asked about, numbered: slot i is keys[i] (its replica key, one string shared by
 * every broker's answer instead of one built per entry of each answer); slots.get(topic)[index]
 * is the slot of partition `index` of `topic`. An answer's entries are first gathered per slot
 * in typed arrays, so each map is filled with one set per replica and no get.
 */
export interface KeyTable {
  keys: string[];
  slots: Map<string, number[]>;
}

/** The request's topics (each once, its partitions once and sorted) and the key table of the partitions asked about. */
export function* topicsOfSteps(partitions: PartitionRef[]): Steps<{ topics: { name: string; partitions: number[] }[]; keys: KeyTable }> {
  const keys: string[] = [];
  const slots = new Map<string, number[]>();
  const topics: { name: string; partitions: number[] }[] = [];
  let topic: { name: string; partitions: number[] } | undefined;
  let slotOf: number[] | undefined;
  const byName = new Map<string, { name: string; partitions: number[] }>();
  for (const p of partitions) {
    if (topic?.name !== p.topic) {
      topic = byName.get(p.topic);
      if (!topic) {
        byName.set(p.topic, (topic = { name: p.topic, partitions: [] }));
        topics.push(topic);
        slots.set(p.topic, []);
      }
      slotOf = slots.get(p.topic)!;
    }
    if (slotOf![p.partition] !== undefined) continue;
    slotOf![p.partition] = keys.length;
    keys.push(replicaKey(p.topic, p.partition));
    topic.partitions.push(p.partition);
    if (keys.length % ENTRIES_PER_STEP === 0) yield;
  }
  for (const t of topics) t.partitions.sort((a, b) => a - b);
  return { topics, keys: { keys, slots } };
}

export const topicsOf = (partitions: PartitionRef[]) => drain(topicsOfSteps(partitions));

type Placement = { dir: string | null; futureDir: string | null };

/**
 * Sizes (and placement, if asked) of one broker's answer, as the gateway has always read it:
 * entries of offline dirs (any dir error) are left out; a replica's size is the largest of its
 * non-future entries (at least 0); placement holds the last dir of its entries and of its
 * future entries.
 */
export function* replicaSizesSteps(answer: LogDirsAnswer, table: KeyTable, withPlacement: boolean): Steps<Pick<ReplicaSizes, 'sizes' | 'dirs' | 'placement'>> {
  const { keys, slots } = table;
  const { partitionIndex, partitionSize, isFutureKey } = answer;
  const dirs: { dir: string; errorCode: number }[] = [];
  // Per slot: the size (NaN = no entry), the dir index and the future dir index (-1 = none).
  const best = new Float64Array(keys.length).fill(NaN);
  const dirOf = withPlacement ? new Int32Array(keys.length).fill(-1) : null;
  const futureDirOf = withPlacement ? new Int32Array(keys.length).fill(-1) : null;
  // Entries of partitions not asked about (a broker answers only those asked: kept for safety), keyed.
  let extraSizes: Map<string, number> | null = null;
  let extraPlacement: Map<string, Placement> | null = null;
  for (let d = 0; d < answer.results.length; d++) {
    const dir = answer.results[d]!;
    dirs.push({ dir: dir.logDir, errorCode: dir.errorCode });
    if (dir.errorCode !== 0) continue;
    for (const t of dir.topics) {
      const slotOf = slots.get(t.name);
      for (let i = t.start; i < t.end; i++) {
        const future = isFutureKey[i] === 1;
        const slot = slotOf?.[partitionIndex[i]!];
        if (slot === undefined) {
          const k = replicaKey(t.name, partitionIndex[i]!);
          if (withPlacement) {
            extraPlacement ??= new Map();
            const at = extraPlacement.get(k) ?? { dir: null, futureDir: null };
            extraPlacement.set(k, future ? { ...at, futureDir: dir.logDir } : { ...at, dir: dir.logDir });
          }
          if (!future) (extraSizes ??= new Map()).set(k, Math.max(extraSizes.get(k) ?? 0, partitionSize[i]!));
          continue;
        }
        if (future) {
          if (futureDirOf) futureDirOf[slot] = d;
          continue;
        }
        if (dirOf) dirOf[slot] = d;
        const before = best[slot]!;
        best[slot] = Math.max(before === before ? before : 0, partitionSize[i]!); // before !== before: NaN, no entry yet
        if (i % ENTRIES_PER_STEP === 0) yield;
      }
    }
  }
  const sizes = new Map<string, number>();
  for (let slot = 0; slot < best.length; slot++) {
    const size = best[slot]!;
    if (size === size) sizes.set(keys[slot]!, size);
    if (slot % ENTRIES_PER_STEP === 0) yield;
  }
  if (extraSizes) for (const [k, size] of extraSizes as Map<string, number>) sizes.set(k, size);
  if (!dirOf || !futureDirOf) return { sizes, dirs };
  const placement = new Map<string, Placement>();
  for (let slot = 0; slot < dirOf.length; slot++) {
    const d = dirOf[slot]!;
    const f = futureDirOf[slot]!;
    if (d >= 0 || f >= 0) placement.set(keys[slot]!, { dir: d >= 0 ? dirs[d]!.dir : null, futureDir: f >= 0 ? dirs[f]!.dir : null });
    if (slot % ENTRIES_PER_STEP === 0) yield;
  }
  if (extraPlacement) for (const [k, at] of extraPlacement as Map<string, Placement>) placement.set(k, at);
  return { sizes, dirs, placement };
}

export const replicaSizesOf = (answer: LogDirsAnswer, table: KeyTable, withPlacement: boolean): Pick<ReplicaSizes, 'sizes' | 'dirs' | 'placement'> =>
  drain(replicaSizesSteps(answer, table, withPlacement));

/** Sizes of the given partitions on each of `brokers`; a broker that does not answer fails alone. */
export async function describeReplicaSizes(
  kafka: RequestSender,
  brokers: number[],
  partitions: PartitionRef[],
  opts: ReplicaSizesOptions = {},
): Promise<BrokerLogDirs[]> {
  const { topics, keys } = await inSlices(topicsOfSteps(partitions));
  const body = encodeDescribeLogDirsRequest(topics);
  return Promise.all(
    [...new Set(brokers)].map(async (broker): Promise<BrokerLogDirs> => {
      try {
        const res = await kafka.sendRequest(
          'DescribeLogDirs',
          { broker },
          (conn) => describeApi.async(conn, body),
          (r) => (r.errorCode !== 0 ? kafkaErrorName(r.errorCode) : NONE),
        );
        if (res.errorCode !== 0) return { broker, ok: false, error: kafkaErrorInfo(res.errorCode) };
        const answer = await inSlices(decodeDescribeLogDirsSteps(res.answer));
        return { broker, ok: true, ...(await inSlices(replicaSizesSteps(answer, keys, opts.placement === true))) };
      } catch (err) {
        return { broker, ok: false, error: toKafkaRequestError(err, { api: 'DescribeLogDirs' }).kafka };
      }
    }),
  );
}
