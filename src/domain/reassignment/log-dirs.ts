// Intra-broker moves (`log_dirs` other than "any" in kafka-reassign-partitions.sh's file), as
// Kafka's ReassignPartitionsCommand handles them: every (replica broker, dir) pair is sent with
// AlterReplicaLogDirs; REPLICA_NOT_AVAILABLE (9, the broker does not host the replica yet) is
// re-sent until the reassignment has created it; a partition with dir moves is done when each
// such broker reports the replica in the target dir and no future replica for it
// (ReassignPartitionsCommand.verifyReplicaMoves). `--replica-alter-log-dirs-throttle` is
// broker config replica.alter.log.dirs.io.max.bytes.per.second on the brokers with dir moves.
// Pure: plain data in, plain data out.

import { ANY_LOG_DIR } from './request.js';
import type { PartitionError } from './plan-types.js';
import { LOG_DIRS_THROTTLED_RATE } from './throttle-configs.js';
import type { ThrottleConfigSet } from './throttles.js';
import { KAFKA_ERRORS, type PartitionAssignment, type TopicPartition } from './types.js';

/** One replica that must end up in one log dir of its broker. */
export interface LogDirMove extends TopicPartition {
  readonly broker: number;
  readonly logDir: string;
}

/** The (broker, dir) pairs of `assignments` whose dir is not "any", in request order. */
export function logDirMoves(assignments: Iterable<PartitionAssignment>): LogDirMove[] {
  const out: LogDirMove[] = [];
  for (const a of assignments) {
    a.logDirs?.forEach((logDir, i) => {
      if (logDir !== ANY_LOG_DIR) out.push({ topic: a.topic, partition: a.partition, broker: a.replicas[i], logDir });
    });
  }
  return out;
}

/** A broker's log dirs as DescribeLogDirs reports them (errorCode 56 = offline). */
export interface BrokerLogDirList {
  readonly broker: number;
  readonly dirs: readonly { readonly dir: string; readonly errorCode: number }[];
}

/**
 * The errors ReplicaManager.alterReplicaLogDirs would answer, found before anything changes:
 * a dir that is not one of the broker's log.dirs (57 LOG_DIR_NOT_FOUND) or is offline
 * (56 KAFKA_STORAGE_ERROR). `indexOf` gives the request position of a partition.
 */
export function checkLogDirMoves(
  moves: readonly LogDirMove[],
  brokers: readonly BrokerLogDirList[],
  indexOf: (tp: TopicPartition) => number | null,
): PartitionError[] {
  const byBroker = new Map(brokers.map((b) => [b.broker, new Map(b.dirs.map((d) => [d.dir, d.errorCode]))]));
  const errors: PartitionError[] = [];
  for (const m of moves) {
    const dirs = byBroker.get(m.broker);
    if (!dirs) continue; // an unknown broker is validateReassignment's error
    const code = dirs.get(m.logDir);
    const where = { topic: m.topic, partition: m.partition, index: indexOf(m) };
    if (code === undefined) {
      errors.push({
        ...where,
        code: 'LOG_DIR_NOT_FOUND',
        message: `Log dir ${m.logDir} is not one of broker ${m.broker}'s log.dirs (${[...dirs.keys()].join(', ')}) for ${m.topic}-${m.partition}.`,
        kafkaError: KAFKA_ERRORS.LOG_DIR_NOT_FOUND,
      });
    } else if (code === KAFKA_ERRORS.KAFKA_STORAGE_ERROR.code) {
      errors.push({
        ...where,
        code: 'LOG_DIR_OFFLINE',
        message: `Log dir ${m.logDir} of broker ${m.broker} is offline for ${m.topic}-${m.partition}.`,
        kafkaError: KAFKA_ERRORS.KAFKA_STORAGE_ERROR,
      });
    }
  }
  return errors;
}

/** Where a broker holds a replica: its dir and the dir of its future replica (null = none). */
export interface ReplicaPlacement {
  readonly dir: string | null;
  readonly futureDir: string | null;
}

/**
 * `done`: the replica is in the target dir and has no future replica; `copying`: a future
 * replica exists (in the target dir or not yet swapped); `absent`: the broker does not host it
 * (yet): AlterReplicaLogDirs answers 9, re-send it.
 */
export function logDirMoveStatus(move: LogDirMove, placement: ReplicaPlacement | undefined): 'done' | 'copying' | 'absent' | 'elsewhere' {
  if (!placement || placement.dir === null) return 'absent';
  if (placement.futureDir !== null) return 'copying';
  return placement.dir === move.logDir ? 'done' : 'elsewhere';
}

/**
 * `sets` (reassignmentThrottleConfigs) plus replica.alter.log.dirs.io.max.bytes.per.second on
 * each broker with a dir move, as --replica-alter-log-dirs-throttle does: brokers first
 * (ascending), then topics.
 */
export function withLogDirThrottleConfigs(
  sets: readonly ThrottleConfigSet[],
  brokers: Iterable<number>,
  rate: number,
): ThrottleConfigSet[] {
  const out = [...sets];
  for (const b of new Set(brokers)) {
    const config = { name: LOG_DIRS_THROTTLED_RATE, value: String(rate) };
    const i = out.findIndex((s) => s.resourceType === 'broker' && s.resourceName === String(b));
    if (i >= 0) out[i] = { ...out[i], configs: [...out[i].configs, config] };
    else out.push({ resourceType: 'broker', resourceName: String(b), configs: [config] });
  }
  const rank = (s: ThrottleConfigSet) => (s.resourceType === 'broker' ? 0 : 1);
  return out.sort((a, b) => rank(a) - rank(b) || (a.resourceType === 'broker' ? Number(a.resourceName) - Number(b.resourceName) : 0));
}
