// Partition reassignment (KIP-455) as KRaft's controller does it: the replica-set maths of
// PartitionReassignmentReplicas / PartitionReassignmentRevert and the per-partition checks of
// ReplicationControlManager.alterPartitionReassignment, as pure functions over replica lists.
//
// Stage 1 (the request): replicas become target ++ sorted(current - target), with
// adding = sorted(target - current) and removing = sorted(current - target). "current" is the
// partition's replica list as it is NOW, so a new target for a partition that is already moving
// keeps the previous target's replicas in the list (as removing, or as plain replicas when the
// new target keeps them): KRaft never drops a replica before the new target is in sync.
// Stage 2: the adding replicas copy the log and join the ISR (see ./replication.ts).
// Stage 3 (completion): once the ISR minus removing holds every non-removing replica, replicas
// = replicas - removing, the ISR drops the removing replicas, and a leader outside the new
// replica set hands over to the first new replica that is in sync and up.
import { ErrorCode, KafkaError } from './errors.js';
import { bestLeader, NO_LEADER, validateManualAssignment } from './topics.js';

export interface ReassignmentReplicas {
  /** The partition's replica list while it moves: target ++ removing. */
  replicas: number[];
  adding: number[];
  removing: number[];
}

export interface ReplicaSet {
  replicas: number[];
  isr: number[];
}

// Replica lists are short and these run for every partition of a 100,000-partition request:
// plain scans beat a Set, and every list is allocated at its exact length (a list grown by push
// from [] takes a backing store of 17 slots, garbage the collector then copies and scans).

/** The elements of `a` not in `b`, in a's order. */
function notIn(a: readonly number[], b: readonly number[]): number[] {
  let n = 0;
  for (const x of a) if (!b.includes(x)) n++;
  const out = new Array<number>(n);
  n = 0;
  for (const x of a) if (!b.includes(x)) out[n++] = x;
  return out;
}

function sortedDifference(a: readonly number[], b: readonly number[]): number[] {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (!b.includes(a[i]) && a.indexOf(a[i]) === i) n++;
  const out = new Array<number>(n);
  n = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (b.includes(x) || a.indexOf(x) !== i) continue;
    // Insertion into the sorted prefix.
    let j = n++;
    for (; j > 0 && out[j - 1] > x; j--) out[j] = out[j - 1]!;
    out[j] = x;
  }
  return out;
}

/** PartitionReassignmentReplicas(current, target). */
export function reassignmentReplicas(current: readonly number[], target: readonly number[]): ReassignmentReplicas {
  const removing = sortedDifference(current, target);
  const adding = sortedDifference(target, current);
  const replicas = new Array<number>(target.length + removing.length);
  for (let i = 0; i < target.length; i++) replicas[i] = target[i]!;
  for (let i = 0; i < removing.length; i++) replicas[target.length + i] = removing[i]!;
  return { replicas, adding, removing };
}

export function isReassigning(r: { adding: readonly number[]; removing: readonly number[] }): boolean {
  return r.adding.length > 0 || r.removing.length > 0;
}

/**
 * PartitionReassignmentReplicas.maybeCompleteReassignment: the replica set and ISR once the
 * reassignment is done, or null while some target replica is still out of the ISR (or when
 * nothing in sync would remain).
 */
export function completedReassignment(moving: ReassignmentReplicas, isr: readonly number[]): ReplicaSet | null {
  if (!isReassigning(moving)) return null;
  // The usual answer while copies run (a replica that stays is not in sync yet), without lists.
  for (const r of moving.replicas) if (!isr.includes(r) && !moving.removing.includes(r)) return null;
  const newIsr = isr.filter((r) => !moving.removing.includes(r));
  if (newIsr.length === 0) return null;
  const newReplicas = moving.replicas.filter((r) => !moving.removing.includes(r));
  if (newReplicas.length === 0) return null;
  if (!newReplicas.every((r) => newIsr.includes(r))) return null;
  return { replicas: newReplicas, isr: newIsr };
}

/**
 * PartitionReassignmentRevert: take out what the reassignment was adding, keep what it was
 * removing. When every ISR member was an adding replica, the ISR restarts from the first kept
 * replica, which is an unclean election.
 */
export function revertedReassignment(
  replicas: readonly number[],
  isr: readonly number[],
  adding: readonly number[],
): ReplicaSet & { unclean: boolean } {
  const keptReplicas = notIn(replicas, adding);
  const keptIsr = notIn(isr, adding);
  if (keptIsr.length === 0) return { replicas: keptReplicas, isr: keptReplicas.slice(0, 1), unclean: true };
  return { replicas: keptReplicas, isr: keptIsr, unclean: false };
}

/**
 * The leader after a replica-set change (PartitionChangeBuilder's election): the current leader
 * stays while it is in the new ISR and up; otherwise the first new replica in the ISR that is up,
 * or, when unclean election is allowed, the first one that is up. The ISR returned is `next.isr`
 * itself unless the election is unclean (lists are never modified in place: no copy is needed).
 */
export function leaderAfterChange(
  leader: number,
  next: { readonly replicas: readonly number[]; readonly isr: number[] },
  uncleanAllowed: boolean,
  isUp: (id: number) => boolean,
): { leader: number; isr: number[] } {
  if (leader !== NO_LEADER && next.isr.includes(leader) && next.replicas.includes(leader) && isUp(leader)) {
    return { leader, isr: next.isr };
  }
  const elected = bestLeader(next.replicas, next.isr, uncleanAllowed, isUp);
  return { leader: elected.leader, isr: elected.unclean ? [elected.leader] : next.isr };
}

// ---------------------------------------------------------------- per-partition request checks

/** UNKNOWN_TOPIC_OR_PARTITION for a topic name the cluster does not have. */
export function unknownTopic(topic: string): KafkaError {
  return new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find a topic named ${topic}.`);
}

/** UNKNOWN_TOPIC_OR_PARTITION for a partition index the topic does not have. */
export function unknownPartition(topic: string, partition: number): KafkaError {
  return new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find partition ${topic}:${partition}.`);
}

/** NO_REASSIGNMENT_IN_PROGRESS: the controller sends it with a null message (new ApiError(code)). */
export function noReassignmentInProgress(): KafkaError {
  return KafkaError.withoutMessage(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
}

export function uncleanRevertRefused(topic: string, partition: number): KafkaError {
  return new KafkaError(
    ErrorCode.INVALID_REPLICA_ASSIGNMENT,
    `Unable to revert partition assignment for ${topic}:${partition} because it would require an unclean leader election.`,
  );
}

/**
 * validateManualPartitionAssignment on a target: [] → 39; then, walking the ids in ascending
 * order, an unregistered broker or a repeated one → 39 (so the lowest offending id decides).
 * Fenced (stopped) brokers are valid targets: the copy simply waits for them.
 */
export function validateTarget(target: readonly number[], isRegistered: (id: number) => boolean): void {
  validateManualAssignment(target, isRegistered, null);
}
