// IncrementalAlterConfigs (44), v0-v1. Forwarded to the controller in KRaft.
//
// Per resource, atomically: SET (0), DELETE (1), APPEND (2) and SUBTRACT (3, list
// configs only) on TOPIC (2) or BROKER (4; a broker id, or "" for the cluster-wide
// default). A BROKER resource naming another broker → INVALID_REQUEST (42) "Unexpected broker
// id, expected <this broker>, but received <id>" (ConfigAdminManager: send it to that broker, or
// use ""). APPEND/SUBTRACT on a config that is not a list → INVALID_CONFIG (40) "Can't APPEND to
// key X because its type is not LIST." (the controller's check, topics and brokers alike).
// Unknown config names and ill-typed values → INVALID_CONFIG (40); the same
// config twice in one resource → INVALID_REQUEST (42); unknown topic → 3. With
// validate_only nothing changes. This is how replication throttles are set: it
// touches only the named configs, unlike AlterConfigs. v1 is flexible.
// The same resource (type and name) twice in one request → every occurrence INVALID_REQUEST
// (42) "Each resource must appear at most once." and none applied (ConfigAdminManager
// .preprocess, then reassembleIncrementalResponse answers in request order).
import {
  IncrementalAlterConfigsRequestSchema,
  IncrementalAlterConfigsResponseSchema,
  type IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsResponse,
} from '../protocol/messages.generated.js';
import { attempt, DUPLICATE_RESOURCE, duplicateResources } from './results.js';
import { defineHandler } from './types.js';

export const incrementalAlterConfigsHandler = defineHandler<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>({
  apiKey: 44,
  name: 'IncrementalAlterConfigs',
  request: IncrementalAlterConfigsRequestSchema,
  response: IncrementalAlterConfigsResponseSchema,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const duplicates = duplicateResources(req.resources);
    const responses = req.resources.map((r, i) => ({
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      ...(duplicates.has(i)
        ? DUPLICATE_RESOURCE
        : attempt(() =>
            model.incrementalAlterConfigs(
              { type: r.resourceType, name: r.resourceName },
              r.configs.map((c) => ({ name: c.name, op: c.configOperation, value: c.value })),
              req.validateOnly,
              { nodeId: ctx.brokerId },
            ),
          )),
    }));
    return { throttleTimeMs: 0, responses };
  },
});
