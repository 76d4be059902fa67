// The three controller mutations as MutationSpecs for the quota guard
// (src/services/quotas/mutation-admission.ts): how each is sent, and what it costs in KIP-599
// terms (partitions) for gateway-side admission.
import { createTopicCost, deleteTopicCost, partitionIncreaseCost } from '../domain/mutation-cost.js';
import type { CreatedTopic, NewTopic, PartitionIncrease } from '../kafka/types.js';
import { partitionCounts, type MutationSpec } from './quotas/mutation-admission.js';

export function createTopicsMutation(topics: NewTopic[], validateOnly: boolean): MutationSpec<NewTopic, CreatedTopic> {
  return {
    api: 'CreateTopics',
    items: topics,
    nameOf: (t) => t.name,
    send: (kafka, items) => kafka.createTopics(items, { validateOnly }),
    costs: (_kafka, items) => Promise.resolve(items.map(createTopicCost)),
    // Kafka reports the partition count it used (the broker default when none was given).
    actualCost: (created) => created.partitions,
  };
}

export function deleteTopicsMutation(names: string[]): MutationSpec<string, null> {
  return {
    api: 'DeleteTopics',
    items: names,
    nameOf: (n) => n,
    send: (kafka, items) => kafka.deleteTopics(items),
    costs: async (kafka, items) => {
      const counts = await partitionCounts(kafka);
      return items.map((n) => deleteTopicCost(counts.get(n)));
    },
  };
}

export function createPartitionsMutation(increases: PartitionIncrease[], validateOnly: boolean): MutationSpec<PartitionIncrease, null> {
  return {
    api: 'CreatePartitions',
    items: increases,
    nameOf: (i) => i.topic,
    send: (kafka, items) => kafka.createPartitions(items, { validateOnly }),
    costs: async (kafka, items) => {
      const counts = await partitionCounts(kafka);
      return items.map((i) => partitionIncreaseCost(counts.get(i.topic), i.count));
    },
  };
}
