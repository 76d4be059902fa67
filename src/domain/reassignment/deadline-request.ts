// The deadline fields of POST /reassignments (issue 30, part 2): `finishBy` and `throttleBounds`,
// parsed and checked here; request.ts calls these (so this file cannot import it: the error
// shape is repeated structurally and matches request.ts's FieldError).
import { DEADLINE_MIN_LEAD_MS, DEFAULT_THROTTLE_BOUNDS, type ThrottleBounds } from './deadline.js';

/** The lowest rate a bound may be: request.ts's MIN_THROTTLE_BYTES_PER_SECOND (a smaller number is a typo). */
const MIN_BOUND_BYTES_PER_SECOND = 1024;

/** One problem with one field (request.ts FieldError). */
export interface DeadlineFieldError {
  readonly path: string;
  readonly code: 'INVALID_TYPE' | 'OUT_OF_RANGE' | 'DEADLINE_TOO_CLOSE';
  readonly message: string;
}

/** Where errors go: a FieldError[] of request.ts fits. */
export interface DeadlineErrorSink {
  readonly length: number;
  push(error: DeadlineFieldError): number;
}

/** `throttleBounds` {min, max}: integers ≥ MIN_BOUND_BYTES_PER_SECOND, min ≤ max; absent parts take the defaults. */
export function parseThrottleBounds(value: unknown, path: string, errors: DeadlineErrorSink): ThrottleBounds | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    errors.push({ path, code: 'INVALID_TYPE', message: 'throttleBounds must be an object {min, max} in bytes per second.' });
    return null;
  }
  const v = value as Record<string, unknown>;
  const out = { min: DEFAULT_THROTTLE_BOUNDS.min, max: DEFAULT_THROTTLE_BOUNDS.max };
  const before = errors.length;
  for (const key of Object.keys(v)) {
    if (key !== 'min' && key !== 'max') {
      errors.push({ path: `${path}/${key}`, code: 'INVALID_TYPE', message: `throttleBounds has only min and max, not ${key}.` });
      continue;
    }
    const n = v[key];
    if (n === undefined || n === null) continue;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < MIN_BOUND_BYTES_PER_SECOND) {
      errors.push({
        path: `${path}/${key}`,
        code: 'OUT_OF_RANGE',
        message: `throttleBounds.${key} is in bytes per second: an integer ≥ ${MIN_BOUND_BYTES_PER_SECOND}.`,
      });
      continue;
    }
    out[key] = n;
  }
  if (errors.length === before && out.min > out.max) {
    errors.push({
      path,
      code: 'OUT_OF_RANGE',
      message: `throttleBounds.min (${out.min}) is above throttleBounds.max (${out.max}) (absent ones default to ${DEFAULT_THROTTLE_BOUNDS.min} and ${DEFAULT_THROTTLE_BOUNDS.max}).`,
    });
  }
  return errors.length === before ? out : null;
}

/** `finishBy`: an ISO 8601 date-time with a zone (`Z` or an offset) -> epoch ms; null when absent. */
export function parseFinishBy(value: unknown, errors: DeadlineErrorSink): number | null {
  if (value === undefined || value === null) return null;
  const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;
  const ms = typeof value === 'string' && ISO.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) {
    errors.push({
      path: '/finishBy',
      code: 'INVALID_TYPE',
      message: 'finishBy must be a date-time with its zone, e.g. 2030-01-31T18:00:00Z.',
    });
    return null;
  }
  return ms;
}

/** A finishBy in the past or less than DEADLINE_MIN_LEAD_MS away: the error to answer (400); null when fine. */
export function checkFinishBy(finishByMs: number, nowMs: number): DeadlineFieldError | null {
  const lead = finishByMs - nowMs;
  if (lead >= DEADLINE_MIN_LEAD_MS) return null;
  const when = new Date(finishByMs).toISOString();
  return {
    path: '/finishBy',
    code: 'DEADLINE_TOO_CLOSE',
    message:
      lead <= 0
        ? `finishBy ${when} is in the past (the gateway's clock reads ${new Date(nowMs).toISOString()}).`
        : `finishBy ${when} is only ${(lead / 1000).toFixed(1)} s away; it must be at least ${DEADLINE_MIN_LEAD_MS / 1000} s away so the throttle can be steered.`,
  };
}
