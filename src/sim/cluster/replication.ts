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
import { IndexedHeap, MinHeap, type HeapItem } from './heap.js';
import { NO_LEADER } from './topics.js';

/** Kafka's default replication bandwidth assumption for the simulator: 50 MiB/s per broker. */
export const DEFAULT_REPLICATION_BYTES_PER_SECOND = 50 * 1024 * 1024;

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

/** A copy as the tracker keeps it (exported for CopiedSum's tests only). */
export interface Copy<P> extends HeapItem {
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

/** Buckets of the fractional parts in a CopiedSum. */
const PHASE_BUCKETS = 256;
/**
 * How far (relative to the magnitudes involved) a member's decomposed value may be from the one
 * copiedBytes computes: three roundings there, two here, each under 2^-53 of the magnitudes, so
 * under 2^-50.6 in all; 2^-46 leaves a margin of 25.
 */
const PHASE_MARGIN = 2 ** -46;
/** Below this, sums and differences of whole numbers are exact in a double (with room to spare). */
const EXACT_WHOLES = 2 ** 51;

/**
 * The members of a CopiedSum with the same copied and mark: they report the same bytes, so they
 * are counted, and computed, once. Members that joined their class at one instant (the 100,000
 * copies one request starts) are one group.
 */
interface PhaseGroup {
  readonly copied: number;
  readonly mark: number;
  /** copied - mark + 1e-6 as its whole and fractional parts (see CopiedSum). */
  readonly whole: number;
  readonly frac: number;
  readonly bucket: number;
  /** copied and mark are whole numbers (below EXACT_WHOLES): exact for a whole accumulator. */
  readonly integral: boolean;
  count: number;
  /** Its index in its bucket's list. */
  pos: number;
}

/**
 * The bytes the members of one rate class in one group hold, summed as copiedBytes reports each
 * (rounded down), without visiting every member.
 *
 * Member i reports floor(copied_i + (X - mark_i) + 1e-6), X the class's accumulator now. With
 * copied_i - mark_i + 1e-6 = k_i + f_i (k_i whole, 0 <= f_i < 1, fixed while it is a member) that
 * is k_i + floor(X) + [f_i >= t], t = 1 - frac(X). So the sum is Σ(k_i + floor(X)) plus how many
 * members have f_i >= t; members are kept in PHASE_BUCKETS buckets by f_i, and that count is the
 * number in the buckets above t: O(buckets) per read. Only the bucket(s) around t are looked
 * into, group by group (members with the same copied and mark, PhaseGroup): rounding puts the
 * expression copiedBytes evaluates a few ulps from the decomposition, which matters only for a
 * group whose f_i is that close to t, and such a group is computed with copiedBytes's own
 * expression. So the sum is the per-copy walk's, to the byte.
 *
 * Whole-byte rates (a throttle of 10 MB/s shared by 10 copies: 1,000 bytes a millisecond) make
 * X, every mark and every copied count whole numbers, every f_i 1e-6 and t exactly 1: every
 * group sits at the boundary, however far apart they joined. For those the decomposition is
 * exact (k_i = copied_i - mark_i, and copiedBytes rounds copied_i + X - mark_i + 1e-6 down to
 * that same whole number), so they are not looked into.
 *
 * Σ(k_i + base) is kept for a whole `base` moved to floor(X) at every add and read: k_i alone is
 * of the order of the accumulator (it grows for the class's whole life), k_i + floor(X) of the
 * bytes the member holds, so the running sum stays exact (far below 2^53).
 * Exported for its tests only.
 */
export class CopiedSum<P> {
  size = 0;
  private base = 0;
  /** Σ (whole + base) over the members. */
  private wholes = 0;
  /** Largest |copied| + |mark| of a member since the sum was last empty (the rounding bound). */
  private magnitude = 0;
  /** Members per bucket. */
  private readonly counts = new Int32Array(PHASE_BUCKETS);
  /** The groups of each bucket, integral ones apart (never looked into when X is whole). */
  private readonly buckets: (PhaseGroup[] | undefined)[] = new Array(PHASE_BUCKETS);
  private readonly integralBuckets: (PhaseGroup[] | undefined)[] = new Array(PHASE_BUCKETS);
  /** The groups by mark, then copied. */
  private readonly groups = new Map<number, Map<number, PhaseGroup>>();

