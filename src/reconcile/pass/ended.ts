// Which records and topics a pass looks at again because their moves ended, and when a pass
// stops short (reconciler.ts #passSteps). Pure on the view and Kafka's moves.
import type { PartitionState, ReassignmentRecord } from '../../state/records.js';
import type { StateView } from '../../state/store.js';
import { PACE_EVERY, partitionId, type AttributedMoves, type Pace } from '../ownership.js';

export const MOVING: ReadonlySet<PartitionState> = new Set(['moving']);
export const QUEUED_OR_MOVING: ReadonlySet<PartitionState> = new Set(['queued', 'moving']);

/**
 * Whether a pass stops short (the next one starts at once and does everything): only a pass of
 * the loop (`scheduled`), only when the end watch saw an end after the pass read Kafka's moves
 * (`movesStale`), and not right after a cut pass, so that a burst of ends cannot cut pass after
 * pass; unless the watch saw its whole sample end (`sampleDrained`: the moves with the most
 * bytes left, likely the last). Without that, the pass after a cut one, having read the moves
 * just before the last one ended, spent ~0.5 s rewriting records on a stale list at 100k
 * partitions before the next pass could remove the throttles (0.86 s after Kafka's last end).
 * A drained sample is picked again only by a full pass, from fewer moves each time.
 */
export function passMayBeCut(s: { scheduled: boolean; cutLast: boolean; movesStale: boolean; sampleDrained: boolean }): boolean {
  return s.scheduled && s.movesStale && (!s.cutLast || s.sampleDrained);
}

/**
 * Topics of partitions that a live record has sent to Kafka (moving) and that Kafka no longer
 * lists as moving (`movingIds`: partitionId of each move Kafka lists), plus those of pending
 * records past their start deadline (`pendingDue`). O(partitions of live records), yielding to
 * the event loop (`pace`) on the way. Only the records `include` accepts.
 */
export async function endedTopics(
  view: StateView,
  movingIds: ReadonlySet<string>,
  pendingDue: (r: ReassignmentRecord) => boolean,
  pace: Pace = async () => {},
  include: (r: ReassignmentRecord) => boolean = () => true,
): Promise<Set<string>> {
  const topics = new Set<string>();
  for (const r of [...view.reassignments.values()]) {
    if (!include(r)) continue;
    let open: ReadonlySet<PartitionState>;
    if (r.state === 'pending') {
      if (!pendingDue(r)) continue;
      open = QUEUED_OR_MOVING;
    } else if (r.state === 'running') open = MOVING;
    else continue;
    const ps = r.partitions;
    for (let i = 0; i < ps.length; i++) {
      if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
      const p = ps[i];
      if (!p.supersededBy && open.has(p.state) && !topics.has(p.topic) && !movingIds.has(partitionId(p.topic, p.partition)))
        topics.add(p.topic);
    }
  }
  return topics;
}

/**
 * Running records with throttles to remove whose moves all ended: Kafka lists none of their
 * partitions (`moves`), none waits for a wave (queued) or for its intra-broker copy
 * (`dirs.pending`). Whatever their partitions' placement says, #decide ends them (completed or
 * cancelled): so their demand can be recorded as ended (`movesEndedAt`) before that placement
 * is read. Only records as they were when Kafka's moves were read (`before`).
 */
export async function movesEndedRecords(
  view: StateView,
  before: ReadonlyMap<string, ReassignmentRecord>,
  moves: AttributedMoves,
  pending: ReadonlySet<string>,
  pace: Pace,
): Promise<Set<string>> {
  const out = new Set<string>();
  for (const r of view.reassignments.values()) {
    if (r.state !== 'running' || r.movesEndedAt !== undefined || !r.throttleDemand || !r.autoRemoveThrottle) continue;
    if (before.get(r.id) !== r || (moves.movingOf.get(r.id)?.size ?? 0) > 0) continue;
    let open = false;
    const ps = r.partitions;
    for (let i = 0; i < ps.length && !open; i++) {
      if (i % PACE_EVERY === PACE_EVERY - 1) await pace();
      const p = ps[i];
      if (p.supersededBy) continue;
      open = p.state === 'queued' || (p.state === 'moving' && p.logDirs !== undefined && pending.has(partitionId(p.topic, p.partition)));
    }
    if (!open) out.add(r.id);
  }
  return out;
}
