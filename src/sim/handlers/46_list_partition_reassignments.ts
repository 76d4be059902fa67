// ListPartitionReassignments (46), v0 (KIP-455). A controller request.
//
// topics null lists every partition being reassigned, topics by name and partitions by index;
// otherwise the listed partitions, in request order, that are moving. Unknown topics, unknown
// partitions and partitions not moving are silently omitted, and so is a topic left with none.
// Each entry: replicas (target ++ sorted removing), adding_replicas and removing_replicas, both
// sorted. Top-level error 0 with a null message; ZooKeeper mode (runtime.notControllerErrors):
// a non-controller answers NOT_CONTROLLER (41) at the top level with no topics. Authorization
// (DESCRIBE on CLUSTER) is not modelled.
// Per-version notes: v0 is the only version and is flexible.
import {
  ListPartitionReassignmentsRequestSchema,
  ListPartitionReassignmentsResponseSchema,
  type ListPartitionReassignmentsRequest,
  type ListPartitionReassignmentsResponse,
} from '../protocol/messages.generated.js';
import { notController, NOT_CONTROLLER } from './results.js';
import { defineHandler } from './types.js';
import { HEAVY_ITEMS } from '../request-turns.js';

export const listPartitionReassignmentsHandler = defineHandler<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse>({
  apiKey: 46,
  name: 'ListPartitionReassignments',
  request: ListPartitionReassignmentsRequestSchema,
  response: ListPartitionReassignmentsResponseSchema,
  // Every moving partition, or many of them (../request-turns.ts).
  heavy: (req) => req.topics === null || req.topics.reduce((n, t) => n + t.partitionIndexes.length, 0) > HEAVY_ITEMS,
  handle(ctx, req) {
    if (notController(ctx)) return { throttleTimeMs: 0, ...NOT_CONTROLLER, topics: [] };
    const topics = ctx.runtime.model.listPartitionReassignments(req.topics);
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, topics };
  },
});
