// The health interlocks' part of a reassignment's answer (issue 30): the API state `held`, the
// reason it is held, the hold itself with a re-plan hint, the policy in force.
import type { HoldState } from '../../domain/reassignment/health.js';
import { replanHint, safetyOf, type ReassignmentRecord } from '../../services/reassignments/reassignment-service.js';
import type { components } from '../openapi-types.js';

type Schemas = components['schemas'];

/** Whether the API says `held`: running, held, and not paused by its caller (a pause says `paused`). */
export const isHeld = (r: ReassignmentRecord): boolean => r.state === 'running' && r.hold !== undefined && !r.paused;

/** One line for `reason`: what holds it. */
export function holdReason(hold: HoldState): string {
  const parts = hold.reasons.map((x) => {
    const eg = x.examples.length > 0 ? ` (${x.examples.join(', ')}${x.count > x.examples.length ? ', ...' : ''})` : '';
    switch (x.kind) {
      case 'offline':
        return `${x.count} offline partition(s)${eg}`;
      case 'underReplicated':
        return `${x.count} under-replicated partition(s) outside any move${eg}`;
      case 'underMinIsr':
        return `${x.count} partition(s) under min.insync.replicas${eg}`;
      default:
        return `${x.count} broker(s) gone${eg}`;
    }
  });
  return `held: ${parts.join('; ')}; no new move starts until the cluster is healthy`;
}

/** The record's `reason`, or while held (and not paused) what holds it. */
export function apiReason(r: ReassignmentRecord): string | undefined {
  return isHeld(r) ? holdReason(r.hold!) : r.reason;
}

export function toHold(r: ReassignmentRecord): Schemas['ReassignmentHold'] | undefined {
  const h = r.hold;
  if (!h || r.state !== 'running') return undefined;
  const policy = safetyOf(r);
  const gone = h.targetsGone?.map((t) => t.broker) ?? [];
  return {
    since: new Date(h.since).toISOString(),
    reasons: h.reasons.map((x) => ({ kind: x.kind, count: x.count, examples: [...x.examples] })),
    healthyPasses: h.healthyPasses,
    resumeAfterPasses: policy === 'off' ? 0 : policy.resumeAfterPasses,
    ...(h.targetsGone && {
      targetsGone: h.targetsGone.map((t) => ({ broker: t.broker, partitions: t.partitions, examples: [...t.examples] })),
    }),
    ...(gone.length > 0 && { replan: replanHint(r.id, gone) }),
  };
}

export function toSafety(r: ReassignmentRecord): Schemas['SafetyRequest'] {
  const policy = safetyOf(r);
  return policy === 'off' ? 'off' : { holdOn: [...policy.holdOn], resumeAfterPasses: policy.resumeAfterPasses };
}

/** A held reassignment is not moving on purpose: not `stalled` (the hold says why; its own alert fires). */
export function unstalledWhileHeld<P extends { stalled: boolean }>(r: ReassignmentRecord, p: P): P {
  return r.state === 'running' && r.hold && p.stalled ? { ...p, stalled: false } : p;
}
