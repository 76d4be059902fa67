// The cluster's partition moves: which partitions are being reassigned (adding / removing
// replicas, as KRaft's PartitionRegistration holds them), the replicas still copying the log
// (./replication.ts), and the per-broker view of log sizes that DescribeLogDirs reports.
//
// The ClusterModel owns one PartitionMoves and calls advanceTo(now) before every read and
// every change, so progress, ISR joins and completions always reflect the clock.
//
// Deliberate simplifications, beyond what ./reassignments.ts and ./replication.ts describe:
// - A new target for a moving partition replaces its adding/removing sets (KRaft would keep a
//   stale set when the new target adds and removes nothing relative to the merged list).
// - Replicas being removed stop copying; only replicas that will stay catch up.
// - Replicas outside a reassignment (a broker coming back) rejoin the ISR at once, as before.
import type { PartitionLog } from './log.js';
import {
  completedReassignment,
  isReassigning,
  leaderAfterChange,
  noReassignmentInProgress,
  reassignmentReplicas,
  revertedReassignment,
  uncleanRevertRefused,
  unknownPartition,
  unknownTopic,
  validateTarget,
  type ReplicaSet,
} from './reassignments.js';
import { listsReplica, ReplicationTracker } from './replication.js';
import type { PartitionState, TopicState } from './topics.js';

/** What PartitionMoves reads from the model (the model's private state, no side effects). */
export interface MovesHost {
  topic(name: string): TopicState | undefined;
  topics(): Iterable<TopicState>;
  log(topic: TopicState, partition: number): PartitionLog;
  isRegistered(brokerId: number): boolean;
  isUp(brokerId: number): boolean;
  uncleanAllowed(topic: TopicState): boolean;
  topicConfig(topic: TopicState, name: string): string | null;
  brokerConfig(brokerId: number, name: string): string | null;
}

export interface OngoingReassignment {
  partitionIndex: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export interface TopicReassignments {
  name: string;
  partitions: OngoingReassignment[];
}

export interface ReplicaLogSize {
  partition: number;
  /** Bytes this broker holds: the leader's size, or what a copying replica has so far. */
  sizeBytes: number;
}

export interface TopicLogSizes {
  topic: string;
  partitions: ReplicaLogSize[];
}

interface Moving {
  topic: TopicState;
  adding: number[];
  removing: number[];
}

export class PartitionMoves {
  private readonly moving = new Map<PartitionState, Moving>();
  /** The topic of every partition the tracker knows (its copies are keyed by partition). */
  private readonly topicOf = new Map<PartitionState, TopicState>();
  private readonly tracker: ReplicationTracker<PartitionState>;

  constructor(private readonly host: MovesHost, bandwidthBytesPerSecond?: number) {
    this.tracker = new ReplicationTracker<PartitionState>(
      {
        leader: (p) => p.leader,
        leaderSize: (p) => this.host.log(this.topicOf.get(p)!, p.partition).sizeBytes,
        isUp: (id) => this.host.isUp(id),
        wanted: (p, id) => p.replicas.includes(id) && !(this.moving.get(p)?.removing.includes(id) ?? false),
        throttled: (p, side, id) => listsReplica(this.host.topicConfig(this.topicOf.get(p)!, `${side}.replication.throttled.replicas`), p.partition, id),
        throttleRate: (id, side) => Number(this.host.brokerConfig(id, `${side}.replication.throttled.rate`) ?? Infinity),
        caughtUp: (p, id) => this.joinIsr(p, id),
      },
      bandwidthBytesPerSecond,
    );
  }

  /** Integrate copy progress up to `now` and settle what it (or a broker change) completed. */
  advanceTo(now: number): void {
    this.tracker.advanceTo(now);
    for (const [p, m] of [...this.moving]) this.tryComplete(p, m);
  }

  /** True while the replica copies the log: it must not be put in the ISR. */
  isCatchingUp(p: PartitionState, brokerId: number): boolean {
    return this.tracker.isCatchingUp(p, brokerId);
  }

  /** Forget a deleted topic's moves and copies. */
  forgetTopic(t: TopicState): void {
    for (const p of t.partitions) {
      this.moving.delete(p);
      this.tracker.dropPartition(p);
      this.topicOf.delete(p);
    }
  }

  /**
   * One partition of AlterPartitionReassignments, in Kafka's order of checks: unknown topic,
   * unknown partition, then for a cancel (null) 85 / unclean revert, else the target's
   * validation (empty, unregistered broker, duplicate). Throws KafkaError; changes nothing then.
   */
  alter(topicName: string, partition: number, target: readonly number[] | null): void {
    const t = this.host.topic(topicName);
    if (!t) throw unknownTopic(topicName);
    const p = Number.isInteger(partition) ? t.partitions[partition] : undefined;
    if (!p) throw unknownPartition(topicName, partition);
    if (target === null) {
      this.cancel(t, p);
      return;
    }
    validateTarget(target, (id) => this.host.isRegistered(id));
    const next = reassignmentReplicas(p.replicas, target);
    if (!sameList(next.replicas, p.replicas)) this.setReplicas(p, { replicas: next.replicas, isr: p.isr }, p.leader);
    this.moving.delete(p);
    if (!isReassigning(next)) return; // a pure reorder is complete at once
    this.moving.set(p, { topic: t, adding: next.adding, removing: next.removing });
    this.topicOf.set(p, t);
    for (const id of next.adding) this.tracker.startCopy(p, id);
    this.tryComplete(p, this.moving.get(p)!);
  }

