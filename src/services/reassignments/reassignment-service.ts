// Reassignments as the HTTP API sees them: plan, start, read, re-throttle, cancel, roll back.
// The rules (parsing, validation, throttle lists, estimates, progress) are the domain's
// (src/domain/reassignment); this file orders the I/O so that a crash at any step leaves
// nothing behind:
//
//   POST: validate everything -> write the reassignment record (pending, with its throttle
//   demand) -> throttle sync (ledger first, then configs) -> AlterPartitionReassignments ->
//   record running. The record is written before anything changes in the cluster, so any
//   instance's reconciler can finish or undo the job (see reconciler.ts for how a pending
//   record is resolved).
import { randomBytes } from 'node:crypto';
import {
  computeReassignmentThrottles,
  computeReassignmentThrottlesSteps,
  estimateMoveSteps,
  formatReassignmentFileSteps,
  nextToStartSteps,
  planWavesSteps,
  pacedEtaSeconds,
  DEFAULT_PACING_ORDER,
  type ConcurrencyBounds,
  type PacedPartition,
  type PacingOrder,
  type WaveSchedule,
  parseReassignmentRequestSteps,
  PartitionMap,
  reassignmentThrottleConfigs,
  STEP_ITEMS,
  throttleDemandFor,
  throttleDemandForSteps,
  topicPartitionOrderSteps,
  validateReassignmentSteps,
  checkLogDirMoves,
  logDirMoves,
  withLogDirThrottle,
  withLogDirThrottleConfigs,
  type LogDirMove,
  type FieldError,
  type OngoingPartitionReassignment,
  type PartitionError,
  type PartitionAssignment,
  type ReassignmentFile,
  type ReassignmentPlan,
  type SnapshotProgress,
  type ThrottleConfigSet,
  type MoveEstimate,
  type ThrottleDemand,
  type PlanWarning,
} from '../../domain/reassignment/index.js';
import type { KafkaAdmin } from '../../kafka/kafka-admin.js';
import { KafkaRequestError } from '../../kafka/errors.js';
import { kafkaErrorInfo } from '../../kafka/errors-map.js';
import { describeReplicaSizeColumns, describeReplicaSizes, replicaKey, replicaSizesRequest, slotOf, type ReplicaSizesRequest } from '../../kafka/log-dirs.js';
import { describePartitions, type TopicPartitions } from '../../kafka/partitions.js';
import { alterPartitionReassignments, listPartitionReassignments, type MovingPartition } from '../../kafka/reassignments.js';
import type { RecentRead } from '../../kafka/recent-read.js';
import { keptThrottles } from '../../reconcile/kept-throttles.js';
import { movesRead } from '../../reconcile/moves-read.js';
import { isCold, partitionCount } from '../../state/cold-partitions.js';
import { RECORD_VERSION, type PartitionState, type ReassignmentPartitionRecord, type ReassignmentRecord, type ThrottleRequestRecord } from '../../state/records.js';
import type { StateStore, StateView } from '../../state/store.js';
import { driveSteps } from '../../event-loop-turns.js';
import { boundedError, makePacer } from '../../state/layout.js';
import type { ReassignmentMetrics } from '../../observability/reassignment-metrics.js';
import { admitReassignment } from './admission.js';
import { crashPoint, type ReassignmentConfig } from '../../reconcile/config.js';
import { activePartitions, attributeMoves, isLive, PACE_EVERY, partitionId, partitionOwnersPaced } from '../../reconcile/ownership.js';
import type { ProgressTracker } from '../../reconcile/progress.js';
import type { ThrottleSync, ThrottleSyncResult } from '../../reconcile/throttle-sync.js';
import { pacingClaimResource, withRecordClaim, type Pacer } from '../../reconcile/pacer.js';
import { ClaimBusyError } from '../../state/fence.js';
import type { Safety } from '../../domain/reassignment/health.js';
import { checkFinishBy, DEFAULT_THROTTLE_BOUNDS } from '../../domain/reassignment/index.js';
import { initialDeadline } from '../../reconcile/deadline-pacing.js';
import type { Logger } from '../../observability/logger.js';
import { logDirBrokers } from '../../reconcile/log-dir-moves.js';
import { HealthInterlock } from '../../reconcile/health.js';
import { healthAtStart, type StartHealthWarning } from './start-health.js';

export interface ReassignmentDeps {
  kafka: KafkaAdmin;
  store: StateStore;
  throttles: ThrottleSync;
  progress: ProgressTracker;
  config: ReassignmentConfig;
  metrics?: ReassignmentMetrics;
  logger?: Logger;
  /** Starts the next wave of a paced reassignment (the reconciler's; PATCH uses it to resume at once). */
  pacer?: Pick<Pacer, 'advance'>;
  /** Unthrottled copy speed per broker when known (the embedded simulator's), for estimates. */
  bandwidthBytesPerSecond?: number | null;
  now?: () => number;
  /** Every move in the cluster as GET /reassignments reads it, shared with the reconciler's passes (movesRead). */
  movesRead?: RecentRead<MovingPartition[]>;
}


/** What validateOnly answers and a started reassignment reports. */
export interface PlanView {
  partitions: ReassignmentPlan['partitions'];
  warnings: readonly PlanWarning[];
  throttle: number | null;
  throttleConfigs: ThrottleConfigSet[];
  estimate: MoveEstimate;
  rollback: ReassignmentFile;
  /** Paced execution: the bounds, the order and the waves it would run (null = everything at once). */
  pacing: { concurrency: ConcurrencyBounds; order: PacingOrder; schedule: WaveSchedule } | null;
  /** Intra-broker moves (`log_dirs` other than "any"), with the dir each replica is in now (null = not hosted yet). */
  logDirMoves?: (LogDirMove & { currentLogDir: string | null })[];
  /** Health interlocks at the start: the cluster's trouble (held, or for validateOnly whether it would be). */
  healthWarning?: StartHealthWarning;
}

/** GET models the remaining waves of a paced reassignment up to this many open partitions (cost). */
export const PACED_ETA_MODEL_MAX = 20_000;

/** validateOnly lists at most this many waves (the duration covers all of them). */
export const MAX_WAVES_SHOWN = 100;

export type StartResult =
  | { kind: 'bad-request'; errors: readonly FieldError[] }
  /** Refused, nothing changed. `problem` says why (src/http maps it to a status). */
  | { kind: 'invalid'; problem: InvalidKind; errors: readonly PartitionError[] }
  | { kind: 'plan'; plan: PlanView }
  | { kind: 'started'; record: ReassignmentRecord; plan: PlanView }
  | { kind: 'start-failed'; record: ReassignmentRecord; plan: PlanView };

export interface PartitionStatus {
  topic: string;
  partition: number;
  originalReplicas: readonly number[];
  targetReplicas: readonly number[];
  status: 'pending' | 'moving' | 'done' | 'reverted' | 'failed' | 'superseded';
  replicas: readonly number[];
  adding: readonly number[];
  removing: readonly number[];
  error?: { code: number; name: string; message: string };
  supersededBy?: string;
}

export interface PartitionCounts {
  total: number;
  queued: number;
  moving: number;
  completed: number;
  failed: number;
  cancelled: number;
}

/**
 * Counts per state. Records are immutable (a change is a new object), so the counts of one are
 * computed once: GETs of a 100,000-partition reassignment do not walk it each time.
 */
export function countPartitions(r: ReassignmentRecord): PartitionCounts {
  const cached = countsOf.get(r);
  // A cold record (finished, its partitions packed: state/cold-partitions.ts) never changes: its
  // counts are kept without its unpacked array, which would otherwise stay alive with them.
  const cold = isCold(r);
  if (cached && (cold || cached.partitions === r.partitions) && cached.updatedAt === r.updatedAt) return { ...cached.counts };
  const ps = r.partitions;
  const c: PartitionCounts = { total: ps.length, queued: 0, moving: 0, completed: 0, failed: 0, cancelled: 0 };
  // Indexed: a for...of over 100,000 entries allocates an iterator result per entry until V8 optimizes it (run once per record).
  for (let i = 0; i < ps.length; i++) c[ps[i]!.state]++;
  countsOf.set(r, { partitions: cold ? null : ps, updatedAt: r.updatedAt, counts: c });
  return { ...c };
}
const countsOf = new WeakMap<ReassignmentRecord, { partitions: ReassignmentRecord['partitions'] | null; updatedAt: number; counts: PartitionCounts }>();

