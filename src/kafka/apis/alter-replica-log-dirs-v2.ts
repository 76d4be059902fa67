// AlterReplicaLogDirs v2 (Kafka 3.9 supports v0-v2), sent to *each* broker concerned: a broker
// moves only its own replicas between its log dirs (an intra-broker copy into a "future"
// replica, throttled by that broker's replica.alter.log.dirs.io.max.bytes.per.second).
// One result per requested (broker, topic, partition), in request order. Per-partition errors
// as Kafka's ReplicaManager.alterReplicaLogDirs answers them: LOG_DIR_NOT_FOUND (57, the path
// is not in the broker's log.dirs), KAFKA_STORAGE_ERROR (56, the dir is offline),
// REPLICA_NOT_AVAILABLE (9, the broker does not host the replica), UNKNOWN_TOPIC_OR_PARTITION (3).
// A broker that does not answer fails its own moves alone.
/*
  AlterReplicaLogDirs Request (Version: 2) => [dirs] TAG_BUFFER
    dirs => path [topics] TAG_BUFFER
      path => COMPACT_STRING
      topics => name [partitions] TAG_BUFFER
        name => COMPACT_STRING
        partitions => INT32

  AlterReplicaLogDirs Response (Version: 2) => throttle_time_ms [results] TAG_BUFFER
    throttle_time_ms => INT32
    results => topic_name [partitions] TAG_BUFFER
      topic_name => COMPACT_STRING
      partitions => partition_index error_code TAG_BUFFER
        partition_index => INT32
        error_code => INT16
*/
import { alterReplicaLogDirsV2 } from '@platformatic/kafka';
import { firstErrorName, type RequestSender } from '../request.js';
import { kafkaErrorInfo, toKafkaRequestError } from '../errors-map.js';
import type { KafkaErrorInfo } from '../types.js';
import type { PartitionRef } from './list-partition-reassignments-v0.js';
import { at, GATEWAY_APIS } from './versions.js';

export interface ReplicaLogDirMove extends PartitionRef {
  /** The broker whose replica moves. */
  broker: number;
  /** Absolute path of one of that broker's log dirs (its `log.dirs`). */
  logDir: string;
}

export type ReplicaLogDirMoveResult = ReplicaLogDirMove & ({ ok: true } | { ok: false; error: KafkaErrorInfo });

const k = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/** Starts intra-broker moves; one result per move, in request order. */
export async function alterReplicaLogDirs(kafka: RequestSender, moves: ReplicaLogDirMove[]): Promise<ReplicaLogDirMoveResult[]> {
  const byBroker = new Map<number, ReplicaLogDirMove[]>();
  for (const m of moves) byBroker.set(m.broker, [...(byBroker.get(m.broker) ?? []), m]);
  const answers = new Map<number, Map<string, number> | KafkaErrorInfo>();
  await Promise.all(
    [...byBroker].map(async ([broker, ms]) => {
      // path -> topic -> partitions; the same partition twice for one broker: the last dir wins (Kafka's map).
      const last = new Map<string, string>();
      for (const m of ms) last.set(k(m.topic, m.partition), m.logDir);
      const dirs = new Map<string, Map<string, number[]>>();
      for (const m of ms) {
        if (last.get(k(m.topic, m.partition)) !== m.logDir) continue;
        const topics = dirs.get(m.logDir) ?? new Map<string, number[]>();
        dirs.set(m.logDir, topics);
        const ps = topics.get(m.topic) ?? [];
        if (!ps.includes(m.partition)) ps.push(m.partition);
        topics.set(m.topic, ps);
      }
      const request = [...dirs].map(([path, topics]) => ({
        path,
        topics: [...topics].map(([name, partitions]) => ({ name, partitions })),
      }));
      try {
        const res = await kafka.sendRequest(
          'AlterReplicaLogDirs',
          { broker },
          async (conn) => (await at(conn, GATEWAY_APIS.AlterReplicaLogDirs, alterReplicaLogDirsV2.api)).async(conn, request),
          (r) => firstErrorName(r.results.flatMap((t) => t.partitions.map((p) => p.errorCode))),
        );
        const codes = new Map<string, number>();
        for (const t of res.results) for (const p of t.partitions) codes.set(k(t.topicName, p.partitionIndex), p.errorCode);
        answers.set(broker, codes);
      } catch (err) {
        answers.set(broker, toKafkaRequestError(err, { api: 'AlterReplicaLogDirs' }).kafka);
      }
    }),
  );
  return moves.map((m): ReplicaLogDirMoveResult => {
    const a = answers.get(m.broker);
    if (a === undefined) return { ...m, ok: false, error: kafkaErrorInfo(-1, 'No answer from the broker') };
    if (!(a instanceof Map)) return { ...m, ok: false, error: a };
    const code = a.get(k(m.topic, m.partition));
    if (code === undefined) return { ...m, ok: false, error: kafkaErrorInfo(-1, 'No result for this partition in the response') };
    return code === 0 ? { ...m, ok: true } : { ...m, ok: false, error: kafkaErrorInfo(code) };
  });
}
