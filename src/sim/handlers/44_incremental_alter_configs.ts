// IncrementalAlterConfigs (44), v0-v1. Forwarded to the controller in KRaft.
//
// Per resource, atomically: SET (0), DELETE (1), APPEND (2) and SUBTRACT (3, list
// configs only) on TOPIC (2) or BROKER (4; a broker id, or "" for the cluster-wide
// default). Unknown config names and ill-typed values → INVALID_CONFIG (40); the same
// config twice in one resource → INVALID_REQUEST (42); unknown topic → 3. With
// validate_only nothing changes. This is how replication throttles are set: it
// touches only the named configs, unlike AlterConfigs. v1 is flexible.
import { IncrementalAlterConfigsRequestSchema, IncrementalAlterConfigsResponseSchema, type IncrementalAlterConfigsRequest, type IncrementalAlterConfigsResponse } from '../protocol/messages.generated.js';
import { attempt } from './results.js';
import { defineHandler } from './types.js';

export const incrementalAlterConfigsHandler = defineHandler<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>({
  apiKey: 44,
  name: 'IncrementalAlterConfigs',
  request: IncrementalAlterConfigsRequestSchema,
  response: IncrementalAlterConfigsResponseSchema,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const responses = req.resources.map((r) => ({
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      ...attempt(() => model.incrementalAlterConfigs(
        { type: r.resourceType, name: r.resourceName },
        r.configs.map((c) => ({ name: c.name, op: c.configOperation, value: c.value })),
        req.validateOnly,
      )),
    }));
    return { throttleTimeMs: 0, responses };
  },
});
