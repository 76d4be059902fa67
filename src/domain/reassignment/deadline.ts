// Deadline pacing (issue 30, part 2), pure: the lowest replication throttle that finishes a
// reassignment by `finishBy`, re-decided every reconcile pass from what is left to copy.
//
// The model is Kafka's (and the simulator's, src/sim/cluster/replication.ts): a throttle is
// bytes/s PER BROKER, once for the leader side (leader.replication.throttled.rate caps what a
// broker sends for its throttled leader replicas) and once for the follower side
// (follower.replication.throttled.rate caps what it fetches into its throttled follower
// replicas): Kafka's kafka.server.ReplicationQuotaManager (core/; Scala in older releases, Java now),
// a rate over a window of samples (replication.quota.window.num x .size.seconds) of all the
// broker's throttled replicas together, checked on the leader side when ReplicaManager reads for
// a follower's fetch (shouldLeaderThrottle) and on the follower side by ReplicaFetcherThread
// (shouldFollowerThrottle). So a move takes as long as its busiest broker in its
// busiest direction: max over brokers of max(bytes in, bytes out) ÷ rate (estimate.ts). The
// lowest rate that finishes in T seconds is that busiest broker's bytes ÷ T.
//
// What reality adds, measured rather than modelled: `efficiency`, the share of the throttle the
// busiest broker actually achieved over the last window (waves of a paced execution starting
// late, copies held back by their other end, the brokers' physical bandwidth below the
// throttle, the ISR round trip). The rate asked for is divided by it, so a reassignment that
// falls behind asks for more at the next pass, and one that cannot go faster (bandwidth)
// reports that even the highest allowed throttle will not make it.
//
// One rate for every broker of the reassignment (the existing throttle path sets one), chosen
// for the busiest broker: a lower rate on a lightly loaded broker would not shorten anything and
// would slow the copies whose other end is the busy one.
//
// Steering:
// - aim: end DEADLINE_MARGIN of the whole duration (finishBy - start) before finishBy, so that
//   the error of the last passes lands before the deadline, not after it. Near the end (once the
//   aim is closer than half the time to finishBy) aim halfway to finishBy instead: a tail still
//   left at the aim is finished without a jump of the rate, and before finishBy;
// - hysteresis: the throttle configs are rewritten only when the wanted rate is RAISE_STEP above
//   the current one or LOWER_STEP below it (raising is what keeps the deadline: it reacts sooner),
//   and never lowered in the tail (the last 10 % of the duration: a slower tail ends late);
// - bounds: the caller's {min, max}; when even max cannot make it (holds = false) the rate is max.

const MiB = 1024 * 1024;

/** Rates a deadline may choose from, bytes/s per broker and direction. */
export interface ThrottleBounds {
  readonly min: number;
  readonly max: number;
}

/** When the caller gives no `throttleBounds`: from 1 MiB/s (producers keep writing) to 256 MiB/s (a fifth of a 10 GbE link). */
export const DEFAULT_THROTTLE_BOUNDS: ThrottleBounds = Object.freeze({ min: 1 * MiB, max: 256 * MiB });
/** A `finishBy` closer than this (or past) is refused: the pacer needs passes to steer. */
export const DEADLINE_MIN_LEAD_MS = 30_000;
/** Aim to end this share of the whole duration before finishBy. */
export const DEADLINE_MARGIN = 0.05;
/** Near the end, aim this share of the time left before finishBy (see secondsToAim). */
export const DEADLINE_TAIL_SHARE = 0.5;
/** Rewrite the throttle when the wanted rate is this much above the current one... */
export const RAISE_STEP = 0.04;
/** ...or this much below it. */
export const LOWER_STEP = 0.08;
/** Efficiency is kept within these (a sample outside them is noise or a broker stopped). */
export const MIN_EFFICIENCY = 0.2;
export const MAX_EFFICIENCY = 1;
/** Weight of a new efficiency sample (exponentially weighted). */
export const EFFICIENCY_WEIGHT = 0.25;

