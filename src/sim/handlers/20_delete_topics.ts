// DeleteTopics (20), v0-v6. A controller request.
//
// Topics by name (v0-v5: topic_names; v6: topics[] with a name or, name null, a
// topic id). Unknown name → UNKNOWN_TOPIC_OR_PARTITION (3); unknown id →
// UNKNOWN_TOPIC_ID (100); the same topic twice → INVALID_REQUEST (42) for each.
// Quota (KIP-599): a deletion costs the topic's partition count; v5+ strict (89 when
// the bucket is negative, nothing deleted), v0-v4 permissive.
import { DeleteTopicsRequestSchema, DeleteTopicsResponseSchema, type DeleteTopicsRequest, type DeleteTopicsResponse } from '../protocol/messages.generated.js';
import { KafkaError } from '../cluster/errors.js';
import { itemError, notController, NOT_CONTROLLER } from './results.js';
import { defineHandler } from './types.js';

type Result = DeleteTopicsResponse['responses'][number];
const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

export const deleteTopicsHandler = defineHandler<DeleteTopicsRequest, DeleteTopicsResponse>({
  apiKey: 20,
  name: 'DeleteTopics',
  request: DeleteTopicsRequestSchema,
  response: DeleteTopicsResponseSchema,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const quota = ctx.runtime.mutationQuota(ctx, ctx.version >= 5);
    const wanted = ctx.version >= 6
      ? (req.topics ?? []).map((t) => ({ name: t.name ?? null, topicId: t.topicId ?? ZERO_UUID }))
      : (req.topicNames ?? []).map((name) => ({ name, topicId: ZERO_UUID }));
    const keys = wanted.map((w) => w.name ?? `id:${w.topicId}`);
    const responses = wanted.map((w, i): Result => {
      const base = { name: w.name, topicId: w.topicId };
      if (notController(ctx)) return { ...base, ...NOT_CONTROLLER };
      if (keys.filter((k) => k === keys[i]).length > 1) return { ...base, errorCode: 42, errorMessage: 'Duplicate topic name.' };
      const topic = w.name !== null ? model.getTopic(w.name) : model.getTopicById(w.topicId);
      if (!topic) {
        return w.name !== null
          ? { ...base, errorCode: 3, errorMessage: 'This server does not host this topic-partition.' }
          : { ...base, errorCode: 100, errorMessage: 'This server does not host this topic ID.' };
      }
      if (!quota.tryCharge(topic.partitions.length)) return { ...base, errorCode: 89, errorMessage: 'The throttling quota has been exceeded.' };
      try {
        model.deleteTopic(topic.name);
        return { name: topic.name, topicId: topic.topicId, errorCode: 0, errorMessage: null };
      } catch (err) {
        if (!(err instanceof KafkaError)) throw err;
        return { ...base, ...itemError(err) };
      }
    });
    return { throttleTimeMs: quota.throttleTimeMs(), responses };
  },
});
