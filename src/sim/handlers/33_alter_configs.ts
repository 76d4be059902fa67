// AlterConfigs (33), v0-v2. The legacy API.
//
// REPLACES every dynamic config of the resource with the given set: configs not named
// are removed. That is why the gateway never uses it for throttles; it is simulated
// so that this hazard can be shown and tested. Validation as IncrementalAlterConfigs.
// v2 is flexible.
import { AlterConfigsRequestSchema, AlterConfigsResponseSchema, type AlterConfigsRequest, type AlterConfigsResponse } from '../protocol/messages.generated.js';
import { attempt } from './results.js';
import { defineHandler } from './types.js';

export const alterConfigsHandler = defineHandler<AlterConfigsRequest, AlterConfigsResponse>({
  apiKey: 33,
  name: 'AlterConfigs',
  request: AlterConfigsRequestSchema,
  response: AlterConfigsResponseSchema,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const responses = req.resources.map((r) => ({
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      ...attempt(() => model.alterConfigs({ type: r.resourceType, name: r.resourceName }, r.configs.map((c) => ({ name: c.name, value: c.value })), req.validateOnly)),
    }));
    return { throttleTimeMs: 0, responses };
  },
});
