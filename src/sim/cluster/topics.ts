// Topic and partition state, topic-name rules and manual-assignment validation
// (org.apache.kafka.common.internals.Topic, ReplicationControlManager).
import { ErrorCode, KafkaError } from './errors.js';

export const NO_LEADER = -1;
const MAX_NAME_LENGTH = 249;

export interface PartitionState {
  partition: number;
  leader: number;
  leaderEpoch: number;
  partitionEpoch: number;
  replicas: number[];
  isr: number[];
  /**
   * What ./partition-moves.ts keeps about the partition once it has moved (null until then;
   * opaque to everyone else). On the partition itself, so that finding it for each of the
   * 100,000 partitions of a request costs no lookup in a Map of that size.
   */
  moves: object | null;
}

export interface TopicState {
  name: string;
  topicId: string;
  partitions: PartitionState[];
  /** Explicitly set topic configs only. */
  configs: Map<string, string>;
  createdAt: number;
}

/** Read-only view handed to callers (Metadata, DescribeTopicPartitions, ...). */
export interface PartitionInfo {
  partition: number;
  leader: number;
  leaderEpoch: number;
  partitionEpoch: number;
  replicas: number[];
  isr: number[];
  /** Replicas on brokers that are down (fenced), as KRaft's metadata cache reports them. */
  offlineReplicas: number[];
}

export interface TopicInfo {
  name: string;
  topicId: string;
  isInternal: boolean;
  partitions: PartitionInfo[];
  configs: Record<string, string>;
  createdAt: number;
}

/** Topic.detectInvalidTopic; null when valid. */
export function invalidTopicReason(name: string): string | null {
  if (name.length === 0) return 'the empty string is not allowed';
  if (name === '.') return "'.' is not allowed";
  if (name === '..') return "'..' is not allowed";
  if (name.length > MAX_NAME_LENGTH) {
    return `the length of '${name}' is longer than the max allowed length ${MAX_NAME_LENGTH}`;
  }
  if (!/^[a-zA-Z0-9._-]*$/.test(name)) {
    return `'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
  }
  return null;
}

/** Topic.validate: throws INVALID_TOPIC_EXCEPTION (17) "Topic name is invalid: ...". */
export function validateTopicName(name: string): void {
  const reason = invalidTopicReason(name);
  if (reason !== null) throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic name is invalid: ${reason}`);
}

export function hasCollisionChars(name: string): boolean {
  return name.includes('_') || name.includes('.');
}

export function unifyCollisionChars(name: string): string {
  return name.replaceAll('.', '_');
}

function invalidAssignment(message: string): KafkaError {
  return new KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, message);
}

/** ReplicationControlManager.validateManualPartitionAssignment. */
export function validateManualAssignment(
  replicas: readonly number[],
  isRegistered: (id: number) => boolean,
  replicationFactor: number | null,
): void {
  if (replicas.length === 0) {
    throw invalidAssignment('The manual partition assignment includes an empty replica list.');
  }
  // Ascending, by insertion: replica lists are short, and this runs for every partition of a
  // 100,000-partition request (a comparator sort costs several times more).
  const sorted = replicas.slice();
  for (let i = 1; i < sorted.length; i++) {
    const x = sorted[i];
    let j = i - 1;
    for (; j >= 0 && sorted[j] > x; j--) sorted[j + 1] = sorted[j]!;
    sorted[j + 1] = x;
  }
  let prev: number | null = null;
  for (const id of sorted) {
    if (!isRegistered(id)) {
      throw invalidAssignment(`The manual partition assignment includes broker ${id}, but no such broker is registered.`);
    }
    if (id === prev) {
      throw invalidAssignment(`The manual partition assignment includes the broker ${prev} more than once.`);
    }
    prev = id;
  }
  if (replicationFactor !== null && sorted.length !== replicationFactor) {
    throw invalidAssignment(
      `The manual partition assignment includes a partition with ${sorted.length} replica(s), but this is not consistent with previous partitions, which have ${replicationFactor} replica(s).`,
    );
  }
}

/**
 * KRaft's bestLeader: the first replica (in replica order) that is an acceptable leader and in the
 * ISR; with uncleanOk, the first acceptable replica even outside the ISR.
 */
export function bestLeader(
  replicas: readonly number[],
  isr: readonly number[],
  uncleanOk: boolean,
  acceptable: (id: number) => boolean,
): { leader: number; unclean: boolean } {
  let bestUnclean = NO_LEADER;
  for (const r of replicas) {
    if (!acceptable(r)) continue;
    if (bestUnclean === NO_LEADER) bestUnclean = r;
    if (isr.includes(r)) return { leader: r, unclean: false };
  }
  return uncleanOk && bestUnclean !== NO_LEADER ? { leader: bestUnclean, unclean: true } : { leader: NO_LEADER, unclean: false };
}
