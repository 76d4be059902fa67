// Validate a reassignment against a snapshot of the cluster and, when it is valid, plan it.
//
// Everything is checked before anything changes, and every problem is reported at once, per
// partition, with the Kafka error it corresponds to (so src/http/errors.ts maps it to a status:
// 3 -> 404, 38/39/42 -> 422, 60 -> 409). Checks per partition follow the controller's order for
// AlterPartitionReassignments (SEMANTICS.md §4): unknown topic, unknown partition, empty replica
// list, unknown broker, duplicate broker. On top of what Kafka checks, the gateway refuses
// - a replication-factor change that does not cover every partition of the topic with one new
//   length (Kafka 4.x only has an all-or-nothing AllowReplicationFactorChange flag), and
// - re-targeting a partition another reassignment is moving, unless asked (`addToExisting`):
//   Kafka silently replaces the running move, which is how moves started elsewhere get lost.
//
// Linear in the request plus the snapshot: every lookup goes through a map.

import { internReplicaList, sharedDifference } from '../replica-list.js';
import { drain, STEP_ITEMS, type Steps } from '../steps.js';
import { partitionLookup, RequestedIndex, type PartitionLookup } from './partition-lookup.js';
import { PartitionMap } from './partition-map.js';
import type {
  ClusterSnapshot,
  PartitionError,
  PartitionErrorCode,
  PartitionMovePlan,
  PartitionReplicas,
  PlanWarning,
  ReassignmentTargets,
  ReplicationFactorChange,
  ValidateOptions,
  ValidationResult,
} from './plan-types.js';
import {
  KAFKA_ERRORS,
  partitionLabel,
  type KafkaErrorRef,
  type OngoingPartitionReassignment,
  type PartitionAssignment,
  type TopicPartition,
} from './types.js';

/** Longest list of partition numbers spelled out in a message before it is summarised. */
const MAX_LISTED = 50;

/**
 * Validate `targets` against `cluster` and plan the move. Pure and linear in
 * |targets| + |snapshot|. Errors come per partition in request order, then per topic.
 */
export function validateReassignment(
  cluster: ClusterSnapshot,
  targets: ReassignmentTargets,
  options: ValidateOptions = {},
): ValidationResult {
  return drain(validateReassignmentSteps(cluster, targets, options));
}

