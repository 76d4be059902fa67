// CreatePartitions (37), v0-v3. A controller request.
//
// Raises a topic's partition count, with optional explicit assignments (one replica
// list per NEW partition). Validation (3, 37, 38, 39) comes from the cluster model,
// per topic; a topic named twice is answered once, first (as ControllerApis.createPartitions),
// with INVALID_REQUEST (42) "Duplicate topic name.", and nothing changes for it.
// Quota (KIP-599): costs new_count - current_count; v3 strict (89), v0-v2 permissive.
// v1 is v0 with the quota-throttle behaviour; v2 is flexible.
import {
  CreatePartitionsRequestSchema,
  CreatePartitionsResponseSchema,
  type CreatePartitionsRequest,
  type CreatePartitionsResponse,
} from '../protocol/messages.generated.js';
import { KafkaError } from '../cluster/errors.js';
import { itemError, notController, NOT_CONTROLLER, OK } from './results.js';
import { defineHandler } from './types.js';

export const createPartitionsHandler = defineHandler<CreatePartitionsRequest, CreatePartitionsResponse>({
  apiKey: 37,
  name: 'CreatePartitions',
  request: CreatePartitionsRequestSchema,
  response: CreatePartitionsResponseSchema,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const quota = ctx.runtime.mutationQuota(ctx, ctx.version >= 3);
    const seen = new Set<string>();
    const duplicates = new Set<string>();
    for (const t of req.topics) {
      if (seen.has(t.name)) duplicates.add(t.name);
      seen.add(t.name);
    }
    const one = (t: CreatePartitionsRequest['topics'][number]) => {
      if (notController(ctx)) return { name: t.name, ...NOT_CONTROLLER };
      const assignments = t.assignments === null ? null : t.assignments.map((a) => a.brokerIds);
      try {
        const current = model.getTopic(t.name)?.partitions.length ?? 0;
        model.createPartitions(t.name, t.count, assignments, { validateOnly: true });
        // ZooKeeper mode: a validateOnly request is neither checked nor charged (ZkAdminManager.createPartitions).
        const charged = !(req.validateOnly && ctx.runtime.release.mode === 'zookeeper');
        if (charged && !quota.tryCharge(t.count - current))
          return { name: t.name, errorCode: 89, errorMessage: 'The throttling quota has been exceeded.' };
        if (!req.validateOnly) model.createPartitions(t.name, t.count, assignments, { validateOnly: false });
        return { name: t.name, ...OK };
      } catch (err) {
        if (!(err instanceof KafkaError)) throw err;
        return { name: t.name, ...itemError(err) };
      }
    };
    const results = [
      ...[...duplicates].map((name) => ({ name, errorCode: 42, errorMessage: 'Duplicate topic name.' })),
      ...req.topics.filter((t) => !duplicates.has(t.name)).map(one),
    ];
    return { throttleTimeMs: quota.throttleTimeMs(), results };
  },
});
