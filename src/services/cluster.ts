// GET /cluster: the cluster's id, controller and brokers, with the Kafka release the brokers
// announce (kept per connection: no extra round trip once connected).
import type { KafkaReleaseInfo } from '../domain/kafka-release.js';
import type { BrokerDescription, ClusterDescription, KafkaGateway } from '../kafka/types.js';

export type { BrokerDescription, ClusterDescription, KafkaReleaseInfo };

export interface ClusterView {
  cluster: ClusterDescription;
  /** Undefined when the Kafka layer cannot tell (test doubles). */
  release: KafkaReleaseInfo | undefined;
}

export class ClusterService {
  readonly #kafka: KafkaGateway;

  constructor(kafka: KafkaGateway) {
    this.#kafka = kafka;
  }

  async describe(): Promise<ClusterView> {
    const [cluster, release] = await Promise.all([this.#kafka.describeCluster(), this.#kafka.kafkaRelease?.()]);
    return { cluster, release };
  }
}
