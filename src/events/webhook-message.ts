// What a webhook delivery sends: a CloudEvents 1.0 event in structured mode (the whole event is
// the JSON body, `application/cloudevents+json`), signed as Standard Webhooks sign:
//
//   webhook-id:        the change's event id (the same on every retry and from every instance:
//                      receivers deduplicate by it)
//   webhook-timestamp: Unix seconds when this attempt was signed
//   webhook-signature: v1,<base64 HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${body}`)>
//                      where key = base64-decode(secret without its `whsec_` prefix)
//
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
// the id is signed with the timestamp and the body, so a signature cannot be replayed with
// another id, and receivers can verify with the Standard Webhooks libraries as they are.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ReassignmentChange } from './reassignment-changes.js';

export const CLOUDEVENTS_CONTENT_TYPE = 'application/cloudevents+json; charset=utf-8';
export const EVENT_TYPE_PREFIX = 'io.kafka-admin-gateway.reassignment.';
export const SECRET_PREFIX = 'whsec_';
/** HMAC keys of 24 to 64 bytes (Standard Webhooks: 24 to 64). */
export const SECRET_MIN_BYTES = 24;
export const SECRET_MAX_BYTES = 64;

/** The CloudEvents `data` of a change: the reassignment's cheap summary fields. */
export interface ChangeEventData {
  reassignmentId: string;
  change: string;
  state: string;
  previousState: string | null;
  partitions: number | null;
  paused: boolean;
  requestedBy: string | null;
  reason: string | null;
  rollbackOf: string | null;
  /** Where to read the reassignment. */
  href: string;
}

export interface CloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  data: ChangeEventData;
}

export function cloudEventOf(change: ReassignmentChange, source: string): CloudEvent {
  return {
    specversion: '1.0',
    id: change.eventId,
    source,
    type: EVENT_TYPE_PREFIX + change.type,
    subject: change.reassignmentId,
    time: change.at,
    datacontenttype: 'application/json',
    data: {
      reassignmentId: change.reassignmentId,
      change: change.type,
      state: change.state,
      previousState: change.previousState,
      partitions: change.partitions,
      paused: change.paused,
      requestedBy: change.requestedBy,
      reason: change.reason,
      rollbackOf: change.rollbackOf,
      href: `/reassignments/${encodeURIComponent(change.reassignmentId)}`,
    },
  };
}

/** The HMAC key of a `whsec_<base64>` secret; undefined when it is not one (or its length is out of bounds). */
export function secretKey(secret: string): Buffer | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined;
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return undefined;
  const key = Buffer.from(b64, 'base64');
  return key.length >= SECRET_MIN_BYTES && key.length <= SECRET_MAX_BYTES ? key : undefined;
}

/** A new secret: 32 random bytes. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function signature(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The request of one attempt: headers and body, signed now. */
export function signedRequest(
  change: ReassignmentChange,
  source: string,
  secret: string,
  nowMs: number,
): { headers: Record<string, string>; body: string } {
  const key = secretKey(secret);
  if (!key) throw new RangeError('not a webhook secret'); // validated when the webhook was created
  const body = JSON.stringify(cloudEventOf(change, source));
  const timestamp = Math.floor(nowMs / 1000);
  return {
    body,
    headers: {
      'content-type': CLOUDEVENTS_CONTENT_TYPE,
      'user-agent': 'kafka-admin-gateway-webhooks/1',
      'webhook-id': change.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature(key, change.eventId, timestamp, body),
    },
  };
}

/**
 * What a receiver does (tests, and the README's recipe): whether one of the signatures in the
 * header is the body's, signed with `secret`, within `toleranceSeconds` of `nowMs`.
 */
export function verifySignature(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  nowMs: number,
  toleranceSeconds = 300,
): boolean {
  const key = secretKey(secret);
  const ts = Number(headers.timestamp);
  if (!key || !Number.isInteger(ts) || Math.abs(nowMs / 1000 - ts) > toleranceSeconds) return false;
  const expected = Buffer.from(signature(key, headers.id, ts, body));
  return headers.signature.split(' ').some((s) => {
    const got = Buffer.from(s);
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
