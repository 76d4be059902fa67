// An in-memory KafkaGateway for tests of what the gateway decides without Kafka (validation,
// media types, limits, routing, metrics, response validation). Each method can be overridden
// per test; the defaults keep a tiny consistent cluster. Kafka's errors and outages are not
// faked here: the simulator answers them over the wire (sim.faults, see
// kafka-errors.integration.test.ts). `kafkaError` builds error infos for unit tests of the mapping.
import { KafkaRequestError } from '../../src/kafka/errors.js';
import type {
  ClusterDescription,
  CreatedTopic,
  ItemResult,
  KafkaErrorInfo,
  KafkaGateway,
  NewTopic,
  TopicDescription,
} from '../../src/kafka/types.js';

export const kafkaError = (name: string, code: number, message = '', throttleTimeMs?: number): KafkaErrorInfo => ({
  name,
  code,
  message,
  ...(throttleTimeMs !== undefined && { throttleTimeMs }),
});

export class FakeKafka implements KafkaGateway {
  readonly topics = new Map<string, TopicDescription>();
  closed = false;

  cluster: ClusterDescription = {
    clusterId: 'fake-cluster',
    controllerId: 1,
    brokers: [
      { id: 1, host: 'b1', port: 9092, rack: null },
      { id: 0, host: 'b0', port: 9092, rack: 'r1' },
    ],
  };

  async describeCluster(): Promise<ClusterDescription> {
    return this.cluster;
  }
  async listTopics() {
    return [...this.topics.values()].map((t) => ({
      name: t.name,
      topicId: t.topicId,
      partitions: t.partitions.length,
      replicationFactor: t.partitions[0]?.replicas.length ?? 0,
      internal: t.internal,
    }));
  }
  async describeTopic(name: string): Promise<TopicDescription> {
    const t = this.topics.get(name);
    if (!t)
      throw new KafkaRequestError('kafka', kafkaError('UNKNOWN_TOPIC_OR_PARTITION', 3, 'This server does not host this topic-partition.'));
    return t;
  }
  async createTopics(topics: NewTopic[], opts: { validateOnly?: boolean } = {}): Promise<ItemResult<CreatedTopic>[]> {
    return topics.map((t) => {
      const failure = this.topics.has(t.name) ? kafkaError('TOPIC_ALREADY_EXISTS', 36, `Topic '${t.name}' already exists.`) : undefined;
      if (failure) return { ok: false as const, name: t.name, error: failure };
      const partitions = t.assignments?.length ?? t.partitions ?? 1;
      const rf = t.assignments?.[0]?.length ?? t.replicationFactor ?? 1;
      if (!opts.validateOnly) {
        this.topics.set(t.name, {
          name: t.name,
          topicId: `id-${t.name}`,
          internal: false,
          partitions: Array.from({ length: partitions }, (_, p) => ({
            partition: p,
            leader: 0,
            replicas: [0],
            isr: [0],
            offlineReplicas: [],
          })),
          configs: [],
        });
      }
      return {
        ok: true as const,
        name: t.name,
        value: { name: t.name, topicId: opts.validateOnly ? null : `id-${t.name}`, partitions, replicationFactor: rf },
      };
    });
  }
  async deleteTopics(names: string[]): Promise<ItemResult<null>[]> {
    return names.map((name) => {
      const failure = this.topics.has(name) ? undefined : kafkaError('UNKNOWN_TOPIC_OR_PARTITION', 3, '');
      if (failure) return { ok: false as const, name, error: failure };
      this.topics.delete(name);
      return { ok: true as const, name, value: null };
    });
  }
  async createPartitions(increases: { topic: string; count: number }[]): Promise<ItemResult<null>[]> {
    return increases.map(({ topic }) => ({ ok: true as const, name: topic, value: null }));
  }
  async ping(): Promise<void> {}
  async close(): Promise<void> {
    this.closed = true;
  }
}
