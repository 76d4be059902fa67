// Partition reassignments (KIP-455): AlterPartitionReassignments v0 and
// ListPartitionReassignments v0, both sent to the controller.
//
// AlterPartitionReassignments answers per partition (unknown topic/partition 3, bad replica
// list 39, cancel of a partition not moving 85); a top-level error (e.g. 31 without ALTER on
// CLUSTER) fails the whole call and is thrown. `replicas: null` cancels a move.
import { alterPartitionReassignmentsV0, listPartitionReassignmentsV0 } from '@platformatic/kafka';
import type { PlatformaticKafkaGateway } from './admin.js';
import { KafkaRequestError } from './errors.js';
import { kafkaErrorInfo, kafkaErrorName, NONE } from './errors-map.js';
import type { KafkaErrorInfo } from './types.js';

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

export interface PartitionMove extends PartitionRef {
  /** The target replicas; null cancels the move in progress. */
  replicas: number[] | null;
}

export type PartitionMoveResult = PartitionRef & ({ ok: true } | { ok: false; error: KafkaErrorInfo });

function groupByTopic<T extends PartitionRef>(items: T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const i of items) {
    const list = m.get(i.topic);
    if (list) list.push(i);
    else m.set(i.topic, [i]);
  }
  return m;
}

/** Every partition moving in the cluster (`partitions` omitted), or those among `partitions` that move. */
export async function listPartitionReassignments(kafka: PlatformaticKafkaGateway, partitions?: PartitionRef[]): Promise<MovingPartition[]> {
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

/** Starts (or, with null replicas, cancels) moves; one result per requested partition, in request order. */
export async function alterPartitionReassignments(kafka: PlatformaticKafkaGateway, moves: PartitionMove[]): Promise<PartitionMoveResult[]> {
  if (moves.length === 0) return [];
  const topics = [...groupByTopic(moves)].map(([name, ps]) => ({
    name,
    partitions: ps.map((p) => ({ partitionIndex: p.partition, replicas: p.replicas as number[] })),
  }));
  const res = await kafka.sendRequest(
    'AlterPartitionReassignments',
    'controller',
    (conn) => alterPartitionReassignmentsV0.api.async(conn, kafka.requestTimeoutMs, false, topics),
    (r) => {
      if (r.errorCode !== 0) return kafkaErrorName(r.errorCode);
      const code = r.responses.flatMap((t) => t.partitions).find((p) => p.errorCode !== 0)?.errorCode;
      return code === undefined ? NONE : kafkaErrorName(code);
    },
  );
  if (res.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(res.errorCode, res.errorMessage));
  const answered = new Map<string, { errorCode: number; errorMessage: string | null | undefined }>();
  for (const t of res.responses) for (const p of t.partitions) answered.set(`${t.name}\u0000${p.partitionIndex}`, p);
  return moves.map((m): PartitionMoveResult => {
    const a = answered.get(`${m.topic}\u0000${m.partition}`);
    if (!a) return { topic: m.topic, partition: m.partition, ok: false, error: kafkaErrorInfo(-1, 'No result for this partition in the response') };
    return a.errorCode === 0 ? { topic: m.topic, partition: m.partition, ok: true } : { topic: m.topic, partition: m.partition, ok: false, error: kafkaErrorInfo(a.errorCode, a.errorMessage) };
  });
}
