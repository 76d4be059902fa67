// The gateway's view of Kafka: plain data in, plain data out. KafkaGateway is the topic part
// of KafkaAdmin (./kafka-admin.ts), which src/kafka/admin.ts implements on
// @platformatic/kafka; src/http only ever sees these types.
import type { KafkaReleaseInfo } from '../domain/kafka-release.js';

export interface BrokerDescription {
  id: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface ClusterDescription {
  clusterId: string | null;
  controllerId: number;
  brokers: BrokerDescription[];
}

export interface PartitionDescription {
  partition: number;
  leader: number; // -1 when there is none
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
}

export interface TopicSummary {
  name: string;
  topicId: string | null;
  partitions: number;
  replicationFactor: number;
  internal: boolean;
}

export interface ConfigEntry {
  name: string;
  value: string | null;
  source: string; // e.g. TOPIC_CONFIG, DEFAULT_CONFIG, DYNAMIC_BROKER_CONFIG
  isDefault: boolean;
  readOnly: boolean;
  sensitive: boolean;
}

export interface TopicDescription {
  name: string;
  topicId: string | null;
  internal: boolean;
  partitions: PartitionDescription[];
  configs: ConfigEntry[];
}

export interface NewTopic {
  name: string;
  /** Omitted with assignments; omitted without them = broker default. */
  partitions?: number;
  replicationFactor?: number;
  /** One replica list per partition, partition i = assignments[i]. */
  assignments?: number[][];
  configs?: Record<string, string>;
}

export interface CreatedTopic {
  name: string;
  topicId: string | null;
  partitions: number;
  replicationFactor: number;
}

/** Per-item outcome of a request that holds several topics. */
export type ItemResult<T> = { ok: true; name: string; value: T } | { ok: false; name: string; error: KafkaErrorInfo };

export interface KafkaErrorInfo {
  code: number;
  name: string; // e.g. TOPIC_ALREADY_EXISTS
  message: string; // the broker's own error message when it sent one
  throttleTimeMs?: number;
}

export interface PartitionIncrease {
  topic: string;
  count: number;
  assignments?: number[][];
}

export interface RequestOptions {
  validateOnly?: boolean;
}

export interface KafkaGateway {
  describeCluster(): Promise<ClusterDescription>;
  listTopics(): Promise<TopicSummary[]>;
  /** Throws KafkaRequestError(UNKNOWN_TOPIC_OR_PARTITION) for an unknown topic. */
  describeTopic(name: string): Promise<TopicDescription>;
  createTopics(topics: NewTopic[], opts?: RequestOptions): Promise<ItemResult<CreatedTopic>[]>;
  deleteTopics(names: string[]): Promise<ItemResult<null>[]>;
  createPartitions(increases: PartitionIncrease[], opts?: RequestOptions): Promise<ItemResult<null>[]>;
  /** Cheap reachability probe for /readyz. */
  ping(): Promise<void>;
  /**
   * The Kafka release, mode and degraded features, from a broker's ApiVersions answer (issue 29;
   * src/kafka/releases/detect.ts). Optional: test doubles may not know.
   */
  kafkaRelease?(): Promise<KafkaReleaseInfo>;
  /**
   * The same gateway sending as Kafka client id `clientId` (per-caller broker quotas,
   * src/kafka/caller-clients.ts). Optional: a gateway without it charges every caller to
   * its one client id.
   */
  forCaller?(clientId: string): KafkaGateway;
  close(): Promise<void>;
}
