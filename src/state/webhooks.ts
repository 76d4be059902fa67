// Webhooks in the state topic (issue 33, events): every instance knows them, and the delivery
// progress survives the instance that was delivering.
//
//   webhook/<id>           a webhook: where to POST, which changes, the signing secret
//   webhook-delivery/<id>  its delivery progress: the outcomes of the recent changes (delivered
//                          or given up, by event id) and the retry state of the one being tried
//
// Both are tombstoned when the webhook is deleted. The delivery record is written only by the
// instance holding the delivery claim (src/events/webhook-delivery.ts), fenced by it, so a
// holder that outlived its lease cannot overwrite its successor's progress.
//
// The secret is kept in the state topic as given: whoever can read that topic can sign
// deliveries (the topic already holds everything the gateway changed; restrict it with ACLs).

export const WEBHOOK_RECORD_VERSION = 1;

export interface WebhookRecord {
  kind: 'webhook';
  v: number;
  id: string;
  url: string;
  /** Change types delivered (`created`, `completed`, ...); null = every change, also types added later. */
  events: string[] | null;
  /** `whsec_<base64>` (Standard Webhooks): the HMAC key is the decoded bytes. */
  secret: string;
  description: string | null;
  /** Changes that happened before (by their time) are not delivered to it. */
  createdAt: number;
  createdBy: string | null;
  updatedAt: number;
}

export type DeliveryStatus = 'delivered' | 'failed';

/** What became of one change for one webhook. */
export interface DeliveryOutcome {
  eventId: string;
  type: string;
  reassignmentId: string;
  /** The change's time (ms). */
  at: number;
  status: DeliveryStatus;
  attempts: number;
  /** When it was delivered or given up. */
  finishedAt: number;
  /** The receiver's last HTTP status (null: no answer: refused, timed out). */
  lastStatus: number | null;
  /** Why the last attempt failed (at most 300 chars). */
  lastError?: string;
}

/** The change being tried (head of the webhook's queue) after a failed attempt. */
export interface DeliveryRetry {
  eventId: string;
  attempts: number;
  firstAttemptAt: number;
  /** Not tried again before this time (ms, wall clock of the writer). */
  nextAttemptAt: number;
  lastStatus: number | null;
  lastError: string;
}

export interface WebhookDeliveryRecord {
  kind: 'webhook-delivery';
  v: number;
  /** The webhook's id. */
  id: string;
  /** Outcomes of recent changes, oldest first, at most MAX_DELIVERY_OUTCOMES. */
  outcomes: DeliveryOutcome[];
  /**
   * Changes at or before this time (ms) count as handled: outcomes dropped to keep the record
   * bounded raise it to theirs (0 = none dropped).
   */
  floor: number;
  retry: DeliveryRetry | null;
  updatedAt: number;
}

/** Outcomes kept per webhook (~200 bytes each: the record, written after each delivery, stays ~40 KB at most). */
export const MAX_DELIVERY_OUTCOMES = 200;

export const WEBHOOK_PREFIX = 'webhook/';
export const WEBHOOK_DELIVERY_PREFIX = 'webhook-delivery/';
export const webhookKey = (id: string): string => WEBHOOK_PREFIX + id;
export const webhookDeliveryKey = (id: string): string => WEBHOOK_DELIVERY_PREFIX + id;

/** A delivery record with `outcome` added (replacing one of the same event), bounded: the oldest dropped, the floor raised. */
export function withOutcome(r: WebhookDeliveryRecord, outcome: DeliveryOutcome, now: number): WebhookDeliveryRecord {
  const outcomes = r.outcomes.filter((o) => o.eventId !== outcome.eventId);
  outcomes.push(outcome);
  let floor = r.floor;
  while (outcomes.length > MAX_DELIVERY_OUTCOMES) floor = Math.max(floor, outcomes.shift()!.at);
  return { ...r, outcomes, floor, retry: r.retry?.eventId === outcome.eventId ? null : r.retry, updatedAt: now };
}

export function emptyDeliveryRecord(id: string, now: number): WebhookDeliveryRecord {
  return { kind: 'webhook-delivery', v: WEBHOOK_RECORD_VERSION, id, outcomes: [], floor: 0, retry: null, updatedAt: now };
}
