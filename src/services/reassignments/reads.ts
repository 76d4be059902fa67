// The reads of reassignments: GET /reassignments (every record, with what Kafka lists as moving
// attributed to them), one record's summary, and the paced ETA model of a summary.
import { pacedEtaSeconds, type PacedPartition, type SnapshotProgress } from '../../domain/reassignment/index.js';
import type { MovingPartition } from '../../kafka/kafka-admin.js';
import { activePartitions, isLive, PACE_EVERY, partitionId, partitionOwnersPaced } from '../../reconcile/ownership.js';
import { makePacer } from '../../state/layout.js';
import type { ReassignmentRecord } from '../../state/records.js';
import { countPartitions } from './counts.js';
import { PACE_BUDGET_MS, PACED_ETA_MODEL_MAX, type ReassignmentDetail, type ReassignmentListing, type ServiceContext } from './types.js';

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
async function attributeForList(
  moving: readonly MovingPartition[],
  owners: ReadonlyMap<string, string>,
  detail: boolean,
  pace: () => Promise<void>,
): Promise<ListAttribution> {
  const known = detail ? undefined : leanAttributions.get(moving)?.get(owners);
  if (known) return known;
  const counts = new Map<string, number>();
  const byId = new Map<string, MovingPartition[]>();
  const external: MovingPartition[] = [];
  let externalCount = 0;
  for (let i = 0; i < moving.length; i++) {
    if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
    const m = moving[i];
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

/**
 * GET /reassignments: every record with the count of its partitions Kafka lists as moving;
 * with `detail`, those partitions too and every external move. Kafka is read before the
 * state topic: a start writes its record before it moves anything, so every gateway move
 * read here has its record in the view. At 100,000 moves the attribution yields to the
 * event loop (partitionOwnersPaced), and without detail nothing per partition is kept.
 */
export async function listReassignments(ctx: ServiceContext, opts: { detail?: boolean } = {}): Promise<ReassignmentListing> {
  const detail = opts.detail ?? false;
  const pace = makePacer(PACE_BUDGET_MS);
  const moving = await ctx.moves.get();
  const view = await ctx.d.store.refresh();
  const owners = await partitionOwnersPaced(view, pace);
  const { counts, byId, external, externalCount } = await attributeForList(moving, owners, detail, pace);
  const records = [...view.reassignments.values()].sort((a, b) => Number(isLive(b)) - Number(isLive(a)) || b.createdAt - a.createdAt);
  const reassignments: ReassignmentListing['reassignments'] = [];
  for (const record of records) {
    // Counts and bytes (brief: cached per record; a finished one unpacks its packed partitions
    // once, 10-20 ms at 100,000), yielding between records.
    reassignments.push({
      ...brief(ctx, record),
      movingCount: counts.get(record.id) ?? 0,
      ...(detail && { moving: byId.get(record.id) ?? [] }),
    });
    await pace();
  }
  return {
    reassignments,
    external,
    externalCount,
  };
}

/** The summary of a record in hand (counts, progress from the shared snapshots). */
export function summarize(ctx: ServiceContext, record: ReassignmentRecord): ReassignmentDetail {
  const progress = ctx.d.progress.progress(record);
  return {
    record,
    counts: countPartitions(record),
    progress:
      record.concurrency && record.state === 'running' && progress.etaSeconds !== 0
        ? { ...progress, etaSeconds: pacedEta(ctx, record, progress) }
        : progress,
  };
}

/**
 * The summary of a record without the paced ETA model (the plain bytes-left-over-rate ETA):
 * counts and byte totals are cached per record, progress reads the shared snapshots, so a
 * list of every record or a stream hub's pass over them costs no walk of unchanged records.
 */
export function brief(ctx: ServiceContext, record: ReassignmentRecord): ReassignmentDetail {
  return { record, counts: countPartitions(record), progress: ctx.d.progress.progress(record) };
}

/**
 * ETA of a paced reassignment with its queue (pacing.ts): the moves in flight (their share of
 * the bytes done so far) then the waves still to run, at the throttle (or known bandwidth).
 * Above PACED_ETA_MODEL_MAX partitions (or without a rate): remaining bytes ÷ observed rate.
 */
function pacedEta(ctx: ServiceContext, record: ReassignmentRecord, progress: SnapshotProgress): number | null {
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
      return {
        topic: p.topic,
        partition: p.partition,
        currentReplicas: p.original,
        leader: null,
        targetReplicas: p.target,
        sizeBytes: size,
        state: p.state,
        bytesDone: p.state === 'moving' ? size * share : 0,
      };
    });
  const model = parts.length <= PACED_ETA_MODEL_MAX;
  const eta = pacedEtaSeconds(parts, record.concurrency!, record.order, {
    throttle: model ? record.throttle : null,
    bandwidth: model ? (ctx.d.bandwidthBytesPerSecond ?? null) : null,
    observedBytesPerSecond: progress.bytesPerSecond,
  });
  return eta === null ? progress.etaSeconds : Math.ceil(eta);
}

/** The summary of one reassignment: no Kafka request, O(partitions) (counts), progress from the shared snapshots. */
export async function getReassignment(ctx: ServiceContext, id: string): Promise<ReassignmentDetail | null> {
  const view = await ctx.d.store.refresh();
  const record = view.reassignments.get(id);
  if (!record) return null;
  return { record, counts: countPartitions(record), progress: ctx.d.progress.progress(record) };
}
