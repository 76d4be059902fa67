// Leader elections asked for by ElectLeaders (API 43, KIP-183 / KIP-460), decided as KRaft's
// controller decides them: ReplicationControlManager.electLeaders / electLeader and
// PartitionChangeBuilder (electPreferredLeader, electAnyLeader, shouldTryElection, build).
//
// Per partition, in this order:
//   unknown topic → UNKNOWN_TOPIC_OR_PARTITION (3) "No such topic as T";
//   unknown partition → 3 "No such partition as T-N";
//   PREFERRED and the leader is already replicas[0] (hasPreferredLeader), or UNCLEAN and the
//   partition has a leader (hasLeader) → ELECTION_NOT_NEEDED (84);
//   PREFERRED: replicas[0] if it is in the ISR and unfenced; else the current leader stays if it
//     still qualifies (no change → PREFERRED_LEADER_NOT_AVAILABLE, 80); else the first other
//     replica, in replica order, in the ISR and unfenced (a change: success); else 80;
//   UNCLEAN (no leader): the first replica in the ISR and unfenced (a clean election), else the
//     first unfenced replica, whose ISR becomes just itself (data may be lost; the topic's
//     unclean.leader.election.enable does not matter: the operator asked); else
//     ELIGIBLE_LEADERS_NOT_AVAILABLE (83).
// Success is code 0 with a null message (ApiError.NONE); the others carry Errors' default
// messages (new ApiError(Errors.X) takes error.message()).
//
// Every decision is taken against the state before the request, and the changes are applied
// after it (KRaft replays a request's PartitionChangeRecords once it has decided them all), so a
// partition named twice is answered twice alike. A leader change bumps the leader epoch and the
// partition epoch (PartitionRegistration.merge). ELR (KIP-966) is off, as in Kafka 3.9.
//
// ZooKeeper mode (KafkaController.processReplicaLeaderElection, on the controller) differs only
// in what is modelled here by `zk`: unknown partitions say "The partition does not exist.", and
// an election that cannot be held says "Failed to elect leader for partition T-N under strategy
// S" (PartitionStateMachine.doElectLeaderForPartitions).
import type { PartitionState, TopicState } from './topics.js';
import { NO_LEADER } from './topics.js';

export const PREFERRED = 0;
export const UNCLEAN = 1;

export const UNKNOWN_TOPIC_OR_PARTITION = 3;
export const PREFERRED_LEADER_NOT_AVAILABLE = 80;
export const ELIGIBLE_LEADERS_NOT_AVAILABLE = 83;
export const ELECTION_NOT_NEEDED = 84;

const MESSAGES: Record<number, string> = {
  [PREFERRED_LEADER_NOT_AVAILABLE]: 'The preferred leader was not available.',
  [ELIGIBLE_LEADERS_NOT_AVAILABLE]: 'Eligible topic partition leaders are not available.',
  [ELECTION_NOT_NEEDED]: 'Leader election not needed for topic partition.',
};

export interface ElectionResult {
  errorCode: number;
  errorMessage: string | null;
}

/** A change to apply: the partition's new leader and ISR. */
export interface LeaderChange {
  topic: TopicState;
  p: PartitionState;
  leader: number;
  isr: number[];
}

export interface ElectionHost {
  topic(name: string): TopicState | undefined;
  /** Unfenced and not shutting down (KRaft's LeaderAcceptor). */
  isUp(brokerId: number): boolean;
}

const OK: ElectionResult = { errorCode: 0, errorMessage: null };

/**
 * Decides one partition's election; pushes the change, if any, to `changes`. `electionType` is
 * PREFERRED or UNCLEAN (the caller refuses other values with INVALID_REQUEST first).
 */
