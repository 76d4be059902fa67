// Metadata (3), v0-v13.
//
// - topics null (v1+) or empty (v0) = every topic; otherwise only those named, each
//   unknown one with UNKNOWN_TOPIC_OR_PARTITION (3) and no partitions, an invalid name
//   with INVALID_TOPIC_EXCEPTION (17). v10+ may name a topic by id only (name null):
//   unknown id → UNKNOWN_TOPIC_ID (100).
// - Auto-creation (KafkaApis.handleTopicMetadataRequest / AutoTopicCreationManager): off
//   by default (auto.create.topics.enable=false, SimulatorOptions.autoCreateTopicsEnable).
//   When on and the request allows it (allow_auto_topic_creation, v4+; always for v0-3), an
//   unknown topic named with a valid name is created with num.partitions and
//   default.replication.factor and answered LEADER_NOT_AVAILABLE (5) with no partitions and
//   a zero topic id in this response; the next Metadata shows it. Kafka's KRaft brokers
//   create asynchronously through the controller and only log a failure (e.g. a replication
//   factor above the live brokers), so a failed creation still answers 5 and creates
//   nothing; in ZooKeeper mode (runtime.notControllerErrors) the failure's error code is
//   answered instead. A request for every topic, or by topic id, never creates one; the
//   internal __consumer_offsets / __transaction_state are not auto-created here (Kafka
//   creates them with their own settings); auto-creation is not charged to the controller
//   mutation quota.
// - brokers lists live brokers only, as Kafka's metadata cache does; a stopped
//   broker's replicas appear in offline_replicas (v5+) and it is out of the ISR.
// - A partition without a leader has leader -1 and LEADER_NOT_AVAILABLE (5).
// - Authorized operations (v8+), when asked for, as a broker without an authorizer answers them
//   (KafkaApis.handleTopicMetadataRequest -> AuthHelper.authorizedOperations): every topic named
//   or listed, known or not, gets 3576 (include_topic_authorized_operations); a topic id that
//   is unknown keeps the default (it is not in `topicMetadata` there). The cluster's, 8096, only
//   in v8-v10 (include_cluster_authorized_operations; v11 dropped it, KIP-700). Otherwise
//   -2147483648, the schema default.
// - controller_id (v1+) is a random live broker, as a KRaft broker reports it (the real
//   controller only in ZooKeeper mode, runtime.notControllerErrors); cluster_id from v2.
// - v13 (Kafka 4.0) adds a top-level error_code (KIP-1102): a broker sets it only to ask the
//   client to re-bootstrap (REBOOTSTRAP_REQUIRED, 129), which this simulator never does: 0.
import { KafkaError } from '../cluster/errors.js';
import {
  MetadataRequestSchema,
  MetadataResponseSchema,
  type MetadataRequest,
  type MetadataResponse,
} from '../protocol/messages.generated.js';
import { AUTHORIZED_OPERATIONS_OMITTED, CLUSTER_AUTHORIZED_OPERATIONS, TOPIC_AUTHORIZED_OPERATIONS } from './results.js';
import { defineHandler } from './types.js';
import { HEAVY_TOPICS } from '../request-turns.js';
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

function unknown(name: string, ops: number): TopicOut {
  const errorCode = VALID_NAME.test(name) && name !== '.' && name !== '..' ? 3 : 17;
  return { errorCode, name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: ops };
}

const INTERNAL_TOPICS = new Set(['__consumer_offsets', '__transaction_state']);

/** An unknown topic Metadata may auto-create: a valid, non-internal name. */
function autoCreatable(name: string): boolean {
  return VALID_NAME.test(name) && name !== '.' && name !== '..' && !INTERNAL_TOPICS.has(name);
}

function describe(t: TopicView, ops: number): TopicOut {
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
  return { errorCode: 0, name: t.name, topicId: t.topicId, isInternal: false, partitions, topicAuthorizedOperations: ops };
}

export const metadataHandler = defineHandler<MetadataRequest, MetadataResponse>({
  apiKey: 3,
  name: 'Metadata',
  request: MetadataRequestSchema,
  response: MetadataResponseSchema,
  // Every topic, or many: the answer grows with the cluster (../request-turns.ts). An empty list
  // asks for no topic (the brokers only: a client's first request, the gateway's ping), except in
  // v0, where it asks for all; v0 is counted light here (no client of this simulator sends it).
  heavy: (req) => req.topics === null || req.topics.length > HEAVY_TOPICS,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const all = req.topics === null || (ctx.version === 0 && req.topics.length === 0);
    // allow_auto_topic_creation exists from v4 (default true); v0-3 always allow it.
    const autoCreate = ctx.runtime.autoCreateTopicsEnable && (ctx.version < 4 || req.allowAutoTopicCreation !== false);
    const ops = ctx.version >= 8 && req.includeTopicAuthorizedOperations ? TOPIC_AUTHORIZED_OPERATIONS : AUTHORIZED_OPERATIONS_OMITTED;
    const clusterOps =
      ctx.version >= 8 && ctx.version <= 10 && req.includeClusterAuthorizedOperations
        ? CLUSTER_AUTHORIZED_OPERATIONS
        : AUTHORIZED_OPERATIONS_OMITTED;
    const created = (name: string, errorCode: number): TopicOut => ({
      errorCode,
      name,
      topicId: ZERO_UUID,
      isInternal: false,
      partitions: [],
      topicAuthorizedOperations: ops,
    });
    const autoCreateTopic = (name: string): TopicOut => {
      try {
        model.createTopic({ name }, { validateOnly: false });
        return created(name, 5);
      } catch (err) {
        if (!(err instanceof KafkaError)) throw err;
        // KRaft: the controller's answer is only logged; ZooKeeper mode answers it.
        return created(name, ctx.runtime.notControllerErrors ? err.code : 5);
      }
    };
    let topics: TopicOut[];
    if (all) {
      topics = model.topicViews().map((t) => describe(t, ops));
    } else {
      topics = req.topics!.map((wanted) => {
        if (wanted.name !== null) {
          const t = model.topicView({ name: wanted.name });
          if (t) return describe(t, ops);
          return autoCreate && autoCreatable(wanted.name) ? autoCreateTopic(wanted.name) : unknown(wanted.name, ops);
        }
        const byId = wanted.topicId ? model.topicView({ id: wanted.topicId }) : undefined;
        if (!byId)
          return {
            errorCode: 100,
            name: null,
            topicId: wanted.topicId ?? ZERO_UUID,
            isInternal: false,
            partitions: [],
            topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
          };
        return describe(byId, ops);
      });
    }
    return {
      throttleTimeMs: 0,
      brokers: ctx.runtime
        .endpoints()
        .filter((e) => e.up)
        .map((e) => ({ nodeId: e.id, host: e.host, port: e.port, rack: e.rack })),
      clusterId: model.clusterId,
      controllerId: ctx.runtime.reportedControllerId(),
      topics,
      clusterAuthorizedOperations: clusterOps,
      errorCode: 0,
    };
  },
});
