// Which changes a webhook still has to receive: pure, the same answer on every instance (the
// change feed's ids and the delivery record in the state topic are the same everywhere).
import type { DeliveryOutcome, WebhookDeliveryRecord, WebhookRecord } from '../state/webhooks.js';
import type { ReassignmentChange } from './reassignment-changes.js';

/** Whether a webhook's filter takes a change of this type (null: every type, also unknown ones). */
export function matchesFilter(events: readonly string[] | null, type: string): boolean {
  // Not a list (null, or a record this version does not understand): every change.
  return !Array.isArray(events) || events.includes(type);
}

/**
 * The changes not yet delivered nor given up for this webhook, in feed order: those of a type
 * it takes, that happened since it was created and after its record's floor, with no outcome.
 */
export function pendingChanges(
  webhook: Pick<WebhookRecord, 'events' | 'createdAt'>,
  record: Pick<WebhookDeliveryRecord, 'outcomes' | 'floor'> | undefined,
  changes: readonly ReassignmentChange[],
): ReassignmentChange[] {
  const done = new Set<string>();
  for (const o of record?.outcomes ?? []) done.add(o.eventId);
  const floor = record?.floor ?? 0;
  const out: ReassignmentChange[] = [];
  for (const c of changes) {
    if (done.has(c.eventId) || !matchesFilter(webhook.events, c.type)) continue;
    const at = Date.parse(c.at);
    if (at >= webhook.createdAt && at > floor) out.push(c);
  }
  return out;
}

/** One line of GET /webhooks/{id}/deliveries. */
export interface DeliveryView {
  eventId: string;
  type: string;
  reassignmentId: string;
  at: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  finishedAt: number | null;
  nextAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
}

/** Pending changes first (the one being tried on top), then outcomes newest first; at most `limit`. */
export function deliveryViews(
  webhook: Pick<WebhookRecord, 'events' | 'createdAt'>,
  record: WebhookDeliveryRecord | undefined,
  changes: readonly ReassignmentChange[],
  limit: number,
): DeliveryView[] {
  const out: DeliveryView[] = [];
  const retry = record?.retry ?? null;
  for (const c of pendingChanges(webhook, record, changes)) {
    if (out.length >= limit) return out;
    const tried = retry?.eventId === c.eventId ? retry : null;
    out.push({
      eventId: c.eventId,
      type: c.type,
      reassignmentId: c.reassignmentId,
      at: Date.parse(c.at),
      status: 'pending',
      attempts: tried?.attempts ?? 0,
      finishedAt: null,
      nextAttemptAt: tried?.nextAttemptAt ?? null,
      lastStatus: tried?.lastStatus ?? null,
      lastError: tried?.lastError ?? null,
    });
  }
  const outcomes: readonly DeliveryOutcome[] = record?.outcomes ?? [];
  for (let i = outcomes.length - 1; i >= 0 && out.length < limit; i--) {
    const o = outcomes[i];
    out.push({
      eventId: o.eventId,
      type: o.type,
      reassignmentId: o.reassignmentId,
      at: o.at,
      status: o.status,
      attempts: o.attempts,
      finishedAt: o.finishedAt,
      nextAttemptAt: null,
      lastStatus: o.lastStatus,
      lastError: o.lastError ?? null,
    });
  }
  return out;
}
