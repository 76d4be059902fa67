// KafkaAdmin (./kafka-admin.ts) on @platformatic/kafka 2.x (checked on 2.12.1; see
// docs/platformatic-kafka.md): the transport (./transport.ts) plus one module per Kafka API
// (./apis/<api>-v<N>.ts for one version, ./apis/<api>.ts for several). Only the composition
// root (src/main.ts) names it.
//
// Why the low-level API: the client's high-level Admin (createTopics/deleteTopics/
// createPartitions) (a) collapses per-topic errors into one thrown MultipleErrors, so
// "topic 1 ok, topic 2 TOPIC_ALREADY_EXISTS" cannot be reported per item; (b) drops the
// response's throttle_time_ms, needed for 429 Retry-After on error 89; (c) retries error 89
// by default; (d) createTopics applies one partitions/replicas/config set to all topics and
// has no validateOnly; (e) concurrent createPartitions calls are de-duplicated under one key
// and one of them is silently lost; (f) caches controllerId forever. So we keep an Admin
// instance only for its connection pool (TLS, SASL, timeouts) and send the requests
// ourselves with the root-exported API namespaces (createTopicsV7.api.async(connection, ...)),
// each at the highest version it and the broker both speak (./apis/versions.ts negotiates per
// connection; test/kafka/negotiation.test.ts checks every release 2.8-4.2): CreateTopics v7,
// DeleteTopics v6, CreatePartitions v3 (strict quota mode: the broker answers 89 per topic),
// Metadata v11-12, DescribeCluster v0-1, DescribeConfigs v4, IncrementalAlterConfigs v1,
// DescribeLogDirs v2-4, Alter/ListPartitionReassignments v0, Describe/AlterClientQuotas v1, and
// for the state topic (./state-topic.ts) Produce v9-11, Fetch v12-17 and ListOffsets v6-9. Their parsers throw a ResponseError when any item carries an
// error code, but only after parsing the whole response, which the error carries as
// `.response`: we take it from there and read the per-item codes ourselves.
//
// Retries are ours (the client's are set to 0), in the transport: see ./transport.ts.
import type { Admin, Connection } from '@platformatic/kafka';
import * as alterClientQuotasApi from './apis/alter-client-quotas-v1.js';
import * as alterPartitionReassignmentsApi from './apis/alter-partition-reassignments.js';
import * as alterReplicaLogDirsApi from './apis/alter-replica-log-dirs-v2.js';
import * as electLeadersApi from './apis/elect-leaders.js';
import type { ClientQuotaAlteration, ClientQuotaEntry, ClientQuotaFilter } from './apis/client-quotas.js';
import type { ConfigAlteration, ConfigDetail, ConfigOverrides, ConfigResourceKind, ConfigResult } from './apis/config-resources.js';
import * as createPartitionsApi from './apis/create-partitions-v3.js';
import * as createTopicsApi from './apis/create-topics-v7.js';
import * as deleteTopicsApi from './apis/delete-topics-v6.js';
import * as describeClientQuotasApi from './apis/describe-client-quotas-v1.js';
import * as describeClusterApi from './apis/describe-cluster.js';
import * as describeConfigsApi from './apis/describe-configs-v4.js';
import * as describeLogDirsApi from './apis/describe-log-dirs.js';
import * as incrementalAlterConfigsApi from './apis/incremental-alter-configs-v1.js';
import * as listPartitionReassignmentsApi from './apis/list-partition-reassignments-v0.js';
import * as metadataApi from './apis/metadata.js';
import { toClientOptions, type ClientOptions, type KafkaConfig, type RandomSource } from './config.js';
import { CallerClients, type CallerClientsOptions } from './caller-clients.js';
import { BrokerContacts } from './contacts.js';
import { RETRIABLE_CODES } from './errors-map.js';
import type { KafkaAdmin } from './kafka-admin.js';
import type { OnKafkaRequest, RequestTarget, SendOptions } from './request.js';
import { StateTopic, type StateTopicOptions } from './state-topic.js';
import { detectKafkaRelease, type KafkaReleaseInfo } from './releases/detect.js';
import {
  describePlacementAndHealth,
  describeReplicaHealth,
  type PlacementAndHealth,
  type ReplicaHealth,
  type ReplicaHealthOptions,
} from './replica-health.js';
import { KafkaTransport } from './transport.js';
import { WriteCounts, type WrittenResource } from './recent-read.js';
import type {
  ClusterDescription,
  CreatedTopic,
  ItemResult,
  KafkaGateway,
  NewTopic,
  PartitionIncrease,
  RequestOptions,
  TopicDescription,
  TopicSummary,
} from './types.js';

