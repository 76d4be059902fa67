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
import { NO_LEADER } from './topics.js';

/** Kafka's default replication bandwidth assumption for the simulator: 50 MiB/s per broker. */
export const DEFAULT_REPLICATION_BYTES_PER_SECOND = 50 * 1024 * 1024;

/** What the tracker needs to know about the cluster, at the moment it asks. */
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
  /** The replica has all the leader's bytes: it joins the ISR (and may complete a move). */
  caughtUp(partition: P, brokerId: number): void;
}

interface Copy<P> {
  partition: P;
  brokerId: number;
  /** Bytes copied so far; fractional between events, reported rounded down. */
  copied: number;
}

interface ActiveCopy<P> {
  copy: Copy<P>;
  rate: number; // bytes per second
  remaining: number;
}

/** Copies closer than this to their target count as caught up (float integration noise). */
const EPSILON_BYTES = 1e-6;

export class ReplicationTracker<P extends object> {
  private readonly copies = new Map<P, Map<number, Copy<P>>>();
  private lastAdvance: number | null = null;

  constructor(
    private readonly env: ReplicationEnvironment<P>,
    private readonly bandwidth: number = DEFAULT_REPLICATION_BYTES_PER_SECOND,
  ) {
    if (!(bandwidth > 0)) throw new RangeError(`replication bandwidth must be positive, got ${bandwidth}`);
  }

  /** A replica that starts empty and must copy the whole log before it is in sync. */
  startCopy(partition: P, brokerId: number): void {
    let byBroker = this.copies.get(partition);
    if (!byBroker) this.copies.set(partition, (byBroker = new Map()));
    if (!byBroker.has(brokerId)) byBroker.set(brokerId, { partition, brokerId, copied: 0 });
  }

  /** Forget a replica's copy (the replica left the partition). */
  dropCopy(partition: P, brokerId: number): void {
    const byBroker = this.copies.get(partition);
    if (!byBroker) return;
    byBroker.delete(brokerId);
    if (byBroker.size === 0) this.copies.delete(partition);
  }

  /** Forget every copy of a partition (deleted topic). */
  dropPartition(partition: P): void {
    this.copies.delete(partition);
  }

  /** True while the replica has not caught up (it must stay out of the ISR). */
  isCatchingUp(partition: P, brokerId: number): boolean {
    return this.copies.get(partition)?.has(brokerId) ?? false;
  }

  /** Bytes the replica holds so far, or null when it is not copying (it has the whole log). */
  copiedBytes(partition: P, brokerId: number): number | null {
    const c = this.copies.get(partition)?.get(brokerId);
    return c === undefined ? null : Math.floor(c.copied);
  }

  /**
   * Integrate the copy rates from the last call up to `now` (ms), handling every catch-up on
   * the way in time order. Time never runs backwards: an earlier `now` only settles catch-ups.
   */
  advanceTo(now: number): void {
    let t = this.lastAdvance ?? now;
    // Bounded: every iteration either ends the loop or retires at least one copy.
    for (;;) {
      const active = this.active();
      const done = active.filter((a) => a.remaining <= EPSILON_BYTES);
      if (done.length > 0) {
        this.finish(done);
        continue;
      }
      const horizonMs = now - t;
      if (horizonMs <= 0 || active.length === 0) break;
      // Rates hold until the first copy catches up (or until `now`).
      let stepMs = horizonMs;
      for (const a of active) if (a.rate > 0) stepMs = Math.min(stepMs, (a.remaining / a.rate) * 1000);
      let anyCaughtUp = false;
      for (const a of active) {
        const gained = (a.rate * stepMs) / 1000;
        // The copy that sets the step is exactly caught up: float noise must not leave it short.
        if (a.remaining - gained <= Math.max(EPSILON_BYTES, a.remaining * 1e-12)) {
          a.copy.copied += a.remaining;
          anyCaughtUp = true;
        } else {
          a.copy.copied += gained;
        }
      }
      t += stepMs;
      if (!anyCaughtUp) break;
    }
    this.lastAdvance = Math.max(now, this.lastAdvance ?? now);
  }

  private finish(done: ActiveCopy<P>[]): void {
    for (const a of done) {
      this.dropCopy(a.copy.partition, a.copy.brokerId);
      this.env.caughtUp(a.copy.partition, a.copy.brokerId);
    }
  }

  /** The copies that can run now, with their rates (see the header for the model). */
  private active(): ActiveCopy<P>[] {
    const running: { copy: Copy<P>; leader: number; leaderThrottled: boolean; followerThrottled: boolean }[] = [];
    const outOf = new Map<number, number>();
    const into = new Map<number, number>();
    const throttledOutOf = new Map<number, number>();
    const throttledInto = new Map<number, number>();
    const bump = (m: Map<number, number>, k: number) => m.set(k, (m.get(k) ?? 0) + 1);
    for (const [partition, byBroker] of this.copies) {
      const leader = this.env.leader(partition);
      for (const copy of byBroker.values()) {
        if (!this.env.wanted(partition, copy.brokerId)) continue;
        if (leader === NO_LEADER || !this.env.isUp(leader) || !this.env.isUp(copy.brokerId)) continue;
        const leaderThrottled = this.env.throttled(partition, 'leader', leader);
        const followerThrottled = this.env.throttled(partition, 'follower', copy.brokerId);
        running.push({ copy, leader, leaderThrottled, followerThrottled });
        bump(outOf, leader);
        bump(into, copy.brokerId);
        if (leaderThrottled) bump(throttledOutOf, leader);
        if (followerThrottled) bump(throttledInto, copy.brokerId);
      }
    }
    return running.map(({ copy, leader, leaderThrottled, followerThrottled }) => {
      // A replica that became leader (unclean election) defines the log: nothing left to copy.
      const remaining = copy.brokerId === leader ? 0 : Math.max(0, this.env.leaderSize(copy.partition) - copy.copied);
      let rate = Math.min(this.bandwidth / outOf.get(leader)!, this.bandwidth / into.get(copy.brokerId)!);
      if (leaderThrottled) rate = Math.min(rate, this.env.throttleRate(leader, 'leader') / throttledOutOf.get(leader)!);
      if (followerThrottled) rate = Math.min(rate, this.env.throttleRate(copy.brokerId, 'follower') / throttledInto.get(copy.brokerId)!);
      return { copy, rate, remaining };
    });
  }
}

/**
 * Whether a `*.replication.throttled.replicas` value lists this replica: `*` lists every
 * replica; otherwise a comma list of `partition:broker` (spaces ignored, empty = none).
 */
export function listsReplica(value: string | null, partition: number, brokerId: number): boolean {
  if (value === null) return false;
  const v = value.trim();
  if (v === '*') return true;
  if (v === '') return false;
  const wanted = `${partition}:${brokerId}`;
  return v.split(',').some((entry) => entry.trim() === wanted);
}