/** validateReassignment in steps (see Steps): the same result, with yields every STEP_ITEMS partitions. */
export function* validateReassignmentSteps(
  cluster: ClusterSnapshot,
  targets: ReassignmentTargets,
  options: ValidateOptions = {},
): Steps<ValidationResult> {
  if (targets.partitions.length === 0) {
    return {
      ok: false,
      errors: [
        {
          topic: null,
          partition: null,
          index: null,
          code: 'EMPTY_PARTITION_LIST',
          message: 'Partition reassignment list cannot be empty.',
          kafkaError: null,
        },
      ],
    };
  }

  const live = new Set(cluster.liveBrokers);
  const registered = cluster.registeredBrokers ? new Set([...cluster.registeredBrokers, ...live]) : new Set(live);
  const topics = new Map<string, PartitionLookup>();
  let steps = 0;
  // Indexed loops throughout: a generator allocates an iterator result per step of a for-of.
  for (let t = 0; t < cluster.topics.length; t++) {
    const { name, partitions } = cluster.topics[t];
    // Default registered brokers: live ones plus every broker named in a replica list.
    if (!cluster.registeredBrokers) {
      for (let i = 0; i < partitions.length; i++) {
        const replicas = partitions[i].replicas;
        for (let j = 0; j < replicas.length; j++) registered.add(replicas[j]);
        if (++steps % STEP_ITEMS === 0) yield;
      }
    }
    topics.set(name, partitionLookup(partitions));
    yield;
  }
  const ongoing = new PartitionMap<OngoingPartitionReassignment>();
  for (let i = 0; i < cluster.ongoing.length; i++) {
    const o = cluster.ongoing[i];
    ongoing.set(o.topic, o.partition, o);
    if (++steps % STEP_ITEMS === 0) yield;
  }

  const errors: PartitionError[] = [];
  const warnings: PlanWarning[] = [];
  const planned: PartitionMovePlan[] = [];

  // First occurrence index of each requested partition, and how many times it appears (repeats
  // only: a number per partition, no object).
  const requested = new RequestedIndex(topics);
  const repeats = new Map<number, number>();
  for (let index = 0; index < targets.partitions.length; index++) {
    const p = targets.partitions[index];
    const seen = requested.get(p.topic, p.partition);
    if (seen !== undefined) repeats.set(seen, (repeats.get(seen) ?? 1) + 1);
    else requested.set(p.topic, p.partition, index);
    if (++steps % STEP_ITEMS === 0) yield;
  }

  for (let index = 0; index < targets.partitions.length; index++) {
    if (++steps % STEP_ITEMS === 0) yield;
    const target = targets.partitions[index];
    const { topic, partition } = target;
    const first = requested.get(topic, partition)!;
    const count = repeats.size > 0 ? (repeats.get(first) ?? 1) : 1;
    if (first !== index) continue; // duplicates are reported at the first occurrence

    if (count > 1) {
      errors.push(
        partitionError(
          target,
          index,
          'DUPLICATE_PARTITION',
          `Partition reassignment contains duplicate topic partitions: ${partitionLabel(target)} appears ${count} times.`,
          null,
        ),
      );
    }

    const topicPartitions = topics.get(topic);
    const current = topicPartitions?.get(partition);
    if (!topicPartitions) {
      errors.push(
        partitionError(target, index, 'UNKNOWN_TOPIC', `Unable to find a topic named ${topic}.`, KAFKA_ERRORS.UNKNOWN_TOPIC_OR_PARTITION),
      );
    } else if (!current) {
      errors.push(
        partitionError(
          target,
          index,
          'UNKNOWN_PARTITION',
          `Unable to find partition ${partitionLabel(target)}: topic ${topic} has ${topicPartitions.size} partition(s).`,
          KAFKA_ERRORS.UNKNOWN_TOPIC_OR_PARTITION,
        ),
      );
    }

    const replicaErrors = replicaListErrors(target, index, registered);
    if (replicaErrors.length > 0) errors.push(...replicaErrors);
    if (!current || count > 1 || replicaErrors.length > 0) continue;

    const moving = ongoing.get(topic, partition) ?? null;
    const ownMove = moving !== null && options.reassignmentId !== undefined && moving.reassignmentId === options.reassignmentId;
    if (moving && !targets.addToExisting && !ownMove) {
      const who = moving.reassignmentId === null ? 'a reassignment started outside the gateway' : `reassignment ${moving.reassignmentId}`;
      errors.push(
        partitionError(
          target,
          index,
          'REASSIGNMENT_CONFLICT',
          `${partitionLabel(target)} is already moving under ${who} (replicas ${moving.replicas.join(',')}, adding ${moving.adding.join(',') || 'none'}, ` +
            `removing ${moving.removing.join(',') || 'none'}). Set addToExisting to true to replace that move with this target.`,
          KAFKA_ERRORS.REASSIGNMENT_IN_PROGRESS,
          moving.reassignmentId,
        ),
      );
      continue;
    }

    const move = planPartition(target, current, moving);
    planned.push(move);
    addWarnings(move, live, warnings);
  }

  errors.push(...replicationFactorErrors(planned, topics, requested, targets.partitions));
  if (errors.length > 0) return { ok: false, errors };
  yield;

  const rollback = new Array<PartitionAssignment>(planned.length);
  for (let i = 0; i < planned.length; i++) {
    const p = planned[i];
    rollback[i] = { topic: p.topic, partition: p.partition, replicas: p.currentReplicas };
  }
  yield;
  return {
    ok: true,
    plan: {
      partitions: planned,
      rollback,
      replicationFactorChanges: replicationFactorChanges(planned),
      warnings,
    },
  };
}

/**
 * The move of one partition. For a partition already moving, Kafka computes the new move from
 * the original replicas (`replicas - adding`), not from the mid-move replica list.
 */
export function planPartition(
  target: PartitionAssignment,
  current: PartitionReplicas,
  moving: OngoingPartitionReassignment | null,
): PartitionMovePlan {
  // Shared frozen lists (src/domain/replica-list.ts): a cluster has few distinct lists and pairs,
  // so planning 100,000 moves makes no array per partition (they lived through the whole start).
  const currentReplicas = internReplicaList(moving ? without(moving.replicas, moving.adding) : current.replicas);
  const targetReplicas = internReplicaList(target.replicas);
  const inProgressTarget = moving ? without(moving.replicas, moving.removing) : currentReplicas;
  const leader = current.leader !== undefined && current.leader >= 0 ? current.leader : null;
  return {
    topic: target.topic,
    partition: target.partition,
    currentReplicas,
    targetReplicas,
    adding: sharedDifference(targetReplicas, currentReplicas),
    removing: sharedDifference(currentReplicas, targetReplicas),
    leader,
    noOp: sameList(targetReplicas, inProgressTarget),
    alreadyMoving: moving,
  };
}

// ---------------------------------------------------------------------------------------------

