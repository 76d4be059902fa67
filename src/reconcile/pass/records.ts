// The records step of a reconcile pass (reconciler.ts #passSteps): each live record judged
// from Kafka's moves and placement (decide.ts) and written under its claim; records whose moves
// all ended marked first (so the throttle sync removes their throttles) and ended after it;
// finished records past the retention tombstoned.
import type { TopicPartitions } from '../../kafka/kafka-admin.js';
import { reassignmentKey, type ReassignmentRecord } from '../../state/records.js';
import type { StateView } from '../../state/store.js';
import { attributeMovesPaced, isLive, type AttributedMoves, type Pace } from '../ownership.js';
import { withRecordClaim } from '../pacer.js';
import type { LogDirObservation } from '../log-dir-moves.js';
import { RECORD_CLAIM_WAIT_MS, type PassContext } from './context.js';
import { decide, observation } from './decide.js';
import { endedTopics } from './ended.js';

export async function resolveRecords(
  ctx: PassContext,
  view: StateView,
  recordsBeforeObservation: ReadonlyMap<string, ReassignmentRecord>,
  moves: AttributedMoves,
  placement: TopicPartitions[],
  dirs: LogDirObservation,
  pace: Pace,
  stale: () => boolean = () => false,
): Promise<void> {
  const now = ctx.now();
  const observed = await observation(view, moves, placement, pace);
  for (const r of view.reassignments.values()) {
    if (!isLive(r)) continue;
    // Written since Kafka's moves were read (a start, a wave, a PATCH): the next pass judges it.
    if (recordsBeforeObservation.get(r.id) !== r) continue;
    // The end watch saw an end since Kafka's moves were read: the pass is cut (#passSteps) and
    // the next one, right after, writes what this one would have, with the end in it. At 100k
    // partitions a record's write during a burst of ends takes ~0.5 s that the end would wait.
    if (stale()) return;
    const first = await decide(r, observed, now, dirs, pace, ctx.pendingDue);
    if (!first || stale()) continue;
    // The write, under the record's claim (pacer.ts withRecordClaim), from the record as the
    // state topic has it now: written meanwhile (a PATCH, a wave, a cancel, on any instance)
    // -> Kafka is read again for it and the decision re-made on the fresh record, so the
    // other write is never overwritten. Another holder for too long: next pass.
    await ctx.d.hooks?.gate?.('before-record-write', r.id);
    await withRecordClaim(
      ctx.d.store,
      { owner: ctx.d.config.instanceId, ttlMs: ctx.d.config.pacingLeaseMs, purpose: 'reconcile', waitMs: RECORD_CLAIM_WAIT_MS },
      r.id,
      async () => {
        const freshView = await ctx.d.store.refresh();
        const fresh = freshView.reassignments.get(r.id);
        if (!fresh || !isLive(fresh)) return { result: undefined };
        if (fresh === r && first.extra.length === 0) {
          // Unchanged since it was decided: the same decision (#decide is pure in r and obs; a
          // kept-throttles request, `extra`, is checked against the fresh view below).
          if (first.next.state !== r.state)
            ctx.d.logger?.info('reassignment state changed', { id: r.id, from: r.state, to: first.next.state, reason: first.next.reason });
          return { result: undefined, values: [first.next] };
        }
        let obs = observed;
        if (fresh !== r) {
          const nowMoving = await ctx.d.kafka.listPartitionReassignments();
          const nowPlacement = await ctx.d.kafka.describePartitions([...new Set(fresh.partitions.map((p) => p.topic))]);
          obs = await observation(freshView, await attributeMovesPaced(nowMoving, freshView, pace), nowPlacement, pace);
        }
        const decided = await decide(fresh, obs, ctx.now(), dirs, pace, ctx.pendingDue);
        if (!decided) return { result: undefined };
        if (decided.next.state !== fresh.state)
          ctx.d.logger?.info('reassignment state changed', {
            id: r.id,
            from: fresh.state,
            to: decided.next.state,
            reason: decided.next.reason,
          });
        return { result: undefined, values: [decided.next, ...decided.extra] };
      },
    );
  }
}

/**
 * Records `movesEndedAt` on the records of `ids` (a header-only write: their partitions are
 * the same objects, so no chunk is rewritten), each under its claim and only if unchanged
 * since Kafka's moves were read. From then on they demand no throttles, in every instance.
 * Returns the ids written.
 */
export async function markMovesEnded(ctx: PassContext, view: StateView, ids: ReadonlySet<string>): Promise<Set<string>> {
  const marked = new Set<string>();
  for (const id of ids) {
    const r = view.reassignments.get(id);
    if (!r) continue;
    const now = ctx.now();
    const out = await withRecordClaim(
      ctx.d.store,
      { owner: ctx.d.config.instanceId, ttlMs: ctx.d.config.pacingLeaseMs, purpose: 'reconcile', waitMs: RECORD_CLAIM_WAIT_MS },
      id,
      async () => {
        const fresh = (await ctx.d.store.refresh()).reassignments.get(id);
        // Written meanwhile (a PATCH, a cancel, on any instance): the regular path judges it.
        if (fresh !== r) return { result: false };
        return { result: true, values: [{ ...r, movesEndedAt: now, updatedAt: now }] };
      },
    );
    if (out.granted && out.result) marked.add(id);
  }
  return marked;
}

/**
 * The end of the records marked by this pass (#markMovesEnded), after the throttle sync:
 * completed or cancelled from their partitions' placement (Metadata of their topics), judged
 * like any record from Kafka's moves as this pass read them (they had none).
 */
export async function recordEnds(
  ctx: PassContext,
  ids: ReadonlySet<string>,
  moves: AttributedMoves,
  dirs: LogDirObservation,
  pace: Pace,
): Promise<void> {
  const view = ctx.d.store.view();
  const marked = new Map<string, ReassignmentRecord>();
  for (const id of ids) {
    const r = view.reassignments.get(id);
    if (r && r.state === 'running' && r.movesEndedAt !== undefined) marked.set(id, r);
  }
  if (marked.size === 0) return;
  const topics = await endedTopics(
    view,
    moves.movingIds,
    (r) => ctx.pendingDue(r),
    pace,
    (r) => marked.get(r.id) === r,
  );
  const placement = topics.size === 0 ? [] : await ctx.d.kafka.describePartitions([...topics]);
  await resolveRecords(ctx, view, marked, moves, placement, dirs, pace);
}

/** Finished records past the retention (and whose throttles are gone): tombstoned. */
export async function retire(ctx: PassContext, view: StateView): Promise<void> {
  const cutoff = ctx.now() - ctx.d.config.retentionSeconds * 1000;
  const old = [...view.reassignments.values()].filter(
    (r) =>
      !isLive(r) &&
      (r.endedAt ?? r.updatedAt) < cutoff &&
      (!r.throttleDemand || !r.autoRemoveThrottle || r.throttlesRemovedAt !== undefined),
  );
  if (old.length)
    await ctx.d.store.write(
      [],
      old.map((r) => reassignmentKey(r.id)),
    );
}
