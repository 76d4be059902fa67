// The cluster's partition moves: which partitions are being reassigned (adding / removing
// replicas, as KRaft's PartitionRegistration holds them), the replicas still copying the log
// (./replication.ts), and the per-broker view of log sizes that DescribeLogDirs reports.
//
// The ClusterModel owns one PartitionMoves and calls advanceTo(now) before every read and
// every change, so progress, ISR joins and completions always reflect the clock. An advance
// costs what happened since the last one (catch-ups), not the number of moves; the model tells
// it what changed (brokersChanged, topicConfigsChanged, brokerConfigsChanged, sizeChanged).
// Every completion is recorded with the clock time Kafka finished it (completionTime,
// onCompleted), for tests that measure how soon the gateway notices.
//
// A new replica joins the ISR when it has caught up, and no sooner than one replication round
// trip (isrJoinRoundTripMs, default 10 ms) after its copy started: the follower fetches, the
// leader sees it caught up and has the controller grow the ISR. A move of an empty partition
// therefore completes after the AlterPartitionReassignments response, not inside it.
//
// What a broker's log dirs hold in all (DescribeLogDirs's used bytes, usedBytesByDir) is kept as
// sums, not walked: the host keeps every hosted replica's full size per (broker, dir); the
// replicas still copying are taken out at their full size (copyingSizes, kept here as copies
// start and end and logs grow) and put back at what they hold so far (the tracker's per-class
// sums). So a read costs O(dirs + rate classes), whatever the number of replicas on the broker;
// usedBytesByDirWalk is the per-replica walk it must agree with.
//
// A new target for a moving partition keeps the earlier adding (or removing) list when the new
// one would be empty, as KRaft's PartitionChangeBuilder does (Kafka's controller vectors,
// test/sim/controller-vectors.test.ts, replay this).
//
// Deliberate simplifications, beyond what ./reassignments.ts and ./replication.ts describe:
// - Replicas being removed stop copying; only replicas that will stay catch up.
// - Replicas outside a reassignment (a broker coming back) rejoin the ISR at once, as before.
import type { PartitionLog } from './log.js';
import { completedReassignment, leaderAfterChange, type ReplicaSet } from './reassignments.js';
import { MinHeap } from './heap.js';
import { MoveConfigReads } from './move-configs.js';
import { planReassignmentRecord, type MovePlanState, type ReassignmentRecord } from './move-plan.js';
import {
  listReassignments,
  logSizes,
  usedBytesByDirWalk,
  type MoveReadSource,
  type TopicLogSizes,
  type TopicReassignments,
} from './move-reads.js';
import { movesOf, NONE, recordOf, sameList, someNotIn, type MovePartition, type PendingJoin } from './moving-partition.js';
import { ReplicationTracker } from './replication.js';
import type { PartitionState, TopicState } from './topics.js';

// Split out, read through this module: planning an entry (move-plan.ts), the reads (move-reads.ts).
export type { ReassignmentRecord } from './move-plan.js';
export type { OngoingReassignment, ReplicaLogSize, TopicLogSizes, TopicReassignments } from './move-reads.js';

/** What PartitionMoves reads from the model (the model's private state, no side effects). */
export interface MovesHost {
  topic(name: string): TopicState | undefined;
  log(topic: TopicState, partition: number): PartitionLog;
  /** Every partition's log of a topic, by partition index (one lookup per topic in walks over many partitions). */
  logs(topic: TopicState): readonly PartitionLog[];
  /** The partitions a broker hosts, by topic (./replica-index.ts). */
  hosted(brokerId: number): ReadonlyMap<TopicState, ReadonlySet<PartitionState>>;
  isRegistered(brokerId: number): boolean;
  isUp(brokerId: number): boolean;
  uncleanAllowed(topic: TopicState): boolean;
  topicConfig(topic: TopicState, name: string): string | null;
  brokerConfig(brokerId: number, name: string): string | null;
  /** A partition's leader, ISR or replicas changed (`before`: its replicas until now). */
  partitionChanged(topic: TopicState, p: PartitionState, before: readonly number[]): void;
  /** Number of log dirs of every broker. */
  readonly logDirCount: number;
  /** The log dir (index, < logDirCount) holding a replica of the partition on any broker. */
  dirIndex(topic: TopicState, partition: number): number;
  /** Full log sizes of the replicas a broker hosts, summed per log dir (logDirCount entries, or none). */
  hostedBytes(brokerId: number): readonly number[];
}