export function decideElection(
  host: ElectionHost,
  topicName: string,
  partition: number,
  electionType: number,
  changes: LeaderChange[],
  zk = false,
): ElectionResult {
  const topic = host.topic(topicName);
  if (!topic)
    return { errorCode: UNKNOWN_TOPIC_OR_PARTITION, errorMessage: zk ? 'The partition does not exist.' : `No such topic as ${topicName}` };
  const p = Number.isInteger(partition) ? topic.partitions[partition] : undefined;
  if (!p)
    return {
      errorCode: UNKNOWN_TOPIC_OR_PARTITION,
      errorMessage: zk ? 'The partition does not exist.' : `No such partition as ${topicName}-${partition}`,
    };
  return decidePartition(host, topic, p, electionType, changes, zk);
}

/** The same for a partition known to exist (the walk over every partition). */
export function decidePartition(
  host: ElectionHost,
  topic: TopicState,
  p: PartitionState,
  electionType: number,
  changes: LeaderChange[],
  zk = false,
): ElectionResult {
  const preferred = electionType === PREFERRED;
  if (preferred ? p.leader === p.replicas[0] : p.leader !== NO_LEADER) return notNeeded();
  const valid = (r: number): boolean => r !== NO_LEADER && p.isr.includes(r) && host.isUp(r);
  let leader = NO_LEADER;
  let isr = p.isr;
  if (preferred) {
    if (valid(p.replicas[0])) leader = p.replicas[0]!;
    else if (valid(p.leader)) leader = p.leader;
    else leader = p.replicas.find((r, i) => i > 0 && valid(r)) ?? NO_LEADER;
  } else {
    leader = p.replicas.find(valid) ?? NO_LEADER;
    if (leader === NO_LEADER) {
      const unclean = p.replicas.find((r) => host.isUp(r));
      if (unclean !== undefined) {
        leader = unclean;
        isr = [unclean];
      }
    }
  }
  if (leader === p.leader) {
    // PartitionChangeBuilder.build() made no record: the election could not be held.
    const code = preferred ? PREFERRED_LEADER_NOT_AVAILABLE : ELIGIBLE_LEADERS_NOT_AVAILABLE;
    const strategy = preferred ? 'PreferredReplicaPartitionLeaderElectionStrategy' : 'OfflinePartitionLeaderElectionStrategy(true)';
    return {
      errorCode: code,
      errorMessage: zk ? `Failed to elect leader for partition ${topic.name}-${p.partition} under strategy ${strategy}` : MESSAGES[code],
    };
  }
  changes.push({ topic, p, leader, isr });
  return OK;
}

function notNeeded(): ElectionResult {
  return { errorCode: ELECTION_NOT_NEEDED, errorMessage: MESSAGES[ELECTION_NOT_NEEDED] };
}

export interface ElectionTopicResult {
  topic: string;
  partitionResult: { partitionId: number; errorCode: number; errorMessage: string | null }[];
}

/**
 * A whole request. `partitions` null = every partition of every topic (by topic name): KRaft
 * lists every topic and leaves out the partitions that need no election; ZooKeeper mode groups
 * what is left by topic, so a topic with nothing left does not appear (KafkaApis.
 * handleElectLeaders' callback filters ELECTION_NOT_NEEDED when topicPartitions is null).
 */
export function decideElections(
  host: ElectionHost & { sortedTopics(): readonly TopicState[] },
  partitions: readonly { topic: string; partitions: readonly number[] }[] | null,
  electionType: number,
  zk: boolean,
): { results: ElectionTopicResult[]; changes: LeaderChange[] } {
  const changes: LeaderChange[] = [];
  const results: ElectionTopicResult[] = [];
  if (partitions === null) {
    for (const t of host.sortedTopics()) {
      const partitionResult: ElectionTopicResult['partitionResult'] = [];
      for (const p of t.partitions) {
        const r = decidePartition(host, t, p, electionType, changes, zk);
        if (r.errorCode !== ELECTION_NOT_NEEDED) partitionResult.push({ partitionId: p.partition, ...r });
      }
      if (!zk || partitionResult.length > 0) results.push({ topic: t.name, partitionResult });
    }
  } else {
    for (const t of partitions) {
      results.push({
        topic: t.topic,
        partitionResult: t.partitions.map((n) => ({ partitionId: n, ...decideElection(host, t.topic, n, electionType, changes, zk) })),
      });
    }
  }
  return { results, changes };
}
