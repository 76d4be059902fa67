// Replica catch-up: how fast a replica that is not in sync copies its partition's log from the
// leader, as a deterministic function of the simulator's clock.
//
// Each copy runs from the partition's current leader broker into the replica's broker. Rates
// are piecewise constant between events (a copy catching up, a config change, a broker stopping
// or starting, new data, a new reassignment); the owner calls advanceTo(now) before every such
// change and before every read, and the tracker integrates the rates since the last call,
// stepping through the catch-ups that happen in between. With a ManualClock the byte counts are
// exact; with the system clock progress simply follows real time, with no timers.
//
// Rate of one copy = the minimum of:
// - bandwidth / (copies out of the leader broker), and bandwidth / (copies into the follower
//   broker): every broker moves at most `bandwidth` bytes/s in each direction;
// - when the topic's leader.replication.throttled.replicas lists `partition:leaderBroker` (or is
//   `*`): the leader broker's leader.replication.throttled.rate / (throttled copies out of it);
// - when follower.replication.throttled.replicas lists `partition:followerBroker` (or `*`): the
//   follower broker's follower.replication.throttled.rate / (throttled copies into it).
// A copy whose leader or follower broker is down, or whose partition has no leader, stalls.
//// How it stays cheap at 100,000 copies: copies grouped in rate classes, one accumulator each, and
// the tracker's fields kept on the partitions themselves (replica-copies.ts).
//
// What the copies into one broker hold in all (DescribeLogDirs's used bytes) is summed per class
// too, never per copy: see CopiedSum. The copies that are stalled (no class) hold fixed bytes,
// summed per broker as they stall and resume.
//
// The environment is read when a copy is classified, not on every advance, so the owner tells
// the tracker what changed: invalidatePartition (its leader, replica set, reassignment or log
// size changed, or its topic's throttled-replica lists), invalidateRates (a broker's throttle
// rate) and invalidateAll (brokers stopped or started, cluster-wide configs). Invalidations
// apply at the tracker's current time, so the owner calls advanceTo(now) before changing things.
import { CopiedSum } from './copied-sum.js';
import { MinHeap } from './heap.js';
import { RateClasses, type Copy, type RateClass, type ReplicationEnvironment, type TrackedPartition } from './replica-copies.js';
import { NO_LEADER } from './topics.js';

/** Kafka's default replication bandwidth assumption for the simulator: 50 MiB/s per broker. */
export const DEFAULT_REPLICATION_BYTES_PER_SECOND = 50 * 1024 * 1024;

/** Copies closer than this to their target count as caught up (float integration noise). */
const EPSILON_BYTES = 1e-6;
/** Catch-ups computed this close after an advance's `now` happen in that advance. */
const TIME_TOLERANCE_MS = 1e-6;

export class ReplicationTracker<P extends TrackedPartition<P>> {
  /** The partitions that have copies, in the order their first copy started (a list through P). */
  private firstWithCopies: P | null = null;
  private lastWithCopies: P | null = null;
  /** Clock value of tracker time 0 (set by the first advance); times below are relative to it. */
  private origin: number | null = null;
  private time = 0;

  private readonly classes = new RateClasses<P>();
  /** Next catch-up time per class, stamped with the class version it was computed for. */
  private readonly schedule = new MinHeap<RateClass<P>>();
  private readonly throttleRates = new Map<number, number>(); // (broker * 2 + side) -> rate, cached
  /** Bytes of the stalled copies (no class) into each broker, by group, as copiedBytes reports them. */
  private readonly stalledBytes = new Map<number, number[]>();

  /** Copies placed with nothing left to copy: they catch up at the current time. */
  private dueNow: Copy<P>[] = [];
  private dirtyAll = false;
  private ratePass = 0;
  private ratesAll = false;
  /** Partitions to re-classify (those still trackerDirty: dropped ones are skipped). */
  private dirtyPartitions: P[] = [];
  private readonly dirtyBrokers = new Set<number>();

  constructor(
    private readonly env: ReplicationEnvironment<P>,
    private readonly bandwidth: number = DEFAULT_REPLICATION_BYTES_PER_SECOND,
  ) {
    if (!(bandwidth > 0)) throw new RangeError(`replication bandwidth must be positive, got ${bandwidth}`);
  }

