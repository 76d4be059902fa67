// What a start reads from Kafka besides its validation's reads: where the requested partitions
// are (Metadata, in slices of topics) and how big they are on their leaders (DescribeLogDirs),
// for the estimate, bytesTotal and deadline pacing.
import { PartitionMap, STEP_ITEMS, type PartitionAssignment } from '../../domain/reassignment/index.js';
import { replicaKey, type BrokerLogDirs, type MovingPartition, type TopicPartitions } from '../../kafka/kafka-admin.js';
import type { ReplicaHealth } from '../../kafka/replica-health.js';
import type { ServiceContext } from './types.js';

/** Topics per Metadata request of a start (see placementOf). */
const METADATA_TOPICS = 10;

/** The topics sorted by name, in chunks of METADATA_TOPICS (one Metadata request each). */
function chunksOf(topics: readonly string[]): string[][] {
  const sorted = [...topics].sort();
  const chunks: string[][] = [];
  for (let i = 0; i < sorted.length; i += METADATA_TOPICS) chunks.push(sorted.slice(i, i + METADATA_TOPICS));
  return chunks;
}

/**
 * describePartitions in requests of METADATA_TOPICS topics, all in flight at once: each answer
 * is decoded on its own turn of the event loop (one Metadata answer for 100 topics of 1000
 * partitions is hundreds of ms of decoding in one go). The same list as one request gives:
 * topics sorted by name (the chunks are cut from the sorted names).
 */
export async function placementOf(ctx: ServiceContext, topics: string[]): Promise<TopicPartitions[]> {
  if (topics.length <= METADATA_TOPICS) return ctx.d.kafka.describePartitions(topics);
  return (await Promise.all(chunksOf(topics).map((c) => ctx.d.kafka.describePartitions(c)))).flat();
}

/**
 * placementOf, and the health of the same topics read from the same answers (an unpaced start's
 * warning, start-health.ts): no request more. `health` is null when the Kafka layer has no such
 * read (the start's decision then reads every topic itself, HealthInterlock.decideAtStart).
 */
export async function placementAndHealthOf(
  ctx: ServiceContext,
  topics: string[],
): Promise<{ placement: TopicPartitions[]; health: ReplicaHealth | null }> {
  const read = ctx.d.kafka.describePlacementAndHealth?.bind(ctx.d.kafka);
  if (!read) return { placement: await placementOf(ctx, topics), health: null };
  const answers = await Promise.all(chunksOf(topics).map((c) => read(c)));
  return { placement: answers.flatMap((a) => a.placement), health: mergeHealth(answers.map((a) => a.health)) };
}

/**
 * Health answers of disjoint topic sets as one: a broker is live only if every answer lists it
 * (answers read moments apart may differ; the cautious reading counts it gone).
 */
export function mergeHealth(answers: readonly ReplicaHealth[]): ReplicaHealth {
  if (answers.length === 1) return answers[0];
  const live =
    answers.reduce<number[] | null>((acc, a) => (acc === null ? [...a.brokers] : acc.filter((b) => a.brokers.includes(b))), null) ?? [];
  const gone = new Set<number>();
  for (const a of answers) for (const b of a.goneUnlisted) gone.add(b);
  return {
    brokers: live,
    topics: answers.flatMap((a) => a.topics),
    partitions: answers.reduce((n, a) => n + a.partitions, 0),
    goneUnlisted: [...gone].sort((a, b) => a - b),
  };
}

/**
 * partition_size of each requested partition on its current leader (for estimates), by
 * position in `requested` (NaN = not asked or not answered): one DescribeLogDirs per leader,
 * naming only the partitions it leads (a broker answers every replica it hosts of the
 * partitions named: a third of the bytes to decode at RF 3).
 */
export async function leaderSizes(
  ctx: ServiceContext,
  placement: readonly TopicPartitions[],
  requested: readonly PartitionAssignment[],
  moving: readonly MovingPartition[],
  pace: () => Promise<void>,
): Promise<Float64Array> {
  // Kafka lists a topic's partitions in id order, so partition k is usually at index k: a map
  // of the topic's partitions is built only for a topic where it is not.
  type Placed = TopicPartitions['partitions'][number];
  const listed = new Map<string, readonly Placed[]>();
  for (const t of placement) listed.set(t.name, t.partitions);
  const indexed = new Map<string, Map<number, Placed>>();
  const placed = (topic: string, partition: number): Placed | undefined => {
    const list = listed.get(topic);
    if (list === undefined) return undefined;
    const atIndex = list[partition];
    if (atIndex !== undefined && atIndex.partition === partition) return atIndex;
    let m = indexed.get(topic);
    if (m === undefined) {
      m = new Map();
      for (const p of list) m.set(p.partition, p);
      indexed.set(topic, m);
    }
    return m.get(partition);
  };
  const isMoving = new PartitionMap<true>();
  for (let i = 0; i < moving.length; i++) isMoving.set(moving[i].topic, moving[i].partition, true);
  // Per leader: the partitions to name, and their positions in `requested`.
  // The requested entries themselves name them (a { topic, partition } each, no new object).
  const byLeader = new Map<number, { partitions: PartitionAssignment[]; at: number[] }>();
  for (let i = 0; i < requested.length; i++) {
    const { topic, partition, replicas } = requested[i];
    const p = placed(topic, partition);
    if (i % STEP_ITEMS === 0) await pace();
    if (p === undefined || p.leader < 0) continue;
    // Only what may copy: a target broker the partition does not have, or a partition moving
    // now (its replicas include the running move's adding ones). No-ops and reorders ask nothing.
    let mayCopy = isMoving.size > 0 && isMoving.has(topic, partition);
    for (let j = 0; j < replicas.length && !mayCopy; j++) mayCopy = !p.replicas.includes(replicas[j]);
    if (!mayCopy) continue;
    // (A partition named twice is asked twice: the request is refused anyway.)
    let list = byLeader.get(p.leader);
    if (!list) byLeader.set(p.leader, (list = { partitions: [], at: [] }));
    list.partitions.push(requested[i]);
    list.at.push(i);
  }
  const out = new Float64Array(requested.length).fill(NaN);
  if (byLeader.size === 0) return out;
  // One request at a time is encoded, with a turn of the event loop between them; all are in flight together.
  const asked: Promise<{ broker: number; partitions: PartitionAssignment[]; at: number[]; a: BrokerLogDirs[] }>[] = [];
  for (const [broker, { partitions, at }] of byLeader) {
    const answer = ctx.d.kafka.describeReplicaSizes([broker], partitions).then((a) => ({ broker, partitions, at, a }));
    answer.catch(() => undefined); // a failure while the next one is encoded is not unhandled: Promise.all below reports it
    asked.push(answer);
    await pace();
  }
  for (const { broker, partitions, at, a } of await Promise.all(asked)) {
    const sizes = a.find((x) => x.ok && x.broker === broker) as { sizes: Map<string, number> } | undefined;
    if (!sizes) continue;
    for (let i = 0; i < partitions.length; i++) {
      const { topic, partition } = partitions[i];
      const size = sizes.sizes.get(replicaKey(topic, partition));
      if (size !== undefined) out[at[i]] = size;
      if (i % STEP_ITEMS === 0) await pace();
    }
  }
  return out;
}

// ------------------------------------------------------------------ reads
