// Step 2 of a start: what it will do. The throttle (given, or chosen for a deadline), the paced
// execution's first wave, the health interlocks' answer (created held: no first wave), the
// throttle lists of what is sent now, and the answer's own parts (estimate, rollback file, wave
// schedule), computed only when asked (a POST asks while Kafka handles its moves).
import {
  computeReassignmentThrottlesSteps,
  DEFAULT_PACING_ORDER,
  DEFAULT_THROTTLE_BOUNDS,
  estimateMoveSteps,
  formatReassignmentFileSteps,
  nextToStartSteps,
  PartitionMap,
  planWavesSteps,
  reassignmentThrottleConfigs,
  withLogDirThrottleConfigs,
  type ConcurrencyBounds,
  type PacedPartition,
  type PacingOrder,
  type ReassignmentThrottles,
} from '../../domain/reassignment/index.js';
import type { HoldState } from '../../domain/reassignment/health.js';
import { driveSteps } from '../../event-loop-turns.js';
import { replicaKey } from '../../kafka/kafka-admin.js';
import { initialDeadline } from '../../reconcile/deadline-pacing.js';
import type { DeadlineState } from '../../domain/reassignment/deadline.js';
import { healthAtStart } from './start-health.js';
import { concurrencyOf, type ValidatedStart } from './start-validate.js';
import { MAX_WAVES_SHOWN, type PlanView, type ServiceContext, type StartRequest } from './types.js';

/** A validated start with what it will do. */
export interface PlannedStart {
  /** The request, with the throttle a deadline chose. */
  readonly req: StartRequest;
  readonly deadline: { throttle: number; state: DeadlineState } | null;
  /** Paced execution's bounds (null: everything at once) and queue order. */
  readonly concurrency: ConcurrencyBounds | null;
  readonly order: PacingOrder;
  /** Set: the reassignment is created held (health interlocks), nothing is sent. */
  readonly heldAtStart: HoldState | undefined;
  /** Paced: the moves sent now (empty when held); null: every move is sent now. */
  readonly firstWave: readonly PacedPartition[] | null;
  readonly inFirstWave: PartitionMap<true>;
  /** Throttle lists of the moves sent now (null: unthrottled). */
  readonly throttles: ReassignmentThrottles | null;
  /** The answer's plan, computed once on the first call. */
  readonly planView: () => Promise<PlanView>;
}

export async function planStart(ctx: ServiceContext, v: ValidatedStart, pace: () => Promise<void>): Promise<PlannedStart> {
  const { view, ongoing, plan, sizeAt, dirMoves, dirBrokers, currentDirs } = v;
  let req = v.req;
  // finishBy: the first throttle from the plan's bytes per broker (the reconciler re-decides it every pass).
  const deadline: { throttle: number; state: DeadlineState } | null =
    req.finishBy === null
      ? null
      : initialDeadline(plan.partitions, sizeAt, {
          finishBy: req.finishBy,
          bounds: req.throttleBounds ?? DEFAULT_THROTTLE_BOUNDS,
          now: ctx.now(),
          bandwidth: ctx.d.bandwidthBytesPerSecond ?? null,
        });
  if (deadline) req = { ...req, throttle: deadline.throttle };
  // Paced execution (issue 9): only the first wave is sent now; the reconciler sends the rest.
  const concurrency = concurrencyOf(ctx, req);
  const order = req.order ?? DEFAULT_PACING_ORDER;
  const paced: (PacedPartition & { noOp: boolean })[] | null =
    concurrency === null
      ? null
      : plan.partitions.map((p, i) => ({
          topic: p.topic,
          partition: p.partition,
          currentReplicas: p.currentReplicas,
          leader: p.leader,
          targetReplicas: p.targetReplicas,
          sizeBytes: (sizeAt(i) ?? 0) * p.adding.length,
          state: 'queued' as const,
          noOp: p.noOp,
        }));
  // Health interlocks (issue 30): trouble the policy holds on -> created held, no first wave (start-health.ts).
  const atStart = await healthAtStart(ctx.health(), {
    safety: req.safety,
    paced: paced !== null,
    partitions: plan.partitions,
    moving: ongoing.moving,
    view,
    prefetched: v.healthRead,
  });
  const heldAtStart = req.validateOnly ? undefined : atStart.hold;
  const firstWave = heldAtStart
    ? []
    : paced && concurrency
      ? await driveSteps(
          nextToStartSteps(
            paced.filter((p) => !p.noOp),
            concurrency,
            order,
          ),
          pace,
        )
      : null;
  const inFirstWave = new PartitionMap<true>();
  for (const p of firstWave ?? []) inFirstWave.set(p.topic, p.partition, true);
  const moves = plan.partitions.filter((p) => !p.noOp);
  const sentNow = firstWave ? moves.filter((p) => inFirstWave.has(p.topic, p.partition)) : moves;
  const throttles = req.throttle === null ? null : await driveSteps(computeReassignmentThrottlesSteps(ongoing.moving, sentNow), pace);
  // What only the answer shows (estimate, rollback file, wave schedule, config strings): a
  // validateOnly computes it now; a POST while Kafka handles the moves, when the gateway is
  // mostly waiting (the write-ahead steps and the moves do not depend on it).
  const planViewNow = async (): Promise<PlanView> => {
    const estimate = await driveSteps(
      estimateMoveSteps(plan.partitions, (_, i) => sizeAt(i), { throttle: req.throttle, bandwidth: ctx.d.bandwidthBytesPerSecond ?? null }),
      pace,
    );
    const rollback = await driveSteps(formatReassignmentFileSteps(plan.rollback), pace);
    const schedule =
      paced && concurrency
        ? await driveSteps(
            planWavesSteps(
              paced.filter((p) => !p.noOp),
              concurrency,
              order,
              { throttle: req.throttle, bandwidth: ctx.d.bandwidthBytesPerSecond ?? null, maxWaves: MAX_WAVES_SHOWN },
            ),
            pace,
          )
        : null;
    return {
      partitions: plan.partitions,
      warnings: plan.warnings,
      throttle: req.throttle,
      throttleConfigs:
        throttles && req.throttle !== null
          ? withLogDirThrottleConfigs(reassignmentThrottleConfigs(throttles, req.throttle), dirBrokers, req.throttle)
          : [],
      estimate,
      rollback,
      pacing: concurrency && schedule ? { concurrency, order, schedule } : null,
      ...(dirMoves.length > 0 && {
        logDirMoves: dirMoves.map((m) => ({
          ...m,
          currentLogDir: currentDirs.get(`${m.broker}:${replicaKey(m.topic, m.partition)}`) ?? null,
        })),
      }),
      ...(atStart.warning && { healthWarning: atStart.warning }),
    };
  };
  let planViewAsked: Promise<PlanView> | null = null;
  const planView = (): Promise<PlanView> => (planViewAsked ??= planViewNow());
  return { req, deadline, concurrency, order, heldAtStart, firstWave, inFirstWave, throttles, planView };
}
