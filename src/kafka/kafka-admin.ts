// KafkaAdmin: every Kafka operation the gateway uses, as plain data in and plain data out.
// Services (src/reconcile, src/plan) and src/http depend on this interface (src/http on its
// topic part, KafkaGateway in ./types.ts); only the composition root (src/main.ts) names the
// implementation, PlatformaticKafkaGateway in ./admin.ts: a transport (./transport.ts) plus
// one module per Kafka API and version (./apis/<api>-v<N>.ts).
import type { StateLog } from '../state/store.js';
import type { ClientQuotaAlteration, ClientQuotaEntry, ClientQuotaFilter } from './apis/client-quotas.js';
import type { ConfigAlteration, ConfigDetail, ConfigOverrides, ConfigResourceKind, ConfigResult } from './apis/config-resources.js';
import type { PartitionMove, PartitionMoveResult } from './apis/alter-partition-reassignments.js';
import type { ReplicaLogDirMove, ReplicaLogDirMoveResult } from './apis/alter-replica-log-dirs-v2.js';
import type { BrokerLogDirs, BrokerSizeColumns, ReplicaSizesRequest } from './apis/describe-log-dirs.js';
import type { MovingPartition, PartitionRef } from './apis/list-partition-reassignments-v0.js';
import type { ElectionType, ElectLeadersAnswer, ElectLeadersVersion } from './apis/elect-leaders.js';
import type { TopicPartitions } from './apis/metadata.js';
import type { StateTopicOptions } from './state-topic.js';
import type { PlacementAndHealth, ReplicaHealth, ReplicaHealthOptions } from './replica-health.js';
import type { WrittenResource } from './recent-read.js';
import type { KafkaGateway } from './types.js';

// The types of its inputs and answers, for its callers: outside src/kafka nothing imports the
// per-API modules (./apis/), so this interface's module is where they are found. So are the
// helpers over a replica-sizes request (DescribeLogDirs), which a caller keeps pass after pass.
export type {
  ClientQuotaAlteration,
  ClientQuotaEntry,
  ClientQuotaFilter,
  QuotaEntity,
  QuotaKey,
  QuotaValues,
} from './apis/client-quotas.js';
export type {
  ConfigAlteration,
  ConfigDetail,
  ConfigOp,
  ConfigOverrides,
  ConfigResourceKind,
  ConfigResult,
  ConfigSynonym,
} from './apis/config-resources.js';
export type { PartitionMove, PartitionMoveResult } from './apis/alter-partition-reassignments.js';
export type { MovingPartition, PartitionRef } from './apis/list-partition-reassignments-v0.js';
export type { TopicPartitions } from './apis/metadata.js';
export type { WrittenResource } from './recent-read.js';
export {
  givenAt,
  replicaKey,
  replicaSizesRequest,
  slotOf,
  type BrokerLogDirs,
  type BrokerSizeColumns,
  type KeyTable,
  type ReplicaSizes,
  type ReplicaSizesOptions,
  type ReplicaSizesRequest,
} from './apis/describe-log-dirs.js';

/** Client quotas (KIP-546): DescribeClientQuotas v1, AlterClientQuotas v1. */
export interface ClientQuotaAdmin {
  describeClientQuotas(filter: ClientQuotaFilter): Promise<ClientQuotaEntry[]>;
  /** Throws KafkaRequestError with the broker's per-entity error. */
  alterClientQuota(alteration: ClientQuotaAlteration, opts?: { validateOnly?: boolean }): Promise<void>;
}