/** A reassignment that finished: its new replicas are all in sync and the removed ones are gone. */
export interface CompletedReassignment {
  topic: string;
  partition: number;
  /** The replica set it ended with. */
  replicas: number[];
  /**
   * Clock time (ms) Kafka finished the move: when the last new replica caught up, which may be
   * earlier than the moment the simulator noticed (copies advance lazily, on the next read).
   */
  completedAt: number;
}

/**
 * One entry of an AlterPartitionReassignments the controller accepted and applied (entries it
 * refused change nothing and are not reported): the partition before and after, for tests that
 * check from the cluster's side what was started, re-targeted or cancelled, and by whom.
 */
export interface AlteredReassignment {
  topic: string;
  partition: number;
  /** The target asked for; null = a cancel. */
  target: number[] | null;
  /** Whether the partition was being reassigned before the entry, and is after it. */
  wasMoving: boolean;
  moving: boolean;
  /** Replicas and leader before and after (while moving, replicas = target ++ removing). */
  replicasBefore: number[];
  replicas: number[];
  leaderBefore: number;
  leader: number;
  /** Clock time (ms) of the request (one instant for all its entries). */
  at: number;
  /** Who sent it, as the handler knows it (the request header's client id, the broker it reached). */
  source: { clientId: string | null; brokerId: number } | null;
}

/** Default least time (ms) from a new replica's first fetch to its ISR join. */
export const DEFAULT_ISR_ROUND_TRIP_MS = 10;

export class PartitionMoves {
  /** The moving partitions, in the order their moves started (a list through MovePartition). */
  private firstMoving: MovePartition | null = null;
  private lastMoving: MovePartition | null = null;
  private movingPartitions = 0;
  /** The same by topic, for listing and config changes without a scan. */
  private readonly movingByTopic = new Map<TopicState, Set<MovePartition>>();
  private readonly tracker: ReplicationTracker<MovePartition>;
  private readonly completionListeners = new Set<(c: CompletedReassignment) => void>();
  private readonly joinSchedule = new MinHeap<PendingJoin>();
  /** Full log sizes of the replicas copying into each broker, by log dir (see usedBytesByDir). */
  private readonly copyingSizes = new Map<number, number[]>();
  private readonly isUp = (id: number): boolean => this.host.isUp(id);
  private readonly isRegistered = (id: number): boolean => this.host.isRegistered(id);
  /** Topic configs read per partition, once per topic inside a batch (move-configs.ts). */
  private readonly configs: MoveConfigReads;
  private readonly planState: MovePlanState;
  private readonly reads: MoveReadSource;

  /**
   * @param roundTripMs the least time from a copy's start to its ISR join: the follower fetches,
   *   the leader sees it caught up and asks the controller to grow the ISR (AlterPartition). So
   *   even a move of an empty partition completes after the request, never inside it.
   */
  constructor(
    private readonly host: MovesHost,
    bandwidthBytesPerSecond?: number,
    private readonly roundTripMs = DEFAULT_ISR_ROUND_TRIP_MS,
  ) {
    this.configs = new MoveConfigReads(host);
    this.planState = {
      topic: (name) => this.host.topic(name),
      uncleanAllowed: (t) => this.configs.uncleanAllowed(t),
      isUp: this.isUp,
      isRegistered: this.isRegistered,
    };
    this.reads = { host, movingByTopic: this.movingByTopic, copiedBytes: (r, id) => this.tracker.copiedBytes(r, id) };
    this.tracker = new ReplicationTracker<MovePartition>(
      {
        leader: (r) => r.p.leader,
        leaderSize: (r) => this.host.log(r.topic, r.p.partition).sizeBytes,
        isUp: (id) => this.host.isUp(id),
        wanted: (r, id) => r.p.replicas.includes(id) && !r.removing.includes(id),
        throttled: (r, side, id) => this.configs.throttled(r.topic, side, r.p.partition, id),
        throttleRate: (id, side) => Number(this.host.brokerConfig(id, `${side}.replication.throttled.rate`) ?? Infinity),
        caughtUp: (r, id, at, startedAt) => this.caughtUp(r, id, at, startedAt),
        group: (r) => this.dirOf(r),
      },
      bandwidthBytesPerSecond,
    );
  }

