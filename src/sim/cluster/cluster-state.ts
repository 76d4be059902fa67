// The state every part of the simulator's cluster model works on: brokers, topics, logs,
// configs, the replica index and the reassignments in flight, with the few helpers they all
// share (sync, the instant a request runs at, a partition by name). ClusterModel (./model.ts)
// is the API; the modules doing its work (./topic-views.ts, ./topic-writes.ts, ./leadership.ts,
// ./produce-fetch.ts, ./reassignment-requests.ts) take this state as their first argument. Its
// fields are open to them and to nothing else: neither ./model.ts nor ./index.ts exports it.
import { BrokerRegistry } from './brokers.js';
import { ConfigRegistry, type ConfigResourceRef } from './config-ops.js';
import { ResourceType } from './configs.js';
import { ErrorCode, KafkaError } from './errors.js';
import type { PartitionLog } from './log.js';
import type { ClusterModelOptions, TopicView } from './model-types.js';
import { PartitionMoves } from './partition-moves.js';
import { ReplicaIndex } from './replica-index.js';
import { LogDirs } from '../log-dirs.js';
import { ZERO_RANDOM, type PlacementRandom } from './placement.js';
import type { PartitionState, TopicState } from './topics.js';
import { randomUuid } from './uuid.js';
import type { Clock } from '../clock.js';

function randomClusterId(source?: () => Uint8Array): string {
  return randomUuid(source);
}

export class ClusterState {
  readonly clusterId: string;
  readonly clock: Clock;
  readonly numPartitionsDefault: number;
  readonly defaultReplicationFactor: number;
  readonly brokers: BrokerRegistry;
  readonly topics = new Map<string, TopicState>();
  readonly topicsById = new Map<string, TopicState>();
  readonly logs = new Map<string, PartitionLog[]>(); // by topic id
  readonly configs: ConfigRegistry;
  readonly random: PlacementRandom;
  readonly placer: 'classic' | 'striped';
  readonly uuidSource?: () => Uint8Array;
  readonly verifyCrc: boolean;
  readonly deleteTopicEnable: boolean;
  /** Reassignments and replica copies (./partition-moves.ts); synced to the clock by sync(). */
  readonly moves: PartitionMoves;
  readonly initialBytes?: (topic: string, partition: number) => number;
  /** Partitions by the brokers hosting them, and their bytes per log dir (DescribeLogDirs). */
  readonly replicaIndex: ReplicaIndex;
  /** Number of log dirs of every broker (ClusterModelOptions.logDirCount). */
  readonly logDirCount: number;
  /** LogDirs.topicHash of each topic, computed once. */
  private readonly topicHashes = new WeakMap<TopicState, number>();
  /** Topic names by their collision form ('.' as '_'): Kafka refuses two with the same form. */
  readonly collisionForms = new Map<string, string>();
  /** Topics sorted by name; null after a create or delete. */
  sortedTopics: TopicState[] | null = null;
  /** Metadata views by topic; a topic's entry goes when one of its partitions changes. */
  readonly views = new Map<TopicState, TopicView>();

  constructor(opts: ClusterModelOptions) {
    this.clock = opts.clock;
    this.brokers = new BrokerRegistry(opts.brokers, opts.controllerId);
    this.uuidSource = opts.uuidSource;
    this.clusterId = opts.clusterId ?? randomClusterId(opts.uuidSource);
    this.numPartitionsDefault = opts.numPartitionsDefault ?? 1;
    this.defaultReplicationFactor = opts.defaultReplicationFactor ?? 1;
    if (!Number.isInteger(this.numPartitionsDefault) || this.numPartitionsDefault < 1) {
      throw new KafkaError(
        ErrorCode.INVALID_CONFIG,
        `Invalid value ${this.numPartitionsDefault} for configuration num.partitions: Value must be at least 1`,
      );
    }
    if (!Number.isInteger(this.defaultReplicationFactor) || this.defaultReplicationFactor < 1) {
      throw new KafkaError(
        ErrorCode.INVALID_CONFIG,
        `Invalid value ${this.defaultReplicationFactor} for configuration default.replication.factor`,
      );
    }
    this.random = opts.placementRandom ?? ZERO_RANDOM;
    this.placer = opts.placer ?? 'classic';
    this.verifyCrc = opts.verifyCrc ?? true;
    this.deleteTopicEnable = opts.deleteTopicEnable ?? true;
    this.configs = new ConfigRegistry({
      getTopic: (name) => this.topics.get(name),
      isRegisteredBroker: (id) => this.brokers.isRegistered(id),
      staticBrokerConfigs: (id) => this.staticBrokerConfigs(id),
      ...(opts.topicConfigDefs && { topicConfigDefs: opts.topicConfigDefs }),
    });
    this.initialBytes = opts.seedBytes;
    this.extraStaticBrokerConfigs = { ...opts.staticBrokerConfigs };
    this.maxCatchUpsPerAdvance = opts.maxCatchUpsPerAdvance ?? Infinity;
    this.logDirCount = opts.logDirCount ?? 1;
    if (!Number.isInteger(this.logDirCount) || this.logDirCount < 1)
      throw new RangeError(`logDirCount must be a positive integer, got ${this.logDirCount}`);
    const dirIndex = (t: TopicState, partition: number): number => this.defaultDirIndex(t, partition);
    this.replicaIndex = new ReplicaIndex({
      dirCount: this.logDirCount,
      sizeBytes: (t, p) => this.logs.get(t.topicId)![p.partition].sizeBytes,
      dirIndex,
    });
    this.moves = new PartitionMoves(
      {
        topic: (name) => this.topics.get(name),
        log: (t, partition) => this.logs.get(t.topicId)![partition],
        logs: (t) => this.logs.get(t.topicId)!,
        hosted: (id) => this.replicaIndex.hosted(id),
        partitionChanged: (t, p, before) => {
          this.views.delete(t);
          if (before !== p.replicas) this.replicaIndex.replace(t, p, before);
        },
        isRegistered: (id) => this.brokers.isRegistered(id),
        isUp: (id) => this.brokers.isUp(id),
        uncleanAllowed: (t) => this.uncleanAllowed(t),
        topicConfig: (t, name) => this.configs.effectiveTopicValue(t.configs, name),
        brokerConfig: (id, name) => this.configs.effectiveBrokerValue(id, name),
        logDirCount: this.logDirCount,
        dirIndex,
        hostedBytes: (id) => this.replicaIndex.hostedBytes(id),
      },
      opts.replicationBytesPerSecond,
      opts.isrJoinRoundTripMs,
    );
  }

