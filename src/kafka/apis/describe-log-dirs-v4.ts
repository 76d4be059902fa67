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
import { describeLogDirsV4 } from '@platformatic/kafka';
import { kafkaErrorInfo, kafkaErrorName, NONE, toKafkaRequestError } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import type { KafkaErrorInfo } from '../types.js';
import type { PartitionRef } from './list-partition-reassignments-v0.js';

export interface ReplicaSizes {
  broker: number;
  /** `${topic}:${partition}` -> bytes. A replica the broker does not hold is absent. */
  sizes: Map<string, number>;
  /** The broker's log dirs with their error code (56 = offline). */
  dirs?: { dir: string; errorCode: number }[];
  /** `${topic}:${partition}` -> the dir of the replica and of its future replica (intra-broker move), if any. */
  placement?: Map<string, { dir: string | null; futureDir: string | null }>;
}

export type BrokerLogDirs = ({ ok: true } & ReplicaSizes) | { broker: number; ok: false; error: KafkaErrorInfo };

export const replicaKey = (topic: string, partition: number): string => `${topic}:${partition}`;

function topicsOf(partitions: PartitionRef[]): { name: string; partitions: number[] }[] {
  const m = new Map<string, Set<number>>();
  for (const p of partitions) m.set(p.topic, (m.get(p.topic) ?? new Set()).add(p.partition));
  return [...m].map(([name, ps]) => ({ name, partitions: [...ps].sort((a, b) => a - b) }));
}

/** Sizes of the given partitions on each of `brokers`; a broker that does not answer fails alone. */
export async function describeReplicaSizes(kafka: RequestSender, brokers: number[], partitions: PartitionRef[]): Promise<BrokerLogDirs[]> {
  const topics = topicsOf(partitions);
  return Promise.all(
    [...new Set(brokers)].map(async (broker): Promise<BrokerLogDirs> => {
      try {
        const res = await kafka.sendRequest(
          'DescribeLogDirs',
          { broker },
          (conn) => describeLogDirsV4.api.async(conn, topics),
          (r) => (r.errorCode !== 0 ? kafkaErrorName(r.errorCode) : NONE),
        );
        if (res.errorCode !== 0) return { broker, ok: false, error: kafkaErrorInfo(res.errorCode) };
        const sizes = new Map<string, number>();
        const dirs: { dir: string; errorCode: number }[] = [];
        const placement = new Map<string, { dir: string | null; futureDir: string | null }>();
        for (const dir of res.results) {
          dirs.push({ dir: dir.logDir, errorCode: dir.errorCode });
          if (dir.errorCode !== 0) continue;
          for (const t of dir.topics) {
            for (const p of t.partitions) {
              const at = placement.get(replicaKey(t.name, p.partitionIndex)) ?? { dir: null, futureDir: null };
              placement.set(replicaKey(t.name, p.partitionIndex), p.isFutureKey ? { ...at, futureDir: dir.logDir } : { ...at, dir: dir.logDir });
              if (p.isFutureKey) continue;
              const k = replicaKey(t.name, p.partitionIndex);
              sizes.set(k, Math.max(sizes.get(k) ?? 0, Number(p.partitionSize)));
            }
          }
        }
        return { broker, ok: true, sizes, dirs, placement };
      } catch (err) {
        return { broker, ok: false, error: toKafkaRequestError(err, { api: 'DescribeLogDirs' }).kafka };
      }
    }),
  );
}