  /** The moving partitions, in the order their moves started (a copy: callers may change them). */
  private movingNow(): MovePartition[] {
    const out: MovePartition[] = [];
    for (let r = this.firstMoving; r !== null; r = r.nextMoving) out.push(r);
    return out;
  }

  /**
   * Integrate copy progress up to `now` and settle what it completed (O(catch-ups), not O(moves)),
   * ISR joins that are due included, in time order.
   */
  advanceTo(now: number, maxCatchUps?: number): boolean {
    for (;;) {
      const next = this.joinSchedule.peekKey();
      if (next === undefined || next > now) {
        if (!this.tracker.advanceTo(now, maxCatchUps)) return false;
        // A copy that caught up in that last stretch may have its join due by `now` too.
        if ((this.joinSchedule.peekKey() ?? Infinity) > now) return true;
        continue;
      }
      if (!this.tracker.advanceTo(next, maxCatchUps)) return false;
      while ((this.joinSchedule.peekKey() ?? Infinity) <= next) {
        const j = this.joinSchedule.pop()!;
        if (j.partition.joins?.get(j.brokerId) !== j) continue; // dropped since
        this.forgetPendingJoin(j.partition, j.brokerId);
        this.joinIsr(j.partition, j.brokerId, j.at);
      }
    }
  }

  /** True while the replica copies the log or waits for its ISR join: it must not be put in the ISR. */
  isCatchingUp(p: PartitionState, brokerId: number): boolean {
    const r = movesOf(p);
    return r !== null && this.catchingUp(r, brokerId);
  }

  private catchingUp(r: MovePartition, brokerId: number): boolean {
    return this.tracker.isCatchingUp(r, brokerId) || (r.joins?.has(brokerId) ?? false);
  }

  /** A copy caught up at `at`: it joins the ISR then, or one round trip after it started. */
  private caughtUp(r: MovePartition, brokerId: number, at: number, startedAt: number): void {
    this.countCopying(r, brokerId, -1);
    const joinAt = Math.max(at, startedAt + this.roundTripMs);
    if (joinAt <= at) {
      this.joinIsr(r, brokerId, at);
      return;
    }
    const j: PendingJoin = { partition: r, brokerId, at: joinAt };
    (r.joins ??= new Map()).set(brokerId, j);
    this.joinSchedule.push(joinAt, j);
  }

  private forgetPendingJoin(r: MovePartition, brokerId: number): void {
    r.joins?.delete(brokerId);
    if (r.joins?.size === 0) r.joins = null;
  }

  /** Start copying a new replica's log, at the tracker's time. */
  private startCopy(r: MovePartition, brokerId: number): void {
    if (this.catchingUp(r, brokerId)) return;
    this.tracker.startCopy(r, brokerId); // it records when: the join waits a round trip from then
    this.countCopying(r, brokerId, 1);
  }

  /** Forget a replica's copy or pending join (it left the partition). */
  private dropCopy(r: MovePartition, brokerId: number): void {
    if (this.tracker.isCatchingUp(r, brokerId)) this.countCopying(r, brokerId, -1);
    this.tracker.dropCopy(r, brokerId);
    this.forgetPendingJoin(r, brokerId);
  }

