// POST /reassignments, in named steps. The rules (validation, throttle lists, estimates, waves)
// are the domain's (src/domain/reassignment); the steps order the I/O so that a crash at any
// step leaves nothing behind:
//
//   validate everything (start-validate.ts) -> decide what is sent now (start-plan.ts) ->
//   write the reassignment record, pending, with its throttle demand (start-record.ts) ->
//   throttle sync (ledger first, then configs) -> AlterPartitionReassignments -> record running
//   (start-send.ts). The record is written before anything changes in the cluster, so any
//   instance's reconciler can finish or undo the job (see reconciler.ts for how a pending record
//   is resolved).
import { makePacer } from '../../state/layout.js';
import { planStart } from './start-plan.js';
import { writeStartRecord } from './start-record.js';
import { throttleAndSend } from './start-send.js';
import { validateStart } from './start-validate.js';
import { PACE_BUDGET_MS, type ServiceContext, type StartOptions, type StartRequest, type StartResult } from './types.js';

export async function startReassignment(
  ctx: ServiceContext,
  req: StartRequest,
  requestedBy: string | null,
  opts: StartOptions = {},
): Promise<StartResult> {
  // At 100,000 partitions every pass below is tens of ms: each runs in slices (Steps driven
  // by `pace`), so other requests and the reconciler are served meanwhile.
  const pace = makePacer(PACE_BUDGET_MS);
  const checked = await validateStart(ctx, req, pace, opts);
  if ('refused' in checked) return checked.refused;
  const planned = await planStart(ctx, checked.validated, pace);
  if (planned.req.validateOnly) return { kind: 'plan', plan: await planned.planView() };
  const written = await writeStartRecord(ctx, checked.validated, planned, requestedBy, opts, pace);
  if ('refused' in written) return written.refused;
  return throttleAndSend(ctx, checked.validated, planned, written.record, pace);
}
