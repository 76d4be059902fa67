// AlterPartitionReassignments (45), v0 (KIP-455). A controller request.
//
// Per partition, in Kafka's order (ReplicationControlManager.alterPartitionReassignment):
// unknown topic → 3 "Unable to find a topic named X."; unknown partition → 3 "Unable to find
// partition X:N."; replicas null cancels: nothing moving → 85 (null message), a revert needing an unclean election on a topic that forbids it → 39; otherwise
// the target is checked as a manual assignment: [] → 39, then walking the ids in ascending order
// an unregistered broker or a repeated one → 39. Partitions succeed or fail independently, every
// entry checked against the state before the request and the good ones applied in order (the
// same partition listed twice ends as its last entry says). A new target that adds (or removes)
// nothing relative to the merged list keeps the earlier adding (removing) list.
// While moving, replicas = target ++ sorted(current - target); adding replicas copy the log from
// the leader (see ../cluster/replication.ts for bandwidth and throttles) and the move completes
// when they are in sync. A pure reorder completes at once. Top-level error 0 with a null message;
// ZooKeeper mode (runtime.notControllerErrors): a non-controller answers NOT_CONTROLLER (41) at
// the top level with no per-partition results. Authorization (ALTER on CLUSTER) is not modelled.
// Per-version notes: v0 is flexible. Kafka 4.1 adds v1 (allow_replication_factor_change); the
// spec here stops at v0, so only v0 is served and advertised.
import {
  AlterPartitionReassignmentsRequestSchema,
  AlterPartitionReassignmentsResponseSchema,
  type AlterPartitionReassignmentsRequest,
  type AlterPartitionReassignmentsResponse,
} from '../protocol/messages.generated.js';
import { itemError, notController, NOT_CONTROLLER, OK } from './results.js';
import { defineHandler } from './types.js';
import { HEAVY_ITEMS } from '../request-turns.js';

export const alterPartitionReassignmentsHandler = defineHandler<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse>({
  apiKey: 45,
  name: 'AlterPartitionReassignments',
  request: AlterPartitionReassignmentsRequestSchema,
  response: AlterPartitionReassignmentsResponseSchema,
  // Many partitions (a decommission): a controller event applied in slices (../request-turns.ts).
  heavy: (req) => req.topics.reduce((n, t) => n + t.partitions.length, 0) > HEAVY_ITEMS,
  async handle(ctx, req) {
    if (notController(ctx)) return { throttleTimeMs: 0, ...NOT_CONTROLLER, responses: [] };
    const { model } = ctx.runtime;
    // One controller event: every entry is checked against the state before the request, then
    // the good ones are applied in order (see ClusterModel.alterPartitionReassignments). Done in
    // slices that yield to the event loop, so 100,000 partitions do not stop other connections
    // (ClusterModel.alterPartitionReassignmentsSliced); the answer comes when all are done.
    const entries: { topic: string; partition: number; replicas: number[] | null }[] = [];
    for (const t of req.topics) for (const p of t.partitions) entries.push({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas });
    const errors = await model.alterPartitionReassignmentsSliced(entries, { source: { clientId: ctx.clientId, brokerId: ctx.brokerId } });
    let i = 0;
    const responses = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        const err = errors[i++];
        return { partitionIndex: p.partitionIndex, ...(err ? itemError(err) : OK) };
      }),
    }));
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses };
  },
});
