// Step 1 of a start: everything checked before anything is written or changed. The request
// against the cluster (brokers, topics, partitions, moves already running: the domain's
// validateReassignment), its deadline, its intra-broker moves (the dirs must exist and be
// online); the sizes of what it copies are asked for meanwhile.
import {
  checkFinishBy,
  checkLogDirMoves,
  logDirMoves,
  PartitionMap,
  validateReassignmentSteps,
  type LogDirMove,
  type ConcurrencyBounds,
  type OngoingPartitionReassignment,
  type PartitionError,
  type ReassignmentPlan,
} from '../../domain/reassignment/index.js';
import { driveSteps } from '../../event-loop-turns.js';
import { replicaKey, type MovingPartition } from '../../kafka/kafka-admin.js';
import type { ReplicaHealth } from '../../kafka/replica-health.js';
import { partitionId } from '../../reconcile/ownership.js';
import type { StateView } from '../../state/store.js';
import { leaderSizes, placementAndHealthOf, placementOf } from './start-reads.js';
import type { InvalidKind, ServiceContext, StartOptions, StartRequest, StartResult } from './types.js';

/** A request that passed every check, with what the checks read. */
export interface ValidatedStart {
  readonly req: StartRequest;
  /** The state view validation saw (admission compares the live records with it). */
  readonly view: StateView;
  readonly ongoing: { moving: MovingPartition[]; attributed: OngoingPartitionReassignment[] };
  /** One partition per requested one, in request order. */
  readonly plan: ReassignmentPlan;
  /** Bytes of requested partition i on its leader, for the moves that copy (undefined: unknown or nothing to copy). */
  readonly sizeAt: (i: number) => number | undefined;
  readonly dirMoves: LogDirMove[];
  /** Brokers of the intra-broker moves, sorted. */
  readonly dirBrokers: number[];
  /** `broker:topic-partition` -> the dir the replica is in now (null: not hosted yet). */
  readonly currentDirs: Map<string, string | null>;
  /** The requested log_dirs per partition (only those given). */
  readonly dirsOf: PartitionMap<string[]>;
  /** The health interlock's Metadata read: every topic (paced), or the start's own topics (unpaced); null: none (start-health.ts). */
  readonly healthRead: Promise<ReplicaHealth> | null;
}

/** The start's pacing bounds: its own `concurrency`, else the configured default; null = unpaced (one wave). */
export function concurrencyOf(ctx: ServiceContext, req: StartRequest): ConcurrencyBounds | null {
  return req.concurrency ?? ctx.d.config.defaultConcurrency ?? null;
}

/** Kind of a failed validation: malformed request > unknown topic/partition > invalid > conflict only. */
function validationKind(errors: readonly PartitionError[]): InvalidKind {
  const codes = new Set(errors.map((e) => e.code));
  if (codes.has('EMPTY_PARTITION_LIST') || codes.has('DUPLICATE_PARTITION')) return 'malformed';
  if (codes.has('UNKNOWN_TOPIC') || codes.has('UNKNOWN_PARTITION')) return 'not-found';
  if ([...codes].every((c) => c === 'REASSIGNMENT_CONFLICT')) return 'conflict';
  return 'invalid';
}

