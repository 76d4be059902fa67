// Where a reassignment came from (issue 33, the console's history: "goal or plan"): the goal of
// the POST /plans answer it was started from, or the caller's own label (`origin` in the body).
// Kept in the reassignment's state record header (a few hundred bytes at most, never per
// partition); absent = a hand-written body ("manual"), or a record written before this field.
//
// Derived from a plan answer only through fields whose size does not grow with the cluster's
// partitions (goal, counts, the before/after lists of at most one entry per broker).

/**
 * One problem with one field: request.ts's FieldError (`INVALID_TYPE` and `REQUIRED` only), stated
 * here so that request.ts (which calls parseOrigin) and this file do not import each other.
 */
export interface OriginFieldError {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

export interface ReassignmentOrigin {
  /** The plan's goal (`decommission`, `rebalance`, ...) or the caller's label. */
  readonly goal: string;
  /** A short description (the brokers a decommission empties, what moved); absent = none. */
  readonly description?: string;
}

export const ORIGIN_GOAL_MAX = 64;
export const ORIGIN_DESCRIPTION_MAX = 200;
/** A goal is a label: letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
const GOAL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what this pattern looks for (they are refused in a label)
const CONTROL = /[\u0000-\u001f\u007f]/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const validGoal = (v: unknown): v is string => typeof v === 'string' && v.length <= ORIGIN_GOAL_MAX && GOAL_PATTERN.test(v);

/** The body's `origin`: `{goal, description?}` as given (bounded); null = absent. Problems go to `errors`. */
export function parseOrigin(value: unknown, path: string, errors: OriginFieldError[]): ReassignmentOrigin | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) {
    errors.push({ path, code: 'INVALID_TYPE', message: 'origin must be an object {goal, description}.' });
    return null;
  }
  const before = errors.length;
  for (const key of Object.keys(value)) {
    if (key !== 'goal' && key !== 'description')
      errors.push({ path: `${path}/${key}`, code: 'INVALID_TYPE', message: `origin has only goal and description, not ${key}.` });
  }
  const { goal, description } = value;
  if (goal === undefined)
    errors.push({ path: `${path}/goal`, code: 'REQUIRED', message: 'origin.goal is required (e.g. "decommission", or your own label).' });
  else if (!validGoal(goal)) {
    errors.push({
      path: `${path}/goal`,
      code: 'INVALID_TYPE',
      message: `origin.goal must be 1 to ${ORIGIN_GOAL_MAX} letters, digits, '.', '_' or '-', starting with a letter or digit.`,
    });
  }
  if (
    description !== undefined &&
    description !== null &&
    (typeof description !== 'string' || description.length > ORIGIN_DESCRIPTION_MAX || CONTROL.test(description))
  ) {
    errors.push({
      path: `${path}/description`,
      code: 'INVALID_TYPE',
      message: `origin.description must be a string of at most ${ORIGIN_DESCRIPTION_MAX} characters without control characters.`,
    });
  }
  if (errors.length > before) return null;
  return typeof description === 'string' && description !== '' ? { goal: goal as string, description } : { goal: goal as string };
}

/**
 * The origin of a POST /plans answer: its goal, and a description of what it does. null when
 * the answer has no usable goal (it is not validated beyond its `reassignment`: anything else is
 * carried along as it came, so a goal that is not a label is ignored, not refused).
 */
export function originOfPlanAnswer(answer: unknown): ReassignmentOrigin | null {
  if (!isObject(answer) || !validGoal(answer.goal)) return null;
  const description = planDescription(answer);
  return description ? { goal: answer.goal, description } : { goal: answer.goal };
}

/** "brokers 3, 4 emptied; 12 partitions, 14 replicas moved": at most ORIGIN_DESCRIPTION_MAX characters. */
function planDescription(answer: Record<string, unknown>): string | undefined {
  const parts: string[] = [];
  if (answer.goal === 'decommission') {
    const emptied = decommissioned(answer);
    if (emptied.length > 0) parts.push(`broker${emptied.length > 1 ? 's' : ''} ${listed(emptied)} emptied`);
  }
  const changed = Array.isArray(answer.partitions) ? answer.partitions.length : null;
  const moved = typeof answer.movedReplicas === 'number' && Number.isSafeInteger(answer.movedReplicas) ? answer.movedReplicas : null;
  if (changed !== null) parts.push(`${changed} partition${changed === 1 ? '' : 's'} changed`);
  if (moved !== null) parts.push(`${moved} replica${moved === 1 ? '' : 's'} moved`);
  const text = parts.join('; ');
  return text === '' ? undefined : text.slice(0, ORIGIN_DESCRIPTION_MAX);
}

/**
 * The brokers a decommission answer empties: in `after` with no replica left, not a destination
 * (`options.brokers`, where replicas may go), and live or holding replicas before (a dead broker
 * that was already empty is not one the plan names).
 */
function decommissioned(answer: Record<string, unknown>): number[] {
  const options = isObject(answer.options) ? answer.options : {};
  const destinations = new Set(Array.isArray(options.brokers) ? options.brokers : []);
  const before = new Map<number, Record<string, unknown>>();
  for (const b of Array.isArray(answer.before) ? answer.before : [])
    if (isObject(b) && typeof b.broker === 'number') before.set(b.broker, b);
  const out: number[] = [];
  for (const a of Array.isArray(answer.after) ? answer.after : []) {
    if (!isObject(a) || typeof a.broker !== 'number' || !Number.isSafeInteger(a.broker) || destinations.has(a.broker) || a.replicas !== 0)
      continue;
    const b = before.get(a.broker);
    if (b && (b.live === true || (typeof b.replicas === 'number' && b.replicas > 0))) out.push(a.broker);
  }
  return out.sort((x, y) => x - y);
}

/** "3", "3, 4" or "3, 4, 5 … (12)": at most 8 ids. */
function listed(ids: readonly number[]): string {
  return ids.length <= 8 ? ids.join(', ') : `${ids.slice(0, 8).join(', ')} … (${ids.length})`;
}

/** The body with `origin` taken from its `plan` (a POST /plans answer) when it names none itself. */
export function withPlanOrigin(body: unknown): unknown {
  if (!isObject(body) || !isObject(body.plan) || (body.origin !== undefined && body.origin !== null)) return body;
  const origin = originOfPlanAnswer(body.plan);
  return origin ? { ...body, origin } : body;
}