  /** The clock time the tracker has integrated up to (ms), or null before the first advance. */
  get now(): number | null {
    return this.origin === null ? null : this.origin + this.time;
  }

  /** Number of replicas still copying. */
  get copying(): number {
    let n = 0;
    for (let p = this.firstWithCopies; p !== null; p = p.trackerNext) for (let c = p.trackerFirstCopy; c !== null; c = c.next) n++;
    return n;
  }

  /** The brokers whose replica of the partition is still copying, in the order the copies started. */
  copyingBrokers(partition: P): number[] {
    const out: number[] = [];
    for (let c = partition.trackerFirstCopy; c !== null; c = c.next) out.push(c.brokerId);
    return out;
  }

  /** The first broker (in start order) whose replica of the partition copies and is not in `keep`, or -1. */
  copyingOutside(partition: P, keep: readonly number[]): number {
    for (let c = partition.trackerFirstCopy; c !== null; c = c.next) if (!keep.includes(c.brokerId)) return c.brokerId;
    return -1;
  }

  /** A replica that starts empty and must copy the whole log before it is in sync. */
  startCopy(partition: P, brokerId: number): void {
    let last: Copy<P> | null = null;
    for (let c = partition.trackerFirstCopy; c !== null; c = c.next) {
      if (c.brokerId === brokerId) return;
      last = c;
    }
    const group = this.env.group?.(partition) ?? 0;
    const copy: Copy<P> = {
      partition,
      brokerId,
      copied: 0,
      cls: null,
      mark: 0,
      target: 0,
      heapIndex: -1,
      group,
      phase: null,
      next: null,
      startedAt: this.now ?? 0,
    };
    if (last === null) {
      partition.trackerFirstCopy = copy;
      partition.trackerPrev = this.lastWithCopies;
      if (this.lastWithCopies === null) this.firstWithCopies = partition;
      else this.lastWithCopies.trackerNext = partition;
      this.lastWithCopies = partition;
    } else {
      last.next = copy;
    }
    this.stalled(copy, 1);
    this.invalidatePartition(partition);
  }

  /** Forget a replica's copy (the replica left the partition). */
  dropCopy(partition: P, brokerId: number): void {
    const copy = this.find(partition, brokerId);
    if (copy === undefined) return;
    this.unplace(copy);
    this.stalled(copy, -1);
    this.unlink(copy);
  }

  /** Forget every copy of a partition (deleted topic). */
  dropPartition(partition: P): void {
    const first = partition.trackerFirstCopy;
    if (first === null) return;
    for (let c: Copy<P> | null = first; c !== null; c = c.next) {
      this.unplace(c);
      this.stalled(c, -1);
    }
    partition.trackerFirstCopy = null;
    partition.trackerDirty = false;
    this.unlistPartition(partition);
  }

  hasCopies(partition: P): boolean {
    return partition.trackerFirstCopy !== null;
  }

  /** True while the replica has not caught up (it must stay out of the ISR). */
  isCatchingUp(partition: P, brokerId: number): boolean {
    return this.find(partition, brokerId) !== undefined;
  }

  /** Bytes the replica holds so far, or null when it is not copying (it has the whole log). */
  copiedBytes(partition: P, brokerId: number): number | null {
    const c = this.find(partition, brokerId);
    // The tolerance absorbs float noise of the accumulators (a whole byte must not read as one less).
    return c === undefined ? null : Math.floor(this.copiedNow(c) + 1e-6);
  }

  /**
   * What the copies into `brokerId` hold, each as copiedBytes reports it, summed by group
   * (ReplicationEnvironment.group): `into[group]` grows by that sum. Costs O(classes into the
   * broker x PHASE_BUCKETS) plus a comparison per member of the bucket at each class's current
   * phase, not a visit of every copy (see CopiedSum).
   */
  addCopiedBytes(brokerId: number, into: number[]): void {
    const stalled = this.stalledBytes.get(brokerId);
    if (stalled) for (let g = 0; g < stalled.length; g++) if (stalled[g] !== 0) into[g] = (into[g] ?? 0) + stalled[g];
    for (const cls of this.classes.through(brokerId)) {
      if (cls.follower !== brokerId) continue;
      const x = cls.accAt(this.time);
      for (let g = 0; g < cls.sums.length; g++) {
        const sum = cls.sums[g];
        if (sum !== undefined && sum.size > 0) into[g] = (into[g] ?? 0) + sum.bytes(x);
      }
    }
  }

