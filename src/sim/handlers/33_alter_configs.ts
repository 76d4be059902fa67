// AlterConfigs (33), v0-v2. The legacy API.
//
// REPLACES every dynamic config of the resource with the given set: configs not named
// are removed. That is why the gateway never uses it for throttles; it is simulated
// so that this hazard can be shown and tested. Validation as IncrementalAlterConfigs.
// v2 is flexible. The same resource twice in one request → INVALID_REQUEST (42) "Each resource
// must appear at most once." for every occurrence, none applied (ConfigAdminManager.preprocess
// for AlterConfigsRequestData, as for IncrementalAlterConfigs).
import {
  AlterConfigsRequestSchema,
  AlterConfigsResponseSchema,
  type AlterConfigsRequest,
  type AlterConfigsResponse,
} from '../protocol/messages.generated.js';
import { attempt, DUPLICATE_RESOURCE, duplicateResources } from './results.js';
import { defineHandler } from './types.js';

export const alterConfigsHandler = defineHandler<AlterConfigsRequest, AlterConfigsResponse>({
  apiKey: 33,
  name: 'AlterConfigs',
  request: AlterConfigsRequestSchema,
  response: AlterConfigsResponseSchema,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const duplicates = duplicateResources(req.resources);
    const alter = (r: AlterConfigsRequest['resources'][number]) =>
      attempt(() =>
        model.alterConfigs(
          { type: r.resourceType, name: r.resourceName },
          r.configs.map((c) => ({ name: c.name, value: c.value })),
          req.validateOnly,
        ),
      );
    const responses = req.resources.map((r, i) => ({
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      ...(duplicates.has(i) ? DUPLICATE_RESOURCE : alter(r)),
    }));
    return { throttleTimeMs: 0, responses };
  },
});