/** Bytes a broker still has to receive (as a destination) and to send (as the source) for one reassignment. */
export interface BrokerBytes {
  readonly broker: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

export interface DeadlineInput {
  readonly nowMs: number;
  /** When the reassignment started (the margin is a share of finishBy - start). */
  readonly startedAtMs: number;
  readonly finishByMs: number;
  /** Bytes left, per broker. */
  readonly brokers: readonly BrokerBytes[];
  readonly bounds: ThrottleBounds;
  /** The rate in place now; null = none yet. */
  readonly currentThrottle: number | null;
  /** Share of the throttle the busiest broker achieved lately, in (0, 1]; 1 = unknown. */
  readonly efficiency: number;
  /** Bytes/s a broker can move at most, when known (the embedded simulator's); null = unknown. */
  readonly bandwidth?: number | null;
}

export interface DeadlineDecision {
  /** The rate to have in place (the current one when the change is within the hysteresis). */
  readonly throttle: number;
  /** The rate this pass computed, before the hysteresis. */
  readonly wanted: number;
  /** Whether `throttle` differs from the current rate: the configs are to be rewritten. */
  readonly rewrite: boolean;
  /** Whether the deadline can still be met within the bounds. */
  readonly holds: boolean;
  /** When it should end at `throttle` (= now when nothing is left). */
  readonly expectedEndMs: number;
  /** When it would end at the highest allowed throttle. */
  readonly expectedEndAtMaxMs: number;
  /** The broker with the most bytes left in one direction, and those bytes; null when nothing is left. */
  readonly busiest: { readonly broker: number; readonly bytesLeft: number } | null;
}

/** The busiest broker: most bytes left in either direction (lowest id on a tie). */
export function busiestBroker(brokers: readonly BrokerBytes[]): { broker: number; bytesLeft: number } | null {
  let best: { broker: number; bytesLeft: number } | null = null;
  for (const b of brokers) {
    const left = Math.max(b.bytesIn, b.bytesOut);
    if (!(left > 0)) continue;
    if (best === null || left > best.bytesLeft || (left === best.bytesLeft && b.broker < best.broker))
      best = { broker: b.broker, bytesLeft: left };
  }
  return best;
}

/**
 * Seconds to aim at: to the aim (finishBy less DEADLINE_MARGIN of the duration), or, once that
 * is shorter, DEADLINE_TAIL_SHARE of the time to finishBy (from 90 % of the duration on).
 * Non-decreasing in finishBy (both terms are); ≤ 0 only once finishBy is past.
 */
export function secondsToAim(nowMs: number, startedAtMs: number, finishByMs: number): number {
  const duration = Math.max(0, finishByMs - startedAtMs);
  const toAim = finishByMs - DEADLINE_MARGIN * duration - nowMs;
  const toDeadline = finishByMs - nowMs;
  return Math.max(toAim, DEADLINE_TAIL_SHARE * toDeadline) / 1000;
}

/** Whether the aim has given way to the tail rule (secondsToAim): from 90 % of the duration on. */
export function inTail(nowMs: number, startedAtMs: number, finishByMs: number): boolean {
  const duration = Math.max(0, finishByMs - startedAtMs);
  return finishByMs - DEADLINE_MARGIN * duration - nowMs <= DEADLINE_TAIL_SHARE * (finishByMs - nowMs);
}

/**
 * This pass's throttle and forecast. `wanted` = the busiest broker's bytes ÷ (seconds to the aim
 * × efficiency), rounded up and clamped to the bounds; max when the deadline no longer holds.
 */
export function paceToDeadline(input: DeadlineInput): DeadlineDecision {
  const { nowMs, bounds } = input;
  const efficiency = clampEfficiency(input.efficiency);
  const bandwidth = input.bandwidth !== null && input.bandwidth !== undefined && input.bandwidth > 0 ? input.bandwidth : Infinity;
  /** Bytes/s the busiest broker moves at rate r. */
  const achieved = (r: number) => Math.min(r, bandwidth) * efficiency;
  const busiest = busiestBroker(input.brokers);
  const current = input.currentThrottle;
  if (busiest === null) {
    // Nothing left: keep what is in place (the end removes it), or the floor.
    const throttle = current !== null && current >= bounds.min && current <= bounds.max ? current : bounds.min;
    return {
      throttle,
      wanted: throttle,
      rewrite: throttle !== current,
      holds: nowMs <= input.finishByMs,
      expectedEndMs: nowMs,
      expectedEndAtMaxMs: nowMs,
      busiest: null,
    };
  }
  const left = busiest.bytesLeft;
  const atMaxMs = nowMs + (left / achieved(bounds.max)) * 1000;
  const holds = atMaxMs <= input.finishByMs;
  let wanted: number;
  if (!holds) wanted = bounds.max;
  else {
    const required = left / (secondsToAim(nowMs, input.startedAtMs, input.finishByMs) * efficiency);
    wanted = Math.min(bounds.max, Math.max(bounds.min, Math.ceil(required)));
  }
  const inBounds = current !== null && current >= bounds.min && current <= bounds.max;
  // In the tail the rate is not lowered: what it would save is small, and a slower tail ends late.
  const lower = inBounds && wanted < current * (1 - LOWER_STEP) && !inTail(nowMs, input.startedAtMs, input.finishByMs);
  const rewrite = !inBounds || wanted > current * (1 + RAISE_STEP) || lower || (!holds && current !== bounds.max);
  const throttle = rewrite ? wanted : current;
  return {
    throttle,
    wanted,
    rewrite: throttle !== current,
    holds,
    expectedEndMs: nowMs + (left / achieved(throttle)) * 1000,
    expectedEndAtMaxMs: atMaxMs,
    busiest,
  };
}

function clampEfficiency(e: number): number {
  return Number.isFinite(e) ? Math.min(MAX_EFFICIENCY, Math.max(MIN_EFFICIENCY, e)) : MAX_EFFICIENCY;
}

/**
 * A measurement window of the efficiency: the busiest broker's bytes left when it opened, and
 * the bytes the throttles in place since then allowed it to move (integrated pass by pass, so a
 * rate changed in the window counts for the time it was in place).
 */
export interface EfficiencySample {
  /** Time of the progress measurement the window opened with. */
  readonly at: number;
  readonly broker: number;
  readonly bytesLeft: number;
  /** Bytes the rate(s) in place allowed from `at` to `markAt`. */
  readonly allowedBytes: number;
  /** Up to when `allowedBytes` is integrated. */
  readonly markAt: number;
}

/** The shortest window an efficiency is measured over: DEADLINE_WINDOW_SHARE of the whole duration, within these bounds. */
export const EFFICIENCY_WINDOW_MIN_MS = 3_000;
export const EFFICIENCY_WINDOW_MAX_MS = 60_000;
export const EFFICIENCY_WINDOW_SHARE = 0.05;

export function efficiencyWindowMs(startedAtMs: number, finishByMs: number): number {
  return Math.min(EFFICIENCY_WINDOW_MAX_MS, Math.max(EFFICIENCY_WINDOW_MIN_MS, EFFICIENCY_WINDOW_SHARE * (finishByMs - startedAtMs)));
}

/**
 * The efficiency and window after a new progress measurement at `at` (bytes left `brokers`),
 * with `throttle` in place since the last one: the window's allowance grows; once it spans
 * `windowMs`, how much the broker that was busiest when it opened drained, over what it was
 * allowed, is weighted into the efficiency and a new window opens. A measurement not newer than
 * the last one changes nothing. A broker drained completely only says it went at least that fast:
 * the efficiency is kept (not pulled down by an end).
 */
export function advanceEfficiency(
  previous: { readonly efficiency: number; readonly sample: EfficiencySample | null },
  at: number,
  brokers: readonly BrokerBytes[],
  throttle: number | null,
  windowMs: number,
  bandwidth: number | null = null,
): { efficiency: number; sample: EfficiencySample | null } {
  const efficiency = clampEfficiency(previous.efficiency);
  const open = (): EfficiencySample | null => {
    const b = busiestBroker(brokers);
    return b ? { at, broker: b.broker, bytesLeft: b.bytesLeft, allowedBytes: 0, markAt: at } : null;
  };
  const w = previous.sample;
  if (w === null) return { efficiency, sample: open() };
  if (!(at > w.markAt)) return { efficiency, sample: w };
  const rate = throttle !== null && throttle > 0 ? Math.min(throttle, bandwidth !== null && bandwidth > 0 ? bandwidth : Infinity) : 0;
  const grown: EfficiencySample = { ...w, allowedBytes: w.allowedBytes + (rate * (at - w.markAt)) / 1000, markAt: at };
  if (at - w.at < windowMs) return { efficiency, sample: grown };
  const b = brokers.find((x) => x.broker === w.broker);
  const leftNow = b ? Math.max(b.bytesIn, b.bytesOut) : 0;
  if (leftNow === 0 || !(grown.allowedBytes > 0)) return { efficiency, sample: open() };
  const measured = Math.min(1.5, Math.max(0.05, (w.bytesLeft - leftNow) / grown.allowedBytes));
  return { efficiency: clampEfficiency(EFFICIENCY_WEIGHT * measured + (1 - EFFICIENCY_WEIGHT) * efficiency), sample: open() };
}

/**
 * `brokers` scaled so that their bytes in add up to `remaining` (the progress snapshot's bytes
 * left, exact as of its time), bytes out by the same factor: the split per broker comes from the
 * record, the amount from the measurement. Unchanged when either sum is 0.
 */
export function scaleToRemaining(brokers: readonly BrokerBytes[], remaining: number): BrokerBytes[] {
  let sum = 0;
  for (const b of brokers) sum += b.bytesIn;
  if (!(sum > 0) || !(remaining >= 0)) return [...brokers];
  const k = remaining / sum;
  return brokers.map((b) => ({ broker: b.broker, bytesIn: b.bytesIn * k, bytesOut: b.bytesOut * k }));
}

/** What bytesLeftPerBroker needs of a partition of a reassignment (a state record's partition fits). */
export interface DeadlinePartition {
  readonly original: readonly number[];
  readonly target: readonly number[];
  readonly state: string;
  /** Leader size × adding replicas; null = unknown (counted as 0). */
  readonly bytesTotal?: number | null;
  readonly supersededBy?: string;
}

/**
 * Bytes left per broker: every queued partition whole, every moving one less `movingDoneShare`
 * (the share of the moving bytes the last progress snapshot saw copied: the same for each, as
 * the snapshot keeps totals only). A destination receives each adding replica's copy; the
 * source (the first original replica, the preferred leader: the leader is not in the record)
 * sends them all. Ascending broker ids. O(partitions).
 */
export function bytesLeftPerBroker(partitions: readonly DeadlinePartition[], movingDoneShare: number): BrokerBytes[] {
  const share = Math.min(1, Math.max(0, Number.isFinite(movingDoneShare) ? movingDoneShare : 0));
  const bytesIn = new Map<number, number>();
  const bytesOut = new Map<number, number>();
  for (let i = 0; i < partitions.length; i++) {
    const p = partitions[i];
    if (p.supersededBy || (p.state !== 'queued' && p.state !== 'moving')) continue;
    const total = p.bytesTotal ?? 0;
    if (!(total > 0)) continue;
    let adding = 0;
    for (const b of p.target) if (!p.original.includes(b)) adding++;
    if (adding === 0) continue;
    const left = p.state === 'moving' ? total * (1 - share) : total;
    const perCopy = left / adding;
    for (const b of p.target) if (!p.original.includes(b)) bytesIn.set(b, (bytesIn.get(b) ?? 0) + perCopy);
    const source = p.original[0];
    if (source !== undefined) bytesOut.set(source, (bytesOut.get(source) ?? 0) + left);
  }
  const ids = [...new Set([...bytesIn.keys(), ...bytesOut.keys()])].sort((a, b) => a - b);
  return ids.map((broker) => ({ broker, bytesIn: bytesIn.get(broker) ?? 0, bytesOut: bytesOut.get(broker) ?? 0 }));
}

/** What a reassignment with a deadline keeps in its state record (the throttle itself is the record's `throttle`). */
export interface DeadlineState {
  /** Epoch ms. */
  readonly finishBy: number;
  readonly bounds: ThrottleBounds;
  /** The last pass's forecast (at the start: the plan's). */
  readonly holds: boolean;
  /** Epoch ms; null before the first forecast. */
  readonly expectedEnd: number | null;
  readonly expectedEndAtMax: number | null;
  /** nextEfficiency's value (1 until measured). */
  readonly efficiency: number;
  readonly sample: EfficiencySample | null;
  /** When a pass last decided (epoch ms). */
  readonly decidedAt: number;
}
