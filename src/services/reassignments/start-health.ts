// Health interlocks at the start (issue 30, part 1): a POST /reassignments sends its first wave
// itself, before any reconcile pass looked at the cluster. So the start asks the same question
// as every pass (HealthInterlock.decideAtStart: the same Metadata read, the same walk and
// decision) before it sends anything:
//   - paced, trouble its policy holds on -> the reassignment is created held (every move queued,
//     `hold` in its record, nothing sent to AlterPartitionReassignments); the reconciler's passes
//     resume it as any held reassignment once the cluster is healthy for resumeAfterPasses;
//   - unpaced (no `concurrency`): not held — it has no later wave that a hold could keep back,
//     and the pacer only starts waves of paced reassignments; the answer carries the trouble of
//     its own topics as a warning, read with their placement (docs/health-interlocks.md, "At
//     the start");
//   - validateOnly: the trouble is a warning of the plan (wouldHold says what a POST would do).
// `safety: "off"`: nothing read, nothing held.
import type { HoldState, Safety, TroubleReason } from '../../domain/reassignment/health.js';
import type { PartitionMovePlan } from '../../domain/reassignment/index.js';
import type { ReassignmentPartitionRecord } from '../../state/records.js';
import type { StateView } from '../../state/store.js';
import type { ReplicaHealth } from '../../kafka/replica-health.js';
import type { HealthInterlock } from '../../reconcile/health.js';
import { partitionId } from '../../reconcile/ownership.js';

/** The trouble a start found, as its answer (and a validateOnly plan) reports it. */
export interface StartHealthWarning {
  /** Whether the reassignment is (validateOnly: would be) created held. */
  readonly wouldHold: boolean;
  readonly reasons: readonly TroubleReason[];
  readonly message: string;
}

export interface StartHealth {
  /** Set: the reassignment is created held with this hold (paced only, not validateOnly). */
  readonly hold?: HoldState;
  readonly warning?: StartHealthWarning;
}

export interface StartHealthInput {
  readonly safety: Safety | null | undefined;
  readonly paced: boolean;
  readonly partitions: readonly PartitionMovePlan[];
  /** Every move Kafka lists (read by the start before validating). */
  readonly moving: readonly { topic: string; partition: number }[];
  readonly view: StateView;
  /** The Metadata read: every topic (paced: HealthInterlock.prefetchAtStart) or the start's own (unpaced: start-reads.ts). */
  readonly prefetched?: Promise<ReplicaHealth> | null;
}

/**
 * The health of the cluster for a reassignment about to start. O(partitions) plus the Metadata
 * read given (`prefetched`; without one, every topic is read); a short ISR outside the moves
 * costs its re-reads and a min.insync.replicas read, as in a pass.
 */
export async function healthAtStart(interlock: HealthInterlock, input: StartHealthInput): Promise<StartHealth> {
  if (input.safety === 'off') return {};
  // A quiet answer (the compact read lists no partition, and names no gone broker) leaves only one
  // kind of trouble to find: a broker this start moves to that is not live. That is looked at on
  // the distinct target lists; the rest (its records, the walk) is built only when there is
  // something to walk: at 100,000 partitions, 100,000 records and a set of ids per start.
  const answer = input.prefetched ? await input.prefetched : null;
  if (answer && quietAnswer(answer) && targetsLive(input.partitions, answer.brokers)) return {};
  // Its moves as its record will list them (all queued: nothing is sent yet), so that what it
  // is to move or drain counts as a live reassignment's, not as trouble.
  const partitions: ReassignmentPartitionRecord[] = [];
  for (const p of input.partitions)
    if (!p.noOp)
      partitions.push({ topic: p.topic, partition: p.partition, original: p.currentReplicas, target: p.targetReplicas, state: 'queued' });
  const movingIds = new Set<string>();
  for (const m of input.moving) movingIds.add(partitionId(m.topic, m.partition));
  const { decision } = await interlock.decideAtStart(
    { partitions, ...(input.safety && { safety: input.safety }) },
    movingIds,
    input.view,
    input.prefetched,
  );
  if (decision.kind !== 'held') return {};
  const hold = decision.hold;
  const warning: StartHealthWarning = { wouldHold: input.paced, reasons: hold.reasons, message: warningMessage(hold.reasons, input.paced) };
  return input.paced ? { hold, warning } : { warning };
}

/** No partition listed (no leader missing, no ISR short) and no broker gone among those left out. */
function quietAnswer(answer: ReplicaHealth): boolean {
  if (answer.goneUnlisted.length > 0) return false;
  for (const t of answer.topics) if (t.partitions.length > 0) return false;
  return true;
}

/** Every broker the moves go to is live (target lists are interned: each distinct one is looked at once). */
function targetsLive(partitions: readonly PartitionMovePlan[], brokers: readonly number[]): boolean {
  const live = new Set(brokers);
  const seen = new Set<readonly number[]>();
  for (const p of partitions) {
    if (p.noOp || seen.has(p.targetReplicas)) continue;
    seen.add(p.targetReplicas);
    for (const b of p.targetReplicas) if (!live.has(b)) return false;
  }
  return true;
}

export function warningMessage(reasons: readonly TroubleReason[], paced: boolean): string {
  const what = reasons
    .map(
      (r) =>
        `${r.count} ${LABEL[r.kind]}${r.examples.length > 0 ? ` (${r.examples.join(', ')}${r.count > r.examples.length ? ', ...' : ''})` : ''}`,
    )
    .join('; ');
  return paced
    ? `The cluster is in trouble: ${what}. The reassignment starts held: no move is sent until the cluster is healthy again; it then resumes by itself.`
    : `The topics this reassignment moves are in trouble: ${what}. Without concurrency every move is sent at once and nothing can be held; give concurrency to start held (a paced start checks the whole cluster), or retry once the cluster is healthy.`;
}

const LABEL: Record<TroubleReason['kind'], string> = {
  offline: 'offline partition(s)',
  underReplicated: 'under-replicated partition(s) outside any move',
  underMinIsr: 'partition(s) under min.insync.replicas',
  brokerGone: 'broker(s) gone',
};