  /** Start of a request touching many partitions: configs are read once per topic until endBatch. */
  beginBatch(): void {
    this.configs.beginBatch();
  }

  endBatch(): void {
    this.configs.endBatch();
  }

  /** Whether the partition is being reassigned now. */
  isMoving(p: PartitionState): boolean {
    return movesOf(p)?.moving ?? false;
  }

  /** Number of partitions being reassigned. */
  get movingCount(): number {
    return this.movingPartitions;
  }

  /** When the last reassignment of this partition completed (clock ms), or null. */
  completionTime(p: PartitionState): number | null {
    return movesOf(p)?.completedAt ?? null;
  }

  /** Calls `listener` for every reassignment that completes; returns the unsubscribe function. */
  onCompleted(listener: (c: CompletedReassignment) => void): () => void {
    this.completionListeners.add(listener);
    return () => this.completionListeners.delete(listener);
  }

  /**
   * Brokers stopped or started: copies re-classify (stalls, new leaders), and a returning
   * replica that rejoined the ISR may complete moves.
   */
  brokersChanged(): void {
    this.tracker.invalidateAll();
    for (const r of this.movingNow()) this.tryComplete(r);
  }

  /** A topic's configs changed: its throttled-replica lists may list other copies now. */
  topicConfigsChanged(t: TopicState): void {
    this.configs.topicChanged(t);
    for (const r of this.movingByTopic.get(t) ?? []) this.tracker.invalidatePartition(r);
  }

  /** A broker's configs changed ("" = the cluster default, which topic configs may follow). */
  brokerConfigsChanged(name: string): void {
    this.configs.brokerChanged(name === '');
    if (name === '') this.tracker.invalidateAll();
    else this.tracker.invalidateRates();
  }

  /** The partition's log grew by `delta` bytes: its copies have more to copy. */
  sizeChanged(p: PartitionState, delta: number): void {
    const r = movesOf(p);
    if (r === null || !this.tracker.hasCopies(r)) return;
    for (const id of this.tracker.copyingBrokers(r)) this.addCopyingSize(id, this.dirOf(r), delta);
    this.tracker.invalidatePartition(r);
  }

  /** The log dir of the partition (every broker places it alike). */
  private dirOf(r: MovePartition): number {
    return this.host.dirIndex(r.topic, r.p.partition);
  }

  /** A copy starts (+1) or ends (-1): its partition's full size leaves or rejoins the broker's sums. */
  private countCopying(r: MovePartition, brokerId: number, sign: 1 | -1): void {
    this.addCopyingSize(brokerId, this.dirOf(r), sign * this.host.log(r.topic, r.p.partition).sizeBytes);
  }

  private addCopyingSize(brokerId: number, dir: number, bytes: number): void {
    let byDir = this.copyingSizes.get(brokerId);
    if (!byDir) this.copyingSizes.set(brokerId, (byDir = new Array<number>(this.host.logDirCount).fill(0)));
    byDir[dir] += bytes;
  }

  /** Forget a deleted topic's moves and copies. */
  forgetTopic(t: TopicState): void {
    for (const p of t.partitions) {
      const r = movesOf(p);
      if (r === null) continue;
      for (const id of this.tracker.copyingBrokers(r)) this.countCopying(r, id, -1);
      if (r.moving) this.unlinkMoving(r);
      this.tracker.dropPartition(r);
      r.joins = null; // its scheduled joins are skipped
      p.moves = null;
    }
    this.movingByTopic.delete(t);
    this.configs.forget(t);
  }

  /**
   * One partition of AlterPartitionReassignments, planned and applied at once (see plan/apply
   * for a request holding several entries).
   */
  alter(topicName: string, partition: number, target: readonly number[] | null): void {
    this.apply(this.plan(topicName, partition, target));
  }

  /**
   * The change record one entry of AlterPartitionReassignments makes, against the state as it is
   * now (planReassignmentRecord, move-plan.ts). Throws KafkaError.
   */
  plan(topicName: string, partition: number, target: readonly number[] | null): ReassignmentRecord {
    return planReassignmentRecord(this.planState, topicName, partition, target);
  }

