// Progress of the copies a reassignment makes, from samples the gateway takes with
// DescribeLogDirs (SEMANTICS.md §5): each adding replica's partition_size against the leader's.
//
// The gateway keeps a short history of samples (in memory is enough: a restarted instance just
// needs a window of new samples before it can show a rate again); these functions are pure and
// take time as data.
//
// - Per replica: copied = min(size, leader size), remaining = leader size - copied, percent.
// - bytesPerSecond: how fast the copies grow, over a sliding window (oldest sample in the window
//   vs the latest), counting only replicas present in both so that a partition finishing (and
//   leaving the samples) or joining does not count as a jump.
// - etaSeconds: bytes remaining / how fast bytes remaining FALL over the same window (lower than
//   the copy speed while producers keep writing); null when they do not fall or it is unknown.
// - stalled: bytes remaining > 0 and they have not fallen for `stallAfterMs`.

import type { TopicPartition } from './types.js';

/** One adding replica in one sample. */
export interface ReplicaSample extends TopicPartition {
  /** The adding replica's broker. */
  readonly broker: number;
  /** Its partition_size; null when it has no log yet or its broker did not answer. */
  readonly bytes: number | null;
  /** The leader's partition_size; null when unknown (leader offline or not answering). */
  readonly leaderBytes: number | null;
}

export interface ProgressSample {
  /** Milliseconds (any epoch, same clock for every sample). */
  readonly timeMs: number;
  readonly replicas: readonly ReplicaSample[];
}

export interface ProgressOptions {
  /** Sliding window for the rate (default 30 s). */
  readonly windowMs?: number;
  /** Remaining bytes not falling for this long = stalled (default 60 s). */
  readonly stallAfterMs?: number;
}

export const DEFAULT_PROGRESS_WINDOW_MS = 30_000;
export const DEFAULT_STALL_AFTER_MS = 60_000;

export interface ReplicaProgress extends TopicPartition {
  readonly broker: number;
  readonly bytesCopied: number;
  /** null when the leader's size is unknown. */
  readonly bytesRemaining: number | null;
  readonly bytesTotal: number | null;
  /** 0-100, floored to 2 decimals so 100 means done; null when unknown. */
  readonly percent: number | null;
}

export interface ReassignmentProgress {
  /** Replicas of the latest sample, in its order. */
  readonly replicas: readonly ReplicaProgress[];
  /** Over replicas whose leader size is known. */
  readonly bytesTotal: number;
  readonly bytesCopied: number;
  readonly bytesRemaining: number;
  /** 100 when there is nothing (left) to copy. */
  readonly percent: number;
  /** Replicas left out of the totals because their leader's size is unknown. */
  readonly unknownReplicas: number;
  /** Observed copy speed over the window; null until two samples span it. */
  readonly bytesPerSecond: number | null;
  /** Whole seconds, rounded up; 0 when nothing remains; null when remaining bytes are not falling. */
  readonly etaSeconds: number | null;
  readonly stalled: boolean;
  /** When remaining bytes last fell (or the first sample when they never did); null without samples. */
  readonly lastProgressAtMs: number | null;
}