  /** The partition's leader, replica set, reassignment, log size or throttle lists changed. */
  invalidatePartition(partition: P): void {
    if (partition.trackerFirstCopy === null || partition.trackerDirty) return;
    partition.trackerDirty = true;
    this.dirtyPartitions.push(partition);
  }

  /** A broker's throttle rate changed. */
  invalidateRates(): void {
    this.ratesAll = true;
    this.throttleRates.clear();
  }

  /** Anything may have changed (brokers stopped or started, cluster-wide configs). */
  invalidateAll(): void {
    this.dirtyAll = true;
    this.throttleRates.clear();
  }

  /**
   * Integrate the copy rates from the last call up to `now` (ms), handling every catch-up on
   * the way in time order. Time never runs backwards: an earlier `now` only settles catch-ups.
   * With `maxCatchUps`, stops after about that many catch-ups (false: time is then at the last
   * one handled, short of `now`; call again to go on), so a burst of 100k completions at one
   * instant can be spread over several turns of the event loop.
   */
  advanceTo(now: number, maxCatchUps = Infinity): boolean {
    if (this.origin === null) this.origin = now;
    const limit = Math.max(now - this.origin, this.time);
    let caughtUp = 0;
    // Bounded: every iteration either ends the loop or retires at least one copy.
    for (;;) {
      this.reclassify();
      if (caughtUp >= maxCatchUps) return false; // time stays at the last catch-up handled
      if (this.dueNow.length > 0) {
        caughtUp += this.finishNow();
        continue;
      }
      // New rates matter only once time moves: changes at one instant (a request moving 100k
      // partitions, each with its own sync) then cost O(1) each instead of a rate pass each.
      if (limit > this.time + TIME_TOLERANCE_MS) this.applyRates();
      const cls = this.nextDue(limit);
      if (cls === null) break;
      caughtUp += this.finishDue(cls, maxCatchUps - caughtUp);
    }
    this.time = Math.max(limit, this.time);
    return true;
  }

  // ---------------------------------------------------------------- internals

  private copiedNow(c: Copy<P>): number {
    return c.cls === null ? c.copied : c.copied + (c.cls.accAt(this.time) - c.mark);
  }

  /** The due class with the earliest catch-up at or before `limit` (time moves to it), or null. */
  private nextDue(limit: number): RateClass<P> | null {
    for (;;) {
      const at = this.schedule.peekKey();
      if (at === undefined) return null;
      const cls = this.schedule.peekValue()!;
      if (!cls.alive || this.schedule.peekStamp() !== cls.version) {
        this.schedule.pop();
        continue;
      }
      // Float noise may put a catch-up due exactly at `limit` a hair after it.
      if (at > limit + TIME_TOLERANCE_MS) return null;
      this.schedule.pop();
      cls.scheduled = false;
      if (at > this.time) this.time = at;
      return cls;
    }
  }

  /** The class's first member is due: it and every member as close to its target catch up. */
  private finishDue(cls: RateClass<P>, budget: number): number {
    cls.settle(this.time);
    const done: Copy<P>[] = [];
    for (;;) {
      const c = cls.members.peek();
      if (c === undefined) break;
      if (done.length >= budget) {
        // Out of budget: the rest of the class is due now, on the next call.
        this.schedule.push(this.time, cls, cls.version);
        cls.scheduled = true;
        cls.scheduledVersion = cls.version;
        break;
      }
      const tolerance = Math.max(EPSILON_BYTES, (c.target - c.mark) * 1e-12, Math.abs(cls.acc) * 1e-15, cls.rate * 1e-9);
      // The member that set the event is caught up: float noise in its time must not leave it short.
      if (c.target - cls.acc > (done.length === 0 ? 1000 * tolerance : tolerance)) break;
      done.push(c);
      this.unplace(c);
    }
    this.classSettled(cls); // reschedule even when only float noise was left
    this.caughtUp(done);
    return done.length;
  }

