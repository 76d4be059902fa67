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
// The request is the client's encoder; the response is decoded here (decodeDescribeLogDirs):
// a broker's answer lists every replica asked about (100,000 partitions = 100,000 entries
// on a broker holding them all), and the client's parser made a BigInt per INT64 and an
// object per entry. Here the entries are columns of typed arrays, sizes plain numbers.
import { createAPI, describeLogDirsV4 } from '@platformatic/kafka';
import { kafkaErrorInfo, kafkaErrorName, NONE, toKafkaRequestError } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import type { KafkaErrorInfo } from '../types.js';
import { WireReader } from '../wire/reader.js';
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
 * The response after its header. A top-level or per-dir error is returned, not thrown. A
 * null array (which the grammar does not allow) reads as empty, as the client's parser reads it.
 */
export function decodeDescribeLogDirs(r: WireReader): LogDirsAnswer {
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
      for (let p = 0; p < entries; p++, n++) {
        partitionIndex[n] = r.int32();
        partitionSize[n] = r.int64();
        r.skip(8); // offset_lag
        isFutureKey[n] = r.bool() ? 1 : 0;
        r.skipTaggedFields();
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

const describeApi = createAPI<Parameters<typeof describeLogDirsV4.createRequest>, LogDirsAnswer>(
  describeLogDirsV4.api.key,
  describeLogDirsV4.api.version,
  describeLogDirsV4.createRequest,
  (_correlationId, _apiKey, _apiVersion, reader) => decodeDescribeLogDirs(WireReader.fromClientReader(reader)),
);

/**
 * The replica keys of the partitions asked about, one string per partition shared by every
 * broker's answer (instead of one built per replica entry of each answer): topic -> keys by
 * partition index.
 */
export type KeyTable = Map<string, string[]>;

/** The request's topics (each once, its partitions once and sorted) and the key table of the partitions asked about. */
export function topicsOf(partitions: PartitionRef[]): { topics: { name: string; partitions: number[] }[]; keys: KeyTable } {
  const byTopic = new Map<string, { partitions: number[]; keys: string[] }>();
  for (const p of partitions) {
    let t = byTopic.get(p.topic);
    if (!t) byTopic.set(p.topic, (t = { partitions: [], keys: [] }));
    if (t.keys[p.partition] !== undefined) continue;
    t.keys[p.partition] = replicaKey(p.topic, p.partition);
    t.partitions.push(p.partition);
  }
  const keys: KeyTable = new Map();
  const topics: { name: string; partitions: number[] }[] = [];
  for (const [name, t] of byTopic) {
    keys.set(name, t.keys);
    topics.push({ name, partitions: t.partitions.sort((a, b) => a - b) });
  }
  return { topics, keys };
}

/** Sizes (and placement, if asked) of one broker's answer. */
export function replicaSizesOf(
  answer: LogDirsAnswer,
  keys: KeyTable,
  withPlacement: boolean,
): Pick<ReplicaSizes, 'sizes' | 'dirs' | 'placement'> {
  const sizes = new Map<string, number>();
  const dirs: { dir: string; errorCode: number }[] = [];
  const placement = withPlacement ? new Map<string, { dir: string | null; futureDir: string | null }>() : undefined;
  const { partitionIndex, partitionSize, isFutureKey } = answer;
  for (const dir of answer.results) {
    dirs.push({ dir: dir.logDir, errorCode: dir.errorCode });
    if (dir.errorCode !== 0) continue;
    for (const t of dir.topics) {
      const byIndex = keys.get(t.name);
      for (let i = t.start; i < t.end; i++) {
        const index = partitionIndex[i]!;
        const k = byIndex?.[index] ?? replicaKey(t.name, index);
        const future = isFutureKey[i] === 1;
        if (placement) {
          let at = placement.get(k);
          if (!at) placement.set(k, (at = { dir: null, futureDir: null }));
          if (future) at.futureDir = dir.logDir;
          else at.dir = dir.logDir;
        }
        if (future) continue;
        const size = partitionSize[i]!;
        const before = sizes.get(k);
        sizes.set(k, Math.max(before ?? 0, size));
      }
    }
  }
  return placement ? { sizes, dirs, placement } : { sizes, dirs };
}

/** Sizes of the given partitions on each of `brokers`; a broker that does not answer fails alone. */
export async function describeReplicaSizes(
  kafka: RequestSender,
  brokers: number[],
  partitions: PartitionRef[],
  opts: ReplicaSizesOptions = {},
): Promise<BrokerLogDirs[]> {
  const { topics, keys } = topicsOf(partitions);
  return Promise.all(
    [...new Set(brokers)].map(async (broker): Promise<BrokerLogDirs> => {
      try {
        const res = await kafka.sendRequest(
          'DescribeLogDirs',
          { broker },
          (conn) => describeApi.async(conn, topics),
          (r) => (r.errorCode !== 0 ? kafkaErrorName(r.errorCode) : NONE),
        );
        if (res.errorCode !== 0) return { broker, ok: false, error: kafkaErrorInfo(res.errorCode) };
        return { broker, ok: true, ...replicaSizesOf(res, keys, opts.placement === true) };
      } catch (err) {
        return { broker, ok: false, error: toKafkaRequestError(err, { api: 'DescribeLogDirs' }).kafka };
      }
    }),
  );
}