export async function validateStart(
  ctx: ServiceContext,
  req: StartRequest,
  pace: () => Promise<void>,
  opts: StartOptions = {},
): Promise<{ refused: StartResult } | { validated: ValidatedStart }> {
  // Deadline pacing (issue 30): a finishBy in the past or too close is refused before anything is read.
  const tooClose = req.finishBy === null ? null : checkFinishBy(req.finishBy, ctx.now());
  if (tooClose) return { refused: { kind: 'bad-request', errors: [tooClose] } };

  // The health interlock's read (start-plan.ts decides on it). A paced start can be held: it reads
  // every topic, as a pass does, and that read goes out now, beside the reads below. An unpaced
  // one is never held, and its warning is about what it moves: the health of its own topics,
  // from the placement read itself (no request more; docs/health-interlocks.md, "At the start").
  const paced = concurrencyOf(ctx, req) !== null;
  const checked = req.safety !== 'off';
  const clusterRead = checked && paced ? ctx.health().prefetchAtStart(req.safety, opts.ahead?.health) : null;
  const view = await ctx.d.store.refresh();
  const topicSet = new Set<string>();
  for (let i = 0; i < req.partitions.length; i++) topicSet.add(req.partitions[i].topic);
  const [{ placement, health: topicsHealth }, cluster, ongoing] = await Promise.all([
    checked && !paced
      ? placementAndHealthOf(ctx, [...topicSet])
      : placementOf(ctx, [...topicSet]).then((p) => ({ placement: p, health: null })),
    ctx.d.kafka.describeCluster(),
    ctx.ongoing(view),
  ]);
  const healthRead = clusterRead ?? (topicsHealth ? Promise.resolve(topicsHealth) : null);
  // Leader sizes (estimate, bytesTotal) are asked for now and arrive while the request is
  // validated; a validation failure discards them (nothing waits on a rejected promise).
  const sizesAsked = leaderSizes(ctx, placement, req.partitions, ongoing.moving, pace);
  sizesAsked.catch(() => undefined);
  const validation = await driveSteps(
    validateReassignmentSteps(
      {
        liveBrokers: cluster.brokers.map((b) => b.id),
        topics: placement.map((t) => ({ name: t.name, partitions: t.partitions })),
        ongoing: ongoing.attributed,
      },
      { partitions: req.partitions, addToExisting: req.addToExisting },
    ),
    pace,
  );
  if (!validation.ok) return { refused: { kind: 'invalid', problem: validationKind(validation.errors), errors: validation.errors } };
  const plan = validation.plan;
  // A valid plan has one partition per requested one, in request order: sizes go by position.
  if (plan.partitions.length !== req.partitions.length)
    throw new Error(`plan of ${plan.partitions.length} partitions for ${req.partitions.length} requested`);

  // Intra-broker moves: the dirs must exist on their broker and be online (57/56 before anything changes).
  const dirMoves = logDirMoves(req.partitions);
  const dirBrokers = [...new Set(dirMoves.map((m) => m.broker))].sort((a, b) => a - b);
  const currentDirs = new Map<string, string | null>();
  if (dirMoves.length > 0) {
    const answers = await ctx.d.kafka.describeReplicaSizes(dirBrokers, dirMoves, { placement: true });
    const firstIndex = new Map<string, number>();
    req.partitions.forEach(
      (p, i) => firstIndex.has(partitionId(p.topic, p.partition)) || firstIndex.set(partitionId(p.topic, p.partition), i),
    );
    const errors = checkLogDirMoves(
      dirMoves,
      answers.flatMap((a) => (a.ok && a.dirs ? [{ broker: a.broker, dirs: a.dirs }] : [])),
      (tp) => firstIndex.get(partitionId(tp.topic, tp.partition)) ?? null,
    );
    if (errors.length > 0) return { refused: { kind: 'invalid', problem: 'invalid', errors } };
    for (const a of answers) {
      if (!a.ok) continue;
      for (const m of dirMoves)
        if (m.broker === a.broker)
          currentDirs.set(
            `${m.broker}:${replicaKey(m.topic, m.partition)}`,
            a.placement?.get(replicaKey(m.topic, m.partition))?.dir ?? null,
          );
    }
  }
  const dirsOf = new PartitionMap<string[]>();
  for (let i = 0; i < req.partitions.length; i++) {
    const p = req.partitions[i];
    if (p.logDirs) dirsOf.set(p.topic, p.partition, [...p.logDirs]);
  }

  // Sizes of the moves that copy (adding replicas) only, as the estimate and bytesTotal expect
  // (by position: no record of 100,000 sizes is built).
  const leaderSize = await sizesAsked;
  const sizeAt = (i: number): number | undefined => {
    const p = plan.partitions[i];
    const size = p.adding.length > 0 && p.leader !== null ? leaderSize[i] : NaN;
    return size === size ? size : undefined;
  };
  return { validated: { req, view, ongoing, plan, sizeAt, dirMoves, dirBrokers, currentDirs, dirsOf, healthRead } };
}
