// The types of the simulator's cluster model's API (./model.ts, which re-exports them): its
// options and the requests and results of its topic, produce and fetch calls. Apart from the
// model so that the modules doing its work (./cluster-state.ts, ./topic-writes.ts, ...) can
// name them without importing the model they serve.
import type { Clock } from '../clock.js';
import type { BrokerSpec } from './brokers.js';
import type { DescribeConfigsEntry } from './config-ops.js';
import type { ConfigDef } from './configs.js';
import type { PlacementRandom } from './placement.js';
import type { PartitionInfo } from './topics.js';

export interface ClusterModelOptions {
  /** The topic configs of the release simulated (configs.topicConfigDefsFor); default Kafka 3.9's. */
  topicConfigDefs?: readonly ConfigDef[];
  brokers: BrokerSpec[];
  clock: Clock;
  clusterId?: string;
  /** num.partitions (default 1). */
  numPartitionsDefault?: number;
  /** default.replication.factor (default 1). */
  defaultReplicationFactor?: number;
  /** Initial controller; default the lowest broker id. */
  controllerId?: number;
  /** delete.topic.enable (default true). */
  deleteTopicEnable?: boolean;
  /**
   * Replica placer: 'classic' (default; AdminUtils rack-aware round-robin, deterministic, even
   * leader spread) or 'striped' (KRaft's StripedReplicaPlacer driven by placementRandom).
   */
  placer?: 'classic' | 'striped';
  /** Random source of the striped placer; default ZERO_RANDOM. */
  placementRandom?: PlacementRandom;
  /** Source of topic-id bytes (16 bytes per call); default crypto random. */
  uuidSource?: () => Uint8Array;
  /** Verify record batch CRCs on append (default true, as Kafka does). */
  verifyCrc?: boolean;
  /** Per-broker replication bandwidth in bytes/s, each direction (default 50 MiB/s). */
  replicationBytesPerSecond?: number;
  /** Bytes every new partition starts with, as if it held that much data (default none). */
  seedBytes?: (topic: string, partition: number) => number;
  /**
   * At most about this many replica catch-ups (and the completions they cause) per read or
   * change; the rest wait for the next one, the model's time then lagging the clock by up to
   * the span of the burst. Default unlimited (exact at every read, as tests with a hand-driven
   * clock need); the Simulator with the system clock sets a bound so a burst of 100,000
   * completions at one instant never blocks its event loop for long (its tick drains the rest).
   */
  maxCatchUpsPerAdvance?: number;
  /**
   * Least time (ms) from a new replica's first fetch to its joining the ISR (one replication
   * round trip: fetch, the leader's AlterPartition, the controller's commit). Default 10.
   */
  isrJoinRoundTripMs?: number;
  /** More server.properties lines every broker reports (STATIC_BROKER_CONFIG), e.g. quota windows. */
  staticBrokerConfigs?: Record<string, string>;
  /**
   * Number of log dirs of every broker (default 1): a replica's bytes count in its default dir
   * (LogDirs.defaultDirIndex) in logDirUsedBytesByDir; dirs chosen by AlterReplicaLogDirs are the
   * Simulator's LogDirs' business.
   */
  logDirCount?: number;
}

export interface CreateTopicRequest {
  name: string;
  /** -1 = num.partitions. Must be -1 when assignments are given. */
  numPartitions?: number;
  /** -1 = default.replication.factor. Must be -1 when assignments are given. */
  replicationFactor?: number;
  assignments?: { partition: number; brokerIds: number[] }[];
  configs?: { name: string; value: string | null }[];
}

export interface CreateTopicResult {
  name: string;
  topicId: string;
  numPartitions: number;
  replicationFactor: number;
  partitions: PartitionInfo[];
  /** Effective configs, as CreateTopics v5+ returns them (sorted by name). */
  configs: DescribeConfigsEntry[];
}

export interface CreatePartitionsResult {
  name: string;
  /** The added partitions. */
  partitions: PartitionInfo[];
}

/**
 * A topic as Metadata reports it, cached until one of its partitions or a broker's state
 * changes: shared by every reader, so it must not be modified.
 */
/** A topic as Metadata reports it; shared with the model (replica and ISR lists too): read only. */
export interface TopicView {
  readonly name: string;
  readonly topicId: string;
  readonly partitions: readonly Readonly<PartitionInfo>[];
}

export interface DeletedTopic {
  name: string;
  topicId: string;
  numPartitions: number;
}

export interface ValidateOnlyOption {
  validateOnly?: boolean;
}

export interface ProduceOptions {
  /** 0, 1 or -1 (all). With -1 the ISR must satisfy min.insync.replicas. Default -1. */
  acks?: number;
  /** The broker receiving the request: must be the leader. */
  brokerId?: number;
}

export interface FetchOptions {
  /** The broker receiving the request: must be the leader. */
  brokerId?: number;
}