  /** A copy joins its class (copied and mark set), `acc` the class's accumulator now. */
  add(c: Copy<P>, acc: number): void {
    let byCopied = this.groups.get(c.mark);
    if (byCopied === undefined) this.groups.set(c.mark, (byCopied = new Map()));
    let g = byCopied.get(c.copied);
    if (g === undefined) {
      const q = c.copied - c.mark + 1e-6;
      const whole = Math.floor(q);
      const frac = q - whole; // exact
      const bucket = Math.floor(frac * PHASE_BUCKETS);
      const integral = Number.isInteger(c.copied) && Number.isInteger(c.mark) && Math.abs(c.copied) < EXACT_WHOLES && Math.abs(c.mark) < EXACT_WHOLES;
      const lists = integral ? this.integralBuckets : this.buckets;
      let list = lists[bucket];
      if (list === undefined) lists[bucket] = list = [];
      g = { copied: c.copied, mark: c.mark, whole, frac, bucket, integral, count: 0, pos: list.length };
      list.push(g);
      byCopied.set(c.copied, g);
      const magnitude = Math.abs(c.copied) + Math.abs(c.mark);
      if (magnitude > this.magnitude) this.magnitude = magnitude;
    }
    g.count++;
    c.phase = g;
    this.rebase(Math.floor(acc));
    this.wholes += g.whole + this.base;
    this.size++;
    this.counts[g.bucket]++;
  }

  remove(c: Copy<P>): void {
    const g = c.phase!;
    c.phase = null;
    this.wholes -= g.whole + this.base;
    this.size--;
    this.counts[g.bucket]--;
    if (--g.count === 0) {
      const list = (g.integral ? this.integralBuckets : this.buckets)[g.bucket]!;
      const last = list.pop()!;
      if (last !== g) {
        list[g.pos] = last;
        last.pos = g.pos;
      }
      const byCopied = this.groups.get(g.mark)!;
      byCopied.delete(g.copied);
      if (byCopied.size === 0) this.groups.delete(g.mark);
    }
    if (this.size === 0) {
      this.wholes = 0;
      this.magnitude = 0;
    }
  }

  /** Σ floor(copied + (x - mark) + 1e-6) over the members, x the class accumulator now. */
  bytes(x: number): number {
    if (this.size === 0) return 0;
    const fx = Math.floor(x);
    this.rebase(fx);
    const t = 1 - (x - fx);
    const wholeX = fx === x && Math.abs(x) < EXACT_WHOLES;
    const margin = PHASE_MARGIN * (Math.abs(x) + this.magnitude + 1);
    const lo = Math.floor((t - margin) * PHASE_BUCKETS);
    const hi = Math.floor((t + margin) * PHASE_BUCKETS);
    if (hi - lo + 1 >= PHASE_BUCKETS) {
      // Magnitudes near 2^45 bytes and more: too close to call by buckets, every group exactly.
      let sum = 0;
      for (const lists of [this.buckets, this.integralBuckets]) {
        for (const list of lists) if (list) for (const g of list) sum += Math.floor(g.copied + (x - g.mark) + 1e-6) * g.count;
      }
      return sum;
    }
    // Buckets from `first` up hold f >= t only: each of their members reports one more.
    const first = Math.ceil(t * PHASE_BUCKETS);
    let sum = this.wholes;
    for (let j = first; j < PHASE_BUCKETS; j++) sum += this.counts[j]!;
    // The buckets within the margin of t (mod 1): their groups one by one, the counted one undone;
    // with X whole the integral groups are decomposed exactly (see above) and not looked into.
    for (let j = lo; j <= hi; j++) {
      const b = ((j % PHASE_BUCKETS) + PHASE_BUCKETS) % PHASE_BUCKETS;
      const counted = b >= first ? 1 : 0;
      sum += this.boundary(this.buckets[b], x, t, margin, counted);
      if (!wholeX) sum += this.boundary(this.integralBuckets[b], x, t, margin, counted);
    }
    return sum;
  }

