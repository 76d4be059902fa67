// CreateTopics (19), v0-v7. A controller request.
//
// Each topic is handled on its own, in request order, as KRaft's
// ReplicationControlManager.createTopics does: validation errors (17, 36, 37, 38, 39,
// 40, 42) come from the cluster model. As ControllerApis.createTopics: a name given twice in
// one request is answered once, after the other topics, with INVALID_REQUEST (42) "Duplicate
// topic name." and nothing is created for it; `__cluster_metadata` is answered (last) with 42
// "Creation of internal topic __cluster_metadata is prohibited.". validateOnly answers what
// Kafka would create: a random topic id (Kafka draws it before checking validateOnly) and the
// full resolved config list.
// Quota (KIP-599): after a topic passes validation its partition count is charged to
// the controller mutation quota, validateOnly included (KRaft); a ZooKeeper-mode cluster
// (runtime.release.mode) neither checks nor charges a validateOnly request
// (ZkAdminManager.createTopics records the quota only when it creates). v6+ is strict: a
// topic that finds the bucket negative fails with THROTTLING_QUOTA_EXCEEDED (89) and
// costs nothing; v0-v5 are permissive: charged and never refused, only throttled.
// Per-version notes: v1 adds validate_only; v4 lets num_partitions and
// replication_factor be -1 (broker defaults) without assignments; v5 is flexible and
// returns num_partitions, replication_factor and the topic's configs; v7 returns the
// topic id. ZooKeeper mode only (notControllerErrors): a non-controller broker
// answers NOT_CONTROLLER (41) for every topic.
import {
  CreateTopicsRequestSchema,
  CreateTopicsResponseSchema,
  type CreateTopicsRequest,
  type CreateTopicsResponse,
} from '../protocol/messages.generated.js';
import { KafkaError } from '../cluster/errors.js';
import { itemError, notController, NOT_CONTROLLER } from './results.js';
import { defineHandler } from './types.js';

type Result = CreateTopicsResponse['topics'][number];
/** KRaft's metadata log: not a topic anyone may create. */
const CLUSTER_METADATA_TOPIC = '__cluster_metadata';
const THROTTLED = { errorCode: 89, errorMessage: 'The throttling quota has been exceeded.' };

export const createTopicsHandler = defineHandler<CreateTopicsRequest, CreateTopicsResponse>({
  apiKey: 19,
  name: 'CreateTopics',
  request: CreateTopicsRequestSchema,
  response: CreateTopicsResponseSchema,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const quota = ctx.runtime.mutationQuota(ctx, ctx.version >= 6);
    const seen = new Set<string>();
    const duplicates = new Set<string>();
    for (const t of req.topics) {
      if (seen.has(t.name)) duplicates.add(t.name);
      seen.add(t.name);
    }
    const failed = (name: string, e: { errorCode: number; errorMessage: string | null }): Result => ({
      name,
      errorCode: e.errorCode,
      errorMessage: e.errorMessage,
      numPartitions: -1,
      replicationFactor: -1,
      configs: null,
    });

    const topics = req.topics
      .filter((t) => !duplicates.has(t.name) && t.name !== CLUSTER_METADATA_TOPIC)
      .map((t): Result => {
        if (notController(ctx)) return failed(t.name, NOT_CONTROLLER);
        const spec = {
          name: t.name,
          numPartitions: t.numPartitions,
          replicationFactor: t.replicationFactor,
          assignments: t.assignments.map((a) => ({ partition: a.partitionIndex, brokerIds: a.brokerIds })),
          configs: t.configs.map((c) => ({ name: c.name, value: c.value })),
        };
        try {
          const planned = model.createTopic(spec, { validateOnly: true });
          const charged = !(req.validateOnly && ctx.runtime.release.mode === 'zookeeper');
          if (charged && !quota.tryCharge(planned.partitions.length)) return failed(t.name, THROTTLED);
          const topic = req.validateOnly ? planned : model.createTopic(spec, { validateOnly: false });
          const configs = req.validateOnly ? planned.configs : model.describeConfigs({ type: 2, name: topic.name }, null);
          return {
            name: topic.name,
            topicId: topic.topicId,
            errorCode: 0,
            errorMessage: null,
            numPartitions: topic.partitions.length,
            replicationFactor: topic.partitions[0]?.replicas.length ?? -1,
            configs: configs.map((c) => ({
              name: c.name,
              value: c.value,
              readOnly: c.readOnly,
              configSource: c.source,
              isSensitive: c.isSensitive,
            })),
          };
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          return failed(t.name, itemError(err));
        }
      });
    for (const name of duplicates) topics.push(failed(name, { errorCode: 42, errorMessage: 'Duplicate topic name.' }));
    if (seen.has(CLUSTER_METADATA_TOPIC)) {
      topics.push(
        failed(CLUSTER_METADATA_TOPIC, {
          errorCode: 42,
          errorMessage: `Creation of internal topic ${CLUSTER_METADATA_TOPIC} is prohibited.`,
        }),
      );
    }
    return { throttleTimeMs: quota.throttleTimeMs(), topics };
  },
});