export interface ReassignmentDetail {
  record: ReassignmentRecord;
  counts: PartitionCounts;
  progress: SnapshotProgress;
}

/** One partition of GET /reassignments/{id}/partitions. */
export interface PartitionRow {
  topic: string;
  partition: number;
  state: PartitionState;
  originalReplicas: readonly number[];
  targetReplicas: readonly number[];
  replicas: readonly number[];
  addingReplicas: readonly number[];
  removingReplicas: readonly number[];
  bytesTotal: number | null;
  bytesDone: number | null;
  percent: number | null;
  error?: { code: number; name: string; message: string };
  supersededBy?: string;
}

export type PartitionPage = { kind: 'not-found' } | { kind: 'invalid-cursor' } | { kind: 'ok'; items: PartitionRow[]; next: string | null };

const encodeCursor = (topic: string, partition: number): string => Buffer.from(JSON.stringify([topic, partition])).toString('base64url');
function decodeCursor(c: string): [string, number] | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(c, 'base64url').toString());
    return Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && Number.isInteger(v[1]) ? [v[0], v[1] as number] : null;
  } catch {
    return null;
  }
}

export interface ReassignmentListing {
  /** Per record: how many of its partitions Kafka lists as moving, and (detail) which. */
  reassignments: { record: ReassignmentRecord; counts: PartitionCounts; progress: SnapshotProgress; movingCount: number; moving?: MovingPartition[] }[];
  /** Moves of reassignments started elsewhere: the first EXTERNAL_SHOWN (every one with detail). */
  external: MovingPartition[];
  externalCount: number;
}

/** External moves listed without detail (the rest are counted). */
const EXTERNAL_SHOWN = 1000;

interface ListAttribution {
  /** Per gateway reassignment: its partitions Kafka lists as moving. */
  counts: Map<string, number>;
  /** With detail: those partitions. */
  byId: Map<string, MovingPartition[]>;
  external: MovingPartition[];
  externalCount: number;
}

/**
 * The lean attribution of the list, kept per (moves read, owners) pair: pollers share one read
 * of what moves (RecentRead), and partitionOwners keeps its map while the live records are the
 * same, so the GETs that follow it count nothing again (100,000 moves: ~50 ms each otherwise).
 */
const leanAttributions = new WeakMap<readonly MovingPartition[], WeakMap<ReadonlyMap<string, string>, ListAttribution>>();

/** Kafka's moves grouped by owner for GET /reassignments, yielding to the event loop (`pace`) on the way. O(moves). */
async function attributeForList(moving: readonly MovingPartition[], owners: ReadonlyMap<string, string>, detail: boolean, pace: () => Promise<void>): Promise<ListAttribution> {
  const known = detail ? undefined : leanAttributions.get(moving)?.get(owners);
  if (known) return known;
  const counts = new Map<string, number>();
  const byId = new Map<string, MovingPartition[]>();
  const external: MovingPartition[] = [];
  let externalCount = 0;
  for (let i = 0; i < moving.length; i++) {
    if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
    const m = moving[i]!;
    const id = owners.get(partitionId(m.topic, m.partition));
    if (id === undefined) {
      if (detail || externalCount < EXTERNAL_SHOWN) external.push(m);
      externalCount++;
      continue;
    }
    counts.set(id, (counts.get(id) ?? 0) + 1);
    if (detail) {
      let list = byId.get(id);
      if (!list) byId.set(id, (list = []));
      list.push(m);
    }
  }
  const out = { counts, byId, external, externalCount };
  if (!detail) {
    let byOwners = leanAttributions.get(moving);
    if (!byOwners) leanAttributions.set(moving, (byOwners = new WeakMap()));
    byOwners.set(owners, out);
  }
  return out;
}

export type CancelResult =
  | { kind: 'not-found' }
  | { kind: 'done'; record: ReassignmentRecord; cancelled: { topic: string; partition: number }[]; rollback: StartResult | null };

/**
 * Why a request was refused: malformed (empty list, a partition twice), not-found (unknown
 * topic or partition), invalid (brokers, replication factor), conflict (only partitions
 * already moving under another reassignment).
 */
export type InvalidKind = 'malformed' | 'not-found' | 'invalid' | 'conflict';

/** Kind of a failed validation: malformed request > unknown topic/partition > invalid > conflict only. */
function validationKind(errors: readonly PartitionError[]): InvalidKind {
  const codes = new Set(errors.map((e) => e.code));
  if (codes.has('EMPTY_PARTITION_LIST') || codes.has('DUPLICATE_PARTITION')) return 'malformed';
  if (codes.has('UNKNOWN_TOPIC') || codes.has('UNKNOWN_PARTITION')) return 'not-found';
  if ([...codes].every((c) => c === 'REASSIGNMENT_CONFLICT')) return 'conflict';
  return 'invalid';
}

function newId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

const sameSet = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x) => b.includes(x));

export class ReassignmentService {
  readonly #d: ReassignmentDeps;
  readonly #now: () => number;
  /** What moves, as GET /reassignments reads it: shared by the GETs within POLLED_READ_MAX_AGE_MS (kafka/recent-read.ts). */
  readonly #moves: RecentRead<MovingPartition[]>;
  /** The health interlocks' read and decision, for the check before a first wave (start-health.ts). */
  #healthInterlock: HealthInterlock | undefined;

  constructor(deps: ReassignmentDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
    this.#moves = deps.movesRead ?? movesRead(deps.kafka);
  }

  #health(): HealthInterlock {
    const d = this.#d;
    return (this.#healthInterlock ??= new HealthInterlock({ kafka: d.kafka, store: d.store, config: d.config, now: this.#now, ...(d.metrics && { metrics: d.metrics }), ...(d.logger && { logger: d.logger }) }));
  }

  get deps(): ReassignmentDeps {
    return this.#d;
  }

