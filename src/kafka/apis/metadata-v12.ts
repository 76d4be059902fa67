// Metadata v12: brokers, controller, and the partition placement of topics (replicas,
// leader, ISR). The transport sends it to learn the brokers and the controller; the gateway
// lists and describes topics with it.
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
import { metadataV12 } from '@platformatic/kafka';
import { NONE } from '../errors-map.js';
import type { RequestSender } from '../request.js';

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
