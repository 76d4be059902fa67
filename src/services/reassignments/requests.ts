// Request bodies made into the service's typed inputs; src/http calls these before the service.
// POST /reassignments: the body may be a plan as POST /plans answered it (unwrapped, its goal
// kept as the origin), the gateway's shape or kafka-reassign-partitions.sh's file (the domain's
// parser normalises both). PATCH /reassignments/{id}: the paced execution's fields.
import { unwrapPlanBody } from '../../domain/plan/reassignment-body.js';
import {
  parseReassignmentRequestSteps,
  parseConcurrency,
  type FieldError,
  type ParseReassignmentResult,
} from '../../domain/reassignment/index.js';
import { parseSafety } from '../../domain/reassignment/health.js';
import { withPlanOrigin } from '../../domain/reassignment/origin.js';
import { driveSteps } from '../../event-loop-turns.js';
import { makePacer } from '../../state/layout.js';
import { PACE_BUDGET_MS, type SteerPatch } from './types.js';

/**
 * The request a body asks for, or every problem with it. `validateOnly` (the query parameter or
 * the body field, as src/http read it) sets the request's. Parsed in slices: 100,000 partitions
 * do not hold the event loop.
 */
export async function parseStartRequest(body: unknown, opts: { validateOnly: boolean }): Promise<ParseReassignmentResult> {
  // A plan answer's goal is kept as the reassignment's origin (unless the body names one) before the plan is unwrapped.
  const unwrapped = unwrapPlanBody(withPlanOrigin(body));
  const withFlag =
    opts.validateOnly && unwrapped !== null && typeof unwrapped === 'object' && !Array.isArray(unwrapped)
      ? { ...unwrapped, validateOnly: true }
      : unwrapped;
  return driveSteps(parseReassignmentRequestSteps(withFlag), makePacer(PACE_BUDGET_MS));
}

/**
 * The `concurrency` and `safety` of a PATCH body (absent: not in the patch), and every problem
 * with them. `paused` and `throttle` are typed by the request validation already.
 */
export function parseSteerFields(body: { concurrency?: unknown; safety?: unknown }): {
  patch: Pick<SteerPatch, 'concurrency' | 'safety'>;
  errors: FieldError[];
} {
  const errors: FieldError[] = [];
  const concurrency = 'concurrency' in body ? parseConcurrency(body.concurrency, '/concurrency', errors) : undefined;
  const safety = 'safety' in body ? parseSafety(body.safety, '/safety', errors) : undefined;
  return { patch: { ...(concurrency !== undefined && { concurrency }), ...(safety !== undefined && { safety }) }, errors };
}