  /** Copies placed with nothing to copy (empty log, or the replica leads now) catch up at once. */
  private finishNow(): number {
    const due = this.dueNow;
    this.dueNow = [];
    const done: Copy<P>[] = [];
    for (const c of due) {
      // Still placed and still empty-handed (a later change in the same instant may have moved it).
      if (c.cls === null || c.target - c.cls.accAt(this.time) > EPSILON_BYTES) continue;
      this.unplace(c);
      done.push(c);
    }
    this.caughtUp(done);
    return done.length;
  }

  private caughtUp(done: Copy<P>[]): void {
    const at = this.origin! + this.time;
    for (const c of done) {
      this.stalled(c, -1);
      this.unlink(c);
    }
    for (const c of done) this.env.caughtUp(c.partition, c.brokerId, at, c.startedAt);
  }

  private find(partition: P, brokerId: number): Copy<P> | undefined {
    for (let c = partition.trackerFirstCopy; c !== null; c = c.next) if (c.brokerId === brokerId) return c;
    return undefined;
  }

  /** Takes a partition that no longer has copies out of the list of those that have. */
  private unlistPartition(p: P): void {
    if (p.trackerPrev === null) this.firstWithCopies = p.trackerNext;
    else p.trackerPrev.trackerNext = p.trackerNext;
    if (p.trackerNext === null) this.lastWithCopies = p.trackerPrev;
    else p.trackerNext.trackerPrev = p.trackerPrev;
    p.trackerPrev = p.trackerNext = null;
  }

  /** Takes a copy out of its partition's chain (the partition leaves the list with its last copy). */
  private unlink(copy: Copy<P>): void {
    const p = copy.partition;
    const first = p.trackerFirstCopy;
    if (first === copy) {
      p.trackerFirstCopy = copy.next;
      if (copy.next === null) {
        p.trackerDirty = false;
        this.unlistPartition(p);
      }
    } else {
      for (let c = first; c !== null; c = c.next) {
        if (c.next === copy) {
          c.next = copy.next;
          break;
        }
      }
    }
    copy.next = null;
  }

  private classSettled(cls: RateClass<P>): void {
    this.dirtyBrokers.add(cls.leader);
    this.dirtyBrokers.add(cls.follower);
  }

  /** Re-classify what was invalidated (copies whose partition, throttles or brokers changed). */
  private reclassify(): void {
    if (this.dirtyAll) {
      this.dirtyAll = false;
      for (const p of this.dirtyPartitions) p.trackerDirty = false;
      this.dirtyPartitions = [];
      for (let p = this.firstWithCopies; p !== null; p = p.trackerNext)
        for (let c = p.trackerFirstCopy; c !== null; c = c.next) this.unplace(c);
      this.schedule.clear();
      for (let p = this.firstWithCopies; p !== null; p = p.trackerNext)
        for (let c = p.trackerFirstCopy; c !== null; c = c.next) this.place(c);
      this.ratesAll = true;
    }
    if (this.dirtyPartitions.length > 0) {
      const dirty = this.dirtyPartitions;
      this.dirtyPartitions = [];
      for (const p of dirty) {
        if (!p.trackerDirty) continue; // its copies went since
        p.trackerDirty = false;
        for (let c = p.trackerFirstCopy; c !== null; c = c.next) this.unplace(c);
        for (let c = p.trackerFirstCopy; c !== null; c = c.next) this.place(c);
      }
    }
  }

  /** Give the classes through changed brokers their new rates (settling the old ones first). */
  private applyRates(): void {
    if (this.ratesAll) {
      this.ratesAll = false;
      this.dirtyBrokers.clear();
      this.classes.forEach((cls) => this.reschedule(cls));
    } else if (this.dirtyBrokers.size > 0) {
      const pass = ++this.ratePass;
      for (const b of this.dirtyBrokers) {
        for (const cls of this.classes.through(b)) {
          if (cls.ratePass === pass) continue;
          cls.ratePass = pass;
          this.reschedule(cls);
        }
      }
      this.dirtyBrokers.clear();
    }
    // Stale schedule entries pile up as rates change: rebuild when they dominate.
    if (this.schedule.size > 4 * this.classes.size + 1024) {
      this.schedule.clear();
      this.classes.forEach((cls) => this.reschedule(cls, true));
    }
  }