  /** Replays a record from plan() onto the partition as it is now. */
  apply(rec: ReassignmentRecord): void {
    const { topic: t, partition: p } = rec;
    if (this.host.topic(t.name) !== t) return; // deleted since
    const r = recordOf(t, p);
    const replicas = rec.replicas ?? p.replicas;
    const isr = rec.isr ?? p.isr;
    const leader = rec.leader ?? p.leader;
    const adding = rec.adding ?? r.adding;
    const removing = rec.removing ?? r.removing;
    this.stopMoving(r);
    if (!sameList(replicas, p.replicas) || !sameList(isr, p.isr) || leader !== p.leader) {
      this.setReplicas(r, { replicas, isr }, leader, rec.bumpLeaderEpoch);
    }
    for (let id = this.tracker.copyingOutside(r, replicas); id !== -1; id = this.tracker.copyingOutside(r, replicas)) this.dropCopy(r, id);
    if (r.joins) for (const id of r.joins.keys()) if (!replicas.includes(id)) this.dropCopy(r, id);
    if (adding.length > 0 || removing.length > 0) {
      // The lists are the record's or the earlier move's, never modified: shared, not copied.
      this.startMoving(r, adding, removing);
      for (const id of adding) if (replicas.includes(id) && !isr.includes(id)) this.startCopy(r, id);
    } else if (!rec.cancel) {
      this.completed(r, this.tracker.now ?? 0); // a pure reorder, or a new target already in sync
    }
  }

  private startMoving(r: MovePartition, adding: number[], removing: number[]): void {
    r.moving = true;
    r.adding = adding;
    r.removing = removing;
    this.movingPartitions++;
    r.prevMoving = this.lastMoving;
    if (this.lastMoving === null) this.firstMoving = r;
    else this.lastMoving.nextMoving = r;
    this.lastMoving = r;
    let set = this.movingByTopic.get(r.topic);
    if (!set) this.movingByTopic.set(r.topic, (set = new Set()));
    set.add(r);
    this.tracker.invalidatePartition(r); // its removing list decides which copies are wanted
  }

  private stopMoving(r: MovePartition): void {
    if (!r.moving) return;
    r.moving = false;
    r.adding = r.removing = NONE;
    this.unlinkMoving(r);
    const set = this.movingByTopic.get(r.topic);
    set?.delete(r);
    if (set?.size === 0) this.movingByTopic.delete(r.topic);
    this.tracker.invalidatePartition(r);
  }

  /** Takes a moving partition out of the list of moving partitions. */
  private unlinkMoving(r: MovePartition): void {
    if (r.prevMoving === null) this.firstMoving = r.nextMoving;
    else r.prevMoving.nextMoving = r.nextMoving;
    if (r.nextMoving === null) this.lastMoving = r.prevMoving;
    else r.nextMoving.prevMoving = r.prevMoving;
    r.prevMoving = r.nextMoving = null;
    this.movingPartitions--;
  }

  /** ListPartitionReassignments: null = every moving partition; unknown or idle ones are omitted. */
  list(topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null): TopicReassignments[] {
    return listReassignments(this.reads, topics);
  }

  /**
   * The replicas one broker hosts, with their sizes (DescribeLogDirs), topics by name and
   * partitions by index. `filter` null = every replica; otherwise only the listed partitions
   * (unknown ones omitted).
   */
  logSizes(brokerId: number, filter: readonly { topic: string; partitions: readonly number[] }[] | null): TopicLogSizes[] {
    return logSizes(this.reads, brokerId, filter);
  }