  private cancel(t: TopicState, p: PartitionState): void {
    const m = this.moving.get(p);
    if (!m) throw noReassignmentInProgress();
    const revert = revertedReassignment(p.replicas, p.isr, m.adding);
    const unclean = this.host.uncleanAllowed(t);
    if (revert.unclean && !unclean) throw uncleanRevertRefused(t.name, p.partition);
    const next = leaderAfterChange(p.leader, revert, unclean, (id) => this.host.isUp(id));
    for (const id of m.adding) this.tracker.dropCopy(p, id);
    this.moving.delete(p);
    this.setReplicas(p, { replicas: revert.replicas, isr: next.isr }, next.leader);
  }

  /** ListPartitionReassignments: null = every moving partition; unknown or idle ones are omitted. */
  list(topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null): TopicReassignments[] {
    const describe = (p: PartitionState, m: Moving): OngoingReassignment => ({
      partitionIndex: p.partition,
      replicas: [...p.replicas],
      addingReplicas: [...m.adding],
      removingReplicas: [...m.removing],
    });
    if (topics === null) {
      const byTopic = new Map<string, OngoingReassignment[]>();
      for (const [p, m] of this.moving) {
        const list = byTopic.get(m.topic.name) ?? [];
        list.push(describe(p, m));
        byTopic.set(m.topic.name, list);
      }
      return [...byTopic.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, partitions]) => ({ name, partitions: partitions.sort((a, b) => a.partitionIndex - b.partitionIndex) }));
    }
    const out: TopicReassignments[] = [];
    for (const wanted of topics) {
      const t = this.host.topic(wanted.name);
      if (!t) continue;
      const partitions: OngoingReassignment[] = [];
      for (const i of wanted.partitionIndexes) {
        const p = t.partitions[i];
        const m = p && this.moving.get(p);
        if (m) partitions.push(describe(p, m));
      }
      if (partitions.length > 0) out.push({ name: t.name, partitions });
    }
    return out;
  }

  /**
   * The replicas one broker hosts, with their sizes (DescribeLogDirs), topics by name.
   * `filter` null = every replica; otherwise only the listed partitions (unknown ones omitted).
   */
  logSizes(brokerId: number, filter: readonly { topic: string; partitions: readonly number[] }[] | null): TopicLogSizes[] {
    const wanted = filter === null ? null : new Set(filter.flatMap((f) => f.partitions.map((i) => `${f.topic}\u0000${i}`)));
    const out: TopicLogSizes[] = [];
    const topics = [...this.host.topics()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const t of topics) {
      const partitions: ReplicaLogSize[] = [];
      for (const p of t.partitions) {
        if (!p.replicas.includes(brokerId)) continue;
        if (wanted && !wanted.has(`${t.name}\u0000${p.partition}`)) continue;
        const sizeBytes = this.tracker.copiedBytes(p, brokerId) ?? this.host.log(t, p.partition).sizeBytes;
        partitions.push({ partition: p.partition, sizeBytes });
      }
      if (partitions.length > 0) out.push({ topic: t.name, partitions });
    }
    return out;
  }

  /**
   * A copying replica caught up: it joins the ISR. When that completes the partition's move,
   * both happen in one change, as KRaft applies the leader's AlterPartition.
   */
  private joinIsr(p: PartitionState, brokerId: number): void {
    if (!p.replicas.includes(brokerId) || p.isr.includes(brokerId)) return;
    const isr = p.replicas.filter((r) => p.isr.includes(r) || r === brokerId);
    const m = this.moving.get(p);
    if (m && this.tryComplete(p, m, isr)) return;
    this.setReplicas(p, { replicas: p.replicas, isr }, p.leader);
  }

  /** Completes the move when the ISR (by default the current one) allows; true when it did. */
  private tryComplete(p: PartitionState, m: Moving, isr: readonly number[] = p.isr): boolean {
    const done = completedReassignment({ replicas: p.replicas, adding: m.adding, removing: m.removing }, isr);
    if (!done) return false;
    const next = leaderAfterChange(p.leader, done, this.host.uncleanAllowed(m.topic), (id) => this.host.isUp(id));
    for (const id of m.removing) this.tracker.dropCopy(p, id);
    this.moving.delete(p);
    this.setReplicas(p, { replicas: done.replicas, isr: next.isr }, next.leader);
    return true;
  }

  /**
   * One partition change record: partitionEpoch + 1; leaderEpoch + 1 when the leader changes or
   * a replica leaves the replica set (KRaft's bump for reassignments that remove replicas).
   */
  private setReplicas(p: PartitionState, next: ReplicaSet, leader: number): void {
    const removesReplica = p.replicas.some((r) => !next.replicas.includes(r));
    if (leader !== p.leader || removesReplica) p.leaderEpoch++;
    p.partitionEpoch++;
    p.replicas = [...next.replicas];
    p.isr = [...next.isr];
    p.leader = leader;
  }
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
