// POST /reassignments accepts a plan as POST /plans answered it: `{"plan": <answer>, "throttle": …}`.
// Unwrapped here, at the request edge, into the body the reassignment parser already knows
// (`partitions` from the plan's `reassignment`, every other option as sent), so the reassignment
// path itself does not know plans exist.

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body with `plan` replaced by its reassignment's partitions; any other body as it is. */
export function unwrapPlanBody(body: unknown): unknown {
  if (!isObject(body) || !isObject(body.plan)) return body;
  const { plan, ...options } = body;
  const reassignment = plan.reassignment;
  return { ...options, partitions: isObject(reassignment) ? reassignment.partitions : undefined };
}