  /**
   * Bytes of every replica one broker hosts (its full log, or what a copying replica holds so
   * far), summed per log dir (host.dirIndex; logDirCount entries). O(dirs + rate classes into
   * the broker): the sums kept as things change (see the opening comment), the same bytes as
   * usedBytesByDirWalk.
   */
  usedBytesByDir(brokerId: number): number[] {
    const used = new Array<number>(this.host.logDirCount).fill(0);
    const hosted = this.host.hostedBytes(brokerId);
    for (let d = 0; d < hosted.length; d++) used[d] += hosted[d];
    const copying = this.copyingSizes.get(brokerId);
    if (copying) for (let d = 0; d < copying.length; d++) used[d] -= copying[d];
    this.tracker.addCopiedBytes(brokerId, used);
    return used;
  }

  /** usedBytesByDir by walking every replica the broker hosts: the reference (move-reads.ts). */
  usedBytesByDirWalk(brokerId: number, dirIndex: (topic: string) => (partition: number) => number, dirCount: number): number[] {
    return usedBytesByDirWalk(this.reads, brokerId, dirIndex, dirCount);
  }

  /** Bytes of every replica one broker hosts, all dirs together. */
  usedBytes(brokerId: number): number {
    return this.usedBytesByDir(brokerId).reduce((a, b) => a + b, 0);
  }

  /**
   * A copying replica caught up: it joins the ISR. When that completes the partition's move,
   * both happen in one change, as KRaft applies the leader's AlterPartition. The replica goes
   * LAST: the leader proposes its ISR plus the new member (Partition.scala maybeExpandIsr:
   * `partitionState.isr + newInSyncReplicaId`) and the controller takes the proposed list as it is
   * (ReplicationControlManager.alterPartition -> PartitionChangeBuilder.setTargetIsr); Kafka 3.9's
   * controller vectors show [0, 1] + 3 = [0, 1, 3] on replicas [2, 3, 0, 1].
   */
  private joinIsr(r: MovePartition, brokerId: number, at: number): void {
    const p = r.p;
    if (!p.replicas.includes(brokerId) || p.isr.includes(brokerId)) return;
    const isr = [...p.isr, brokerId];
    if (r.moving && this.tryComplete(r, isr, at)) return;
    this.setReplicas(r, { replicas: p.replicas, isr }, p.leader);
  }

  /** Completes the move when the ISR (by default the current one) allows; true when it did. */
  private tryComplete(r: MovePartition, isr: readonly number[] = r.p.isr, at?: number): boolean {
    const p = r.p;
    const done = completedReassignment({ replicas: p.replicas, adding: r.adding, removing: r.removing }, isr);
    if (!done) return false;
    const next = leaderAfterChange(p.leader, done, this.configs.uncleanAllowed(r.topic), this.isUp);
    for (const id of r.removing) this.dropCopy(r, id);
    this.stopMoving(r);
    this.setReplicas(r, { replicas: done.replicas, isr: next.isr }, next.leader);
    this.completed(r, at ?? this.tracker.now ?? 0);
    return true;
  }

  private completed(r: MovePartition, completedAt: number): void {
    r.completedAt = completedAt;
    if (this.completionListeners.size === 0) return;
    const event: CompletedReassignment = { topic: r.topic.name, partition: r.p.partition, replicas: [...r.p.replicas], completedAt };
    for (const listener of this.completionListeners) listener(event);
  }

  /**
   * One partition change record: partitionEpoch + 1; leaderEpoch + 1 when the leader changes or
   * a replica leaves the replica set (KRaft's bump for reassignments that remove replicas).
   */
  private setReplicas(r: MovePartition, next: ReplicaSet, leader: number, bumpLeaderEpoch?: boolean): void {
    const p = r.p;
    const before = p.replicas;
    if (bumpLeaderEpoch ?? (leader !== p.leader || someNotIn(p.replicas, next.replicas))) p.leaderEpoch++;
    p.partitionEpoch++;
    // Taken as they are: every caller hands lists of its own, and lists are replaced on every
    // change, never modified in place (Metadata views and listings share them).
    p.replicas = next.replicas;
    p.isr = next.isr;
    p.leader = leader;
    this.tracker.invalidatePartition(r);
    this.host.partitionChanged(r.topic, p, before);
  }
}