function partitionError(
  target: TopicPartition,
  index: number,
  code: PartitionErrorCode,
  message: string,
  kafkaError: KafkaErrorRef | null,
  conflictingReassignmentId?: string | null,
): PartitionError {
  const error: PartitionError = { topic: target.topic, partition: target.partition, index, code, message, kafkaError };
  return conflictingReassignmentId === undefined ? error : { ...error, conflictingReassignmentId };
}

/** The controller's replica checks, in its order: empty list, unknown brokers, duplicates. */
function replicaListErrors(target: PartitionAssignment, index: number, registered: ReadonlySet<number>): readonly PartitionError[] {
  if (replicaListValid(target.replicas, registered)) return NO_ERRORS;
  const errors: PartitionError[] = [];
  if (target.replicas.length === 0) {
    errors.push(
      partitionError(
        target,
        index,
        'EMPTY_REPLICA_LIST',
        `Partition replica list cannot be empty (${partitionLabel(target)}).`,
        KAFKA_ERRORS.INVALID_REPLICA_ASSIGNMENT,
      ),
    );
  }
  const unknown = target.replicas.filter((b) => !registered.has(b));
  if (unknown.length > 0) {
    const ids = unique(unknown);
    errors.push(
      partitionError(
        target,
        index,
        'UNKNOWN_BROKER',
        `Unknown broker id${ids.length > 1 ? 's' : ''} ${ids.join(',')} in the replicas of ${partitionLabel(target)}.`,
        KAFKA_ERRORS.INVALID_REPLICA_ASSIGNMENT,
      ),
    );
  }
  const duplicates = duplicatesOf(target.replicas);
  if (duplicates.length > 0) {
    errors.push(
      partitionError(
        target,
        index,
        'DUPLICATE_BROKER',
        `Partition replica lists may not contain duplicate entries: ${partitionLabel(target)} contains multiple entries for ${duplicates.join(',')}.`,
        KAFKA_ERRORS.INVALID_REPLICA_ASSIGNMENT,
      ),
    );
  }
  return errors;
}

const NO_ERRORS: readonly PartitionError[] = Object.freeze([]);

/** The common case, without allocating: non-empty, every broker registered, no broker twice. */
function replicaListValid(replicas: readonly number[], registered: ReadonlySet<number>): boolean {
  const n = replicas.length;
  if (n === 0 || n > SMALL_LIST) return false; // long lists take the general path
  for (let i = 0; i < n; i++) {
    const b = replicas[i];
    if (!registered.has(b)) return false;
    for (let j = 0; j < i; j++) if (replicas[j] === b) return false;
  }
  return true;
}

function addWarnings(move: PartitionMovePlan, live: ReadonlySet<number>, out: PlanWarning[]): void {
  const { topic, partition } = move;
  if (move.noOp) {
    out.push({
      topic,
      partition,
      code: 'NO_OP',
      message: move.alreadyMoving
        ? `${partitionLabel(move)} is already moving to ${move.targetReplicas.join(',')}: nothing changes.`
        : `${partitionLabel(move)} already has replicas ${move.targetReplicas.join(',')}: nothing to move.`,
    });
  } else if (move.alreadyMoving) {
    // Same set as before the running move: nothing to copy, the move is undone.
    const reverts = move.adding.length === 0 && move.removing.length === 0;
    out.push({
      topic,
      partition,
      code: reverts ? 'REVERTS_ONGOING_MOVE' : 'REPLACES_ONGOING_MOVE',
      message: reverts
        ? `${partitionLabel(move)} goes back to its original replicas ${move.currentReplicas.join(',')}: the running move is undone.`
        : `${partitionLabel(move)} is moving to ${without(move.alreadyMoving.replicas, move.alreadyMoving.removing).join(',')}; that move is replaced by ${move.targetReplicas.join(',')}.`,
    });
  }
  let allLive = true;
  for (let i = 0; i < move.adding.length && allLive; i++) allLive = live.has(move.adding[i]);
  if (allLive) return;
  const offline = move.adding.filter((b) => !live.has(b));
  if (offline.length > 0) {
    out.push({
      topic,
      partition,
      code: 'BROKER_NOT_LIVE',
      message: `Broker${offline.length > 1 ? 's' : ''} ${offline.join(',')} (target of ${partitionLabel(move)}) ${offline.length > 1 ? 'are' : 'is'} not alive: the copy waits until it returns.`,
    });
  }
}

/**
 * A topic whose partitions change length must list all its partitions, all with one length
 * (the gateway's rule: a topic with mixed replication factors is a mistake, not a plan).
 */
