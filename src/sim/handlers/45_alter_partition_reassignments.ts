// AlterPartitionReassignments (45), v0-v1 (KIP-455; v1: KIP-860). A controller request.
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
// Per-version notes: v0 is flexible. v1 (Kafka 4.1, KIP-860) adds allow_replication_factor_change
// (default true) to the request and echoes it in the response. When it is false, a target whose
// length differs from the replication factor the partition has, or is headed for while it moves
// (replicas + adding - removing), is refused with INVALID_REPLICATION_FACTOR (38) "The replication
// factor is changed from N to M" (ReplicationControlManager.validatePartitionReplicationFactorUnchanged,
// an InvalidReplicationFactorException): after the unknown topic/partition checks and the target's
// own checks (39 wins over 38), and never for a cancel. v0 always allows the change.
import {
  AlterPartitionReassignmentsRequestSchema,
  AlterPartitionReassignmentsResponseSchema,
  type AlterPartitionReassignmentsRequest,
  type AlterPartitionReassignmentsResponse,
} from '../protocol/messages.generated.js';
import { KafkaError } from '../cluster/errors.js';
import { validateTarget } from '../cluster/reassignments.js';
import type { ClusterModel } from '../cluster/model.js';
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
    const allowReplicationFactorChange = ctx.version < 1 || req.allowReplicationFactorChange !== false;
    if (notController(ctx)) return { throttleTimeMs: 0, allowReplicationFactorChange, ...NOT_CONTROLLER, responses: [] };
    const { model } = ctx.runtime;
    // One controller event: every entry is checked against the state before the request, then
    // the good ones are applied in order (see ClusterModel.alterPartitionReassignments). Done in
    // slices that yield to the event loop, so 100,000 partitions do not stop other connections
    // (ClusterModel.alterPartitionReassignmentsSliced); the answer comes when all are done.
    const entries: { topic: string; partition: number; replicas: number[] | null }[] = [];
    for (const t of req.topics)
      for (const p of t.partitions) entries.push({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas });
    // Refused for their replication factor: left out of the request to the model, answered 38.
    const refused = allowReplicationFactorChange ? null : replicationFactorChanges(model, entries);
    const applied = refused ? entries.filter((_, k) => !refused.has(k)) : entries;
    const appliedErrors = await model.alterPartitionReassignmentsSliced(applied, {
      source: { clientId: ctx.clientId, brokerId: ctx.brokerId },
    });
    let next = 0;
    const errors = refused ? entries.map((_, k) => refused.get(k) ?? appliedErrors[next++]!) : appliedErrors;
    let i = 0;
    const responses = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        const err = errors[i++];
        return { partitionIndex: p.partitionIndex, ...(err ? itemError(err) : OK) };
      }),
    }));
    return { throttleTimeMs: 0, allowReplicationFactorChange, errorCode: 0, errorMessage: null, responses };
  },
});

/**
 * The entries (by index) whose target changes their partition's replication factor, each with
 * its error; entries the model refuses anyway (unknown topic or partition, a bad target) and
 * cancels are not among them. Checked against the state before the request, as the model plans.
 */
function replicationFactorChanges(
  model: ClusterModel,
  entries: readonly { topic: string; partition: number; replicas: number[] | null }[],
): Map<number, KafkaError> {
  const refused = new Map<number, KafkaError>();
  const registered = new Set(model.listBrokers().map((b) => b.id));
  // Where moving partitions are headed: replicas + adding - removing (the merged list minus the removing).
  const headedFor = new Map<string, number>();
  for (const t of model.listPartitionReassignments(null)) {
    for (const p of t.partitions) headedFor.set(`${t.name}\0${p.partitionIndex}`, p.replicas.length - p.removingReplicas.length);
  }
  for (let k = 0; k < entries.length; k++) {
    const e = entries[k];
    if (e.replicas === null) continue;
    const current = model.getTopic(e.topic)?.partitions[e.partition];
    if (!current) continue;
    try {
      validateTarget(e.replicas, (id) => registered.has(id));
    } catch (err) {
      if (err instanceof KafkaError) continue; // the model answers it (39)
      throw err;
    }
    const rf = headedFor.get(`${e.topic}\0${e.partition}`) ?? current.replicas.length;
    if (rf !== e.replicas.length)
      refused.set(k, new KafkaError(38, `The replication factor is changed from ${rf} to ${e.replicas.length}`));
  }
  return refused;
}
