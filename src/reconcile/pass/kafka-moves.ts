// What a reconcile pass asks Kafka about moves besides its full read (reconciler.ts): whether
// a sample of the moves it read ended meanwhile, whether a paced move in flight ended (the fast
// poll), the cancel of moves started after their reassignment was cancelled, and the pacer's
// next waves.
import type { StateView } from '../../state/store.js';
import type { KafkaAdmin, MovingPartition } from '../../kafka/kafka-admin.js';
import { END_WATCH_MAX_PARTITIONS, endWatchSample, type EndWatchPartition } from '../end-watch.js';
import { lateStartsOfCancelled, partitionId, type AttributedMoves, type Pace } from '../ownership.js';
import { pacedMoving, type Pacer } from '../pacer.js';
import type { PassContext, ReconcilerDeps } from './context.js';

/**
 * Whether one of the records this pass saw moving has none of its moves listed any more,
 * asked about a sample picked like the end watch's (of the moves this pass read).
 */
export async function sampleEndedSince(ctx: PassContext, view: StateView, moves: AttributedMoves, pace: Pace): Promise<boolean> {
  if (moves.movingOf.size === 0) return false;
  const progress = ctx.d.progress;
  const sample = await endWatchSample(
    view.reassignments.values(),
    moves.movingOf,
    (id) => progress.likelyLast(id),
    END_WATCH_MAX_PARTITIONS,
    pace,
  );
  if (sample.length === 0) return false;
  const { sampled, seen } = await sampleListed(ctx.d.kafka, sample);
  return [...sampled].some((id) => !seen.has(id));
}

/**
 * One ListPartitionReassignments of an end-watch sample: the reassignments sampled, and those
 * of them with a sampled move Kafka still lists (the end watch and the recheck above).
 */
export async function sampleListed(
  kafka: KafkaAdmin,
  sample: readonly EndWatchPartition[],
): Promise<{ sampled: Set<string>; seen: Set<string> }> {
  const listed = await kafka.listPartitionReassignments(sample.map((s) => ({ topic: s.topic, partition: s.partition })));
  const still = new Set(listed.map((m) => partitionId(m.topic, m.partition)));
  const sampled = new Set<string>();
  const seen = new Set<string>();
  for (const s of sample) {
    sampled.add(s.id);
    if (still.has(partitionId(s.topic, s.partition))) seen.add(s.id);
  }
  return { sampled, seen };
}

/**
 * The fast poll of paced execution (Reconciler #schedulePoll): whether a move in flight of a
 * paced reassignment ended. Nothing asked while a pacing step runs (`pacing`).
 */
export async function pacedMoveEnded(d: Pick<ReconcilerDeps, 'kafka' | 'store'>, pacing: () => boolean): Promise<boolean> {
  const records = [...d.store.view().reassignments.values()].filter((r) => r.state === 'running' && r.concurrency !== null);
  if (records.length === 0 || pacing()) return false;
  const inFlight = new Map(records.map((r) => [r.id, r.partitions.filter((p) => p.state === 'moving' && !p.supersededBy)]));
  const asked = [...inFlight.values()].flat().map((p) => ({ topic: p.topic, partition: p.partition }));
  // Nothing recorded in flight but a queue (paused, or a wave to start): the regular passes do it.
  if (asked.length === 0) return false;
  // Asks Kafka about the moves in flight only (bounded by the concurrency), not every move in
  // the cluster: this poll runs every PACING_POLL_MS.
  const listed = pacedMoving(records, await d.kafka.listPartitionReassignments(asked));
  for (const [id, ps] of inFlight) {
    if ((listed.get(id) ?? 0) < ps.length) return true;
  }
  return false;
}

/** A cancel is honoured even by a wave Kafka applied after it (ownership.ts lateStartsOfCancelled). */
export async function cancelLateStarts(ctx: PassContext, moving: readonly MovingPartition[]): Promise<void> {
  const late = lateStartsOfCancelled(moving, ctx.d.store.view(), ctx.now());
  if (late.length === 0) return;
  ctx.d.logger?.warn('cancelling moves that started after their reassignment was cancelled', {
    partitions: late.slice(0, 20).map((m) => partitionId(m.topic, m.partition)),
    count: late.length,
  });
  const results = await ctx.d.kafka.alterPartitionReassignments(
    late.map((m) => ({ topic: m.topic, partition: m.partition, replicas: null })),
  );
  // 85 NO_REASSIGNMENT_IN_PROGRESS: it ended meanwhile (the next pass sees where it is).
  const failed = results.filter((r) => !r.ok && r.error.code !== 85);
  if (failed.length > 0) throw new Error(`cancelling late starts: ${failed.length} refused by Kafka`);
}

/** Paced reassignments: settle what ended, start the next waves (pacer.ts). */
export async function advancePaced(pacer: Pacer, view: StateView): Promise<void> {
  for (const r of view.reassignments.values()) {
    if (r.state !== 'running' || r.concurrency === null) continue;
    if (!r.partitions.some((p) => !p.supersededBy && (p.state === 'queued' || p.state === 'moving'))) continue;
    await pacer.advance(r.id);
  }
}