/** Progress from samples in chronological order (the latest last). */
export function computeProgress(samples: readonly ProgressSample[], options: ProgressOptions = {}): ReassignmentProgress {
  const windowMs = options.windowMs ?? DEFAULT_PROGRESS_WINDOW_MS;
  const stallAfterMs = options.stallAfterMs ?? DEFAULT_STALL_AFTER_MS;
  if (samples.length === 0) {
    return {
      replicas: [],
      bytesTotal: 0,
      bytesCopied: 0,
      bytesRemaining: 0,
      percent: 100,
      unknownReplicas: 0,
      bytesPerSecond: null,
      etaSeconds: null,
      stalled: false,
      lastProgressAtMs: null,
    };
  }
  const latest = samples[samples.length - 1];
  const replicas = latest.replicas.map(replicaProgress);
  let bytesTotal = 0;
  let bytesCopied = 0;
  let unknownReplicas = 0;
  for (const r of replicas) {
    if (r.bytesTotal === null) {
      unknownReplicas++;
      continue;
    }
    bytesTotal += r.bytesTotal;
    bytesCopied += r.bytesCopied;
  }
  const bytesRemaining = bytesTotal - bytesCopied;

  // Oldest sample inside the window (samples are chronological: scan back from the end).
  let oldest = samples.length - 1;
  while (oldest > 0 && samples[oldest - 1].timeMs >= latest.timeMs - windowMs) oldest--;
  let bytesPerSecond: number | null = null;
  let fallPerSecond: number | null = null;
  const elapsedMs = latest.timeMs - samples[oldest].timeMs;
  if (elapsedMs > 0) {
    const d = delta(samples[oldest], latest);
    bytesPerSecond = Math.max(0, (d.copied * 1000) / elapsedMs);
    fallPerSecond = (d.remainingFall * 1000) / elapsedMs;
  }

  let etaSeconds: number | null;
  if (bytesRemaining === 0 && unknownReplicas === 0) etaSeconds = 0;
  else if (fallPerSecond === null || fallPerSecond <= 0) etaSeconds = null;
  else etaSeconds = Math.ceil(bytesRemaining / fallPerSecond);

  const lastProgressAtMs = lastProgressTime(samples);
  const stalled = (bytesRemaining > 0 || unknownReplicas > 0) && latest.timeMs - lastProgressAtMs >= stallAfterMs;

  return {
    replicas,
    bytesTotal,
    bytesCopied,
    bytesRemaining,
    percent: percentOf(bytesCopied, bytesTotal),
    unknownReplicas,
    bytesPerSecond,
    etaSeconds,
    stalled,
    lastProgressAtMs,
  };
}

/**
 * The samples worth keeping at `nowMs`: everything within max(window, stallAfter) plus the last
 * sample before that, so both the rate and the stall detection still span their whole period.
 */
export function retainSamples(samples: readonly ProgressSample[], nowMs: number, options: ProgressOptions = {}): ProgressSample[] {
  const horizon = Math.max(options.windowMs ?? DEFAULT_PROGRESS_WINDOW_MS, options.stallAfterMs ?? DEFAULT_STALL_AFTER_MS);
  let first = samples.length;
  while (first > 0 && samples[first - 1].timeMs >= nowMs - horizon) first--;
  return samples.slice(Math.max(0, first - 1));
}

// ---------------------------------------------------------------------------------------------

function replicaProgress(s: ReplicaSample): ReplicaProgress {
  const base = { topic: s.topic, partition: s.partition, broker: s.broker };
  if (s.leaderBytes === null) return { ...base, bytesCopied: s.bytes ?? 0, bytesRemaining: null, bytesTotal: null, percent: null };
  const total = Math.max(0, s.leaderBytes);
  // A follower can briefly report more than the leader (the leader truncated, or sizes were
  // read at different instants): never show more than 100%.
  const copied = Math.min(Math.max(0, s.bytes ?? 0), total);
  return { ...base, bytesCopied: copied, bytesRemaining: total - copied, bytesTotal: total, percent: percentOf(copied, total) };
}

function percentOf(copied: number, total: number): number {
  if (total <= 0) return 100;
  return Math.floor((copied * 10_000) / total) / 100;
}

function replicaKey(r: TopicPartition & { broker: number }): string {
  return `${r.topic}\u0000${r.partition}\u0000${r.broker}`;
}

/** Bytes copied and bytes remaining fallen between two samples, over replicas in both. */
function delta(from: ProgressSample, to: ProgressSample): { copied: number; remainingFall: number } {
  const earlier = new Map<string, ReplicaProgress>();
  for (const r of from.replicas) earlier.set(replicaKey(r), replicaProgress(r));
  let copied = 0;
  let remainingFall = 0;
  for (const s of to.replicas) {
    const before = earlier.get(replicaKey(s));
    if (!before) continue;
    const now = replicaProgress(s);
    copied += now.bytesCopied - before.bytesCopied;
    if (now.bytesRemaining !== null && before.bytesRemaining !== null) remainingFall += before.bytesRemaining - now.bytesRemaining;
  }
  return { copied, remainingFall };
}

