// Metadata v12: brokers, controller, and the partition placement of topics (replicas,
// leader, ISR). The transport (src/kafka/transport.ts) sends it to learn the brokers and the
// controller; the gateway lists topics, describes a topic's partitions and the placement of
// many topics with it; the state topic learns its id and its leader with it.
/*
  Metadata Request (Version: 12) => [topics] allow_auto_topic_creation include_topic_authorized_operations TAG_BUFFER
    topics => topic_id name TAG_BUFFER
      topic_id => UUID
      name => COMPACT_NULLABLE_STRING
    allow_auto_topic_creation => BOOLEAN
    include_topic_authorized_operations => BOOLEAN

  Metadata Response (Version: 12) => throttle_time_ms [brokers] cluster_id controller_id [topics] TAG_BUFFER
    throttle_time_ms => INT32
    brokers => node_id host port rack TAG_BUFFER
      node_id => INT32
      host => COMPACT_STRING
      port => INT32
      rack => COMPACT_NULLABLE_STRING
    cluster_id => COMPACT_NULLABLE_STRING
    controller_id => INT32
    topics => error_code name topic_id is_internal [partitions] topic_authorized_operations TAG_BUFFER
      error_code => INT16
      name => COMPACT_NULLABLE_STRING
      topic_id => UUID
      is_internal => BOOLEAN
      partitions => error_code partition_index leader_id leader_epoch [replica_nodes] [isr_nodes] [offline_replicas] TAG_BUFFER
        error_code => INT16
        partition_index => INT32
        leader_id => INT32
        leader_epoch => INT32
        replica_nodes => INT32
        isr_nodes => INT32
        offline_replicas => INT32
      topic_authorized_operations => INT32
*/
import { metadataV12, type Connection } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { ERROR_CODES, kafkaErrorInfo, NONE } from '../errors-map.js';
import { firstErrorName, type MetadataResponse, type RequestSender, type Transport } from '../request.js';
import type { PartitionDescription, TopicDescription, TopicSummary } from '../types.js';
import { topicIdOrNull } from './topic-items.js';

/** The request for `topics` (null = every topic, [] = none: brokers and controller only). */
export function metadataRequest(topics: string[] | null): (conn: Connection) => Promise<MetadataResponse> {
  return (conn) => metadataV12.api.async(conn, topics, false, false);
}

/** Label of a Metadata answer for the metrics: the first topic error, else NONE. */
export function metadataErrorName(res: MetadataResponse): string {
  return firstErrorName(res.topics.map((t) => t.errorCode));
}

/** Every topic, sorted by name. */
export async function listTopics(kafka: Transport): Promise<TopicSummary[]> {
  const md = await kafka.withRetry('Metadata', () => kafka.metadata(null));
  return md.topics
    .filter((t) => t.name != null)
    .map((t) => ({
      name: t.name as string,
      topicId: topicIdOrNull(t.topicId),
      partitions: t.partitions.length,
      replicationFactor: t.partitions.reduce((m, p) => Math.max(m, p.replicaNodes.length), 0),
      internal: t.isInternal,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** One topic's id, internal flag and partitions; throws KafkaRequestError(UNKNOWN_TOPIC_OR_PARTITION) for an unknown topic. */
export async function describeTopicPartitions(kafka: Transport, name: string): Promise<Omit<TopicDescription, 'configs'>> {
  const md = await kafka.withRetry('Metadata', async () => {
    const res = await kafka.metadata([name]);
    const t = res.topics.find((x) => x.name === name) ?? res.topics[0];
    if (!t) throw new KafkaRequestError('kafka', kafkaErrorInfo(ERROR_CODES.UNKNOWN_TOPIC_OR_PARTITION));
    if (t.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(t.errorCode));
    return t;
  });
  const partitions: PartitionDescription[] = md.partitions
    .map((p) => ({
      partition: p.partitionIndex,
      leader: p.leaderId,
      replicas: [...p.replicaNodes],
      isr: [...p.isrNodes],
      offlineReplicas: [...p.offlineReplicas],
    }))
    .sort((a, b) => a.partition - b.partition);
  return { name, topicId: topicIdOrNull(md.topicId), internal: md.isInternal, partitions };
}

export interface TopicPartitions {
  name: string;
  partitions: { partition: number; leader: number; replicas: number[]; isr: number[]; offlineReplicas: number[] }[];
}

/**
 * Partition placement of many topics in one request, without the per-topic DescribeConfigs
 * that describeTopic() adds. Unknown topics are left out of the answer: callers that validate
 * report them themselves. Sorted by name then partition; `topics` null = every topic.
 */
export async function describePartitions(kafka: RequestSender, topics: string[] | null): Promise<TopicPartitions[]> {
  if (topics && topics.length === 0) return [];
  const res = await kafka.sendRequest(
    'Metadata',
    'any',
    (conn) => metadataV12.api.async(conn, topics ? [...new Set(topics)] : null, false, false),
    // Unknown topics are an expected answer here, not a failed request.
    () => NONE,
  );
  return res.topics
    .filter((t) => t.errorCode === 0 && t.name != null)
    .map((t) => ({
      name: t.name as string,
      partitions: t.partitions
        .map((p) => ({ partition: p.partitionIndex, leader: p.leaderId, replicas: [...p.replicaNodes], isr: [...p.isrNodes], offlineReplicas: [...p.offlineReplicas] }))
        .sort((a, b) => a.partition - b.partition),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The id of `topic` and the leader of its partition `partition` (-1: none, or no such
 * partition), for the state topic (src/kafka/state-topic.ts); null when the topic does not
 * exist (UNKNOWN_TOPIC_OR_PARTITION). Any other topic error is thrown as a KafkaRequestError.
 */
export async function partitionLeader(kafka: RequestSender, topic: string, partition: number): Promise<{ topicId: string; leader: number } | null> {
  const res = await kafka.sendRequest('Metadata', 'any', metadataRequest([topic]), metadataErrorName);
  const t = res.topics.find((x) => x.name === topic);
  if (!t || t.errorCode === ERROR_CODES.UNKNOWN_TOPIC_OR_PARTITION) return null;
  if (t.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(t.errorCode));
  const p = t.partitions.find((x) => x.partitionIndex === partition);
  return { topicId: t.topicId, leader: p ? p.leaderId : -1 };
}
