// Partition placement of many topics in one Metadata v12 request (replicas, leader, ISR),
// without the per-topic DescribeConfigs that describeTopic() adds. Unknown topics are left
// out of the answer: callers that validate report them themselves.
import { metadataV12 } from '@platformatic/kafka';
import type { PlatformaticKafkaGateway } from './admin.js';
import { NONE } from './errors-map.js';

export interface TopicPartitions {
  name: string;
  partitions: { partition: number; leader: number; replicas: number[]; isr: number[]; offlineReplicas: number[] }[];
}

/** Placement of `topics` (null = every topic), sorted by name then partition. */
export async function describePartitions(kafka: PlatformaticKafkaGateway, topics: string[] | null): Promise<TopicPartitions[]> {
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
