// Partition placement of many topics, as a free function over KafkaAdmin: kept so callers
// written before KafkaAdmin keep their imports. The request is src/kafka/apis/metadata.ts.
import type { TopicPartitions } from './apis/metadata.js';
import type { KafkaAdmin } from './kafka-admin.js';

export type { TopicPartitions };

/** Placement of `topics` (null = every topic), sorted by name then partition. */
export function describePartitions(kafka: KafkaAdmin, topics: string[] | null): Promise<TopicPartitions[]> {
  return kafka.describePartitions(topics);
}
