// Planning one entry of AlterPartitionReassignments against the partition as it is now: the
// record PartitionMoves.apply then replays (partition-moves.ts), in Kafka's order of checks.
import { movesOf, NONE, sameList, someNotIn } from './moving-partition.js';
import {
  completedReassignment,
  leaderAfterChange,
  noReassignmentInProgress,
  reassignmentReplicas,
  revertedReassignment,
  uncleanRevertRefused,
  unknownPartition,
  unknownTopic,
  validateTarget,
} from './reassignments.js';
import type { PartitionState, TopicState } from './topics.js';

/**
 * One partition change of AlterPartitionReassignments (see planReassignmentRecord): the fields that
 * differ from the state it was planned against, undefined where unchanged. The lists are the
 * record's own (never the request's), so applying it hands them to the partition as they are.
 */
export interface ReassignmentRecord {
  topic: TopicState;
  partition: PartitionState;
  cancel: boolean;
  replicas: number[] | undefined;
  isr: number[] | undefined;
  leader: number | undefined;
  adding: number[] | undefined;
  removing: number[] | undefined;
  /** Whether the record bumps the leader epoch (decided when it was planned). */
  bumpLeaderEpoch: boolean;
}

/** What planning reads of the cluster (the moves' host, with topic configs read once per batch). */
export interface MovePlanState {
  topic(name: string): TopicState | undefined;
  uncleanAllowed(t: TopicState): boolean;
  isUp: (brokerId: number) => boolean;
  isRegistered: (brokerId: number) => boolean;
}

/**
 * The change record one entry of AlterPartitionReassignments makes, computed against the state
 * as it is now (ReplicationControlManager.alterPartitionReassignment), in Kafka's order of
 * checks: unknown topic, unknown partition, then for a cancel (null) 85 / unclean revert, else
 * the target's validation (empty, unregistered broker, duplicate). Throws KafkaError.
 *
 * A request's entries are all planned against the state before the request and then applied
 * in order, as the controller does (records are generated first, replayed after): the same
 * partition listed twice ends as its last entry says, and a cancel listed after a move of a
 * partition that was not moving answers 85.
 */
export function planReassignmentRecord(
  state: MovePlanState,
  topicName: string,
  partition: number,
  target: readonly number[] | null,
): ReassignmentRecord {
  const t = state.topic(topicName);
  if (!t) throw unknownTopic(topicName);
  const p = Number.isInteger(partition) ? t.partitions[partition] : undefined;
  if (!p) throw unknownPartition(topicName, partition);
  const m = movesOf(p);
  const moving = m !== null && m.moving;
  const curAdding = moving ? m.adding : NONE;
  const curRemoving = moving ? m.removing : NONE;
  let replicas: number[];
  let isr: number[];
  let leader: number;
  let adding: number[];
  let removing: number[];
  if (target === null) {
    if (!moving) throw noReassignmentInProgress();
    const revert = revertedReassignment(p.replicas, p.isr, curAdding);
    const unclean = state.uncleanAllowed(t);
    if (revert.unclean && !unclean) throw uncleanRevertRefused(t.name, p.partition);
    const elected = leaderAfterChange(p.leader, revert, unclean, state.isUp);
    replicas = revert.replicas;
    isr = elected.isr;
    leader = elected.leader;
    adding = removing = NONE;
  } else {
    validateTarget(target, state.isRegistered);
    const r = reassignmentReplicas(p.replicas, target);
    // PartitionChangeBuilder: adding and removing are overwritten only by non-empty lists, so a
    // new target that adds (or removes) nothing relative to the merged list keeps the old list.
    if (r.adding.length === 0) r.adding = curAdding;
    if (r.removing.length === 0) r.removing = curRemoving;
    const done = completedReassignment(r, p.isr);
    // leaderAfterChange does not keep p.isr: it is only read (and shared back when unchanged).
    const elected = leaderAfterChange(p.leader, done ?? { replicas: r.replicas, isr: p.isr }, state.uncleanAllowed(t), state.isUp);
    replicas = done ? done.replicas : r.replicas;
    isr = elected.isr;
    leader = elected.leader;
    adding = done ? NONE : r.adding;
    removing = done ? NONE : r.removing;
  }
  return {
    topic: t,
    partition: p,
    cancel: target === null,
    // Only what differs from the state it was computed against.
    replicas: sameList(replicas, p.replicas) ? undefined : replicas,
    isr: sameList(isr, p.isr) ? undefined : isr,
    leader: leader === p.leader ? undefined : leader,
    adding: sameList(adding, curAdding) ? undefined : adding,
    removing: sameList(removing, curRemoving) ? undefined : removing,
    // The record's leader epoch is decided against the same state (a new leader, or a replica
    // leaving the replica set), not against what earlier records of the request changed.
    bumpLeaderEpoch: leader !== p.leader || someNotIn(p.replicas, replicas),
  };
}