  /** The log dir (index into a broker's dirs) a replica of the partition is in unless moved. */
  private defaultDirIndex(t: TopicState, partition: number): number {
    if (this.logDirCount === 1) return 0;
    let h = this.topicHashes.get(t);
    if (h === undefined) this.topicHashes.set(t, (h = LogDirs.topicHash(t.name)));
    return LogDirs.defaultDirIndex(h, partition, this.logDirCount);
  }

  /**
   * Bring replica copies up to the clock: called before every read and every change, so
   * progress, ISR joins and completed reassignments are visible without timers.
   */
  sync(): boolean {
    return this.moves.advanceTo(this.instant ?? this.clock.now(), this.maxCatchUpsPerAdvance);
  }

  private readonly maxCatchUpsPerAdvance: number;
  private readonly extraStaticBrokerConfigs: Record<string, string>;

  /** The clock value a request runs at (see atOneInstant), or null between requests. */
  instant: number | null = null;

  /**
   * Runs `fn` at one instant of the clock: a request touching 100,000 partitions is one controller
   * event, as in Kafka, so copies do not advance between its items (with a ManualClock nothing
   * changes; with the system clock it spares a rate pass per millisecond the request takes).
   */
  atOneInstant<T>(fn: () => T): T {
    if (this.instant !== null) return fn();
    this.instant = this.clock.now();
    try {
      return fn();
    } finally {
      this.instant = null;
    }
  }

  private staticBrokerConfigs(id: number): Map<string, string> {
    const m = new Map<string, string>([
      ['broker.id', String(id)],
      ['node.id', String(id)],
      ['process.roles', 'broker'],
      // One log dir per broker (DescribeLogDirs reports the same path).
      ['log.dirs', `/var/lib/kafka/data-${id}`],
      // Metadata never creates topics here: say so, as a broker configured that way does.
      ['auto.create.topics.enable', 'false'],
      ...Object.entries(this.extraStaticBrokerConfigs),
    ]);
    const rack = this.brokers.isRegistered(id) ? this.brokers.get(id).rack : null;
    if (rack !== null) m.set('broker.rack', rack);
    if (this.numPartitionsDefault !== 1) m.set('num.partitions', String(this.numPartitionsDefault));
    if (this.defaultReplicationFactor !== 1) m.set('default.replication.factor', String(this.defaultReplicationFactor));
    if (!this.deleteTopicEnable) m.set('delete.topic.enable', 'false');
    return m;
  }

  uncleanAllowed(topic: TopicState): boolean {
    return this.configs.effectiveTopicValue(topic.configs, 'unclean.leader.election.enable')?.toLowerCase() === 'true';
  }

  topicsByName(): TopicState[] {
    this.sortedTopics ??= [...this.topics.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    return this.sortedTopics;
  }

  /** Throws UNKNOWN_TOPIC_OR_PARTITION (3). */
  partitionState(topic: string, partition: number): PartitionState {
    const t = this.topics.get(topic);
    const p = t?.partitions[partition];
    if (!t || !p || !Number.isInteger(partition)) {
      throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
    return p;
  }

  /** Copies re-read the throttles they are under (./partition-moves.ts). */
  configsChanged(resource: ConfigResourceRef): void {
    if (resource.type === ResourceType.TOPIC) {
      const t = this.topics.get(resource.name);
      if (t) this.moves.topicConfigsChanged(t);
    } else if (resource.type === ResourceType.BROKER) {
      this.moves.brokerConfigsChanged(resource.name);
    }
  }
}
