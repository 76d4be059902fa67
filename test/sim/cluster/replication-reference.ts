// The replica-copy tracker as it was before it was made incremental (ReplicationTracker
// recomputed every copy's rate on every advance): kept as the test oracle that the incremental
// tracker in src/sim/cluster/replication.ts must agree with, byte for byte and event for event.
// Not used by the simulator.
import { NO_LEADER } from '../../../src/sim/cluster/topics.js';
import type { ReplicationEnvironment } from '../../../src/sim/cluster/replica-copies.js';
import { DEFAULT_REPLICATION_BYTES_PER_SECOND } from '../../../src/sim/cluster/replication.js';

interface Copy<P> {
  partition: P;
  brokerId: number;
  /** Bytes copied so far; fractional between events, reported rounded down. */
  copied: number;
  /** The clock time of the last advance when it started (0 before any). */
  startedAt: number;
}

interface ActiveCopy<P> {
  copy: Copy<P>;
  rate: number; // bytes per second
  remaining: number;
}

/** Copies closer than this to their target count as caught up (float integration noise). */
const EPSILON_BYTES = 1e-6;

export class ReferenceReplicationTracker<P extends object> {
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
    if (!byBroker.has(brokerId)) byBroker.set(brokerId, { partition, brokerId, copied: 0, startedAt: this.lastAdvance ?? 0 });
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
        this.finish(done, t);
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

  private finish(done: ActiveCopy<P>[], t: number): void {
    for (const a of done) {
      this.dropCopy(a.copy.partition, a.copy.brokerId);
      this.env.caughtUp(a.copy.partition, a.copy.brokerId, t, a.copy.startedAt);
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