  /** Every moving partition in the cluster, attributed to the gateway's live reassignments. */
  async ongoing(view?: StateView): Promise<{ moving: MovingPartition[]; attributed: OngoingPartitionReassignment[] }> {
    const moving = await listPartitionReassignments(this.#d.kafka);
    const v = view ?? (await this.#d.store.refresh());
    return { moving, attributed: attributeMoves(moving, v) };
  }

  // ------------------------------------------------------------------ POST /reassignments

  async start(body: unknown, requestedBy: string | null, opts: { rollbackOf?: string } = {}): Promise<StartResult> {
    // At 100,000 partitions every pass below is tens of ms: each runs in slices (Steps driven
    // by `pace`), so other requests and the reconciler are served meanwhile.
    const pace = makePacer(PACE_BUDGET_MS);
    const parsed = await driveSteps(parseReassignmentRequestSteps(body), pace);
    if (!parsed.ok) return { kind: 'bad-request', errors: parsed.errors };
    let req = parsed.request;
    // Deadline pacing (issue 30): a finishBy in the past or too close is refused before anything is read.
    const tooClose = req.finishBy === null ? null : checkFinishBy(req.finishBy, this.#now());
    if (tooClose) return { kind: 'bad-request', errors: [tooClose] };

    const view = await this.#d.store.refresh();
    const topicSet = new Set<string>();
    for (let i = 0; i < req.partitions.length; i++) topicSet.add(req.partitions[i]!.topic);
    const [placement, cluster, ongoing] = await Promise.all([this.#placement([...topicSet]), this.#d.kafka.describeCluster(), this.ongoing(view)]);
    // Leader sizes (estimate, bytesTotal) are asked for now and arrive while the request is
    // validated; a validation failure discards them (nothing waits on a rejected promise).
    const sizesAsked = this.#leaderSizes(placement, req.partitions, ongoing.moving, pace);
    sizesAsked.catch(() => undefined);
    const validation = await driveSteps(
      validateReassignmentSteps(
        { liveBrokers: cluster.brokers.map((b) => b.id), topics: placement.map((t) => ({ name: t.name, partitions: t.partitions })), ongoing: ongoing.attributed },
        { partitions: req.partitions, addToExisting: req.addToExisting },
      ),
      pace,
    );
    if (!validation.ok) return { kind: 'invalid', problem: validationKind(validation.errors), errors: validation.errors };
    const plan = validation.plan;
    // A valid plan has one partition per requested one, in request order: sizes go by position.
    if (plan.partitions.length !== req.partitions.length) throw new Error(`plan of ${plan.partitions.length} partitions for ${req.partitions.length} requested`);

    // Intra-broker moves: the dirs must exist on their broker and be online (57/56 before anything changes).
    const dirMoves = logDirMoves(req.partitions);
    const dirBrokers = [...new Set(dirMoves.map((m) => m.broker))].sort((a, b) => a - b);
    const currentDirs = new Map<string, string | null>();
    if (dirMoves.length > 0) {
      const answers = await describeReplicaSizes(this.#d.kafka, dirBrokers, dirMoves, { placement: true });
      const firstIndex = new Map<string, number>();
      req.partitions.forEach((p, i) => firstIndex.has(partitionId(p.topic, p.partition)) || firstIndex.set(partitionId(p.topic, p.partition), i));
      const errors = checkLogDirMoves(
        dirMoves,
        answers.flatMap((a) => (a.ok && a.dirs ? [{ broker: a.broker, dirs: a.dirs }] : [])),
        (tp) => firstIndex.get(partitionId(tp.topic, tp.partition)) ?? null,
      );
      if (errors.length > 0) return { kind: 'invalid', problem: 'invalid', errors };
      for (const a of answers) {
        if (!a.ok) continue;
        for (const m of dirMoves) if (m.broker === a.broker) currentDirs.set(`${m.broker}:${replicaKey(m.topic, m.partition)}`, a.placement?.get(replicaKey(m.topic, m.partition))?.dir ?? null);
      }
    }
    const dirsOf = new PartitionMap<string[]>();
    for (let i = 0; i < req.partitions.length; i++) {
      const p = req.partitions[i]!;
      if (p.logDirs) dirsOf.set(p.topic, p.partition, [...p.logDirs]);
    }

    const moves = plan.partitions.filter((p) => !p.noOp);
    // Sizes of the moves that copy (adding replicas) only, as the estimate and bytesTotal expect
    // (by position: no record of 100,000 sizes is built).
    const leaderSize = await sizesAsked;
    const sizeAt = (i: number): number | undefined => {
      const p = plan.partitions[i]!;
      const size = p.adding.length > 0 && p.leader !== null ? leaderSize[i]! : NaN;
      return size === size ? size : undefined;
    };
    // finishBy: the first throttle from the plan's bytes per broker (the reconciler re-decides it every pass).
    const deadline = req.finishBy === null ? null : initialDeadline(plan.partitions, sizeAt, { finishBy: req.finishBy, bounds: req.throttleBounds ?? DEFAULT_THROTTLE_BOUNDS, now: this.#now(), bandwidth: this.#d.bandwidthBytesPerSecond ?? null });
    if (deadline) req = { ...req, throttle: deadline.throttle };
    // Paced execution (issue 9): only the first wave is sent now; the reconciler sends the rest.
    const concurrency = req.concurrency ?? this.#d.config.defaultConcurrency ?? null;
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
    const atStart = await healthAtStart(this.#health(), { safety: req.safety, paced: paced !== null, partitions: plan.partitions, moving: ongoing.moving, view });
    const heldAtStart = req.validateOnly ? undefined : atStart.hold;
    const firstWave = heldAtStart ? [] : paced && concurrency ? await driveSteps(nextToStartSteps(paced.filter((p) => !p.noOp), concurrency, order), pace) : null;
    const inFirstWave = new PartitionMap<true>();
    for (const p of firstWave ?? []) inFirstWave.set(p.topic, p.partition, true);
    const sentNow = firstWave ? moves.filter((p) => inFirstWave.has(p.topic, p.partition)) : moves;
    const throttles = req.throttle === null ? null : await driveSteps(computeReassignmentThrottlesSteps(ongoing.moving, sentNow), pace);
    // What only the answer shows (estimate, rollback file, wave schedule, config strings): a
    // validateOnly computes it now; a POST while Kafka handles the moves, when the gateway is
    // mostly waiting (the write-ahead steps and the moves do not depend on it).
    const planViewNow = async (): Promise<PlanView> => {
      const estimate = await driveSteps(estimateMoveSteps(plan.partitions, (_, i) => sizeAt(i), { throttle: req.throttle, bandwidth: this.#d.bandwidthBytesPerSecond ?? null }), pace);
      const rollback = await driveSteps(formatReassignmentFileSteps(plan.rollback), pace);
      const schedule =
        paced && concurrency
          ? await driveSteps(planWavesSteps(paced.filter((p) => !p.noOp), concurrency, order, { throttle: req.throttle, bandwidth: this.#d.bandwidthBytesPerSecond ?? null, maxWaves: MAX_WAVES_SHOWN }), pace)
          : null;
      return {
        partitions: plan.partitions,
        warnings: plan.warnings,
        throttle: req.throttle,
        throttleConfigs: throttles && req.throttle !== null ? withLogDirThrottleConfigs(reassignmentThrottleConfigs(throttles, req.throttle), dirBrokers, req.throttle) : [],
        estimate,
        rollback,
        pacing: concurrency && schedule ? { concurrency, order, schedule } : null,
        ...(dirMoves.length > 0 && { logDirMoves: dirMoves.map((m) => ({ ...m, currentLogDir: currentDirs.get(`${m.broker}:${replicaKey(m.topic, m.partition)}`) ?? null })) }),
        ...(atStart.warning && { healthWarning: atStart.warning }),
      };
    };
    if (req.validateOnly) return { kind: 'plan', plan: await planViewNow() };
    let planViewAsked: Promise<PlanView> | null = null;
    const planView = (): Promise<PlanView> => (planViewAsked ??= planViewNow());

    // 1. Write-ahead: the record (with its throttle demand) before anything changes.
    const now = this.#now();
    const id = newId('r');
    // The record holds the plan's shared replica lists (replica-list.ts): ~23 MiB less per 100k record.
    // Each partition is written ahead as a successful start leaves it (sent: moving since now;
    // a paced no-op: completed; the rest of a paced plan: queued), so the write once Kafka
    // answered rewrites only the chunks of partitions it refused: at 100,000 partitions a header
    // instead of ~10 MB again (~0.25 s of a POST). While the record is pending, its moving
    // partitions are being sent; a start that fails before sending ends them cancelled (#failBeforeSending),
    // a writer that dies is resolved from Kafka's state by the reconciler (queued or moving alike).
    const recordPartitions: ReassignmentPartitionRecord[] = new Array(plan.partitions.length);
    for (let i = 0; i < plan.partitions.length; i++) {
      const p = plan.partitions[i]!;
      const size = sizeAt(i);
      const bytesTotal = size === undefined ? null : size * p.adding.length;
      const logDirs = dirsOf.size > 0 ? dirsOf.get(p.topic, p.partition) : undefined;
      const original = p.currentReplicas;
      const target = p.targetReplicas;
      const sent = !firstWave || inFirstWave.has(p.topic, p.partition);
      // A paced no-op is at its target already (not sent); one with dir moves waits for them.
      const state: PartitionState = sent ? 'moving' : p.noOp ? (logDirs ? 'moving' : 'completed') : 'queued';
      const entry: ReassignmentPartitionRecord = logDirs
        ? { topic: p.topic, partition: p.partition, original, target, state, bytesTotal, logDirs }
        : { topic: p.topic, partition: p.partition, original, target, state, bytesTotal };
      if (state !== 'queued') entry.startedAt = now;
      if (state === 'completed') entry.endedAt = now;
      recordPartitions[i] = entry;
      if (i % STEP_ITEMS === 0) await pace();
    }
    let record: ReassignmentRecord = {
      kind: 'reassignment',
      v: RECORD_VERSION,
      id,
      state: 'pending',
      partitions: recordPartitions,
      concurrency: concurrency && { perBroker: concurrency.perBroker, cluster: concurrency.cluster },
      order: concurrency ? order : 'as-given',
      paused: false,
      throttle: req.throttle,
      autoRemoveThrottle: req.autoRemoveThrottle,
      // Preferred leader elections as partitions complete (leader-elections.ts); every rollback elects.
      ...((req.electLeaders || opts.rollbackOf) && { electLeaders: true }),
      ...(deadline && { deadline: deadline.state }),
      throttleDemand: throttles && req.throttle !== null ? withLogDirThrottle(await driveSteps(throttleDemandForSteps(throttles, req.throttle), pace), dirBrokers, req.throttle) : null,
      owner: this.#d.config.instanceId,
      requestedBy,
      ...(opts.rollbackOf && { rollbackOf: opts.rollbackOf }),
      // Where it came from (a plan's goal, the caller's label): header only, a few hundred bytes at most.
      ...(req.origin && { origin: req.origin }),
      // Health interlocks (issue 30): the caller's policy, when given (absent = DEFAULT_SAFETY).
      ...(req.safety && { safety: req.safety }),
      ...(heldAtStart && { hold: heldAtStart }),
      createdAt: now,
      startDeadline: now + this.#d.config.startTimeoutMs,
      updatedAt: now,
    };
    // Two instances may admit overlapping requests at once: the state topic decides (admission.ts).
    const validated = new Map([...view.reassignments.values()].filter(isLive).map((r) => [r.id, r.state]));
    const admitted = await admitReassignment(this.#d.store, { id, owner: this.#d.config.instanceId, partitions: record.partitions, addToExisting: req.addToExisting, validated }, pace);
    if (!admitted.ok) return { kind: 'invalid', problem: 'conflict', errors: admitted.errors };
    // The order pages are served in, computed here in the start's slices rather than by the
    // first page GET, which tends to come right after the start, while the first pass over the
    // new moves runs and clients poll.
    await this.#order(record, pace);
    // addToExisting: partitions another gateway reassignment was moving are this one's now.
    const superseded = await this.#supersede(admitted.view, record, pace);
    await this.#d.store.release(admitted.claim, [record, ...superseded]);

    // 2. Throttles: ledger first, then the configs (inside the sync).
    if (record.throttleDemand) {
      // The ledger write and then the config write happen inside (crash-test hooks there).
      const sync = await this.#d.throttles.sync();
      const ours = sync.failures.filter((f) => this.#demandNames(record.throttleDemand!, f.resource));
      if (ours.length > 0) {
        // Do not move unthrottled what the caller wanted throttled: give up, undo the throttles.
        record = await this.#failBeforeSending(record, `could not set throttles: ${ours.map((f) => `${f.resource}: ${f.error.name}`).join('; ')}`);
        await this.#d.throttles.sync().catch(() => undefined);
        const first = ours[0]!.error;
        throw new KafkaRequestError(first.code === 13 || first.code === 7 ? 'unavailable' : 'kafka', first);
      }
    }

    // 3. Start, unless we are so late that a reconciler may already be resolving the record.
    // Cancelled meanwhile (DELETE on any instance reads the pending record): do not start it.
    const latest = (await this.#d.store.refresh()).reassignments.get(record.id);
    if (latest && latest.state !== 'pending') return { kind: 'start-failed', record: latest, plan: await planView() };
    if (this.#now() >= record.startDeadline) {
      record = await this.#failBeforeSending(record, 'start deadline passed before the reassignment could be started');
      await this.#d.throttles.sync().catch(() => undefined);
      return { kind: 'start-failed', record, plan: await planView() };
    }
    // Intra-broker moves first (kafka-reassign-partitions.sh sends them too): a broker that hosts
    // the replica starts copying; one that does not yet answers 9 and remembers the dir (the
    // reconciler re-sends it once the reassignment created the replica). Other errors fail the partition.
    const dirFailed = new PartitionMap<{ code: number; name: string; message: string }>();
    if (dirMoves.length > 0) {
      for (const r of await this.#d.kafka.alterReplicaLogDirs(dirMoves)) {
        if (r.ok || r.error.code === REPLICA_NOT_AVAILABLE) continue;
        if (!dirFailed.has(r.topic, r.partition)) dirFailed.set(r.topic, r.partition, { code: r.error.code, name: r.error.name, message: `AlterReplicaLogDirs ${r.logDir} on broker ${r.broker}: ${r.error.message}` });
      }
    }
    // Paced: the first wave only (a paced no-op is at its target already: completed, not sent).
    const send: ReassignmentPartitionRecord[] = [];
    for (let i = 0; i < record.partitions.length; i++) {
      const p = record.partitions[i]!;
      if ((!firstWave || inFirstWave.has(p.topic, p.partition)) && (dirFailed.size === 0 || !dirFailed.has(p.topic, p.partition))) send.push(p);
      if (i % STEP_ITEMS === 0) await pace();
    }
    // In requests of at most ALTER_BATCH partitions: each is encoded and decoded in one go, so
    // one request for 100,000 would hold the event loop for hundreds of ms. Kafka handles each
    // partition of a request on its own anyway; a failure between two requests leaves the
    // record pending like a failure of one request does (the reconciler resolves it).
    // Up to ALTER_IN_FLIGHT requests at once: one is encoded while Kafka handles another.
    const batches: { topic: string; partition: number; replicas: readonly number[] }[][] = [];
    // Held at the start: nothing is sent (not even an empty request).
    for (let from = 0; from < send.length || (from === 0 && !heldAtStart); from += ALTER_BATCH) {
      const batch: { topic: string; partition: number; replicas: readonly number[] }[] = [];
      for (let i = from; i < Math.min(send.length, from + ALTER_BATCH); i++) batch.push({ topic: send[i]!.topic, partition: send[i]!.partition, replicas: send[i]!.target });
      batches.push(batch);
      await pace();
    }
    // The answer's own parts are computed while the requests are out (a failure below: nobody waits on it).
    planView().catch(() => undefined);
    const answers: Awaited<ReturnType<typeof alterPartitionReassignments>>[] = new Array(batches.length);
    let results: Awaited<ReturnType<typeof alterPartitionReassignments>>;
    try {
      let next = 0;
      let failed = false;
      const sender = async (): Promise<void> => {
        while (next < batches.length && !failed) {
          const k = next++;
          try {
            answers[k] = await alterPartitionReassignments(this.#d.kafka, batches[k]!);
          } catch (err) {
            failed = true; // no further request once one failed
            throw err;
          }
          await pace();
        }
      };
      await Promise.all(Array.from({ length: Math.min(ALTER_IN_FLIGHT, batches.length) }, sender));
      results = answers.flat();
    } catch (err) {
      // Unknown whether Kafka started it: leave the record pending; the reconciler resolves it
      // from what Kafka shows after the start deadline.
      throw err;
    }
    crashPoint(this.#d.config, 'reassignment-start');

    // Refusals only: an accepted partition and one Kafka did not answer for are both moving (as
    // written ahead), so no map of 100,000 answers.
    const byKey = new PartitionMap<(typeof results)[number]>();
    for (let i = 0; i < results.length; i++) if (!results[i]!.ok) byKey.set(results[i]!.topic, results[i]!.partition, results[i]!);
    // The partitions were written ahead as started: only those refused (by AlterReplicaLogDirs
    // or by Kafka) change, so only their chunks are written again.
    const refusedAt = this.#now();
    let partitions: readonly ReassignmentPartitionRecord[] = record.partitions;
    if (dirFailed.size > 0 || byKey.size > 0) {
      const changed: ReassignmentPartitionRecord[] = new Array(record.partitions.length);
      for (let i = 0; i < record.partitions.length; i++) {
        const p = record.partitions[i]!;
        const refused = (dirFailed.size > 0 ? dirFailed.get(p.topic, p.partition) : undefined) ?? (byKey.size > 0 ? failureOf(byKey.get(p.topic, p.partition)) : undefined);
        changed[i] = refused ? refusedAtStart(p, refusedAt, refused) : p;
        if (i % STEP_ITEMS === 0) await pace();
      }
      partitions = changed;
    }
    // Paced: still running while anything is queued (the reconciler starts it) even if this wave was refused.
    const started = partitions.some((p) => !p.startError && (p.state === 'moving' || p.state === 'queued' || p.state === 'completed'));
    const outcome = { partitions, state: started ? ('running' as const) : ('failed' as const), startedAt: this.#now(), updatedAt: this.#now(), ...(!started && { reason: 'Kafka refused every partition', endedAt: this.#now() }) };
    // Under the record's claim, over the record as it is now: a PATCH made while it was pending
    // (throttle, paused, concurrency) is kept; a cancel or an adoption meanwhile is not overwritten.
    const written = await withRecordClaim(this.#d.store, { owner: this.#d.config.instanceId, ttlMs: this.#d.config.pacingLeaseMs, purpose: 'start', waitMs: this.#d.config.pacingLeaseMs + 1000 }, record.id, async () => {
      const fresh = (await this.#d.store.refresh()).reassignments.get(record.id) ?? record;
      if (fresh.state !== 'pending') return { result: fresh };
      const next: ReassignmentRecord = { ...fresh, ...outcome };
      return { result: next, values: [next] };
    });
    if (!written.granted) {
      // Not written without the claim: the reconciler resolves the pending record from what
      // Kafka shows (REASSIGNMENT_START_TIMEOUT_MS), as after a crash of this instance here.
      this.#d.logger?.warn('start: record claim not had in time; the reconciler will record the outcome', { reassignment: record.id });
      record = { ...record, ...outcome };
    } else record = written.result;
    if (heldAtStart && record.state === 'running' && record.hold) this.#health().announceHeld(record.id, record.hold);
    if (record.state === 'running' || record.state === 'completed') return { kind: 'started', record, plan: await planView() };
    await this.#d.throttles.sync().catch(() => undefined);
    return { kind: 'start-failed', record, plan: await planView() };
  }

  /** Records of other live reassignments whose partitions `next` takes over (addToExisting). */
  async #supersede(view: StateView, next: ReassignmentRecord, pace: () => Promise<void>): Promise<ReassignmentRecord[]> {
    const others = [...view.reassignments.values()].filter((r) => isLive(r) && r.id !== next.id);
    if (others.length === 0) return [];
    const taken = new PartitionMap<true>();
    for (let i = 0; i < next.partitions.length; i++) {
      taken.set(next.partitions[i]!.topic, next.partitions[i]!.partition, true);
      if (i % STEP_ITEMS === 0) await pace();
    }
    const out: ReassignmentRecord[] = [];
    for (const r of others) {
      if (!activePartitions(r).some((p) => taken.has(p.topic, p.partition))) continue;
      out.push({
        ...r,
        partitions: r.partitions.map((p) =>
          !p.supersededBy && p.state !== 'failed' && taken.has(p.topic, p.partition) ? { ...p, supersededBy: next.id, ...(p.state !== 'completed' && { state: 'cancelled' as const, endedAt: next.createdAt }) } : p,
        ),
        updatedAt: next.createdAt,
      });
      await pace();
    }
    return out;
  }

  #demandNames(demand: ThrottleDemand, resource: string): boolean {
    const [kind, ...rest] = resource.split('/');
    const name = rest.join('/');
    return kind === 'topic' ? name in demand.topics : name in demand.brokers;
  }

  /** Ends a start that failed before anything was sent to Kafka. */
  async #failBeforeSending(record: ReassignmentRecord, reason: string): Promise<ReassignmentRecord> {
    const now = this.#now();
    const next: ReassignmentRecord = { ...record, partitions: notStarted(record.partitions, now), state: 'failed', endedAt: now, updatedAt: now, reason };
    await this.#d.store.write([next]);
    return next;
  }

  /**
   * describePartitions in requests of METADATA_TOPICS topics, all in flight at once: each answer
   * is decoded on its own turn of the event loop (one Metadata answer for 100 topics of 1000
   * partitions is hundreds of ms of decoding in one go). The same list as one request gives:
   * topics sorted by name (the chunks are cut from the sorted names).
   */
  async #placement(topics: string[]): Promise<TopicPartitions[]> {
    if (topics.length <= METADATA_TOPICS) return describePartitions(this.#d.kafka, topics);
    const sorted = [...topics].sort();
    const chunks: string[][] = [];
    for (let i = 0; i < sorted.length; i += METADATA_TOPICS) chunks.push(sorted.slice(i, i + METADATA_TOPICS));
    return (await Promise.all(chunks.map((c) => describePartitions(this.#d.kafka, c)))).flat();
  }

  /**
   * partition_size of each requested partition on its current leader (for estimates), by
   * position in `requested` (NaN = not asked or not answered): one DescribeLogDirs per leader,
   * naming only the partitions it leads (a broker answers every replica it hosts of the
   * partitions named: a third of the bytes to decode at RF 3).
   */
  async #leaderSizes(
    placement: readonly TopicPartitions[],
    requested: readonly PartitionAssignment[],
    moving: readonly MovingPartition[],
    pace: () => Promise<void>,
  ): Promise<Float64Array> {
    // Kafka lists a topic's partitions in id order, so partition k is usually at index k: a map
    // of the topic's partitions is built only for a topic where it is not.
    type Placed = TopicPartitions['partitions'][number];
    const listed = new Map<string, readonly Placed[]>();
    for (const t of placement) listed.set(t.name, t.partitions);
    const indexed = new Map<string, Map<number, Placed>>();
    const placed = (topic: string, partition: number): Placed | undefined => {
      const list = listed.get(topic);
      if (list === undefined) return undefined;
      const atIndex = list[partition];
      if (atIndex !== undefined && atIndex.partition === partition) return atIndex;
      let m = indexed.get(topic);
      if (m === undefined) {
        m = new Map();
        for (const p of list) m.set(p.partition, p);
        indexed.set(topic, m);
      }
      return m.get(partition);
    };
    const isMoving = new PartitionMap<true>();
    for (let i = 0; i < moving.length; i++) isMoving.set(moving[i]!.topic, moving[i]!.partition, true);
    // Per leader: the partitions to name, and their positions in `requested`.
    // The requested entries themselves name them (a { topic, partition } each, no new object).
    const byLeader = new Map<number, { partitions: PartitionAssignment[]; at: number[] }>();
    for (let i = 0; i < requested.length; i++) {
      const { topic, partition, replicas } = requested[i]!;
      const p = placed(topic, partition);
      if (i % STEP_ITEMS === 0) await pace();
      if (p === undefined || p.leader < 0) continue;
      // Only what may copy: a target broker the partition does not have, or a partition moving
      // now (its replicas include the running move's adding ones). No-ops and reorders ask nothing.
      let mayCopy = isMoving.size > 0 && isMoving.has(topic, partition);
      for (let j = 0; j < replicas.length && !mayCopy; j++) mayCopy = !p.replicas.includes(replicas[j]!);
      if (!mayCopy) continue;
      // (A partition named twice is asked twice: the request is refused anyway.)
      let list = byLeader.get(p.leader);
      if (!list) byLeader.set(p.leader, (list = { partitions: [], at: [] }));
      list.partitions.push(requested[i]!);
      list.at.push(i);
    }
    const out = new Float64Array(requested.length).fill(NaN);
    if (byLeader.size === 0) return out;
    // One request at a time is encoded, with a turn of the event loop between them; all are in flight together.
    const asked: Promise<{ broker: number; partitions: PartitionAssignment[]; at: number[]; a: Awaited<ReturnType<typeof describeReplicaSizes>> }>[] = [];
    for (const [broker, { partitions, at }] of byLeader) {
      const answer = describeReplicaSizes(this.#d.kafka, [broker], partitions).then((a) => ({ broker, partitions, at, a }));
      answer.catch(() => undefined); // a failure while the next one is encoded is not unhandled: Promise.all below reports it
      asked.push(answer);
      await pace();
    }
    for (const { broker, partitions, at, a } of await Promise.all(asked)) {
      const sizes = a.find((x) => x.ok && x.broker === broker) as { sizes: Map<string, number> } | undefined;
      if (!sizes) continue;
      for (let i = 0; i < partitions.length; i++) {
        const { topic, partition } = partitions[i]!;
        const size = sizes.sizes.get(replicaKey(topic, partition));
        if (size !== undefined) out[at[i]!] = size;
        if (i % STEP_ITEMS === 0) await pace();
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ reads

  /**
   * GET /reassignments: every record with the count of its partitions Kafka lists as moving;
   * with `detail`, those partitions too and every external move. Kafka is read before the
   * state topic: a start writes its record before it moves anything, so every gateway move
   * read here has its record in the view. At 100,000 moves the attribution yields to the
   * event loop (partitionOwnersPaced), and without detail nothing per partition is kept.
   */
  async list(opts: { detail?: boolean } = {}): Promise<ReassignmentListing> {
    const detail = opts.detail ?? false;
    const pace = makePacer(PACE_BUDGET_MS);
    const moving = await this.#moves.get();
    const view = await this.#d.store.refresh();
    const owners = await partitionOwnersPaced(view, pace);
    const { counts, byId, external, externalCount } = await attributeForList(moving, owners, detail, pace);
    const records = [...view.reassignments.values()].sort((a, b) => Number(isLive(b)) - Number(isLive(a)) || b.createdAt - a.createdAt);
    const reassignments: ReassignmentListing['reassignments'] = [];
    for (const record of records) {
      // Counts and bytes (brief: cached per record; a finished one unpacks its packed partitions
      // once, 10-20 ms at 100,000), yielding between records.
      reassignments.push({ ...this.brief(record), movingCount: counts.get(record.id) ?? 0, ...(detail && { moving: byId.get(record.id) ?? [] }) });
      await pace();
    }
    return {
      reassignments,
      external,
      externalCount,
    };
  }

  /** The summary of a record in hand (counts, progress from the shared snapshots). */
  summarize(record: ReassignmentRecord): ReassignmentDetail {
    const progress = this.#d.progress.progress(record);
    return { record, counts: countPartitions(record), progress: record.concurrency && record.state === 'running' && progress.etaSeconds !== 0 ? { ...progress, etaSeconds: this.#pacedEta(record, progress) } : progress };
  }

  /**
   * The summary of a record without the paced ETA model (the plain bytes-left-over-rate ETA):
   * counts and byte totals are cached per record, progress reads the shared snapshots, so a
   * list of every record or a stream hub's pass over them costs no walk of unchanged records.
   */
  brief(record: ReassignmentRecord): ReassignmentDetail {
    return { record, counts: countPartitions(record), progress: this.#d.progress.progress(record) };
  }

  /**
   * ETA of a paced reassignment with its queue (pacing.ts): the moves in flight (their share of
   * the bytes done so far) then the waves still to run, at the throttle (or known bandwidth).
   * Above PACED_ETA_MODEL_MAX partitions (or without a rate): remaining bytes ÷ observed rate.
   */
  #pacedEta(record: ReassignmentRecord, progress: SnapshotProgress): number | null {
    let completedBytes = 0;
    let movingBytes = 0;
    for (const p of record.partitions) {
      if (p.supersededBy) continue;
      if (p.state === 'completed') completedBytes += p.bytesTotal ?? 0;
      else if (p.state === 'moving') movingBytes += p.bytesTotal ?? 0;
    }
    const movingDone = Math.max(0, Math.min(movingBytes, progress.bytesDone - completedBytes));
    const share = movingBytes > 0 ? movingDone / movingBytes : 0;
    const parts: PacedPartition[] = activePartitions(record)
      .filter((p) => p.state === 'queued' || p.state === 'moving')
      .map((p) => {
        const adding = p.target.filter((b) => !p.original.includes(b)).length;
        const size = adding > 0 ? (p.bytesTotal ?? 0) / adding : 0;
        return { topic: p.topic, partition: p.partition, currentReplicas: p.original, leader: null, targetReplicas: p.target, sizeBytes: size, state: p.state, bytesDone: p.state === 'moving' ? size * share : 0 };
      });
    const model = parts.length <= PACED_ETA_MODEL_MAX;
    const eta = pacedEtaSeconds(parts, record.concurrency!, record.order, {
      throttle: model ? record.throttle : null,
      bandwidth: model ? (this.#d.bandwidthBytesPerSecond ?? null) : null,
      observedBytesPerSecond: progress.bytesPerSecond,
    });
    return eta === null ? progress.etaSeconds : Math.ceil(eta);
  }

  /** The summary of one reassignment: no Kafka request, O(partitions) (counts), progress from the shared snapshots. */
  async get(id: string): Promise<ReassignmentDetail | null> {
    const view = await this.#d.store.refresh();
    const record = view.reassignments.get(id);
    if (!record) return null;
    return { record, counts: countPartitions(record), progress: this.#d.progress.progress(record) };
  }

  /**
   * One page of a reassignment's partitions in (topic, partition) order, from `cursor` (the
   * last (topic, partition) of the previous page, opaque to callers). The order never changes
   * for a record, so pages are stable while partitions change state. Live data (replicas,
   * adding/removing, bytes copied) only for the page's moving partitions: one
   * ListPartitionReassignments and one DescribeLogDirs per broker hosting their adding replicas.
   */
  async partitionsPage(id: string, q: { state: PartitionState | 'all'; limit: number; cursor: string | null }): Promise<PartitionPage> {
    const view = await this.#d.store.refresh();
    const record = view.reassignments.get(id);
    if (!record) return { kind: 'not-found' };
    let after: [string, number] | null = null;
    if (q.cursor !== null) {
      after = decodeCursor(q.cursor);
      if (!after) return { kind: 'invalid-cursor' };
    }
    const order = await this.#order(record, makePacer(PACE_BUDGET_MS));
    const parts = record.partitions;
    // First index past the cursor (binary search over the (topic, partition) order).
    let lo = 0;
    if (after) {
      let hi = order.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const p = parts[order[mid]!]!;
        if (p.topic < after[0] || (p.topic === after[0] && p.partition <= after[1])) lo = mid + 1;
        else hi = mid;
      }
    }
    const picked: ReassignmentPartitionRecord[] = [];
    let more = false;
    for (let i = lo; i < order.length; i++) {
      const p = parts[order[i]!]!;
      if (q.state !== 'all' && p.state !== q.state) continue;
      if (picked.length === q.limit) {
        more = true;
        break;
      }
      picked.push(p);
    }
    const movingHere = picked.filter((p) => p.state === 'moving');
    const live = new Map<string, MovingPartition>();
    // Per broker: the request naming the page's partitions it adds, and their sizes on it by slot.
    const sizes = new Map<number, { request: ReplicaSizesRequest; sizes: Float64Array }>();
    if (movingHere.length) {
      // Both at once; each broker is asked only about the partitions it is adding.
      const byBroker = new Map<number, ReassignmentPartitionRecord[]>();
      for (const p of movingHere) {
        for (const b of p.target) {
          if (p.original.includes(b)) continue;
          let list = byBroker.get(b);
          if (!list) byBroker.set(b, (list = []));
          if (list.at(-1) !== p) list.push(p);
        }
      }
      // On connections of their own: not behind a pass's big requests to the same brokers.
      const kafka = this.#d.kafka.interactive?.() ?? this.#d.kafka;
      const [moves, answers] = await Promise.all([
        listPartitionReassignments(kafka, movingHere),
        Promise.all(
          [...byBroker].map(async ([b, parts]) => {
            const request = await replicaSizesRequest(parts);
            return { request, answers: await describeReplicaSizeColumns(kafka, [b], request) };
          }),
        ),
      ]);
      for (const m of moves) live.set(partitionId(m.topic, m.partition), m);
      for (const { request, answers: a } of answers) for (const x of a) if (x.ok) sizes.set(x.broker, { request, sizes: x.sizes });
    }
    /** Bytes of p's replica on broker b (0 if b did not answer or has none; b was asked about p if it adds it). */
    const sizeOn = (b: number, p: ReassignmentPartitionRecord): number => {
      const on = sizes.get(b);
      const slot = on ? slotOf(on.request.keys, p.topic, p.partition) : -1;
      const size = slot < 0 ? NaN : on!.sizes[slot]!;
      return size === size ? size : 0;
    };
    const items = picked.map((p): PartitionRow => {
      const adding = p.target.filter((b) => !p.original.includes(b));
      const total = p.bytesTotal ?? null;
      let done: number | null;
      let replicas: readonly number[];
      let addingReplicas: readonly number[] = [];
      let removingReplicas: readonly number[] = [];
      if (p.state === 'moving') {
        const m = live.get(partitionId(p.topic, p.partition));
        replicas = m ? m.replicas : [...p.target, ...p.original.filter((b) => !p.target.includes(b))];
        addingReplicas = m ? m.adding : adding;
        removingReplicas = m ? m.removing : p.original.filter((b) => !p.target.includes(b));
        const share = total === null ? null : total / Math.max(1, adding.length);
        done = share === null ? null : Math.round(adding.reduce((n, b) => n + Math.min(share, sizeOn(b, p)), 0));
      } else {
        replicas = p.state === 'completed' ? p.target : p.original;
        done = p.state === 'completed' ? total : p.state === 'queued' ? 0 : null;
      }
      const percent = p.state === 'completed' ? 100 : total === null || done === null ? null : total === 0 ? (p.state === 'moving' ? 0 : 100) : Math.floor((Math.min(done, total) / total) * 10_000) / 100;
      return {
        topic: p.topic,
        partition: p.partition,
        state: p.state,
        originalReplicas: p.original,
        targetReplicas: p.target,
        replicas,
        addingReplicas,
        removingReplicas,
        bytesTotal: total,
        bytesDone: done,
        percent,
        ...(p.startError && { error: p.startError }),
        ...(p.supersededBy && { supersededBy: p.supersededBy }),
      };
    });
    const last = picked.at(-1);
    return { kind: 'ok', items, next: more && last ? encodeCursor(last.topic, last.partition) : null };
  }

  /**
   * Indexes of a record's partitions in (topic, partition) order, cached per record id (the order
   * never changes). Computed in slices (`pace`); page GETs arriving meanwhile share the one
   * computation.
   */
  readonly #orders = new Map<string, { length: number; order: Promise<Uint32Array> }>();
  #order(r: ReassignmentRecord, pace: () => Promise<void>): Promise<Uint32Array> {
    // partitionCount: a finished (cold) record's partitions are not unpacked to compare counts.
    const length = partitionCount(r);
    const cached = this.#orders.get(r.id);
    if (cached && cached.length === length) return cached.order;
    const order = driveSteps(topicPartitionOrderSteps(r.partitions), pace);
    if (this.#orders.size >= 16) this.#orders.delete(this.#orders.keys().next().value!);
    this.#orders.set(r.id, { length, order });
    // A failed computation is not kept: the next GET computes it again.
    order.catch(() => this.#orders.get(r.id)?.order === order && this.#orders.delete(r.id));
    return order;
  }

  partitionStatuses(record: ReassignmentRecord, moving: MovingPartition[], attributed: OngoingPartitionReassignment[], placement: TopicPartitions[]): PartitionStatus[] {
    const movingHere = new Map<string, MovingPartition>();
    attributed.forEach((a, i) => {
      if (a.reassignmentId === record.id) movingHere.set(partitionId(a.topic, a.partition), moving[i]!);
    });
    const current = new Map<string, number[]>();
    for (const t of placement) for (const p of t.partitions) current.set(partitionId(t.name, p.partition), p.replicas);
    return record.partitions.map((p): PartitionStatus => {
      const base = { topic: p.topic, partition: p.partition, originalReplicas: p.original, targetReplicas: p.target };
      const replicas = current.get(partitionId(p.topic, p.partition)) ?? [];
      if (p.startError) return { ...base, status: 'failed', replicas, adding: [], removing: [], error: p.startError };
      if (p.supersededBy) return { ...base, status: 'superseded', replicas, adding: [], removing: [], supersededBy: p.supersededBy };
      const m = movingHere.get(partitionId(p.topic, p.partition));
      if (m) return { ...base, status: 'moving', replicas: m.replicas, adding: m.adding, removing: m.removing };
      if (record.state === 'pending') return { ...base, status: 'pending', replicas, adding: [], removing: [] };
      return { ...base, status: sameSet(replicas, p.target) ? 'done' : 'reverted', replicas, adding: [], removing: [] };
    });
  }

  // ------------------------------------------------------------------ PATCH

  /** Changes the throttle of a live reassignment (null = unthrottled). */
  async setThrottle(id: string, throttle: number | null): Promise<{ kind: 'not-found' } | { kind: 'not-running'; record: ReassignmentRecord } | { kind: 'ok'; record: ReassignmentRecord; sync: ThrottleSyncResult }> {
    return this.#withPacingClaim(id, 'throttle', () => this.#setThrottle(id, throttle));
  }

  async #setThrottle(id: string, throttle: number | null): Promise<{ kind: 'not-found' } | { kind: 'not-running'; record: ReassignmentRecord } | { kind: 'ok'; record: ReassignmentRecord; sync: ThrottleSyncResult }> {
    const view = await this.#d.store.refresh();
    const record = view.reassignments.get(id);
    if (!record) return { kind: 'not-found' };
    if (!isLive(record)) return { kind: 'not-running', record };
    let demand: ThrottleDemand | null = null;
    if (throttle !== null) {
      if (record.throttleDemand) {
        // Same lists; the new rate on the same brokers.
        const brokers: Record<string, { leaderRate: number; followerRate: number }> = {};
        for (const [b, d] of Object.entries(record.throttleDemand.brokers)) if (d.leaderRate !== undefined || d.followerRate !== undefined) brokers[b] = { leaderRate: throttle, followerRate: throttle };
        demand = { topics: record.throttleDemand.topics, brokers };
      } else {
        // First throttle of an unthrottled reassignment: lists as Kafka's tool would compute them now.
        const { moving } = await this.ongoing(view);
        // Paced: only the moves in flight are throttled (the pacer adds each wave's).
        const mine = activePartitions(record).filter((p) => record.concurrency === null || p.state === 'moving').map((p) => ({ topic: p.topic, partition: p.partition, currentReplicas: p.original, targetReplicas: p.target }));
        const mineIds = new Set(mine.map((p) => partitionId(p.topic, p.partition)));
        const others = moving.filter((m) => !mineIds.has(partitionId(m.topic, m.partition)));
        demand = throttleDemandFor(computeReassignmentThrottles(others, mine), throttle);
      }
      demand = withLogDirThrottle(demand, logDirBrokers(record), throttle);
    }
    const next: ReassignmentRecord = { ...record, throttle, throttleDemand: demand, updatedAt: this.#now() };
    // A throttle set by hand ends deadline pacing (the reconciler would otherwise overwrite it).
    delete next.deadline;
    await this.#d.store.write([next]);
    const sync = await this.#d.throttles.sync();
    return { kind: 'ok', record: next, sync };
  }

  /**
   * PATCH of a paced execution: `concurrency` (new bounds) and/or `paused`. Header-only write
   * (the store rewrites no chunk); then one pacing step at once so that a resume or a raised
   * bound starts moves without waiting for the reconciler. Giving `concurrency` to a reassignment
   * that was sent at once makes no difference to what already moves.
   */
  async steer(id: string, patch: { concurrency?: ConcurrencyBounds | null; paused?: boolean; safety?: Safety | null }): Promise<{ kind: 'not-found' } | { kind: 'not-running'; record: ReassignmentRecord } | { kind: 'ok'; record: ReassignmentRecord }> {
    const result = await this.#withPacingClaim(id, 'steer', () => this.#steer(id, patch));
    // A resume or a raised bound starts moves at once (under the pacer's own claim).
    if (result.kind === 'ok' && this.#d.pacer && result.record.state === 'running' && result.record.concurrency !== null && !result.record.paused) await this.#d.pacer.advance(id).catch(() => undefined);
    return result.kind === 'ok' ? { kind: 'ok', record: (await this.#d.store.refresh()).reassignments.get(id) ?? result.record } : result;
  }

  async #steer(id: string, patch: { concurrency?: ConcurrencyBounds | null; paused?: boolean; safety?: Safety | null }): Promise<{ kind: 'not-found' } | { kind: 'not-running'; record: ReassignmentRecord } | { kind: 'ok'; record: ReassignmentRecord }> {
    const view = await this.#d.store.refresh();
    const record = view.reassignments.get(id);
    if (!record) return { kind: 'not-found' };
    if (!isLive(record)) return { kind: 'not-running', record };
    let next: ReassignmentRecord = {
      ...record,
      ...(patch.concurrency !== undefined && { concurrency: patch.concurrency && { perBroker: patch.concurrency.perBroker, cluster: patch.concurrency.cluster } }),
      ...(patch.paused !== undefined && { paused: patch.paused }),
      // Health interlocks: a new policy (null = the default); a hold it no longer warrants ends at the next pass.
      ...(patch.safety && { safety: patch.safety }),
      updatedAt: this.#now(),
    };
    if (patch.safety === null) {
      const { safety: _default, ...rest } = next;
      next = rest;
    }
    await this.#d.store.write([next]);
    return { kind: 'ok', record: next };
  }

  // ------------------------------------------------------------------ DELETE

  async cancel(id: string, opts: { preserveThrottles: boolean; rollback: boolean }, requestedBy: string | null): Promise<CancelResult> {
    // Paced: no instance starts a wave between our reading Kafka's moves and recording the cancel.
    return this.#withPacingClaim(id, 'cancel', () => this.#cancel(id, opts, requestedBy));
  }

  /**
   * Runs `fn` holding the record claim of a live record (pacer.ts recordClaimResource, the
   * pacer's claim too): `fn` reads the record after taking it, so a reconciler pass, a wave or
   * another PATCH/DELETE (any instance) is never written over, nor writes over what `fn`
   * writes. Not live: `fn` at once. A holder that died blocks at most its lease.
   */
  async #withPacingClaim<T>(id: string, purpose: string, fn: () => Promise<T>): Promise<T> {
    const seen = this.#d.store.view().reassignments.get(id) ?? (await this.#d.store.refresh()).reassignments.get(id);
    if (!seen || !isLive(seen)) return fn();
    // A holder that died is taken over once we have seen its claim for a whole lease (claims.ts).
    const deadline = Date.now() + this.#d.config.pacingLeaseMs + 2000;
    for (;;) {
      const claimed = await this.#d.store.claim([pacingClaimResource(id)], { purpose: `${purpose} ${id}`, owner: this.#d.config.instanceId, ttlMs: this.#d.config.pacingLeaseMs });
      if (claimed.granted) {
        try {
          // Every write fn makes is fenced by the claim: refused if it ends first (src/state/fence.ts).
          return await this.#d.store.underClaim(claimed.claim, fn);
        } finally {
          await this.#d.store.release(claimed.claim).catch(() => undefined);
        }
      }
      // Never written without the claim: the caller is told to try again (503, Retry-After).
      if (Date.now() > deadline) throw new ClaimBusyError(pacingClaimResource(id), Math.ceil(this.#d.config.pacingLeaseMs / 1000));
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async #cancel(id: string, opts: { preserveThrottles: boolean; rollback: boolean }, requestedBy: string | null): Promise<CancelResult> {
    const view = await this.#d.store.refresh();
    let record = view.reassignments.get(id);
    if (!record) return { kind: 'not-found' };
    const { moving, attributed } = await this.ongoing(view);
    const mine = attributed.filter((a) => a.reassignmentId === id).map((a) => ({ topic: a.topic, partition: a.partition }));
    const cancelling = new Set(mine.map((m) => partitionId(m.topic, m.partition)));

    const now = this.#now();
    const writes: (ReassignmentRecord | ThrottleRequestRecord)[] = [];
    if (isLive(record)) {
      const pending = record.state === 'pending';
      // Record first: from here on it demands nothing (unless the throttles are kept), and a
      // reconciler seeing its moves end will not mistake the cancel for a completion.
      if (opts.preserveThrottles && record.throttleDemand) writes.push(keptThrottles(record, now, requestedBy));
      record = {
        ...record,
        // Moving in Kafka now: cancelled below. Sent but not moving any more: Kafka finished it.
        // A pending record's moving partitions are being sent (written ahead as started): its
        // start sees the cancel and sends nothing, so those not moving in Kafka never moved.
        partitions: record.partitions.map((p) => {
          if (p.state === 'queued' || (p.state === 'moving' && (pending || cancelling.has(partitionId(p.topic, p.partition))))) return { ...p, state: 'cancelled' as const, endedAt: now };
          return p.state === 'moving' ? { ...p, state: 'completed' as const, endedAt: now } : p;
        }),
        state: 'cancelled',
        endedAt: now,
        updatedAt: now,
        reason: `cancelled${requestedBy ? ` by ${requestedBy}` : ''}`,
      };
      writes.push(record);
      await this.#d.store.write(writes);
      if (mine.length > 0) {
        const results = await alterPartitionReassignments(this.#d.kafka, mine.map((m) => ({ ...m, replicas: null })));
        // 85 = it finished (or was cancelled) meanwhile: nothing left to cancel there.
        const failed = results.find((r) => !r.ok && r.error.code !== 85);
        if (failed && !failed.ok) throw new KafkaRequestError('kafka', failed.error);
      }
      await this.#d.throttles.sync();
    } else if (!opts.rollback) {
      return { kind: 'done', record, cancelled: [], rollback: null };
    }

    let rollback: StartResult | null = null;
    if (opts.rollback) {
      // Partitions that reached their target go back; cancelled ones were reverted by Kafka.
      const placement = await describePartitions(this.#d.kafka, [...new Set(record.partitions.map((p) => p.topic))]);
      const statuses = this.partitionStatuses(record, moving.filter((m) => !cancelling.has(partitionId(m.topic, m.partition))), [], placement);
      // Also those Kafka's cancel reverted to the original replicas in another order: a revert
      // keeps target ++ removing minus adding ([2,1,0] -> [2,0] for [0,2] -> [2,1]), which changed
      // the preferred leader; a pure reorder (no bytes) puts the original order back.
      const back = statuses.filter((s) => (s.status === 'done' && s.originalReplicas.join() !== s.targetReplicas.join()) || (s.status === 'reverted' && reorderedOnly(s.replicas, s.originalReplicas)));
      if (back.length > 0) {
        rollback = await this.start(
          { partitions: back.map((s) => ({ topic: s.topic, partition: s.partition, replicas: s.originalReplicas })), throttle: record.throttle, autoRemoveThrottle: record.autoRemoveThrottle },
          requestedBy,
          { rollbackOf: record.id },
        );
      }
    }
    return { kind: 'done', record, cancelled: mine, rollback };
  }
}

const REPLICA_NOT_AVAILABLE = 9;

/** Longest slice of synchronous work start() does before giving the event loop a turn. */
const PACE_BUDGET_MS = 15;

/** Partitions per AlterPartitionReassignments request of a start. */
const ALTER_BATCH = 5000;
/** Topics per Metadata request of a start (see #placement). */
const METADATA_TOPICS = 10;

/** AlterPartitionReassignments requests of a start in flight at once. */
const ALTER_IN_FLIGHT = 4;

/** Kafka's refusal of one partition of a start, if it refused it. */
function failureOf(result: { ok: true } | { ok: false; error: { code: number; name: string; message: string } } | undefined): { code: number; name: string; message: string } | undefined {
  return result && !result.ok ? result.error : undefined;
}

/** A partition written ahead as started that was refused: failed, never started. */
function refusedAtStart(p: ReassignmentPartitionRecord, at: number, error: { code: number; name: string; message: string }): ReassignmentPartitionRecord {
  const { startedAt: _started, endedAt: _ended, ...rest } = p;
  return { ...rest, state: 'failed', endedAt: at, startError: boundedError(error) };
}

/** Partitions of a start that failed before anything was sent: cancelled (nothing moved). */
function notStarted(partitions: readonly ReassignmentPartitionRecord[], at: number): ReassignmentPartitionRecord[] {
  return partitions.map((p) => {
    if (p.supersededBy || (p.state !== 'queued' && p.state !== 'moving')) return p;
    const { startedAt: _started, ...rest } = p;
    return { ...rest, state: 'cancelled', endedAt: at };
  });
}

/** Same replicas as `original`, in another order. */
function reorderedOnly(current: readonly number[], original: readonly number[]): boolean {
  return current.length === original.length && current.join() !== original.join() && current.every((b) => original.includes(b));
}