  /** What the groups of a boundary bucket add to their decomposed bytes (`counted`: 1 above t). */
  private boundary(list: PhaseGroup[] | undefined, x: number, t: number, margin: number, counted: number): number {
    if (list === undefined) return 0;
    let sum = 0;
    for (const g of list) {
      const d = Math.abs(g.frac - t);
      if (Math.min(d, 1 - d) > margin) sum += ((g.frac >= t ? 1 : 0) - counted) * g.count;
      else sum += (Math.floor(g.copied + (x - g.mark) + 1e-6) - (g.whole + this.base) - counted) * g.count;
    }
    return sum;
  }

  private rebase(base: number): void {
    if (base === this.base) return;
    this.wholes += this.size * (base - this.base);
    this.base = base;
  }
}

/** The members' heap key, one function for every class (a call site that stays monomorphic). */
const byTarget = (c: Copy<unknown>): number => c.target;

class RateClass<P> {
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
  readonly sums: (CopiedSum<P> | undefined)[] = [];
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

/** Copies closer than this to their target count as caught up (float integration noise). */
const EPSILON_BYTES = 1e-6;
/** Catch-ups computed this close after an advance's `now` happen in that advance. */
const TIME_TOLERANCE_MS = 1e-6;

function bump(m: Map<number, number>, k: number, by: number): void {
  const v = (m.get(k) ?? 0) + by;
  if (v === 0) m.delete(k);
  else m.set(k, v);
}

export class ReplicationTracker<P extends TrackedPartition<P>> {
  /** The partitions that have copies, in the order their first copy started (a list through P). */
  private firstWithCopies: P | null = null;
  private lastWithCopies: P | null = null;
  /** Clock value of tracker time 0 (set by the first advance); times below are relative to it. */
  private origin: number | null = null;
  private time = 0;

  private readonly classes = new Map<number, Map<number, (RateClass<P> | undefined)[]>>();
  private readonly classesByBroker = new Map<number, Set<RateClass<P>>>();
  private classCount = 0;
  private readonly outOf = new Map<number, number>();
  private readonly into = new Map<number, number>();
  private readonly throttledOutOf = new Map<number, number>();
  private readonly throttledInto = new Map<number, number>();
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
    if (stalled) for (let g = 0; g < stalled.length; g++) if (stalled[g] !== 0) into[g] = (into[g] ?? 0) + stalled[g]!;
    for (const cls of this.classesByBroker.get(brokerId) ?? []) {
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
      for (let p = this.firstWithCopies; p !== null; p = p.trackerNext) for (let c = p.trackerFirstCopy; c !== null; c = c.next) this.unplace(c);
      this.schedule.clear();
      for (let p = this.firstWithCopies; p !== null; p = p.trackerNext) for (let c = p.trackerFirstCopy; c !== null; c = c.next) this.place(c);
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
      for (const byLeader of this.classes.values()) for (const slots of byLeader.values()) for (const cls of slots) if (cls) this.reschedule(cls);
    } else if (this.dirtyBrokers.size > 0) {
      const pass = ++this.ratePass;
      for (const b of this.dirtyBrokers) {
        for (const cls of this.classesByBroker.get(b) ?? []) {
          if (cls.ratePass === pass) continue;
          cls.ratePass = pass;
          this.reschedule(cls);
        }
      }
      this.dirtyBrokers.clear();
    }
    // Stale schedule entries pile up as rates change: rebuild when they dominate.
    if (this.schedule.size > 4 * this.classCount + 1024) {
      this.schedule.clear();
      for (const byLeader of this.classes.values()) for (const slots of byLeader.values()) for (const cls of slots) if (cls) this.reschedule(cls, true);
    }
  }