export interface KafkaAdmin extends KafkaGateway, ClientQuotaAdmin {
  /** Partition placement of `topics` (null = every topic) in one Metadata request; unknown topics are left out. */
  describePartitions(topics: string[] | null): Promise<TopicPartitions[]>;
  /**
   * Every topic's (or `topics`') partitions with their ISR, and the live brokers, in one Metadata
   * request (the health interlocks' read, ./replica-health.ts); `opts.onlyTroubled`: a compact read.
   */
  describeReplicaHealth?(topics?: readonly string[] | null, opts?: ReplicaHealthOptions): Promise<ReplicaHealth>;
  /** describePartitions of `topics` and their compact health (onlyTroubled) from the same Metadata answer. */
  describePlacementAndHealth?(topics: readonly string[]): Promise<PlacementAndHealth>;
  /** Every partition moving in the cluster (`partitions` omitted), or those among `partitions` that move. */
  listPartitionReassignments(partitions?: PartitionRef[]): Promise<MovingPartition[]>;
  /** Starts (or, with null replicas, cancels) moves; one result per requested partition, in request order. */
  alterPartitionReassignments(moves: PartitionMove[]): Promise<PartitionMoveResult[]>;
  /** Sizes of the given partitions on each of `brokers` (with `placement: true`, where each replica is); a broker that does not answer fails alone. */
  describeReplicaSizes(brokers: number[], partitions: readonly PartitionRef[], opts?: { placement?: boolean }): Promise<BrokerLogDirs[]>;
  /**
   * The same in columns: each broker's sizes indexed by the slots of `request` (built by
   * replicaSizesRequest, kept by a caller that asks about the same partitions pass after pass).
   */
  describeReplicaSizeColumns(brokers: number[], request: ReplicaSizesRequest, opts?: { placement?: boolean }): Promise<BrokerSizeColumns[]>;
  /**
   * AlterReplicaLogDirs v2, to each broker concerned: moves replicas between the log dirs of
   * their broker (intra-broker copies); one result per move, in request order.
   */
  alterReplicaLogDirs(moves: ReplicaLogDirMove[]): Promise<ReplicaLogDirMoveResult[]>;
  /**
   * ElectLeaders (v2 unless `version` says otherwise), to the controller: one answer per
   * partition (`partitions` null = every partition; Kafka then leaves out those needing none).
   * Optional: fakes without it make the callers answer that elections are not available.
   */
  electLeaders?(
    type: ElectionType,
    partitions: readonly PartitionRef[] | null,
    opts?: { version?: ElectLeadersVersion },
  ): Promise<ElectLeadersAnswer>;
  /** Every config of one topic or broker, with synonyms; throws KafkaRequestError (3 for an unknown topic). */
  describeConfigs(resource: { kind: ConfigResourceKind; name: string }): Promise<ConfigDetail[]>;
  /** The overrides of topics and brokers, restricted to `keys`; one result per resource. */
  describeConfigOverrides(
    resources: { kind: ConfigResourceKind; name: string }[],
    keys: string[],
  ): Promise<ConfigResult<ConfigOverrides>[]>;
  /** IncrementalAlterConfigs; each resource is applied atomically and answered on its own. */
  incrementalAlterConfigs(alterations: ConfigAlteration[], validateOnly?: boolean): Promise<ConfigResult<null>[]>;
  /**
   * Changes after each IncrementalAlterConfigs ('configs', validateOnly aside) or
   * AlterPartitionReassignments ('reassignments') this gateway sent, answered or failed: the
   * version of a shared recent read (./recent-read.ts), so that a GET never shows Kafka as it
   * was before a change the gateway answered, whoever sent it through this interface.
   */
  writeVersion(resource: WrittenResource): number;
  /** The gateway's state topic (src/kafka/state-topic.ts) as the log src/state/store.ts reads and writes. */
  stateTopic(opts: StateTopicOptions): StateLog;
  /**
   * The same gateway on connections of its own, for the few small reads that answer a user's
   * GET (a page's live moves and sizes): a broker answers one request at a time per connection,
   * so on the shared connections they waited behind a reconcile pass's big ones (absent: this one).
   */
  interactive?(): KafkaAdmin;
}

/** The gateway itself when it manages client quotas (the real one does; test doubles may not), else undefined. */
export function clientQuotasOf(kafka: object): ClientQuotaAdmin | undefined {
  const q = kafka as Partial<ClientQuotaAdmin>;
  return typeof q.describeClientQuotas === 'function' && typeof q.alterClientQuota === 'function' ? (kafka as ClientQuotaAdmin) : undefined;
}
