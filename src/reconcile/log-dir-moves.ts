// Intra-broker moves of running reassignments (`log_dirs` other than "any"), observed by the
// reconciler as kafka-reassign-partitions.sh does (executeMoves / verifyReplicaMoves):
// AlterReplicaLogDirs answered REPLICA_NOT_AVAILABLE (9) while the broker did not host the
// replica is re-sent once it does (bounded); a partition is done when each of its brokers reports
// the replica in the target dir with no future replica; another error fails the partition.
import { logDirMoveStatus, type LogDirMove } from '../domain/reassignment/index.js';
import { replicaKey, type KafkaAdmin } from '../kafka/kafka-admin.js';
import type { ReassignmentRecord } from '../state/records.js';
import type { StateView } from '../state/store.js';
import { activePartitions, isLive, partitionId } from './ownership.js';

const REPLICA_NOT_AVAILABLE = 9;
/** Passes a replica may stay unhosted after its inter-broker move ended before the partition fails (Kafka's tool: its timeout). */
export const LOG_DIR_MAX_ABSENT_PASSES = 50;

export interface LogDirObservation {
  /** Partition ids (`partitionId`) whose dir moves are not done yet: they stay moving. */
  readonly pending: ReadonlySet<string>;
  /** Partition ids whose dir move failed, with Kafka's error. */
  readonly failed: ReadonlyMap<string, { code: number; name: string; message: string }>;
}

/**
 * Whether any partition of the record names a log dir other than "any". Records are immutable
 * (a change is a new object), so the answer is kept per record object: every pass asks for every
 * running record, and at 100,000 partitions walking one (and copying its partition list, as
 * activePartitions does) each pass was garbage for nothing when, as usual, no dir is named.
 */
export function hasLogDirMoves(record: ReassignmentRecord): boolean {
  let has = dirMovesOf.get(record);
  if (has === undefined) {
    has = false;
    const ps = record.partitions;
    for (let i = 0; i < ps.length && !has; i++) {
      const dirs = ps[i].logDirs;
      if (dirs) for (let j = 0; j < dirs.length; j++) if (dirs[j] !== 'any') has = true;
    }
    dirMovesOf.set(record, has);
  }
  return has;
}

const dirMovesOf = new WeakMap<ReassignmentRecord, boolean>();

/** Brokers with intra-broker moves of a record's open partitions (they get the log-dir throttle). */
export function logDirBrokers(record: ReassignmentRecord): number[] {
  if (!hasLogDirMoves(record)) return [];
  const out = new Set<number>();
  for (const p of activePartitions(record)) {
    if (p.state !== 'queued' && p.state !== 'moving') continue;
    p.logDirs?.forEach((d, i) => d !== 'any' && out.add(p.target[i]));
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * Looks at the dir moves of the moving partitions of running records; re-sends those whose
 * replica is not (yet) where it should be. `absentPasses` counts, per move, the passes it was
 * answered 9 after Kafka stopped listing the partition as moving (kept by the caller).
 */
export async function observeLogDirMoves(
  kafka: KafkaAdmin,
  view: StateView,
  kafkaMoving: ReadonlySet<string>,
  absentPasses: Map<string, number>,
): Promise<LogDirObservation> {
  const moves: LogDirMove[] = [];
  for (const r of view.reassignments.values()) {
    if (!isLive(r) || r.state !== 'running' || !hasLogDirMoves(r)) continue;
    for (const p of activePartitions(r)) {
      if (p.state !== 'moving' || !p.logDirs) continue;
      p.logDirs.forEach(
        (logDir, i) => logDir !== 'any' && moves.push({ topic: p.topic, partition: p.partition, broker: p.target[i], logDir }),
      );
    }
  }
  const pending = new Set<string>();
  const failed = new Map<string, { code: number; name: string; message: string }>();
  if (moves.length === 0) return { pending, failed };

  const answers = await kafka.describeReplicaSizes(
    moves.map((m) => m.broker),
    moves,
    { placement: true },
  );
  const byBroker = new Map(answers.map((a) => [a.broker, a]));
  const resend: LogDirMove[] = [];
  for (const m of moves) {
    const a = byBroker.get(m.broker);
    const id = partitionId(m.topic, m.partition);
    if (!a || !a.ok) {
      pending.add(id);
      continue;
    }
    const status = logDirMoveStatus(m, a.placement?.get(replicaKey(m.topic, m.partition)));
    if (status === 'done') continue;
    pending.add(id);
    if (status === 'absent' || status === 'elsewhere') resend.push(m);
  }
  if (resend.length > 0) {
    for (const r of await kafka.alterReplicaLogDirs(resend)) {
      const id = partitionId(r.topic, r.partition);
      const key = `${r.broker}:${id}`;
      if (r.ok) {
        absentPasses.delete(key);
        continue;
      }
      if (r.error.code === REPLICA_NOT_AVAILABLE) {
        if (kafkaMoving.has(id)) continue; // the reassignment has not created it yet
        const n = (absentPasses.get(key) ?? 0) + 1;
        absentPasses.set(key, n);
        if (n < LOG_DIR_MAX_ABSENT_PASSES) continue;
      }
      absentPasses.delete(key);
      pending.delete(id);
      if (!failed.has(id))
        failed.set(id, {
          code: r.error.code,
          name: r.error.name,
          message: `AlterReplicaLogDirs ${r.logDir} on broker ${r.broker}: ${r.error.message}`,
        });
    }
  }
  return { pending, failed };
}