/**
 * When remaining bytes last fell: a replica's remaining below its last KNOWN remaining (so a
 * broker that stops answering for a while and comes back further along is progress), or a
 * replica finished (left the samples). The first sample's time when neither ever happened.
 */
function lastProgressTime(samples: readonly ProgressSample[]): number {
  let last = samples[0].timeMs;
  const lastKnown = new Map<string, number>();
  let previousKeys = new Set<string>();
  samples.forEach((sample, i) => {
    const keys = new Set<string>();
    let progressed = false;
    for (const s of sample.replicas) {
      const key = replicaKey(s);
      keys.add(key);
      const remaining = replicaProgress(s).bytesRemaining;
      if (remaining === null) continue;
      const before = lastKnown.get(key);
      if (before !== undefined && remaining < before) progressed = true;
      lastKnown.set(key, remaining);
    }
    if (i > 0 && [...previousKeys].some((k) => !keys.has(k))) progressed = true;
    if (progressed) last = sample.timeMs;
    previousKeys = keys;
  });
  return last;
}

// ---------------------------------------------------------------- snapshots (shared by instances)

/** Totals of one reassignment at one time, as kept in the state topic. */
export interface TotalsSnapshot {
  /** ms since the epoch */
  readonly t: number;
  readonly bytesTotal: number;
  readonly bytesDone: number;
}

export interface SnapshotProgress {
  readonly bytesTotal: number;
  readonly bytesDone: number;
  /** 0-100, floored to 2 decimals. */
  readonly percent: number;
  /** Over the window ending at the latest snapshot; null until two snapshots span time. */
  readonly bytesPerSecond: number | null;
  readonly etaSeconds: number | null;
  /** Bytes done have not grown for stallAfterMs up to the latest snapshot (and some remain). */
  readonly stalled: boolean;
  readonly lastProgressAtMs: number | null;
  /** Time of the latest snapshot (null: none yet). */
  readonly asOfMs: number | null;
}

/**
 * Rate, ETA and stall from snapshots (oldest first). Depends only on the snapshots, never on
 * the reader's clock: every instance reading the same snapshots answers the same numbers.
 * O(number of snapshots), which is bounded.
 */
export function progressFromSnapshots(
  snapshots: readonly TotalsSnapshot[],
  lastProgressAtMs: number | null,
  options: ProgressOptions = {},
): SnapshotProgress {
  const windowMs = options.windowMs ?? DEFAULT_PROGRESS_WINDOW_MS;
  const stallAfterMs = options.stallAfterMs ?? DEFAULT_STALL_AFTER_MS;
  const last = snapshots.at(-1);
  if (!last)
    return {
      bytesTotal: 0,
      bytesDone: 0,
      percent: 0,
      bytesPerSecond: null,
      etaSeconds: null,
      stalled: false,
      lastProgressAtMs,
      asOfMs: null,
    };
  let first = last;
  for (let i = snapshots.length - 2; i >= 0; i--) {
    first = snapshots[i]!;
    if (first.t <= last.t - windowMs) break;
  }
  const dt = (last.t - first.t) / 1000;
  const bytesPerSecond = dt > 0 ? Math.max(0, last.bytesDone - first.bytesDone) / dt : null;
  const remaining = Math.max(0, last.bytesTotal - last.bytesDone);
  const etaSeconds = remaining === 0 ? 0 : bytesPerSecond !== null && bytesPerSecond > 0 ? Math.ceil(remaining / bytesPerSecond) : null;
  const percent =
    last.bytesTotal > 0
      ? Math.floor((Math.min(last.bytesDone, last.bytesTotal) / last.bytesTotal) * 10_000) / 100
      : remaining === 0
        ? 100
        : 0;
  const since = lastProgressAtMs ?? snapshots[0].t;
  return {
    bytesTotal: last.bytesTotal,
    bytesDone: last.bytesDone,
    percent,
    bytesPerSecond,
    etaSeconds,
    stalled: remaining > 0 && last.t - since >= stallAfterMs,
    lastProgressAtMs,
    asOfMs: last.t,
  };
}
