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
  type ReplicaSet,
} from './reassignments.js';
import { MinHeap } from './heap.js';
import { parseThrottledReplicas, ReplicationTracker, type ThrottledReplicas } from './replication.js';
import type { PartitionState, TopicState } from './topics.js';

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

/** One moving partition as ListPartitionReassignments reports it; its lists are shared: read only. */
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

interface Moving {
  topic: TopicState;
  adding: number[];
  removing: number[];
}

/** A caught-up replica whose ISR join is due at `at` (one round trip after its copy started). */
interface PendingJoin {
  partition: PartitionState;
  brokerId: number;
  at: number;
}

/** Default least time (ms) from a new replica's first fetch to its ISR join. */
export const DEFAULT_ISR_ROUND_TRIP_MS = 10;

/**
 * One partition change of AlterPartitionReassignments (see PartitionMoves.plan): the fields that
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

/** The empty adding / removing list of a partition that is not moving (shared, never modified). */
const NONE: number[] = Object.freeze([]) as unknown as number[];

/** A topic's *.replication.throttled.replicas, parsed once per value. */
interface ThrottleList {
  raw: string | null;
  parsed: ThrottledReplicas;
}

const byName = (a: TopicState, b: TopicState): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export class PartitionMoves {
  private readonly moving = new Map<PartitionState, Moving>();
  /** The same moves by topic, for listing without a scan. */
  private readonly movingByTopic = new Map<TopicState, Set<PartitionState>>();
  /** The topic of every partition the tracker knows (its copies are keyed by partition). */
  private readonly topicOf = new Map<PartitionState, TopicState>();
  private readonly tracker: ReplicationTracker<PartitionState>;
  private readonly throttleLists = new Map<TopicState, { leader: ThrottleList; follower: ThrottleList }>();
  private readonly completedAt = new Map<PartitionState, number>();
  private readonly completionListeners = new Set<(c: CompletedReassignment) => void>();
  /** Caught-up replicas waiting for their ISR join (the round trip), by partition and broker. */
  private readonly pendingJoins = new Map<PartitionState, Map<number, PendingJoin>>();
  private readonly joinSchedule = new MinHeap<PendingJoin>();
  /** Full log sizes of the replicas copying into each broker, by log dir (see usedBytesByDir). */
  private readonly copyingSizes = new Map<number, number[]>();
  private readonly isUp = (id: number): boolean => this.host.isUp(id);
  private readonly isRegistered = (id: number): boolean => this.host.isRegistered(id);
  /**
   * Inside a batch (a request of many entries, beginBatch/endBatch) topic configs read for every
   * partition (unclean.leader.election.enable, the throttled-replica lists) are read once per
   * topic; any config change in between starts a new generation, so nothing stale is used.
   */
  private batchGeneration = 0;
  private batchDepth = 0;
  private readonly uncleanMemo = new Map<TopicState, { generation: number; value: boolean }>();
  private readonly throttleCheckedAt = new Map<TopicState, number>();

  /**
   * @param roundTripMs the least time from a copy's start to its ISR join: the follower fetches,
   *   the leader sees it caught up and asks the controller to grow the ISR (AlterPartition). So
   *   even a move of an empty partition completes after the request, never inside it.
   */
  constructor(private readonly host: MovesHost, bandwidthBytesPerSecond?: number, private readonly roundTripMs = DEFAULT_ISR_ROUND_TRIP_MS) {
    this.tracker = new ReplicationTracker<PartitionState>(
      {
        leader: (p) => p.leader,
        leaderSize: (p) => this.host.log(this.topicOf.get(p)!, p.partition).sizeBytes,
        isUp: (id) => this.host.isUp(id),
        wanted: (p, id) => p.replicas.includes(id) && !(this.moving.get(p)?.removing.includes(id) ?? false),
        throttled: (p, side, id) => this.throttled(this.topicOf.get(p)!, side, p.partition, id),
        throttleRate: (id, side) => Number(this.host.brokerConfig(id, `${side}.replication.throttled.rate`) ?? Infinity),
        caughtUp: (p, id, at, startedAt) => this.caughtUp(p, id, at, startedAt),
        group: (p) => this.dirOf(p),
      },
      bandwidthBytesPerSecond,
    );
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
        if (this.pendingJoins.get(j.partition)?.get(j.brokerId) !== j) continue; // dropped since
        this.forgetPendingJoin(j.partition, j.brokerId);
        this.joinIsr(j.partition, j.brokerId, j.at);
      }
    }
  }

  /** True while the replica copies the log or waits for its ISR join: it must not be put in the ISR. */
  isCatchingUp(p: PartitionState, brokerId: number): boolean {
    return this.tracker.isCatchingUp(p, brokerId) || (this.pendingJoins.get(p)?.has(brokerId) ?? false);
  }

  /** A copy caught up at `at`: it joins the ISR then, or one round trip after it started. */
  private caughtUp(p: PartitionState, brokerId: number, at: number, startedAt: number): void {
    this.countCopying(p, brokerId, -1);
    const joinAt = Math.max(at, startedAt + this.roundTripMs);
    if (joinAt <= at) {
      this.joinIsr(p, brokerId, at);
      return;
    }
    const j: PendingJoin = { partition: p, brokerId, at: joinAt };
    let byBroker = this.pendingJoins.get(p);
    if (!byBroker) this.pendingJoins.set(p, (byBroker = new Map()));
    byBroker.set(brokerId, j);
    this.joinSchedule.push(joinAt, j);
  }

  private forgetPendingJoin(p: PartitionState, brokerId: number): void {
    const byBroker = this.pendingJoins.get(p);
    byBroker?.delete(brokerId);
    if (byBroker?.size === 0) this.pendingJoins.delete(p);
  }

  /** Start copying a new replica's log, at the tracker's time. */
  private startCopy(p: PartitionState, brokerId: number): void {
    if (this.tracker.isCatchingUp(p, brokerId) || this.pendingJoins.get(p)?.has(brokerId)) return;
    this.tracker.startCopy(p, brokerId); // it records when: the join waits a round trip from then
    this.countCopying(p, brokerId, 1);
  }

  /** Forget a replica's copy or pending join (it left the partition). */
  private dropCopy(p: PartitionState, brokerId: number): void {
    if (this.tracker.isCatchingUp(p, brokerId)) this.countCopying(p, brokerId, -1);
    this.tracker.dropCopy(p, brokerId);
    this.forgetPendingJoin(p, brokerId);
  }

  /** Start of a request touching many partitions: configs are read once per topic until endBatch. */
  beginBatch(): void {
    if (this.batchDepth++ === 0) this.batchGeneration++;
  }

  endBatch(): void {
    if (--this.batchDepth > 0) return;
    this.batchGeneration++;
    this.uncleanMemo.clear();
    this.throttleCheckedAt.clear();
  }

  private get inBatch(): boolean {
    return this.batchDepth > 0;
  }

  private uncleanAllowed(t: TopicState): boolean {
    if (!this.inBatch) return this.host.uncleanAllowed(t);
    const memo = this.uncleanMemo.get(t);
    if (memo?.generation === this.batchGeneration) return memo.value;
    const value = this.host.uncleanAllowed(t);
    this.uncleanMemo.set(t, { generation: this.batchGeneration, value });
    return value;
  }

  /** Number of partitions being reassigned. */
  get movingCount(): number {
    return this.moving.size;
  }

  /** When the last reassignment of this partition completed (clock ms), or null. */
  completionTime(p: PartitionState): number | null {
    return this.completedAt.get(p) ?? null;
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
    for (const [p, m] of [...this.moving]) this.tryComplete(p, m);
  }

  /** A topic's configs changed: its throttled-replica lists may list other copies now. */
  topicConfigsChanged(t: TopicState): void {
    this.batchGeneration++;
    this.throttleLists.delete(t);
    for (const p of this.movingByTopic.get(t) ?? []) this.tracker.invalidatePartition(p);
  }

  /** A broker's configs changed ("" = the cluster default, which topic configs may follow). */
  brokerConfigsChanged(name: string): void {
    this.batchGeneration++;
    if (name === '') {
      this.throttleLists.clear();
      this.tracker.invalidateAll();
    } else {
      this.tracker.invalidateRates();
    }
  }

  /** The partition's log grew by `delta` bytes: its copies have more to copy. */
  sizeChanged(p: PartitionState, delta: number): void {
    if (!this.tracker.hasCopies(p)) return;
    for (const id of this.tracker.copyingBrokers(p)) this.addCopyingSize(id, this.dirOf(p), delta);
    this.tracker.invalidatePartition(p);
  }

  /** The log dir of a partition the tracker knows (every broker places it alike). */
  private dirOf(p: PartitionState): number {
    return this.host.dirIndex(this.topicOf.get(p)!, p.partition);
  }

  /** A copy starts (+1) or ends (-1): its partition's full size leaves or rejoins the broker's sums. */
  private countCopying(p: PartitionState, brokerId: number, sign: 1 | -1): void {
    this.addCopyingSize(brokerId, this.dirOf(p), sign * this.host.log(this.topicOf.get(p)!, p.partition).sizeBytes);
  }

  private addCopyingSize(brokerId: number, dir: number, bytes: number): void {
    let byDir = this.copyingSizes.get(brokerId);
    if (!byDir) this.copyingSizes.set(brokerId, (byDir = new Array<number>(this.host.logDirCount).fill(0)));
    byDir[dir]! += bytes;
  }

  /** Forget a deleted topic's moves and copies. */
  forgetTopic(t: TopicState): void {
    for (const p of t.partitions) {
      if (this.tracker.hasCopies(p)) for (const id of this.tracker.copyingBrokers(p)) this.countCopying(p, id, -1);
      this.moving.delete(p);
      this.tracker.dropPartition(p);
      this.topicOf.delete(p);
      this.completedAt.delete(p);
      this.pendingJoins.delete(p);
    }
    this.movingByTopic.delete(t);
    this.throttleLists.delete(t);
  }

  /**
   * One partition of AlterPartitionReassignments, planned and applied at once (see plan/apply
   * for a request holding several entries).
   */
  alter(topicName: string, partition: number, target: readonly number[] | null): void {
    this.apply(this.plan(topicName, partition, target));
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
  plan(topicName: string, partition: number, target: readonly number[] | null): ReassignmentRecord {
    const t = this.host.topic(topicName);
    if (!t) throw unknownTopic(topicName);
    const p = Number.isInteger(partition) ? t.partitions[partition] : undefined;
    if (!p) throw unknownPartition(topicName, partition);
    const m = this.moving.get(p);
    const curAdding = m?.adding ?? NONE;
    const curRemoving = m?.removing ?? NONE;
    let replicas: number[];
    let isr: number[];
    let leader: number;
    let adding: number[];
    let removing: number[];
    if (target === null) {
      if (!m) throw noReassignmentInProgress();
      const revert = revertedReassignment(p.replicas, p.isr, m.adding);
      const unclean = this.uncleanAllowed(t);
      if (revert.unclean && !unclean) throw uncleanRevertRefused(t.name, p.partition);
      const elected = leaderAfterChange(p.leader, revert, unclean, this.isUp);
      replicas = revert.replicas;
      isr = elected.isr;
      leader = elected.leader;
      adding = removing = NONE;
    } else {
      validateTarget(target, this.isRegistered);
      const r = reassignmentReplicas(p.replicas, target);
      // PartitionChangeBuilder: adding and removing are overwritten only by non-empty lists, so a
      // new target that adds (or removes) nothing relative to the merged list keeps the old list.
      if (r.adding.length === 0) r.adding = curAdding;
      if (r.removing.length === 0) r.removing = curRemoving;
      const done = completedReassignment(r, p.isr);
      // leaderAfterChange does not keep p.isr: it is only read (and shared back when unchanged).
      const elected = leaderAfterChange(p.leader, done ?? { replicas: r.replicas, isr: p.isr }, this.uncleanAllowed(t), this.isUp);
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

  /** Replays a record from plan() onto the partition as it is now. */
  apply(rec: ReassignmentRecord): void {
    const { topic: t, partition: p } = rec;
    if (this.host.topic(t.name) !== t) return; // deleted since
    const m = this.moving.get(p);
    const replicas = rec.replicas ?? p.replicas;
    const isr = rec.isr ?? p.isr;
    const leader = rec.leader ?? p.leader;
    const adding = rec.adding ?? m?.adding ?? NONE;
    const removing = rec.removing ?? m?.removing ?? NONE;
    this.stopMoving(p);
    if (!sameList(replicas, p.replicas) || !sameList(isr, p.isr) || leader !== p.leader) {
      this.setReplicas(t, p, { replicas, isr }, leader, rec.bumpLeaderEpoch);
    }
    for (let id = this.tracker.copyingOutside(p, replicas); id !== -1; id = this.tracker.copyingOutside(p, replicas)) this.dropCopy(p, id);
    const joins = this.pendingJoins.get(p);
    if (joins) for (const id of joins.keys()) if (!replicas.includes(id)) this.dropCopy(p, id);
    if (adding.length > 0 || removing.length > 0) {
      // The lists are the record's or the earlier move's, never modified: shared, not copied.
      this.startMoving(t, p, { topic: t, adding, removing });
      for (const id of adding) if (replicas.includes(id) && !isr.includes(id)) this.startCopy(p, id);
    } else if (!rec.cancel) {
      this.completed(t, p, this.tracker.now ?? 0); // a pure reorder, or a new target already in sync
    }
  }

  private startMoving(t: TopicState, p: PartitionState, m: Moving): void {
    this.moving.set(p, m);
    this.topicOf.set(p, t);
    let set = this.movingByTopic.get(t);
    if (!set) this.movingByTopic.set(t, (set = new Set()));
    set.add(p);
    this.tracker.invalidatePartition(p); // its removing list decides which copies are wanted
  }

  private stopMoving(p: PartitionState): void {
    const m = this.moving.get(p);
    if (!m) return;
    this.moving.delete(p);
    const set = this.movingByTopic.get(m.topic);
    set?.delete(p);
    if (set?.size === 0) this.movingByTopic.delete(m.topic);
    this.tracker.invalidatePartition(p);
  }

  /** ListPartitionReassignments: null = every moving partition; unknown or idle ones are omitted. */
  list(topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null): TopicReassignments[] {
    // The lists are shared, not copied: the model replaces them on every change, never modifies
    // them in place (100k moving partitions would otherwise cost 300k array copies per listing).
    const describe = (p: PartitionState, m: Moving): OngoingReassignment => ({
      partitionIndex: p.partition,
      replicas: p.replicas,
      addingReplicas: m.adding,
      removingReplicas: m.removing,
    });
    if (topics === null) {
      return [...this.movingByTopic.keys()].sort(byName).map((t) => ({
        name: t.name,
        partitions: [...this.movingByTopic.get(t)!].sort((a, b) => a.partition - b.partition).map((p) => describe(p, this.moving.get(p)!)),
      }));
    }
    const out: TopicReassignments[] = [];
    for (const wanted of topics) {
      const t = this.host.topic(wanted.name);
      if (!t || !this.movingByTopic.has(t)) continue;
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
   * The replicas one broker hosts, with their sizes (DescribeLogDirs), topics by name and
   * partitions by index. `filter` null = every replica; otherwise only the listed partitions
   * (unknown ones omitted).
   */
  logSizes(brokerId: number, filter: readonly { topic: string; partitions: readonly number[] }[] | null): TopicLogSizes[] {
    let selected: ReadonlyMap<TopicState, ReadonlySet<PartitionState>>;
    if (filter === null) {
      selected = this.host.hosted(brokerId);
    } else {
      const picked = new Map<TopicState, Set<PartitionState>>();
      for (const f of filter) {
        const t = this.host.topic(f.topic);
        if (!t) continue;
        for (const i of f.partitions) {
          const p = Number.isInteger(i) ? t.partitions[i] : undefined;
          if (!p || !p.replicas.includes(brokerId)) continue;
          let set = picked.get(t);
          if (!set) picked.set(t, (set = new Set()));
          set.add(p);
        }
      }
      selected = picked;
    }
    const out: TopicLogSizes[] = [];
    for (const t of [...selected.keys()].sort(byName)) {
      const parts = [...selected.get(t)!].sort((a, b) => a.partition - b.partition);
      if (parts.length === 0) continue;
      const log = (p: PartitionState) => this.host.log(t, p.partition);
      out.push({
        topic: t.name,
        partitions: parts.map((p) => ({ partition: p.partition, sizeBytes: this.tracker.copiedBytes(p, brokerId) ?? log(p).sizeBytes })),
      });
    }
    return out;
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
    for (let d = 0; d < hosted.length; d++) used[d]! += hosted[d]!;
    const copying = this.copyingSizes.get(brokerId);
    if (copying) for (let d = 0; d < copying.length; d++) used[d]! -= copying[d]!;
    this.tracker.addCopiedBytes(brokerId, used);
    return used;
  }

  /**
   * usedBytesByDir by walking every replica the broker hosts, `dirIndex(topic)(partition)` saying
   * which of `dirCount` dirs holds each: O(replicas on the broker), the reference the kept sums
   * are tested against (and what DescribeLogDirs falls back on for dirs the model does not know).
   */
  usedBytesByDirWalk(brokerId: number, dirIndex: (topic: string) => (partition: number) => number, dirCount: number): number[] {
    const used = new Array<number>(dirCount).fill(0);
    for (const [t, parts] of this.host.hosted(brokerId)) {
      const logs = this.host.logs(t);
      const dirOf = dirIndex(t.name);
      for (const p of parts) used[dirOf(p.partition)]! += this.tracker.copiedBytes(p, brokerId) ?? logs[p.partition]!.sizeBytes;
    }
    return used;
  }

  /** Bytes of every replica one broker hosts, all dirs together. */
  usedBytes(brokerId: number): number {
    return this.usedBytesByDir(brokerId).reduce((a, b) => a + b, 0);
  }

  /**
   * A copying replica caught up: it joins the ISR. When that completes the partition's move,
   * both happen in one change, as KRaft applies the leader's AlterPartition.
   */
  private joinIsr(p: PartitionState, brokerId: number, at: number): void {
    if (!p.replicas.includes(brokerId) || p.isr.includes(brokerId)) return;
    const isr = p.replicas.filter((r) => p.isr.includes(r) || r === brokerId);
    const m = this.moving.get(p);
    if (m && this.tryComplete(p, m, isr, at)) return;
    this.setReplicas(this.topicOf.get(p)!, p, { replicas: p.replicas, isr }, p.leader);
  }

  /** Completes the move when the ISR (by default the current one) allows; true when it did. */
  private tryComplete(p: PartitionState, m: Moving, isr: readonly number[] = p.isr, at?: number): boolean {
    const done = completedReassignment({ replicas: p.replicas, adding: m.adding, removing: m.removing }, isr);
    if (!done) return false;
    const next = leaderAfterChange(p.leader, done, this.uncleanAllowed(m.topic), this.isUp);
    for (const id of m.removing) this.dropCopy(p, id);
    this.stopMoving(p);
    this.setReplicas(m.topic, p, { replicas: done.replicas, isr: next.isr }, next.leader);
    this.completed(m.topic, p, at ?? this.tracker.now ?? 0);
    return true;
  }

  private completed(t: TopicState, p: PartitionState, completedAt: number): void {
    this.completedAt.set(p, completedAt);
    if (this.completionListeners.size === 0) return;
    const event: CompletedReassignment = { topic: t.name, partition: p.partition, replicas: [...p.replicas], completedAt };
    for (const listener of this.completionListeners) listener(event);
  }

  /**
   * One partition change record: partitionEpoch + 1; leaderEpoch + 1 when the leader changes or
   * a replica leaves the replica set (KRaft's bump for reassignments that remove replicas).
   */
  private setReplicas(t: TopicState, p: PartitionState, next: ReplicaSet, leader: number, bumpLeaderEpoch?: boolean): void {
    const before = p.replicas;
    if (bumpLeaderEpoch ?? (leader !== p.leader || someNotIn(p.replicas, next.replicas))) p.leaderEpoch++;
    p.partitionEpoch++;
    // Taken as they are: every caller hands lists of its own, and lists are replaced on every
    // change, never modified in place (Metadata views and listings share them).
    p.replicas = next.replicas;
    p.isr = next.isr;
    p.leader = leader;
    this.tracker.invalidatePartition(p);
    this.host.partitionChanged(t, p, before);
  }

  /** Whether the topic's leader/follower.replication.throttled.replicas lists partition:broker. */
  private throttled(t: TopicState, side: 'leader' | 'follower', partition: number, brokerId: number): boolean {
    let lists = this.throttleLists.get(t);
    if (!lists) this.throttleLists.set(t, (lists = { leader: emptyList(), follower: emptyList() }));
    // Both sides' raw values are re-read once per batch generation (every call outside a batch).
    if (!this.inBatch || this.throttleCheckedAt.get(t) !== this.batchGeneration) {
      for (const s of ['leader', 'follower'] as const) {
        const raw = this.host.topicConfig(t, `${s}.replication.throttled.replicas`);
        if (lists[s].raw !== raw) lists[s] = { raw, parsed: parseThrottledReplicas(raw) };
      }
      if (this.inBatch) this.throttleCheckedAt.set(t, this.batchGeneration);
    }
    return lists[side].parsed.lists(partition, brokerId);
  }
}

function emptyList(): ThrottleList {
  return { raw: null, parsed: parseThrottledReplicas(null) };
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether some element of `a` is missing from `b` (short replica lists: scans, no closure). */
function someNotIn(a: readonly number[], b: readonly number[]): boolean {
  for (const x of a) if (!b.includes(x)) return true;
  return false;
}