function replicationFactorErrors(
  planned: readonly PartitionMovePlan[],
  topics: ReadonlyMap<string, PartitionLookup>,
  requestedIndex: RequestedIndex,
  requested: readonly PartitionAssignment[],
): PartitionError[] {
  const changing = new Set<string>();
  for (let i = 0; i < planned.length; i++)
    if (planned[i].targetReplicas.length !== planned[i].currentReplicas.length) changing.add(planned[i].topic);
  if (changing.size === 0) return [];

  const errors: PartitionError[] = [];
  for (const topic of [...changing].sort()) {
    const all = topics.get(topic)!;
    const missing: number[] = [];
    for (const partition of all.keys()) if (!requestedIndex.has(topic, partition)) missing.push(partition);
    missing.sort((a, b) => a - b);
    if (missing.length > 0) {
      errors.push({
        topic,
        partition: null,
        index: null,
        code: 'INCOMPLETE_REPLICATION_FACTOR_CHANGE',
        message:
          `Changing the replication factor of ${topic} needs every one of its ${all.size} partitions in the request, ` +
          `with the same number of replicas; missing: ${formatPartitionList(missing)}.`,
        kafkaError: KAFKA_ERRORS.INVALID_REPLICATION_FACTOR,
      });
    }
    // Lengths of every requested partition of the topic (first occurrence), not just the valid ones.
    const byLength = new Map<number, number[]>();
    for (const [partition, index] of requestedIndex.entries(topic)) {
      const length = requested[index].replicas.length;
      const list = byLength.get(length) ?? [];
      list.push(partition);
      byLength.set(length, list);
    }
    if (byLength.size > 1) {
      const parts = [...byLength.entries()]
        .sort((a, b) => b[1].length - a[1].length || a[0] - b[0])
        .map(([length, partitions]) => `${length} replicas for ${formatPartitionList(partitions.sort((a, b) => a - b))}`);
      errors.push({
        topic,
        partition: null,
        index: null,
        code: 'INCONSISTENT_REPLICATION_FACTOR',
        message: `Changing the replication factor of ${topic} needs one new length for all its partitions; the request has ${parts.join('; ')}.`,
        kafkaError: KAFKA_ERRORS.INVALID_REPLICATION_FACTOR,
      });
    }
  }
  return errors;
}

function replicationFactorChanges(planned: readonly PartitionMovePlan[]): ReplicationFactorChange[] {
  const byTopic = new Map<string, { from: Set<number>; to: number; changes: boolean }>();
  for (let i = 0; i < planned.length; i++) {
    const p = planned[i];
    let entry = byTopic.get(p.topic);
    if (!entry) byTopic.set(p.topic, (entry = { from: new Set<number>(), to: p.targetReplicas.length, changes: false }));
    entry.from.add(p.currentReplicas.length);
    if (p.currentReplicas.length !== p.targetReplicas.length) entry.changes = true;
  }
  return [...byTopic.entries()]
    .filter(([, e]) => e.changes)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([topic, e]) => ({ topic, from: [...e.from].sort((a, b) => a - b), to: e.to }));
}

/** `0-3, 7, 9-12`, summarised after MAX_LISTED numbers. Input sorted ascending. */
export function formatPartitionList(sorted: readonly number[]): string {
  const ranges: string[] = [];
  let shown = 0;
  for (let i = 0; i < sorted.length && shown < MAX_LISTED;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    ranges.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    shown += j - i + 1;
    i = j + 1;
  }
  const rest = sorted.length - shown;
  return rest > 0 ? `${ranges.join(', ')} and ${rest} more` : ranges.join(', ');
}

/** Up to this many ids a linear scan beats a Set; longer (hostile) lists still stay linear. */
const SMALL_LIST = 16;

/**
 * `list - drop`, in list order. A copy compacted in place, not filter() nor push(): an array of
 * the list's size (push would give each result a backing store of 17), no closure (this runs a
 * few times per partition).
 */
function without(list: readonly number[], drop: readonly number[]): number[] {
  const out = list.slice();
  let n = 0;
  if (drop.length <= SMALL_LIST) {
    for (let i = 0; i < list.length; i++) if (!drop.includes(list[i])) out[n++] = list[i]!;
  } else {
    const set = new Set(drop);
    for (let i = 0; i < list.length; i++) if (!set.has(list[i])) out[n++] = list[i]!;
  }
  out.length = n; // shrinks in place
  return out;
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function unique(list: readonly number[]): number[] {
  return [...new Set(list)];
}

function duplicatesOf(list: readonly number[]): number[] {
  if (list.length > SMALL_LIST) {
    const seen = new Set<number>();
    const dups = new Set<number>();
    for (const b of list) (seen.has(b) ? dups : seen).add(b);
    return [...dups];
  }
  const dups: number[] = [];
  for (let i = 1; i < list.length; i++) {
    if (list.lastIndexOf(list[i], i - 1) >= 0 && !dups.includes(list[i])) dups.push(list[i]);
  }
  return dups;
}