  /** Integrate the class's old rate up to now, give it its new rate, schedule its next catch-up. */
  private reschedule(cls: RateClass<P>, force = false): void {
    let rate = Math.min(this.bandwidth / this.outOf.get(cls.leader)!, this.bandwidth / this.into.get(cls.follower)!);
    if (cls.leaderThrottled) rate = Math.min(rate, this.throttleRate(cls.leader, 'leader') / this.throttledOutOf.get(cls.leader)!);
    if (cls.followerThrottled) rate = Math.min(rate, this.throttleRate(cls.follower, 'follower') / this.throttledInto.get(cls.follower)!);
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
    const cls = this.classFor(leader, c.brokerId, lt, ft);
    cls.settle(this.time);
    // A replica that became leader (unclean election) defines the log: nothing left to copy.
    const remaining = c.brokerId === leader ? 0 : Math.max(0, this.env.leaderSize(p) - c.copied);
    this.stalled(c, -1);
    c.cls = cls;
    c.mark = cls.acc;
    c.target = cls.acc + remaining;
    cls.members.push(c);
    (cls.sums[c.group] ??= new CopiedSum<P>()).add(c, cls.acc);
    cls.version++; // its scheduled catch-up may be another member's now: rescheduled before time moves
    if (remaining <= EPSILON_BYTES) this.dueNow.push(c);
    bump(this.outOf, leader, 1);
    bump(this.into, c.brokerId, 1);
    if (lt) bump(this.throttledOutOf, leader, 1);
    if (ft) bump(this.throttledInto, c.brokerId, 1);
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
    bump(this.outOf, cls.leader, -1);
    bump(this.into, cls.follower, -1);
    if (cls.leaderThrottled) bump(this.throttledOutOf, cls.leader, -1);
    if (cls.followerThrottled) bump(this.throttledInto, cls.follower, -1);
    this.dirtyBrokers.add(cls.leader);
    this.dirtyBrokers.add(cls.follower);
    if (cls.members.size === 0) this.dropClass(cls);
  }

  /** Counts (+1) or uncounts (-1) a copy that is out of every class in its broker's stalled bytes. */
  private stalled(c: Copy<P>, sign: 1 | -1): void {
    const bytes = Math.floor(c.copied + 1e-6); // as copiedBytes reports it
    if (bytes === 0) return;
    let byGroup = this.stalledBytes.get(c.brokerId);
    if (!byGroup) this.stalledBytes.set(c.brokerId, (byGroup = []));
    while (byGroup.length <= c.group) byGroup.push(0);
    byGroup[c.group]! += sign * bytes;
  }

  private classFor(leader: number, follower: number, lt: boolean, ft: boolean): RateClass<P> {
    let byLeader = this.classes.get(leader);
    if (!byLeader) this.classes.set(leader, (byLeader = new Map()));
    let slots = byLeader.get(follower);
    if (!slots) byLeader.set(follower, (slots = [undefined, undefined, undefined, undefined]));
    const slot = (lt ? 2 : 0) + (ft ? 1 : 0);
    let cls = slots[slot];
    if (!cls) {
      cls = slots[slot] = new RateClass<P>(leader, follower, lt, ft, this.time);
      this.classCount++;
      for (const b of [leader, follower]) {
        let set = this.classesByBroker.get(b);
        if (!set) this.classesByBroker.set(b, (set = new Set()));
        set.add(cls);
      }
    }
    return cls;
  }