  /** Integrate the class's old rate up to now, give it its new rate, schedule its next catch-up. */
  private reschedule(cls: RateClass<P>, force = false): void {
    const classes = this.classes;
    let rate = Math.min(this.bandwidth / classes.copiesOutOf(cls.leader, false), this.bandwidth / classes.copiesInto(cls.follower, false));
    if (cls.leaderThrottled) rate = Math.min(rate, this.throttleRate(cls.leader, 'leader') / classes.copiesOutOf(cls.leader, true));
    if (cls.followerThrottled) rate = Math.min(rate, this.throttleRate(cls.follower, 'follower') / classes.copiesInto(cls.follower, true));
    // Same rate, same members, a live entry: its next catch-up has not moved.
    if (!force && rate === cls.rate && cls.scheduled && cls.scheduledVersion === cls.version) return;
    cls.settle(this.time);
    cls.version++;
    cls.scheduled = false;
    cls.rate = rate;
    const first = cls.members.peek();
    if (first === undefined) return;
    const left = first.target - cls.acc;
    let at: number;
    if (left <= EPSILON_BYTES) at = cls.accTime;
    else if (rate > 0) at = cls.accTime + (left / rate) * 1000;
    else return; // a zero throttle: it never catches up until something changes
    this.schedule.push(at, cls, cls.version);
    cls.scheduled = true;
    cls.scheduledVersion = cls.version;
  }

  private throttleRate(brokerId: number, side: 'leader' | 'follower'): number {
    const key = brokerId * 2 + (side === 'leader' ? 0 : 1);
    let rate = this.throttleRates.get(key);
    if (rate === undefined) this.throttleRates.set(key, (rate = this.env.throttleRate(brokerId, side)));
    return rate;
  }

  /** Put a copy in its rate class, or leave it stalled (cls null). */
  private place(c: Copy<P>): void {
    const p = c.partition;
    if (!this.env.wanted(p, c.brokerId)) return;
    const leader = this.env.leader(p);
    if (leader === NO_LEADER || !this.env.isUp(leader) || !this.env.isUp(c.brokerId)) return;
    const lt = this.env.throttled(p, 'leader', leader);
    const ft = this.env.throttled(p, 'follower', c.brokerId);
    const cls = this.classes.classFor(leader, c.brokerId, lt, ft, this.time);
    cls.settle(this.time);
    // A replica that became leader (unclean election) defines the log: nothing left to copy.
    const remaining = c.brokerId === leader ? 0 : Math.max(0, this.env.leaderSize(p) - c.copied);
    this.stalled(c, -1);
    c.cls = cls;
    c.mark = cls.acc;
    c.target = cls.acc + remaining;
    cls.members.push(c);
    (cls.sums[c.group] ??= new CopiedSum()).add(c, cls.acc);
    cls.version++; // its scheduled catch-up may be another member's now: rescheduled before time moves
    if (remaining <= EPSILON_BYTES) this.dueNow.push(c);
    this.classes.count(cls, 1);
    this.dirtyBrokers.add(leader);
    this.dirtyBrokers.add(c.brokerId);
  }

  /** Take a copy out of its class, keeping the bytes it copied so far. */
  private unplace(c: Copy<P>): void {
    const cls = c.cls;
    if (cls === null) return;
    c.copied = this.copiedNow(c);
    c.cls = null;
    cls.sums[c.group]!.remove(c);
    this.stalled(c, 1);
    cls.members.remove(c);
    cls.version++;
    this.classes.count(cls, -1);
    this.dirtyBrokers.add(cls.leader);
    this.dirtyBrokers.add(cls.follower);
    if (cls.members.size === 0) this.classes.drop(cls);
  }

  /** Counts (+1) or uncounts (-1) a copy that is out of every class in its broker's stalled bytes. */
  private stalled(c: Copy<P>, sign: 1 | -1): void {
    const bytes = Math.floor(c.copied + 1e-6); // as copiedBytes reports it
    if (bytes === 0) return;
    let byGroup = this.stalledBytes.get(c.brokerId);
    if (!byGroup) this.stalledBytes.set(c.brokerId, (byGroup = []));
    while (byGroup.length <= c.group) byGroup.push(0);
    byGroup[c.group] += sign * bytes;
  }
}
