// DeleteTopics (20), v0-v6. A controller request.
//
// Topics by name (v0-v5: topic_names; v6: topics[] with a name or, name null, a topic id), in
// ControllerApis.deleteTopics' order: first, in request order, v6 entries with both a name and an
// id (INVALID_REQUEST "You may not specify both topic name and topic id.") or neither
// ("Neither topic name nor id were specified."); then each name given twice, once ("Duplicate
// topic name."), then each id given twice, once ("Duplicate topic id."); then the others. Unknown
// name → UNKNOWN_TOPIC_OR_PARTITION (3); unknown id → UNKNOWN_TOPIC_ID (100).
// Quota (KIP-599): a deletion costs the topic's partition count; v5+ strict (89 when
// the bucket is negative, nothing deleted), v0-v4 permissive.
import {
  DeleteTopicsRequestSchema,
  DeleteTopicsResponseSchema,
  type DeleteTopicsRequest,
  type DeleteTopicsResponse,
} from '../protocol/messages.generated.js';
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
    const deleteOne = (w: { name: string | null; topicId: string }): Result => {
      const base = { name: w.name, topicId: w.topicId };
      if (notController(ctx)) return { ...base, ...NOT_CONTROLLER };
      const topic = w.name !== null ? model.getTopic(w.name) : model.getTopicById(w.topicId);
      if (!topic) {
        return w.name !== null
          ? { ...base, errorCode: 3, errorMessage: 'This server does not host this topic-partition.' }
          : { ...base, errorCode: 100, errorMessage: 'This server does not host this topic ID.' };
      }
      if (!quota.tryCharge(topic.partitions.length))
        return { ...base, errorCode: 89, errorMessage: 'The throttling quota has been exceeded.' };
      try {
        model.deleteTopic(topic.name);
        return { name: topic.name, topicId: topic.topicId, errorCode: 0, errorMessage: null };
      } catch (err) {
        if (!(err instanceof KafkaError)) throw err;
        return { ...base, ...itemError(err) };
      }
    };
    const responses: Result[] = [];
    const invalid = (name: string | null, topicId: string, errorMessage: string): void => {
      responses.push({ name, topicId, errorCode: 42, errorMessage });
    };
    const names = new Set<string>();
    const duplicateNames = new Set<string>();
    const ids = new Set<string>();
    const duplicateIds = new Set<string>();
    const addName = (name: string): void => {
      if (duplicateNames.has(name) || names.has(name)) {
        duplicateNames.add(name);
        names.delete(name);
      } else {
        names.add(name);
      }
    };
    const wanted: { name: string | null; topicId: string }[] = [];
    for (const name of ctx.version >= 6 ? [] : (req.topicNames ?? [])) {
      addName(name);
      wanted.push({ name, topicId: ZERO_UUID });
    }
    for (const t of ctx.version >= 6 ? (req.topics ?? []) : []) {
      const name = t.name ?? null;
      const topicId = t.topicId ?? ZERO_UUID;
      if (name === null && topicId === ZERO_UUID) {
        invalid(null, ZERO_UUID, 'Neither topic name nor id were specified.');
      } else if (name !== null && topicId !== ZERO_UUID) {
        invalid(name, topicId, 'You may not specify both topic name and topic id.');
      } else if (name !== null) {
        addName(name);
        wanted.push({ name, topicId });
      } else {
        if (duplicateIds.has(topicId) || ids.has(topicId)) {
          duplicateIds.add(topicId);
          ids.delete(topicId);
        } else {
          ids.add(topicId);
        }
        wanted.push({ name, topicId });
      }
    }
    for (const name of duplicateNames) invalid(name, ZERO_UUID, 'Duplicate topic name.');
    for (const id of duplicateIds) invalid(null, id, 'Duplicate topic id.');
    for (const w of wanted) {
      if (w.name !== null ? !names.delete(w.name) : !ids.delete(w.topicId)) continue; // a duplicate
      responses.push(deleteOne(w));
    }
    return { throttleTimeMs: quota.throttleTimeMs(), responses };
  },
});
