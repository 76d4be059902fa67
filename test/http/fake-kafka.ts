// An in-memory KafkaGateway for tests of HTTP behaviour that a simulator cannot easily
// produce on demand (ACL denials, quota throttles, deletion disabled, outages, hangs).
// Each method can be overridden per test; the defaults keep a tiny consistent cluster.
import { KafkaRequestError } from '../../src/kafka/errors.js';
import type { ClusterDescription, CreatedTopic, ItemResult, KafkaErrorInfo, KafkaGateway, NewTopic, TopicDescription } from '../../src/kafka/types.js';

export const kafkaError = (name: string, code: number, message = '', throttleTimeMs?: number): KafkaErrorInfo => ({
  name,
  code,
  message,
  ...(throttleTimeMs !== undefined && { throttleTimeMs }),
});

export class FakeKafka implements KafkaGateway {
  readonly topics = new Map<string, TopicDescription>();
  closed = false;
  /** Per-topic error to answer createTopics/deleteTopics/createPartitions with. */
  readonly failures = new Map<string, KafkaErrorInfo>();
  /** When set, every call throws this. */
  outage: KafkaRequestError | undefined;

  cluster: ClusterDescription = {
    clusterId: 'fake-cluster',
    controllerId: 1,
    brokers: [
      { id: 1, host: 'b1', port: 9092, rack: null },
      { id: 0, host: 'b0', port: 9092, rack: 'r1' },
    ],
  };

  private check(): void {
    if (this.outage) throw this.outage;
  }

  async describeCluster(): Promise<ClusterDescription> {
    this.check();
    return this.cluster;
  }
  async listTopics() {
    this.check();
    return [...this.topics.values()].map((t) => ({
      name: t.name,
      topicId: t.topicId,
      partitions: t.partitions.length,
      replicationFactor: t.partitions[0]?.replicas.length ?? 0,
      internal: t.internal,
    }));
  }
  async describeTopic(name: string): Promise<TopicDescription> {
    this.check();
    const t = this.topics.get(name);
    if (!t) throw new KafkaRequestError('kafka', kafkaError('UNKNOWN_TOPIC_OR_PARTITION', 3, 'This server does not host this topic-partition.'));
    return t;
  }
  async createTopics(topics: NewTopic[], opts: { validateOnly?: boolean } = {}): Promise<ItemResult<CreatedTopic>[]> {
    this.check();
    return topics.map((t) => {
      const failure = this.failures.get(t.name) ?? (this.topics.has(t.name) ? kafkaError('TOPIC_ALREADY_EXISTS', 36, `Topic '${t.name}' already exists.`) : undefined);
      if (failure) return { ok: false as const, name: t.name, error: failure };
      const partitions = t.assignments?.length ?? t.partitions ?? 1;
      const rf = t.assignments?.[0]?.length ?? t.replicationFactor ?? 1;
      if (!opts.validateOnly) {
        this.topics.set(t.name, {
          name: t.name,
          topicId: `id-${t.name}`,
          internal: false,
          partitions: Array.from({ length: partitions }, (_, p) => ({ partition: p, leader: 0, replicas: [0], isr: [0], offlineReplicas: [] })),
          configs: [],
        });
      }
      return { ok: true as const, name: t.name, value: { name: t.name, topicId: opts.validateOnly ? null : `id-${t.name}`, partitions, replicationFactor: rf } };
    });
  }
  async deleteTopics(names: string[]): Promise<ItemResult<null>[]> {
    this.check();
    return names.map((name) => {
      const failure = this.failures.get(name) ?? (this.topics.has(name) ? undefined : kafkaError('UNKNOWN_TOPIC_OR_PARTITION', 3, ''));
      if (failure) return { ok: false as const, name, error: failure };
      this.topics.delete(name);
      return { ok: true as const, name, value: null };
    });
  }
  async createPartitions(increases: { topic: string; count: number }[]): Promise<ItemResult<null>[]> {
    this.check();
    return increases.map(({ topic }) => {
      const failure = this.failures.get(topic);
      return failure ? { ok: false as const, name: topic, error: failure } : { ok: true as const, name: topic, value: null };
    });
  }
  async ping(): Promise<void> {
    this.check();
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}
