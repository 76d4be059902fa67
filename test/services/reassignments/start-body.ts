// Starts (or plans) a body as POST /reassignments does: parsed into the service's typed request
// (parseStartRequest), then given to ReassignmentService.start.
import { parseStartRequest, type ReassignmentService, type StartResult } from '../../../src/services/reassignments/reassignment-service.js';

export async function startBody(service: ReassignmentService, body: unknown, requestedBy: string | null = null): Promise<StartResult> {
  const parsed = await parseStartRequest(body, { validateOnly: false });
  return parsed.ok ? service.start(parsed.request, requestedBy) : { kind: 'bad-request', errors: parsed.errors };
}
