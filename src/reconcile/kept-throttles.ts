// A finished or cancelled reassignment's throttles kept on purpose (DELETE ?preserveThrottles=true,
// or a reassignment ending with autoRemoveThrottle false): the reconciler and the reassignment
// service both write it.
import { RECORD_VERSION, type ReassignmentRecord, type ThrottleRequestRecord } from '../state/records.js';

/** A finished reassignment's throttles kept on purpose: a standing, non-expiring throttle request. */
export function keptThrottles(record: ReassignmentRecord, now: number, requestedBy: string | null): ThrottleRequestRecord {
  return {
    kind: 'throttle-request',
    v: RECORD_VERSION,
    id: `kept-${record.id}`,
    demand: record.throttleDemand!,
    autoRemove: false,
    waitFor: null,
    expiresAt: null,
    fromReassignment: record.id,
    owner: record.owner,
    requestedBy,
    createdAt: now,
    updatedAt: now,
  };
}
