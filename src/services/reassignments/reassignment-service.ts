// Reassignments as the HTTP API sees them: plan, start, read, re-throttle, cancel, roll back.
// The one class the rest of the code uses; each use case is a file of named steps beside it:
//   start.ts (start-validate, start-plan, start-record, start-send), reads.ts,
//   partitions-page.ts, steer.ts (PATCH), cancel.ts (DELETE, rollback).
// The rules (parsing, validation, throttle lists, estimates, progress) are the domain's
// (src/domain/reassignment); these files order the I/O so that a crash at any step leaves
// nothing behind (see start.ts). Inputs are typed: src/http parses a body with
// parseStartRequest (requests.ts) and maps the typed outcomes to statuses.
import type { OngoingPartitionReassignment } from '../../domain/reassignment/index.js';
import type { MovingPartition, TopicPartitions } from '../../kafka/kafka-admin.js';
import type { RecentRead } from '../../kafka/recent-read.js';
import { HealthInterlock } from '../../reconcile/health.js';
import { movesRead } from '../../reconcile/moves-read.js';
import { attributeMoves } from '../../reconcile/ownership.js';
import type { PartitionState, ReassignmentRecord } from '../../state/records.js';
import type { StateView } from '../../state/store.js';
import { cancel, partitionStatuses } from './cancel.js';
import { PartitionOrders, partitionsPage } from './partitions-page.js';
import { brief, getReassignment, listReassignments, summarize } from './reads.js';
import { startReassignment } from './start.js';
import { setThrottle, steer } from './steer.js';
import type {
  CancelOptions,
  CancelResult,
  PartitionPage,
  PartitionStatus,
  ReassignmentDeps,
  ReassignmentDetail,
  ReassignmentListing,
  ServiceContext,
  SetThrottleResult,
  StartAhead,
  StartOptions,
  StartRequest,
  StartResult,
  SteerPatch,
  SteerResult,
} from './types.js';

export { countPartitions } from './counts.js';
export { parseStartRequest, parseSteerFields } from './requests.js';
export { ANY_LOG_DIR, inFileOrder, partitionCount, REASSIGNMENT_FILE_VERSION, replanHint, safetyOf } from './views.js';
export type * from './types.js';
export { MAX_WAVES_SHOWN, PACED_ETA_MODEL_MAX } from './types.js';

export class ReassignmentService {
  readonly #d: ReassignmentDeps;
  /** What the step files share: the dependencies, the clock, the moves read, the caches. */
  readonly #ctx: ServiceContext;
  /** The health interlocks' read and decision, for the check before a first wave (start-health.ts). */
  #healthInterlock: HealthInterlock | undefined;
  /** The (topic, partition) order of records' partitions, for pages (partitions-page.ts). */
  readonly #orders = new PartitionOrders();

  constructor(deps: ReassignmentDeps) {
    this.#d = deps;
    const now = deps.now ?? Date.now;
    const moves: RecentRead<MovingPartition[]> = deps.movesRead ?? movesRead(deps.kafka);
    this.#ctx = {
      d: deps,
      now,
      moves,
      health: () =>
        (this.#healthInterlock ??= new HealthInterlock({
          kafka: deps.kafka,
          store: deps.store,
          config: deps.config,
          now,
          ...(deps.metrics && { metrics: deps.metrics }),
          ...(deps.logger && { logger: deps.logger }),
        })),
      order: (r, pace) => this.#orders.get(r, pace),
      ongoing: (view) => this.ongoing(view),
    };
  }

  get deps(): ReassignmentDeps {
    return this.#d;
  }

  /** Every moving partition in the cluster, attributed to the gateway's live reassignments. */
  async ongoing(view?: StateView): Promise<{ moving: MovingPartition[]; attributed: OngoingPartitionReassignment[] }> {
    const moving = await this.#d.kafka.listPartitionReassignments();
    const v = view ?? (await this.#d.store.refresh());
    return { moving, attributed: attributeMoves(moving, v) };
  }

  // ------------------------------------------------------------------ POST /reassignments

  /**
   * Begins what a start reads before its request is parsed: the health interlock's read of every
   * topic (shared with starts under way), to be passed to start() as `opts.ahead`. Only when every
   * start is paced (a default concurrency is configured): an unpaced start reads only its own
   * topics' health, with its placement, and would not use it. For a request that never gets to
   * start() (refused, or `safety: "off"`), the read is simply not used.
   */
  readAhead(): StartAhead {
    if ((this.#ctx.d.config.defaultConcurrency ?? null) === null) return { health: null };
    return { health: this.#ctx.health().readAhead() };
  }

  /** Plans (validateOnly) or starts a parsed request (parseStartRequest). */
  start(req: StartRequest, requestedBy: string | null, opts: StartOptions = {}): Promise<StartResult> {
    return startReassignment(this.#ctx, req, requestedBy, opts);
  }

  // ------------------------------------------------------------------ reads

  /** GET /reassignments (reads.ts listReassignments). */
  list(opts: { detail?: boolean } = {}): Promise<ReassignmentListing> {
    return listReassignments(this.#ctx, opts);
  }

  /** The summary of a record in hand (counts, progress from the shared snapshots, the paced ETA). */
  summarize(record: ReassignmentRecord): ReassignmentDetail {
    return summarize(this.#ctx, record);
  }

  /** The summary of a record without the paced ETA model (cached counts: reads.ts brief). */
  brief(record: ReassignmentRecord): ReassignmentDetail {
    return brief(this.#ctx, record);
  }

  /** The summary of one reassignment: no Kafka request. */
  get(id: string): Promise<ReassignmentDetail | null> {
    return getReassignment(this.#ctx, id);
  }

  /** One page of a reassignment's partitions (partitions-page.ts). */
  partitionsPage(id: string, q: { state: PartitionState | 'all'; limit: number; cursor: string | null }): Promise<PartitionPage> {
    return partitionsPage(this.#ctx, id, q);
  }

  partitionStatuses(
    record: ReassignmentRecord,
    moving: MovingPartition[],
    attributed: OngoingPartitionReassignment[],
    placement: TopicPartitions[],
  ): PartitionStatus[] {
    return partitionStatuses(record, moving, attributed, placement);
  }

  // ------------------------------------------------------------------ PATCH

  /** Changes the throttle of a live reassignment (null = unthrottled). */
  setThrottle(id: string, throttle: number | null): Promise<SetThrottleResult> {
    return setThrottle(this.#ctx, id, throttle);
  }

  /** PATCH of a paced execution: `concurrency`, `paused`, `safety` (steer.ts). */
  steer(id: string, patch: SteerPatch): Promise<SteerResult> {
    return steer(this.#ctx, id, patch);
  }

  // ------------------------------------------------------------------ DELETE

  cancel(id: string, opts: CancelOptions, requestedBy: string | null): Promise<CancelResult> {
    return cancel(this.#ctx, id, opts, requestedBy);
  }
}
