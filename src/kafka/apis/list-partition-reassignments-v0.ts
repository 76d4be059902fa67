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
import { listPartitionReassignmentsV0 } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo, kafkaErrorName, NONE } from '../errors-map.js';
import type { RequestSender } from '../request.js';

export interface PartitionRef {
  topic: string;
  partition: number;
}

/** A partition Kafka reports as moving. `replicas` = target ++ sorted(current - target) while it moves. */
export interface MovingPartition extends PartitionRef {
  replicas: number[];
  adding: number[];
  removing: number[];
}

export function groupByTopic<T extends PartitionRef>(items: T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const i of items) {
    const list = m.get(i.topic);
    if (list) list.push(i);
    else m.set(i.topic, [i]);
  }
  return m;
}

/** Every partition moving in the cluster (`partitions` omitted), or those among `partitions` that move. */
export async function listPartitionReassignments(kafka: RequestSender, partitions?: PartitionRef[]): Promise<MovingPartition[]> {
  const topics = partitions ? [...groupByTopic(partitions)].map(([name, ps]) => ({ name, partitionIndexes: ps.map((p) => p.partition) })) : null;
  if (topics && topics.length === 0) return [];
  const res = await kafka.sendRequest(
    'ListPartitionReassignments',
    'controller',
    // null = every moving partition (the client's types say array; its writer encodes null as a null array).
    (conn) => listPartitionReassignmentsV0.api.async(conn, kafka.requestTimeoutMs, topics as never),
    (r) => (r.errorCode === 0 ? NONE : kafkaErrorName(r.errorCode)),
  );
  if (res.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(res.errorCode, res.errorMessage));
  return res.topics
    .flatMap((t) =>
      t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, replicas: [...p.replicas], adding: [...p.addingReplicas], removing: [...p.removingReplicas] })),
    )
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}
