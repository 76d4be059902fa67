// Metadata (3), v0-v12.
//
// - topics null (v1+) or empty (v0) = every topic; otherwise only those named, each
//   unknown one with UNKNOWN_TOPIC_OR_PARTITION (3) and no partitions, an invalid name
//   with INVALID_TOPIC_EXCEPTION (17). v10+ may name a topic by id only (name null):
//   unknown id → UNKNOWN_TOPIC_ID (100).
// - Auto-creation is off (auto.create.topics.enable=false): a gateway must never
//   create a topic by looking at it.
// - brokers lists live brokers only, as Kafka's metadata cache does; a stopped
//   broker's replicas appear in offline_replicas (v5+) and it is out of the ISR.
// - A partition without a leader has leader -1 and LEADER_NOT_AVAILABLE (5).
// - controller_id (v1+) is a random live broker, as a KRaft broker reports it (the real
//   controller only in ZooKeeper mode, runtime.notControllerErrors); cluster_id from v2.
import { MetadataRequestSchema, MetadataResponseSchema, type MetadataRequest, type MetadataResponse } from '../protocol/messages.generated.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from './results.js';
import { defineHandler } from './types.js';
import type { TopicView } from '../cluster/model.js';

type TopicOut = MetadataResponse['topics'][number];
const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const VALID_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

type PartitionOut = TopicOut['partitions'][number];

/**
 * Response partitions per topic view: a view lives until one of its partitions or a broker
 * changes (ClusterModel.topicViews), so unchanged topics are not rebuilt on every request.
 */
const partitionsByView = new WeakMap<TopicView, PartitionOut[]>();

function unknown(name: string): TopicOut {
  const errorCode = VALID_NAME.test(name) && name !== '.' && name !== '..' ? 3 : 17;
  return { errorCode, name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
}

function describe(t: TopicView): TopicOut {
  let partitions = partitionsByView.get(t);
  if (!partitions) {
    partitions = t.partitions.map((p) => ({
      errorCode: p.leader < 0 ? 5 : 0,
      partitionIndex: p.partition,
      leaderId: p.leader,
      leaderEpoch: p.leaderEpoch,
      replicaNodes: p.replicas,
      isrNodes: p.isr,
      offlineReplicas: p.offlineReplicas,
    }));
    partitionsByView.set(t, partitions);
  }
  return { errorCode: 0, name: t.name, topicId: t.topicId, isInternal: false, partitions, topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
}

export const metadataHandler = defineHandler<MetadataRequest, MetadataResponse>({
  apiKey: 3,
  name: 'Metadata',
  request: MetadataRequestSchema,
  response: MetadataResponseSchema,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const all = req.topics === null || (ctx.version === 0 && req.topics.length === 0);
    let topics: TopicOut[];
    if (all) {
      topics = model.topicViews().map(describe);
    } else {
      topics = req.topics!.map((wanted) => {
        if (wanted.name !== null) {
          const t = model.topicView({ name: wanted.name });
          return t ? describe(t) : unknown(wanted.name);
        }
        const byId = wanted.topicId ? model.topicView({ id: wanted.topicId }) : undefined;
        if (!byId) return { errorCode: 100, name: null, topicId: wanted.topicId ?? ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
        return describe(byId);
      });
    }
    return {
      throttleTimeMs: 0,
      brokers: ctx.runtime.endpoints().filter((e) => e.up).map((e) => ({ nodeId: e.id, host: e.host, port: e.port, rack: e.rack })),
      clusterId: model.clusterId,
      controllerId: ctx.runtime.reportedControllerId(),
      topics,
      clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    };
  },
});
