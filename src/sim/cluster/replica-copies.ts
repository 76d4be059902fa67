// The pieces the replication tracker (replication.ts) is made of: what it reads of the cluster
// (ReplicationEnvironment), the fields it keeps on the owner's partitions, a copy, and the rate
// classes copies are grouped in, with the copy counts per broker that set their rates.
//
// How it stays cheap at 100,000 copies: a copy's rate depends only on its rate class (leader
// broker, follower broker, leader-throttled, follower-throttled), so copies are grouped by class
// and each class integrates ONE accumulator (bytes every member gained since the class began).
// A member's progress is its accumulator value at joining subtracted from the class's; the
// member that catches up first is the one with the smallest target in the class's heap, and a
// heap of classes by their next catch-up time gives the next event of the whole cluster. A
// catch-up changes the counts of two brokers only, so only the classes through those two
// brokers get a new rate. An advance costs O(events x classes through a broker x log n), never
// O(copies), and a read costs nothing when no copy caught up since the last one.
//
// The partitions are the owner's objects and carry the tracker's fields (TrackedPartition): their
// first copy, whether they await re-classification, and their neighbours in the list of those
// with copies. Finding a partition's copies is then a field read, not a Map lookup: at 100,000
// partitions moved by one request, every lookup in a Map that large is a cache miss, several
// per partition.
import type { CopiedSum, PhaseGroup, SummedCopy } from './copied-sum.js';
import { IndexedHeap, type HeapItem } from './heap.js';

/** What the tracker needs to know about the cluster, at the moment it classifies a copy. */
export interface ReplicationEnvironment<P> {
  /** The partition's leader broker, or -1. */
  leader(partition: P): number;
  /** The leader's log size in bytes: what a copy must reach. */
  leaderSize(partition: P): number;
  isUp(brokerId: number): boolean;
  /** False once the replica no longer needs to catch up (removed, or being removed). */
  wanted(partition: P, brokerId: number): boolean;
  /** The topic's leader/follower.replication.throttled.replicas lists this replica. */
  throttled(partition: P, side: 'leader' | 'follower', brokerId: number): boolean;
  /** The broker's leader/follower.replication.throttled.rate (bytes/s). */
  throttleRate(brokerId: number, side: 'leader' | 'follower'): number;
  /**
   * The replica has all the leader's bytes: it joins the ISR (and may complete a move).
   * `at` is the clock time (ms) it caught up, which may be earlier than the advance's `now`;
   * `startedAt` the tracker's clock time when its copy started (startCopy; 0 before any advance).
   */
  caughtUp(partition: P, brokerId: number, at: number, startedAt: number): void;
  /**
   * Which group of its follower broker a copy's bytes are summed in (addCopiedBytes): a small
   * whole number, fixed for the copy's life (the simulator's log dir). Default 0.
   */
  group?(partition: P): number;
}

/**
 * The fields the tracker keeps on each partition object: the owner creates them as null and
 * false, and never writes them.
 */
export interface TrackedPartition<P> {
  /** The partition's first copy (the others chained behind it, Copy.next), or null. */
  trackerFirstCopy: Copy<P> | null;
  /** Listed for re-classification (invalidatePartition) and not yet re-classified. */
  trackerDirty: boolean;
  /** Neighbours in the tracker's list of partitions that have copies (in the order their first copy started). */
  trackerPrev: P | null;
  trackerNext: P | null;
}

/** A copy as the tracker keeps it. */
export interface Copy<P> extends HeapItem, SummedCopy {
  partition: P;
  brokerId: number;
  /** Bytes copied as of `mark` on its class's accumulator (absolute when not running). */
  copied: number;
  cls: RateClass<P> | null;
  /** The class accumulator when `copied` was taken. */
  mark: number;
  /** The class accumulator value at which the copy has caught up. */
  target: number;
  /** env.group, read once when the copy starts. */
  group: number;
  /** While placed: its group in its class's CopiedSum (members with the same copied and mark). */
  phase: PhaseGroup | null;
  /** The next copy of the same partition (copies of a partition are a short chain, in start order). */
  next: Copy<P> | null;
  /** The tracker's clock time when startCopy made it. */
  startedAt: number;
}

/** The members' heap key, one function for every class (a call site that stays monomorphic). */
const byTarget = (c: Copy<unknown>): number => c.target;

/** The copies from one leader broker to one follower broker with the same throttled sides: they copy at one rate. */
export class RateClass<P> {
  readonly members = new IndexedHeap<Copy<P>>(byTarget);
  rate = 0;
  /** Bytes each member gained since the class began, as of accTime. */
  acc = 0;
  /** Bumped on every reschedule and on removal: older heap entries are stale. */
  version = 0;
  alive = true;
  /** The last rate pass that rescheduled it (a class through two changed brokers gets one). */
  ratePass = 0;
  /** Its members' bytes by group (ReplicationEnvironment.group). */
  readonly sums: (CopiedSum | undefined)[] = [];
  /** Whether the schedule holds a live entry for it, made at scheduledVersion. */
  scheduled = false;
  scheduledVersion = -1;