export type { OnKafkaRequest, RequestTarget };

export interface GatewayHooks {
  onKafkaRequest?: OnKafkaRequest;
  /** Bounds of the per-caller client pool behind forCaller() (src/kafka/caller-clients.ts). */
  callerClients?: Partial<CallerClientsOptions>;
  /** Random source of the retry backoff's jitter (default Math.random; tests inject their own). */
  random?: RandomSource;
}

/** Simple FIFO mutex. */
class Mutex {
  #tail: Promise<void> = Promise.resolve();
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const prev = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((r) => (release = r));
    await prev;
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

export class PlatformaticKafkaGateway implements KafkaAdmin {
  readonly #config: KafkaConfig;
  readonly #transport: KafkaTransport;
  readonly #hooks: GatewayHooks;
  readonly #clientOptions: ClientOptions;
  /**
   * The brokers and which of them to ask (./contacts.ts): one set for this gateway and every
   * gateway and transport it creates, so a client made after a broker stopped knows the others.
   */
  readonly #contacts: BrokerContacts;
  /** Created on the first forCaller(): one client per caller client id. */
  #callers: CallerClients | undefined;
  /** Created on the first stateTopic(): the state topic's own connections. */
  #stateTransport: KafkaTransport | undefined;
  /** Created on the first interactive(): the connections of a user's GET's reads. */
  #interactive: PlatformaticKafkaGateway | undefined;
  readonly #partitionsMutex = new Mutex();
  /** Config and move writes, shared with the gateways this one makes (interactive(), forCaller()). */
  readonly #writes: WriteCounts;
  #closed = false;

  constructor(
    config: KafkaConfig,
    hooks: GatewayHooks = {},
    clientOptions: ClientOptions = toClientOptions(config),
    contacts: BrokerContacts = new BrokerContacts(config.bootstrapServers),
    writes: WriteCounts = new WriteCounts(),
  ) {
    this.#config = config;
    this.#writes = writes;
    this.#hooks = hooks;
    this.#clientOptions = clientOptions;
    this.#contacts = contacts;
    this.#transport = new KafkaTransport(config, hooks.onKafkaRequest, clientOptions, hooks.random, contacts);
  }

  /** The underlying client (for APIs this module does not wrap yet). */
  get client(): Admin {
    return this.#transport.client;
  }

  /** @internal Tests only: pretend the cached controller is `id` (a stale route). */
  _setControllerForTest(id: number): void {
    this.#transport.setControllerForTest(id);
  }

  /**
   * Send one low-level request through the transport, with the same retry policy and metrics
   * as every other call (so a StateTopic can also be built over a gateway, as tests do).
   */
  async sendRequest<T>(
    api: string,
    target: RequestTarget,
    call: (conn: Connection) => Promise<T>,
    inBand?: (res: T) => string,
    opts?: SendOptions,
  ): Promise<T> {
    return this.#transport.sendRequest(api, target, call, inBand, opts);
  }

  /** The configured per-request timeout, for requests that carry a timeout_ms field. */
  get requestTimeoutMs(): number {
    return this.#transport.requestTimeoutMs;
  }

  // ---------------------------------------------------------------- KafkaGateway