  private dropClass(cls: RateClass<P>): void {
    cls.alive = false;
    cls.version++;
    this.classCount--;
    const byLeader = this.classes.get(cls.leader)!;
    const slots = byLeader.get(cls.follower)!;
    slots[(cls.leaderThrottled ? 2 : 0) + (cls.followerThrottled ? 1 : 0)] = undefined;
    if (slots.every((s) => s === undefined)) byLeader.delete(cls.follower);
    if (byLeader.size === 0) this.classes.delete(cls.leader);
    for (const b of [cls.leader, cls.follower]) {
      const set = this.classesByBroker.get(b);
      set?.delete(cls);
      if (set?.size === 0) this.classesByBroker.delete(b);
    }
  }
}

/** A `*.replication.throttled.replicas` value, parsed once (see listsReplica). */
export interface ThrottledReplicas {
  lists(partition: number, brokerId: number): boolean;
}

export function parseThrottledReplicas(value: string | null): ThrottledReplicas {
  const v = value?.trim() ?? '';
  if (v === '*') return { lists: () => true };
  if (v === '') return { lists: () => false };
  // One pass over the text into numeric keys (Kafka reads the pairs as ints): a throttled topic
  // of 1,000 moving partitions lists ~4,000 pairs, and a string per pair (and per lookup) was
  // most of what the simulator spent on a 100,000-partition AlterPartitionReassignments.
  const keys = new Set<number>();
  let others: Set<string> | null = null;
  for (let from = 0; from <= v.length; ) {
    let to = v.indexOf(',', from);
    if (to < 0) to = v.length;
    const pair = pairKey(v, from, to);
    if (pair !== null) keys.add(pair);
    else {
      // Not digits:digits (the config validator allows nothing else) or out of range: by text.
      const entry = v.slice(from, to).trim();
      const colon = entry.indexOf(':');
      (others ??= new Set()).add(colon < 0 ? entry : `${Number(entry.slice(0, colon).trim())}:${Number(entry.slice(colon + 1).trim())}`);
    }
    from = to + 1;
  }
  return {
    lists: (partition, brokerId) =>
      partition >= 0 && partition < PARTITION_LIMIT && brokerId >= 0 && brokerId < BROKER_LIMIT && Number.isInteger(partition) && Number.isInteger(brokerId)
        ? keys.has(partition * BROKER_LIMIT + brokerId)
        : (others?.has(`${partition}:${brokerId}`) ?? false),
  };
}

/** Pairs are keyed partition * BROKER_LIMIT + broker: exact below 2^52 (partitions are int32). */
const BROKER_LIMIT = 2 ** 21;
const PARTITION_LIMIT = 2 ** 31;
const SPACE = 0x20;
const TAB = 0x09;
const COLON = 0x3a;
const ZERO = 0x30;

/**
 * The key of `partition:broker` in text[from, to) (spaces around each number allowed), or null.
 * No closures: this runs per pair, and under tsx every inner function is also named at runtime.
 */
function pairKey(text: string, from: number, to: number): number | null {
  let i = from;
  let c = 0;
  while (i < to && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++;
  let start = i;
  let partition = 0;
  for (; i < to; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) break;
    partition = partition * 10 + d;
    if (partition >= PARTITION_LIMIT) return null;
  }
  if (i === start) return null;
  while (i < to && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++;
  if (i >= to || text.charCodeAt(i) !== COLON) return null;
  i++;
  while (i < to && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++;
  start = i;
  let broker = 0;
  for (; i < to; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) break;
    broker = broker * 10 + d;
    if (broker >= BROKER_LIMIT) return null;
  }
  if (i === start) return null;
  while (i < to && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++;
  return i === to ? partition * BROKER_LIMIT + broker : null;
}

/**
 * Whether a `*.replication.throttled.replicas` value lists this replica: `*` lists every
 * replica; otherwise a comma list of `partition:broker` (spaces ignored, empty = none).
 */
export function listsReplica(value: string | null, partition: number, brokerId: number): boolean {
  return parseThrottledReplicas(value).lists(partition, brokerId);
}