  constructor(
    readonly leader: number,
    readonly follower: number,
    readonly leaderThrottled: boolean,
    readonly followerThrottled: boolean,
    public accTime: number,
  ) {}

  accAt(t: number): number {
    return t > this.accTime ? this.acc + (this.rate * (t - this.accTime)) / 1000 : this.acc;
  }

  settle(t: number): void {
    if (t > this.accTime) {
      this.acc += (this.rate * (t - this.accTime)) / 1000;
      this.accTime = t;
    }
  }
}

const EMPTY: ReadonlySet<never> = new Set();

function bump(m: Map<number, number>, k: number, by: number): void {
  const v = (m.get(k) ?? 0) + by;
  if (v === 0) m.delete(k);
  else m.set(k, v);
}

/**
 * The rate classes that have members, found by (leader, follower, throttled sides) and by broker,
 * and the copies through each broker that share its bandwidth and throttles.
 */
export class RateClasses<P> {
  private readonly byPair = new Map<number, Map<number, (RateClass<P> | undefined)[]>>();
  private readonly byBroker = new Map<number, Set<RateClass<P>>>();
  /** Classes alive. */
  size = 0;
  private readonly outOf = new Map<number, number>();
  private readonly into = new Map<number, number>();
  private readonly throttledOutOf = new Map<number, number>();
  private readonly throttledInto = new Map<number, number>();

  /** The class of the copies from `leader` to `follower` with these throttles; a new one begins at `time`. */
  classFor(leader: number, follower: number, lt: boolean, ft: boolean, time: number): RateClass<P> {
    let byLeader = this.byPair.get(leader);
    if (!byLeader) this.byPair.set(leader, (byLeader = new Map<number, (RateClass<P> | undefined)[]>()));
    let slots = byLeader.get(follower);
    if (!slots) byLeader.set(follower, (slots = [undefined, undefined, undefined, undefined]));
    const slot = (lt ? 2 : 0) + (ft ? 1 : 0);
    let cls = slots[slot];
    if (!cls) {
      cls = slots[slot] = new RateClass<P>(leader, follower, lt, ft, time);
      this.size++;
      for (const b of [leader, follower]) {
        let set = this.byBroker.get(b);
        if (!set) this.byBroker.set(b, (set = new Set()));
        set.add(cls);
      }
    }
    return cls;
  }

  /** Its last member left. */
  drop(cls: RateClass<P>): void {
    cls.alive = false;
    cls.version++;
    this.size--;
    const byLeader = this.byPair.get(cls.leader)!;
    const slots = byLeader.get(cls.follower)!;
    slots[(cls.leaderThrottled ? 2 : 0) + (cls.followerThrottled ? 1 : 0)] = undefined;
    if (slots.every((s) => s === undefined)) byLeader.delete(cls.follower);
    if (byLeader.size === 0) this.byPair.delete(cls.leader);
    for (const b of [cls.leader, cls.follower]) {
      const set = this.byBroker.get(b);
      set?.delete(cls);
      if (set?.size === 0) this.byBroker.delete(b);
    }
  }

  /** Every class. */
  forEach(fn: (cls: RateClass<P>) => void): void {
    for (const byLeader of this.byPair.values()) for (const slots of byLeader.values()) for (const cls of slots) if (cls) fn(cls);
  }

  /** The classes through a broker, as leader or follower. */
  through(brokerId: number): ReadonlySet<RateClass<P>> {
    return this.byBroker.get(brokerId) ?? EMPTY;
  }

  /** A member joined (+1) or left (-1) `cls`: the copy counts of its brokers. */
  count(cls: RateClass<P>, by: 1 | -1): void {
    bump(this.outOf, cls.leader, by);
    bump(this.into, cls.follower, by);
    if (cls.leaderThrottled) bump(this.throttledOutOf, cls.leader, by);
    if (cls.followerThrottled) bump(this.throttledInto, cls.follower, by);
  }

  /** Copies out of the broker (it leads their partition), all / throttled ones. */
  copiesOutOf(brokerId: number, throttled: boolean): number {
    return (throttled ? this.throttledOutOf : this.outOf).get(brokerId)!;
  }

  /** Copies into the broker, all / throttled ones. */
  copiesInto(brokerId: number, throttled: boolean): number {
    return (throttled ? this.throttledInto : this.into).get(brokerId)!;
  }
}