  describeCluster(): Promise<ClusterDescription> {
    return describeClusterApi.describeCluster(this.#transport);
  }

  kafkaRelease(): Promise<KafkaReleaseInfo> {
    return detectKafkaRelease(this.#transport);
  }

  listTopics(): Promise<TopicSummary[]> {
    return metadataApi.listTopics(this.#transport);
  }

  /**
   * The two requests go out together (issue 32: one wait, and both answers often come in one
   * read); the Metadata answer's error comes first, as when they were sent one after the other
   * (an unknown topic is UNKNOWN_TOPIC_OR_PARTITION from Metadata, whatever DescribeConfigs says).
   */
  async describeTopic(name: string): Promise<TopicDescription> {
    const [topic, configs] = await Promise.allSettled([
      metadataApi.describeTopicPartitions(this.#transport, name),
      describeConfigsApi.describeTopicConfigs(this.#transport, name),
    ]);
    if (topic.status === 'rejected') throw topic.reason;
    if (configs.status === 'rejected') throw configs.reason;
    return { ...topic.value, configs: configs.value };
  }

  createTopics(topics: NewTopic[], opts: RequestOptions = {}): Promise<ItemResult<CreatedTopic>[]> {
    const answer = createTopicsApi.createTopics(this.#transport, topics, opts);
    return opts.validateOnly ? answer : answer.finally(() => this.#writes.wrote('topics'));
  }

  deleteTopics(names: string[]): Promise<ItemResult<null>[]> {
    return deleteTopicsApi.deleteTopics(this.#transport, names).finally(() => this.#writes.wrote('topics'));
  }

  createPartitions(increases: PartitionIncrease[], opts: RequestOptions = {}): Promise<ItemResult<null>[]> {
    // Serialised: one CreatePartitions in flight at a time. The client's own
    // createPartitions merges concurrent calls and silently loses one; we do not use it,
    // but keep the guarantee (and a predictable order of quota charges).
    const answer = createPartitionsApi.createPartitions(this.#transport, increases, opts, (send) => this.#partitionsMutex.run(send));
    return opts.validateOnly ? answer : answer.finally(() => this.#writes.wrote('topics'));
  }

  ping(): Promise<void> {
    return this.#transport.ping();
  }

  // ---------------------------------------------------------------- the rest of KafkaAdmin

  describePartitions(topics: string[] | null): Promise<metadataApi.TopicPartitions[]> {
    return metadataApi.describePartitions(this.#transport, topics);
  }

  describeReplicaHealth(topics?: readonly string[] | null, opts?: ReplicaHealthOptions): Promise<ReplicaHealth> {
    return describeReplicaHealth(this.#transport, topics, opts);
  }

  describePlacementAndHealth(topics: readonly string[]): Promise<PlacementAndHealth> {
    return describePlacementAndHealth(this.#transport, topics);
  }

  listPartitionReassignments(
    partitions?: listPartitionReassignmentsApi.PartitionRef[],
  ): Promise<listPartitionReassignmentsApi.MovingPartition[]> {
    return listPartitionReassignmentsApi.listPartitionReassignments(this.#transport, partitions);
  }

  alterPartitionReassignments(
    moves: alterPartitionReassignmentsApi.PartitionMove[],
  ): Promise<alterPartitionReassignmentsApi.PartitionMoveResult[]> {
    return alterPartitionReassignmentsApi
      .alterPartitionReassignments(this.#transport, moves)
      .finally(() => this.#writes.wrote('reassignments'));
  }

  describeReplicaSizes(
    brokers: number[],
    partitions: readonly listPartitionReassignmentsApi.PartitionRef[],
    opts?: describeLogDirsApi.ReplicaSizesOptions,
  ): Promise<describeLogDirsApi.BrokerLogDirs[]> {
    return describeLogDirsApi.describeReplicaSizes(this.#transport, brokers, partitions, opts);
  }

  describeReplicaSizeColumns(
    brokers: number[],
    request: describeLogDirsApi.ReplicaSizesRequest,
    opts?: describeLogDirsApi.ReplicaSizesOptions,
  ): Promise<describeLogDirsApi.BrokerSizeColumns[]> {
    return describeLogDirsApi.describeReplicaSizeColumns(this.#transport, brokers, request, opts);
  }

  electLeaders(
    type: electLeadersApi.ElectionType,
    partitions: readonly listPartitionReassignmentsApi.PartitionRef[] | null,
    opts?: { version?: electLeadersApi.ElectLeadersVersion },
  ): Promise<electLeadersApi.ElectLeadersAnswer> {
    return electLeadersApi.electLeaders(this.#transport, type, partitions, opts).finally(() => this.#writes.wrote('topics'));
  }

  alterReplicaLogDirs(moves: alterReplicaLogDirsApi.ReplicaLogDirMove[]): Promise<alterReplicaLogDirsApi.ReplicaLogDirMoveResult[]> {
    return alterReplicaLogDirsApi.alterReplicaLogDirs(this.#transport, moves);
  }

  describeConfigs(resource: { kind: ConfigResourceKind; name: string }): Promise<ConfigDetail[]> {
    return describeConfigsApi.describeConfigs(this.#transport, resource);
  }

  describeConfigOverrides(
    resources: { kind: ConfigResourceKind; name: string }[],
    keys: string[],
  ): Promise<ConfigResult<ConfigOverrides>[]> {
    return describeConfigsApi.describeConfigOverrides(this.#transport, resources, keys);
  }

  incrementalAlterConfigs(alterations: ConfigAlteration[], validateOnly = false): Promise<ConfigResult<null>[]> {
    const answer = incrementalAlterConfigsApi.incrementalAlterConfigs(this.#transport, alterations, validateOnly);
    return validateOnly ? answer : answer.finally(() => this.#writes.wrote('configs'));
  }

  writeVersion(resource: WrittenResource): number {
    return this.#writes.versionOf(resource);
  }

  describeClientQuotas(filter: ClientQuotaFilter): Promise<ClientQuotaEntry[]> {
    return describeClientQuotasApi.describeClientQuotas(this.#transport, filter);
  }

  alterClientQuota(alteration: ClientQuotaAlteration, opts: { validateOnly?: boolean } = {}): Promise<void> {
    return alterClientQuotasApi.alterClientQuota(this.#transport, alteration, opts);
  }

  stateTopic(opts: StateTopicOptions): StateTopic {
    // Its Produce/Fetch/ListOffsets/Metadata requests go straight to a transport of their own:
    // a broker answers a connection's requests one at a time, so on the shared connection a
    // state read (every GET's refresh) waited behind whatever big request went first, such as
    // a progress snapshot's DescribeLogDirs of 25,000 partitions. Same config, metrics and
    // retries; one more connection to the state topic's leader. Creating the topic and
    // counting the brokers go through this gateway's own operations.
    const transport = (this.#stateTransport ??= new KafkaTransport(
      this.#config,
      this.#hooks.onKafkaRequest,
      this.#clientOptions,
      this.#hooks.random,
      this.#contacts,
    ));
    return new StateTopic(
      {
        sendRequest: transport.sendRequest.bind(transport),
        requestTimeoutMs: transport.requestTimeoutMs,
        describeCluster: () => this.describeCluster(),
        createTopics: (topics, options) => this.createTopics(topics, options),
      },
      opts,
    );
  }

  /**
   * This gateway on connections of its own (same config, hooks and metrics), for the reads of a
   * user's GET: a broker answers a connection's requests one at a time, and at 100,000 moving
   * partitions a page GET's DescribeLogDirs of 1,000 partitions waited behind a reconcile pass's
   * DescribeLogDirs of ~25,000 on the same connection.
   */
  interactive(): PlatformaticKafkaGateway {
    if (this.#closed) throw new Error('the Kafka gateway is closed');
    const hooks = { ...this.#hooks, callerClients: undefined };
    return (this.#interactive ??= new PlatformaticKafkaGateway(this.#config, hooks, this.#clientOptions, this.#contacts, this.#writes));
  }

  /**
   * This gateway as Kafka client id `clientId`, so broker-side client-id quotas charge that
   * caller (issue 4). Same config and hooks; clients are pooled in a bounded LRU.
   */
  forCaller(clientId: string): KafkaGateway {
    if (clientId === this.#clientOptions.clientId) return this;
    this.#callers ??= new CallerClients(
      (id) =>
        new PlatformaticKafkaGateway(
          { ...this.#config, clientId: id },
          { ...this.#hooks, callerClients: undefined },
          { ...this.#clientOptions, clientId: id },
          this.#contacts,
          this.#writes,
        ),
      this.#hooks.callerClients,
    );
    return this.#callers.view(clientId);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([this.#transport.close(), this.#stateTransport?.close(), this.#callers?.close(), this.#interactive?.close()]);
  }
}

export function createKafkaGateway(config: KafkaConfig, hooks: GatewayHooks = {}): PlatformaticKafkaGateway {
  return new PlatformaticKafkaGateway(config, hooks);
}

export { RETRIABLE_CODES };
