// The simulator's in-memory cluster model: brokers, topics, partitions, configs and logs.
// Every mutation validates everything first and only then applies (atomic), and every bad input
// is reported as a KafkaError carrying Kafka's error code and message.
import type { Clock } from '../clock.js';
import { BrokerRegistry, type BrokerInfo } from './brokers.js';
import {
  ConfigRegistry,
  type ConfigRequestOptions,
  type ConfigResourceRef,
  type DescribeConfigsEntry,
  type IncrementalAlterOp,
  type LegacyAlterConfig,
} from './config-ops.js';
import { ResourceType } from './configs.js';
import { ErrorCode, KafkaError } from './errors.js';
import { PartitionLog, type AppendResult, type OffsetAndTimestamp, type ReadResult } from './log.js';
import { PartitionMoves, type AlteredReassignment, type CompletedReassignment, type ReassignmentRecord, type TopicLogSizes, type TopicReassignments } from './partition-moves.js';
import { ReplicaIndex } from './replica-index.js';
import { LogDirs } from '../log-dirs.js';
import { ZERO_RANDOM, placeReplicas, placeReplicasClassic, type PlacementRandom } from './placement.js';
import {
  NO_LEADER,
  bestLeader,
  hasCollisionChars,
  unifyCollisionChars,
  validateManualAssignment,
  validateTopicName,
  type PartitionInfo,
  type PartitionState,
  type TopicInfo,
  type TopicState,
} from './topics.js';
import { ZERO_UUID, randomUuid, uuidFromBytes } from './uuid.js';
import { decideElections, type ElectionTopicResult } from './elections.js';

/** QuorumController.MAX_RECORDS_PER_USER_OP */
const MAX_RECORDS_PER_USER_OP = 10000;

export type {
  ClusterModelOptions,
  CreatePartitionsResult,
  CreateTopicRequest,
  CreateTopicResult,
  DeletedTopic,
  FetchOptions,
  ProduceOptions,
  TopicView,
  ValidateOnlyOption,
} from './model-types.js';
import type {
  ClusterModelOptions,
  CreatePartitionsResult,
  CreateTopicRequest,
  CreateTopicResult,
  DeletedTopic,
  FetchOptions,
  ProduceOptions,
  TopicView,
  ValidateOnlyOption,
} from './model-types.js';

function randomClusterId(source?: () => Uint8Array): string {
  return randomUuid(source);
}

/** AlterPartitionReassignments up to this many entries run in one block (about a millisecond). */
const SMALL_ALTER = 1000;

const NO_REPLICAS = Object.freeze([]) as unknown as number[];

/** Lets the event loop run (other connections, timers) before going on. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function copyPartition(p: PartitionState, isUp: (id: number) => boolean): PartitionInfo {
  return {
    partition: p.partition,
    leader: p.leader,
    leaderEpoch: p.leaderEpoch,
    partitionEpoch: p.partitionEpoch,
    replicas: [...p.replicas],
    isr: [...p.isr],
    offlineReplicas: p.replicas.filter((r) => !isUp(r)),
  };
}

export class ClusterModel {
  readonly clusterId: string;
  readonly clock: Clock;
  readonly numPartitionsDefault: number;
  readonly defaultReplicationFactor: number;
  private readonly brokers: BrokerRegistry;
  private readonly topics = new Map<string, TopicState>();
  private readonly topicsById = new Map<string, TopicState>();
  private readonly logs = new Map<string, PartitionLog[]>(); // by topic id
  private readonly configs: ConfigRegistry;
  private readonly random: PlacementRandom;
  private readonly placer: 'classic' | 'striped';
  private readonly uuidSource?: () => Uint8Array;
  private readonly verifyCrc: boolean;
  private readonly deleteTopicEnable: boolean;
  /** Reassignments and replica copies (./partition-moves.ts); synced to the clock by sync(). */
  private readonly moves: PartitionMoves;
  private readonly initialBytes?: (topic: string, partition: number) => number;
  /** Partitions by the brokers hosting them, and their bytes per log dir (DescribeLogDirs). */
  private readonly replicaIndex: ReplicaIndex;
  /** Number of log dirs of every broker (ClusterModelOptions.logDirCount). */
  readonly logDirCount: number;
  /** LogDirs.topicHash of each topic, computed once. */
  private readonly topicHashes = new WeakMap<TopicState, number>();
  /** Topic names by their collision form ('.' as '_'): Kafka refuses two with the same form. */
  private readonly collisionForms = new Map<string, string>();
  /** Topics sorted by name; null after a create or delete. */
  private sortedTopics: TopicState[] | null = null;
  /** Metadata views by topic; a topic's entry goes when one of its partitions changes. */
  private readonly views = new Map<TopicState, TopicView>();
  /** onReassignmentAltered listeners. */
  private readonly alteredListeners = new Set<(a: AlteredReassignment) => void>();

  constructor(opts: ClusterModelOptions) {
    this.clock = opts.clock;
    this.brokers = new BrokerRegistry(opts.brokers, opts.controllerId);
    this.uuidSource = opts.uuidSource;
    this.clusterId = opts.clusterId ?? randomClusterId(opts.uuidSource);
    this.numPartitionsDefault = opts.numPartitionsDefault ?? 1;
    this.defaultReplicationFactor = opts.defaultReplicationFactor ?? 1;
    if (!Number.isInteger(this.numPartitionsDefault) || this.numPartitionsDefault < 1) {
      throw new KafkaError(ErrorCode.INVALID_CONFIG, `Invalid value ${this.numPartitionsDefault} for configuration num.partitions: Value must be at least 1`);
    }
    if (!Number.isInteger(this.defaultReplicationFactor) || this.defaultReplicationFactor < 1) {
      throw new KafkaError(ErrorCode.INVALID_CONFIG, `Invalid value ${this.defaultReplicationFactor} for configuration default.replication.factor`);
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
    if (!Number.isInteger(this.logDirCount) || this.logDirCount < 1) throw new RangeError(`logDirCount must be a positive integer, got ${this.logDirCount}`);
    const dirIndex = (t: TopicState, partition: number): number => this.defaultDirIndex(t, partition);
    this.replicaIndex = new ReplicaIndex({
      dirCount: this.logDirCount,
      sizeBytes: (t, p) => this.logs.get(t.topicId)![p.partition]!.sizeBytes,
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
  private sync(): boolean {
    return this.moves.advanceTo(this.instant ?? this.clock.now(), this.maxCatchUpsPerAdvance);
  }

  private readonly maxCatchUpsPerAdvance: number;
  private readonly extraStaticBrokerConfigs: Record<string, string>;

  /** The clock value a request runs at (see atOneInstant), or null between requests. */
  private instant: number | null = null;

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

  // ------------------------------------------------------------------ brokers

  get controllerId(): number {
    return this.brokers.controllerId;
  }

  listBrokers(): BrokerInfo[] {
    return this.brokers.list();
  }

  isBrokerUp(id: number): boolean {
    return this.brokers.isUp(id);
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

  private uncleanAllowed(topic: TopicState): boolean {
    return this.configs.effectiveTopicValue(topic.configs, 'unclean.leader.election.enable')?.toLowerCase() === 'true';
  }

  /**
   * Stop (fence) a broker: it leaves every ISR it is in (KRaft keeps the last ISR member, with no
   * leader, when ELR is off), partitions it led elect the first ISR replica in replica order that is
   * up, or go leaderless (-1). Every leader change bumps leaderEpoch. Idempotent.
   */
  stopBroker(id: number): void {
    this.sync(); // copies through this broker ran until now
    if (!this.brokers.setUp(id, false)) return;
    const up = (r: number) => this.brokers.isUp(r);
    for (const topic of this.topics.values()) {
      for (const p of topic.partitions) {
        if (!p.isr.includes(id) && p.leader !== id) continue;
        const targetIsr = p.isr.filter((r) => r !== id);
        let leader = p.leader;
        let isr = targetIsr.length > 0 ? targetIsr : [...p.isr];
        if (leader === id || leader === NO_LEADER) {
          const elected = bestLeader(p.replicas, targetIsr, this.uncleanAllowed(topic), up);
          leader = elected.leader;
          if (elected.unclean) isr = [leader];
        }
        this.changePartition(topic, p, leader, isr);
      }
    }
    this.views.clear(); // offline replicas
    this.moves.brokersChanged();
  }

  /**
   * Start (unfence) a broker: leaderless partitions elect a leader again (first replica in replica
   * order that is in the ISR and up), and the returning replica, being caught up at once in this
   * simulator, rejoins the ISR of every partition that has a leader. Idempotent.
   */
  startBroker(id: number): void {
    this.sync(); // copies through this broker were stalled until now
    if (!this.brokers.setUp(id, true)) return;
    const up = (r: number) => this.brokers.isUp(r);
    for (const topic of this.topics.values()) {
      for (const p of topic.partitions) {
        let leader = p.leader;
        let isr = p.isr;
        if (leader === NO_LEADER) {
          const elected = bestLeader(p.replicas, p.isr, this.uncleanAllowed(topic), up);
          leader = elected.leader;
          if (elected.unclean) isr = [leader];
        }
        // A replica still copying its log (a reassignment's new replica) joins only once caught up.
        // Joiners go after the ISR's members, which keep their order (Partition.scala maybeExpandIsr
        // appends the replica the leader found in sync).
        if (leader !== NO_LEADER) {
          const kept = isr;
          isr = [...kept, ...p.replicas.filter((r) => !kept.includes(r) && up(r) && !this.moves.isCatchingUp(p, r))];
        }
        this.changePartition(topic, p, leader, isr);
      }
    }
    this.views.clear(); // offline replicas
    this.moves.brokersChanged(); // a returning replica may complete a reassignment
    this.sync(); // a returning target replica may catch up at once
  }

  /**
   * ElectLeaders (API 43), as KRaft's controller runs it (./elections.ts): every decision against
   * the state before the request, the leader changes applied after it. `partitions` null = all.
   */
  electLeaders(partitions: readonly { topic: string; partitions: readonly number[] }[] | null, electionType: number, zk = false): ElectionTopicResult[] {
    this.sync();
    const host = { topic: (name: string) => this.topics.get(name), isUp: (id: number) => this.brokers.isUp(id), sortedTopics: () => this.topicsByName() };
    const { results, changes } = decideElections(host, partitions, electionType, zk);
    for (const c of changes) this.changePartition(c.topic, c.p, c.leader, c.isr);
    if (changes.length > 0) this.moves.brokersChanged(); // a moving partition copies from its new leader
    return results;
  }

  private changePartition(topic: TopicState, p: PartitionState, leader: number, isr: number[]): void {
    const leaderChanged = leader !== p.leader;
    const isrChanged = isr.length !== p.isr.length || isr.some((r, i) => p.isr[i] !== r);
    if (!leaderChanged && !isrChanged) return;
    this.views.delete(topic);
    if (leaderChanged) p.leaderEpoch++;
    p.partitionEpoch++;
    p.leader = leader;
    p.isr = [...isr];
  }

  /**
   * Trouble on demand (./trouble.ts): partitions' ISRs set as given, their leaders unchanged, as
   * the leader's AlterPartition shrinking or growing them would: members keep their order,
   * joiners go last (Partition.scala maybeExpandIsr); a replica that is down or still copying (a
   * move's) does not join, and an ISR without the leader is not applied. Returns how many
   * changed; throws UNKNOWN_TOPIC_OR_PARTITION (3) before changing anything.
   */
  setIsrs(entries: readonly { topic: string; partition: number; isr: readonly number[] }[]): number {
    this.sync();
    const found = entries.map((e) => ({ e, t: this.topics.get(e.topic)!, p: this.partitionState(e.topic, e.partition) }));
    let changed = 0;
    for (const { e, t, p } of found) {
      if (p.leader >= 0 && !e.isr.includes(p.leader)) continue; // the leader is always in its ISR
      const joiners = p.replicas.filter((r) => e.isr.includes(r) && !p.isr.includes(r) && this.brokers.isUp(r) && !this.moves.isCatchingUp(p, r));
      const next = [...p.isr.filter((r) => e.isr.includes(r)), ...joiners];
      if (next.length === p.isr.length && next.every((r, i) => p.isr[i] === r)) continue;
      this.changePartition(t, p, p.leader, next);
      changed++;
    }
    if (changed > 0) this.moves.brokersChanged(); // copies re-classify; a moving partition may complete on a grown ISR
    return changed;
  }

  // ------------------------------------------------------------------ topics (reads)

  listTopics(): TopicInfo[] {
    this.sync();
    return this.topicsByName().map((t) => this.topicInfo(t));
  }

  private topicsByName(): TopicState[] {
    this.sortedTopics ??= [...this.topics.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    return this.sortedTopics;
  }

  /**
   * Every topic as Metadata reports it, sorted by name. The views are cached until something in
   * them changes and are shared: callers must not modify them.
   */
  topicViews(): TopicView[] {
    this.sync();
    return this.topicsByName().map((t) => this.view(t));
  }

  /** One topic's Metadata view (shared, see topicViews), by name or by id. */
  topicView(ref: { name: string } | { id: string | Uint8Array }): TopicView | undefined {
    this.sync();
    const t = 'name' in ref ? this.topics.get(ref.name) : this.topicsById.get(typeof ref.id === 'string' ? ref.id : ref.id.length === 16 ? uuidFromBytes(ref.id) : '');
    return t && this.view(t);
  }

  private view(t: TopicState): TopicView {
    let v = this.views.get(t);
    if (!v) {
      // Shares the partitions' replica and ISR arrays: the model replaces them on every change,
      // never modifies them in place, and the view goes with the change (100k copies spared).
      const isUp = (r: number) => this.brokers.isUp(r);
      v = {
        name: t.name,
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({
          partition: p.partition,
          leader: p.leader,
          leaderEpoch: p.leaderEpoch,
          partitionEpoch: p.partitionEpoch,
          replicas: p.replicas,
          isr: p.isr,
          offlineReplicas: p.replicas.every(isUp) ? NO_REPLICAS : p.replicas.filter((r) => !isUp(r)),
        })),
      };
      this.views.set(t, v);
    }
    return v;
  }

  getTopic(name: string): TopicInfo | undefined {
    this.sync();
    const t = this.topics.get(name);
    return t && this.topicInfo(t);
  }

  /** Accepts the Kafka string form (22-char base64url) or the 16 raw bytes. */
  getTopicById(id: string | Uint8Array): TopicInfo | undefined {
    this.sync();
    const key = typeof id === 'string' ? id : id.length === 16 ? uuidFromBytes(id) : '';
    const t = this.topicsById.get(key);
    return t && this.topicInfo(t);
  }

  /** Throws UNKNOWN_TOPIC_OR_PARTITION (3). */
  getPartition(topic: string, partition: number): PartitionInfo {
    this.sync();
    return copyPartition(this.partitionState(topic, partition), (r) => this.brokers.isUp(r));
  }

  /** Effective value of one topic config (override, cluster-default broker synonym, default). */
  effectiveTopicConfig(topic: string, name: string): string | null {
    const t = this.topics.get(topic);
    if (!t) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${topic}' does not exist.`);
    return this.configs.effectiveTopicValue(t.configs, name);
  }

  /** Effective value of one broker config on a broker (dynamic, cluster default, static, default). */
  effectiveBrokerConfig(brokerId: number, name: string): string | null {
    this.brokers.get(brokerId);
    return this.configs.effectiveBrokerValue(brokerId, name);
  }

  private topicInfo(t: TopicState): TopicInfo {
    const isUp = (r: number) => this.brokers.isUp(r);
    return {
      name: t.name,
      topicId: t.topicId,
      isInternal: t.name === '__consumer_offsets' || t.name === '__transaction_state',
      partitions: t.partitions.map((p) => copyPartition(p, isUp)),
      configs: Object.fromEntries(t.configs),
      createdAt: t.createdAt,
    };
  }

  private partitionState(topic: string, partition: number): PartitionState {
    const t = this.topics.get(topic);
    const p = t?.partitions[partition];
    if (!t || !p || !Number.isInteger(partition)) {
      throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
    return p;
  }

  // ------------------------------------------------------------------ topics (writes)

  private place(numPartitions: number, rf: number, existing?: PartitionState[]): number[][] {
    const brokers = this.brokers.list().map((b) => ({ id: b.id, rack: b.rack, fenced: !b.up }));
    if (this.placer === 'striped') return placeReplicas(brokers, numPartitions, rf, this.random);
    let startIndex = 0;
    if (existing && existing.length > 0) {
      // AdminZkClient.addPartitions: continue from partition 0's leader position
      const liveSorted = brokers.filter((b) => !b.fenced);
      const p0 = existing[0].replicas[0];
      const idx = placeReplicasClassic(liveSorted, liveSorted.length, 1).findIndex((r) => r[0] === p0);
      startIndex = Math.max(0, idx);
    }
    return placeReplicasClassic(brokers, numPartitions, rf, { startPartitionId: existing?.length ?? 0, startIndex });
  }

  /** CreateTopics for one topic, as KRaft's ReplicationControlManager.createTopic does it. */
  createTopic(req: CreateTopicRequest, opts: ValidateOnlyOption = {}): CreateTopicResult {
    const name = req.name;
    validateTopicName(name);
    if (this.topics.has(name)) {
      throw new KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    }
    if (hasCollisionChars(name)) {
      const other = this.collisionForms.get(unifyCollisionChars(name));
      if (other !== undefined) {
        throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${name}' collides with existing topic: ${other}`);
      }
    }

    // Configs (computeConfigChanges + ControllerConfigurationValidator)
    const configMap = new Map<string, string | null>();
    for (const c of req.configs ?? []) configMap.set(c.name, c.value);
    this.configs.validateTopicConfigs(configMap);

    const numPartitionsReq = req.numPartitions ?? -1;
    const rfReq = req.replicationFactor ?? -1;
    const assignments = req.assignments ?? [];
    const up = (r: number) => this.brokers.isUp(r);
    let replicaLists: number[][];

    if (assignments.length > 0) {
      if (rfReq !== -1) {
        throw new KafkaError(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but replication factor was not set to -1.');
      }
      if (numPartitionsReq !== -1) {
        throw new KafkaError(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but numPartitions was not set to -1.');
      }
      const byIndex = new Map<number, number[]>();
      let rf: number | null = null;
      for (const a of assignments) {
        if (byIndex.has(a.partition)) {
          throw new KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Found multiple manual partition assignments for partition ${a.partition}`);
        }
        validateManualAssignment(a.brokerIds, (id) => this.brokers.isRegistered(id), rf);
        rf = a.brokerIds.length;
        if (!a.brokerIds.some(up)) {
          throw new KafkaError(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            `All brokers specified in the manual partition assignment for partition ${a.partition} are fenced or in controlled shutdown.`,
          );
        }
        byIndex.set(a.partition, [...a.brokerIds]);
      }
      for (let i = 0; i < byIndex.size; i++) {
        if (!byIndex.has(i)) {
          throw new KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'partitions should be a consecutive 0-based integer sequence');
        }
      }
      replicaLists = [...byIndex.keys()].sort((a, b) => a - b).map((i) => byIndex.get(i)!);
    } else if (rfReq < -1 || rfReq === 0) {
      throw new KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
    } else if (numPartitionsReq < -1 || numPartitionsReq === 0) {
      throw new KafkaError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
    } else {
      const numPartitions = numPartitionsReq === -1 ? this.numPartitionsDefault : numPartitionsReq;
      const rf = rfReq === -1 ? this.defaultReplicationFactor : rfReq;
      if (numPartitions + 1 + configMap.size > MAX_RECORDS_PER_USER_OP) {
        throw new KafkaError(ErrorCode.POLICY_VIOLATION, `Unable to create topic ${name}: too many partitions (at most ${MAX_RECORDS_PER_USER_OP} records per operation).`);
      }
      try {
        replicaLists = this.place(numPartitions, rf);
      } catch (e) {
        if (e instanceof KafkaError && e.code === ErrorCode.INVALID_REPLICATION_FACTOR) {
          throw new KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, `Unable to replicate the partition ${rf} time(s): ${e.message}`);
        }
        throw e;
      }
    }

    const partitions: PartitionState[] = replicaLists.map((replicas, i) => {
      const isr = replicas.filter(up);
      return { partition: i, leader: isr[0], leaderEpoch: 0, partitionEpoch: 0, replicas, isr, moves: null };
    });
    const topicId = randomUuid(this.uuidSource);
    const configs = new Map<string, string>();
    for (const [k, v] of configMap) configs.set(k, v as string);
    const topic: TopicState = { name, topicId, partitions, configs, createdAt: this.clock.now() };

    if (!opts.validateOnly) {
      this.topics.set(name, topic);
      this.topicsById.set(topicId, topic);
      this.collisionForms.set(unifyCollisionChars(name), name);
      this.sortedTopics = null;
      this.logs.set(topicId, partitions.map((p) => this.newLog(name, p.partition)));
      for (const p of partitions) this.replicaIndex.add(topic, p);
    }
    return {
      name,
      topicId,
      numPartitions: partitions.length,
      replicationFactor: partitions[0].replicas.length,
      partitions: partitions.map((p) => copyPartition(p, up)),
      configs: this.configs.topicEntries(configs, null),
    };
  }

  /** CreatePartitions for one topic (ReplicationControlManager.createPartitions). */
  createPartitions(
    name: string,
    count: number,
    assignments: number[][] | null = null,
    opts: ValidateOnlyOption = {},
  ): CreatePartitionsResult {
    const topic = this.topics.get(name);
    // The controller answers an unknown topic here with a null message.
    if (!topic) throw KafkaError.withoutMessage(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const current = topic.partitions.length;
    if (count === current) {
      throw new KafkaError(ErrorCode.INVALID_PARTITIONS, `Topic already has ${current} partition(s).`);
    } else if (count < current) {
      throw new KafkaError(
        ErrorCode.INVALID_PARTITIONS,
        `The topic ${name} currently has ${current} partition(s); ${count} would not be an increase.`,
      );
    }
    const additional = count - current;
    if (assignments !== null && assignments.length !== additional) {
      throw new KafkaError(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Attempted to add ${additional} additional partition(s), but only ${assignments.length} assignment(s) were specified.`,
      );
    }
    if (additional > MAX_RECORDS_PER_USER_OP) {
      throw new KafkaError(ErrorCode.POLICY_VIOLATION, `Unable to add ${additional} partitions to ${name}: at most ${MAX_RECORDS_PER_USER_OP} records per operation.`);
    }
    const rf = topic.partitions[0].replicas.length;
    const up = (r: number) => this.brokers.isUp(r);
    let replicaLists: number[][];
    if (assignments !== null) {
      replicaLists = assignments.map((replicas, i) => {
        validateManualAssignment(replicas, (id) => this.brokers.isRegistered(id), rf);
        if (!replicas.some(up)) {
          throw new KafkaError(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            `All brokers specified in the manual partition assignment for partition ${current + i} are fenced or in controlled shutdown.`,
          );
        }
        return [...replicas];
      });
    } else {
      replicaLists = this.place(additional, rf, topic.partitions);
    }
    const added: PartitionState[] = replicaLists.map((replicas, i) => {
      const isr = replicas.filter(up);
      return { partition: current + i, leader: isr[0], leaderEpoch: 0, partitionEpoch: 0, replicas, isr, moves: null };
    });
    if (!opts.validateOnly) {
      for (const p of added) topic.partitions.push(p);
      const logs = this.logs.get(topic.topicId)!;
      for (const p of added) logs.push(this.newLog(name, p.partition));
      for (const p of added) this.replicaIndex.add(topic, p);
      this.views.delete(topic);
    }
    return { name, partitions: added.map((p) => copyPartition(p, up)) };
  }

  private newLog(topic: string, partition: number): PartitionLog {
    const log = new PartitionLog(`${topic}-${partition}`);
    const seeded = Math.floor(this.initialBytes?.(topic, partition) ?? 0);
    if (seeded > 0) log.seedBytes(seeded);
    return log;
  }

  private checkDeletionEnabled(): void {
    if (!this.deleteTopicEnable) {
      throw new KafkaError(ErrorCode.TOPIC_DELETION_DISABLED, 'Topic deletion is disabled.');
    }
  }

  private removeTopic(t: TopicState): DeletedTopic {
    this.sync();
    this.moves.forgetTopic(t);
    this.topics.delete(t.name);
    this.topicsById.delete(t.topicId);
    this.collisionForms.delete(unifyCollisionChars(t.name));
    this.sortedTopics = null;
    this.views.delete(t);
    this.replicaIndex.removeTopic(t);
    this.logs.delete(t.topicId);
    return { name: t.name, topicId: t.topicId, numPartitions: t.partitions.length };
  }

  /** DeleteTopics by name: unknown -> UNKNOWN_TOPIC_OR_PARTITION (3). */
  deleteTopic(name: string): DeletedTopic {
    this.checkDeletionEnabled();
    const t = this.topics.get(name);
    if (!t) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    return this.removeTopic(t);
  }

  /** DeleteTopics by id (string form or 16 bytes): unknown -> UNKNOWN_TOPIC_ID (100). */
  deleteTopicById(id: string | Uint8Array): DeletedTopic {
    this.checkDeletionEnabled();
    const key = typeof id === 'string' ? id : id.length === 16 ? uuidFromBytes(id) : '';
    if (key === ZERO_UUID) {
      throw new KafkaError(ErrorCode.INVALID_REQUEST, `Attempt to find topic with invalid topicId ${key}`);
    }
    const t = this.topicsById.get(key);
    if (!t) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_ID);
    return this.removeTopic(t);
  }

  // ------------------------------------------------------------------ configs

  describeConfigs(resource: ConfigResourceRef, keys: readonly string[] | null, opts?: ConfigRequestOptions): DescribeConfigsEntry[] {
    return this.configs.describe(resource, keys, opts);
  }

  incrementalAlterConfigs(
    resource: ConfigResourceRef,
    ops: readonly IncrementalAlterOp[],
    validateOnly = false,
    opts?: ConfigRequestOptions,
  ): void {
    this.sync(); // throttle configs change copy rates from now on
    this.configs.incrementalAlter(resource, ops, validateOnly, opts);
    if (!validateOnly) this.configsChanged(resource);
  }

  /** Legacy AlterConfigs: replaces ALL dynamic configs of the resource. */
  alterConfigs(
    resource: ConfigResourceRef,
    configs: readonly LegacyAlterConfig[],
    validateOnly = false,
    opts?: ConfigRequestOptions,
  ): void {
    this.sync();
    this.configs.legacyAlter(resource, configs, validateOnly, opts);
    if (!validateOnly) this.configsChanged(resource);
  }

  /** Copies re-read the throttles they are under (./partition-moves.ts). */
  private configsChanged(resource: ConfigResourceRef): void {
    if (resource.type === ResourceType.TOPIC) {
      const t = this.topics.get(resource.name);
      if (t) this.moves.topicConfigsChanged(t);
    } else if (resource.type === ResourceType.BROKER) {
      this.moves.brokerConfigsChanged(resource.name);
    }
  }

  /** Dynamic broker configs stored for "" (cluster default) or a broker id. */
  dynamicBrokerConfigs(name: string): Record<string, string> {
    return this.configs.brokerConfigs(name);
  }

  // ------------------------------------------------------------------ logs

  private partitionLog(topic: string, partition: number): { p: PartitionState; log: PartitionLog; t: TopicState } {
    // Callers that grow the log tell the moves (sizeChanged): copies have more to copy.
    this.sync(); // appends move the copies' target; reads see current sizes
    const p = this.partitionState(topic, partition);
    const t = this.topics.get(topic)!;
    return { p, t, log: this.logs.get(t.topicId)![partition] };
  }

  private checkLeader(p: PartitionState, brokerId: number | undefined): void {
    if (brokerId !== undefined) {
      if (p.leader !== brokerId) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    } else if (p.leader === NO_LEADER) {
      throw new KafkaError(ErrorCode.LEADER_NOT_AVAILABLE);
    }
  }

  /**
   * Produce: append concatenated v2 record batches; each batch's baseOffset is rewritten to the log
   * end offset (and partitionLeaderEpoch to the leader epoch). Returns the first batch's offset.
   */
  append(topic: string, partition: number, batches: Buffer, opts: ProduceOptions = {}): number {
    return this.appendWithResult(topic, partition, batches, opts).baseOffset;
  }

  /** append(), also returning logAppendTime and logStartOffset for the Produce response. */
  appendWithResult(topic: string, partition: number, batches: Buffer, opts: ProduceOptions = {}): AppendResult {
    const { p, t, log } = this.partitionLog(topic, partition);
    this.checkLeader(p, opts.brokerId);
    const split = PartitionLog.prepare(batches, this.verifyCrc);
    const maxBytes = Number(this.configs.effectiveTopicValue(t.configs, 'max.message.bytes'));
    for (const b of split) {
      if (b.length > maxBytes) {
        throw new KafkaError(
          ErrorCode.MESSAGE_TOO_LARGE,
          `Message batch size is ${b.length} bytes in append to partition ${topic}-${partition} which exceeds the maximum configured size of ${maxBytes}.`,
        );
      }
    }
    if ((opts.acks ?? -1) === -1) {
      const minIsr = Number(this.configs.effectiveTopicValue(t.configs, 'min.insync.replicas'));
      if (p.isr.length < minIsr) {
        throw new KafkaError(
          ErrorCode.NOT_ENOUGH_REPLICAS,
          `The size of the current ISR : ${p.isr.length} is insufficient to satisfy the min.isr requirement of ${minIsr} for partition ${topic}-${partition}, live replica(s) broker.id are : [${p.isr.join(', ')}]`,
        );
      }
    }
    const before = log.sizeBytes;
    const result = log.appendPrepared(split, p.leaderEpoch);
    this.grown(t, p, log.sizeBytes - before);
    return result;
  }

  /** Fetch: the batches holding offsets >= fetchOffset (at least one whole batch). */
  read(topic: string, partition: number, fetchOffset: number, maxBytes: number, opts: FetchOptions = {}): ReadResult {
    const { p, log } = this.partitionLog(topic, partition);
    this.checkLeader(p, opts.brokerId);
    return log.read(fetchOffset, maxBytes);
  }

  /** ListOffsets: -1 latest, -2 earliest, -3 max timestamp, -4 earliest local, -5 latest tiered, or a timestamp. */
  listOffset(topic: string, partition: number, timestamp: number, opts: FetchOptions = {}): OffsetAndTimestamp {
    const { p, log } = this.partitionLog(topic, partition);
    this.checkLeader(p, opts.brokerId);
    return log.listOffset(timestamp);
  }

  logOffsets(topic: string, partition: number): { logStartOffset: number; logEndOffset: number; highWatermark: number } {
    const { log } = this.partitionLog(topic, partition);
    return { logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset, highWatermark: log.highWatermark };
  }

  /** Partition size in bytes (appended batches plus seeded bytes). */
  sizeBytes(topic: string, partition: number): number {
    return this.partitionLog(topic, partition).log.sizeBytes;
  }

  /** Give a partition n more bytes of size without real data (e.g. for reassignment progress). */
  seedBytes(topic: string, partition: number, n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new KafkaError(ErrorCode.INVALID_REQUEST, `seedBytes needs a non-negative integer, got ${n}.`);
    }
    const { p, t, log } = this.partitionLog(topic, partition);
    const before = log.sizeBytes;
    log.seedBytes(n);
    this.grown(t, p, log.sizeBytes - before);
  }

  /** A partition's log grew: the log-dir sums and the copies catching up follow. */
  private grown(t: TopicState, p: PartitionState, delta: number): void {
    this.replicaIndex.sizeChanged(t, p, delta);
    this.moves.sizeChanged(p, delta);
  }

  // ------------------------------------------------------------------ reassignments (./partition-moves.ts)

  /**
   * One partition of AlterPartitionReassignments: `replicas` is the target, null cancels.
   * Throws KafkaError (3, 39, 85) and then changes nothing.
   */
  alterPartitionReassignment(topic: string, partition: number, replicas: readonly number[] | null): void {
    this.sync(); // copies ran at the old rates until now
    this.moves.alter(topic, partition, replicas);
  }

  /**
   * AlterPartitionReassignments: every entry is checked against the state before the request,
   * then the good ones are applied in order (as KRaft's controller generates records first and
   * replays them after). Returns, per entry, null or the KafkaError it failed with.
   */
  alterPartitionReassignments(entries: readonly { topic: string; partition: number; replicas: readonly number[] | null }[], source: AlteredReassignment['source'] = null): (KafkaError | null)[] {
    return this.atOneInstant(() => {
      this.sync();
      this.moves.beginBatch();
      try {
        return this.alterInOneBlock(entries, source);
      } finally {
        this.moves.endBatch();
      }
    });
  }

  private alterInOneBlock(entries: readonly { topic: string; partition: number; replicas: readonly number[] | null }[], source: AlteredReassignment['source']): (KafkaError | null)[] {
    {
      const planned = entries.map((e) => {
        try {
          return this.moves.plan(e.topic, e.partition, e.replicas);
        } catch (err) {
          if (err instanceof KafkaError) return err;
          throw err;
        }
      });
      for (let i = 0; i < planned.length; i++) {
        const r = planned[i]!;
        if (!(r instanceof KafkaError)) this.applyAltered(r, entries[i]!.replicas, source);
      }
      return planned.map((r) => (r instanceof KafkaError ? r : null));
    }
  }

  /** Sliced AlterPartitionReassignments requests, one after the other (the controller's queue). */
  private controllerQueue: Promise<unknown> = Promise.resolve();
  private slicedInFlight = 0;

  /**
   * AlterPartitionReassignments with the semantics of alterPartitionReassignments (every entry
   * planned against the state before the request, then the good ones applied in order), done in
   * slices of about `sliceMs` (default 10) of work that yield to the event loop between them, so that a
   * request of 100,000 partitions does not stop every other connection for its whole duration.
   * The request runs at one instant of the clock (copies do not advance until it is done: one
   * controller event); the copies' rate classes are settled slice by slice, so the first read
   * after it costs nothing extra. Two such requests run one after the other, as the controller's
   * event queue does; other changes (a topic deleted, a broker stopped) may land between slices,
   * and then count as having come before the entries not yet planned or applied.
   */
  alterPartitionReassignmentsSliced(
    entries: readonly { topic: string; partition: number; replicas: readonly number[] | null }[],
    opts: { sliceMs?: number; pause?: () => Promise<void>; source?: AlteredReassignment['source'] } = {},
  ): Promise<(KafkaError | null)[]> {
    const source = opts.source ?? null;
    // A small request with none queued before it runs at once, in one block, as it always did.
    if (this.slicedInFlight === 0 && entries.length <= SMALL_ALTER) return Promise.resolve(this.alterPartitionReassignments(entries, source));
    this.slicedInFlight++;
    const result = this.controllerQueue
      .then(() => this.alterSliced(entries, opts.sliceMs ?? 10, opts.pause ?? yieldToEventLoop, source))
      .finally(() => this.slicedInFlight--);
    this.controllerQueue = result.catch(() => undefined);
    return result;
  }

  private async alterSliced(
    entries: readonly { topic: string; partition: number; replicas: readonly number[] | null }[],
    sliceMs: number,
    pause: () => Promise<void>,
    source: AlteredReassignment['source'],
  ): Promise<(KafkaError | null)[]> {
    // Decoding the request was one block already: start on a turn of its own.
    await pause();
    const pinned = this.instant === null;
    if (pinned) this.instant = this.clock.now();
    this.moves.beginBatch();
    const errors: (KafkaError | null)[] = new Array(entries.length);
    try {
      this.sync();
      let sliceStart = performance.now();
      const due = (i: number): boolean => (i & 127) === 127 && performance.now() - sliceStart >= sliceMs;
      const yieldNow = async (): Promise<void> => {
        this.sync(); // settle the rate classes of what this slice changed, at the same instant
        await pause();
        sliceStart = performance.now();
      };
      const planned: (ReassignmentRecord | KafkaError)[] = new Array(entries.length);
      // A slice is `sliceMs` of planning or applying plus the settling of its copies (sync),
      // which costs about as much again when applying.
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        try {
          planned[i] = this.moves.plan(e.topic, e.partition, e.replicas);
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          planned[i] = err;
        }
        if (due(i)) await yieldNow();
      }
      for (let i = 0; i < planned.length; i++) {
        const r = planned[i];
        if (r instanceof KafkaError) {
          errors[i] = r;
        } else {
          errors[i] = null;
          this.applyAltered(r, entries[i]!.replicas, source);
        }
        if (due(i)) await yieldNow();
      }
      this.sync();
    } finally {
      this.moves.endBatch();
      if (pinned) this.instant = null;
    }
    // Building and encoding the answer is one more block: on a turn of its own too.
    await pause();
    return errors;
  }

  /** moves.apply of one accepted entry, told to the onReassignmentAltered listeners (if any). */
  private applyAltered(r: ReassignmentRecord, target: readonly number[] | null, source: AlteredReassignment['source']): void {
    if (this.alteredListeners.size === 0) return this.moves.apply(r);
    const p = r.partition;
    const replicasBefore = [...p.replicas];
    const leaderBefore = p.leader;
    const wasMoving = this.moves.isMoving(p);
    this.moves.apply(r);
    const event: AlteredReassignment = {
      topic: r.topic.name,
      partition: p.partition,
      target: target === null ? null : [...target],
      wasMoving,
      moving: this.moves.isMoving(p),
      replicasBefore,
      replicas: [...p.replicas],
      leaderBefore,
      leader: p.leader,
      at: this.instant ?? this.clock.now(),
      source,
    };
    for (const listener of this.alteredListeners) listener(event);
  }

  /**
   * Calls `listener` for every entry of AlterPartitionReassignments the controller applies (see
   * AlteredReassignment), synchronously, in the order they are applied. Returns unsubscribe.
   */
  onReassignmentAltered(listener: (a: AlteredReassignment) => void): () => void {
    this.alteredListeners.add(listener);
    return () => this.alteredListeners.delete(listener);
  }

  /** ListPartitionReassignments: null = every moving partition; others omitted silently. */
  listPartitionReassignments(topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null): TopicReassignments[] {
    this.sync();
    return this.moves.list(topics);
  }

  /** DescribeLogDirs on one broker: the replicas it hosts and their sizes in bytes. */
  logDirSizes(brokerId: number, filter: readonly { topic: string; partitions: readonly number[] }[] | null): TopicLogSizes[] {
    this.sync();
    return this.moves.logSizes(brokerId, filter);
  }

  /**
   * Bytes of every replica one broker hosts (copying replicas: what they hold so far), per
   * default log dir (logDirCount entries, LogDirs.defaultDirIndex), in O(dirs + rate classes).
   */
  logDirUsedBytesByDir(brokerId: number): number[] {
    this.sync();
    return this.moves.usedBytesByDir(brokerId);
  }

  /**
   * logDirUsedBytesByDir by walking every replica on the broker (O(replicas)), `dirIndex` placing
   * each among `dirCount` dirs: the reference for tests, and for dirs other than the default ones.
   */
  logDirUsedBytesByDirWalk(brokerId: number, dirIndex: (topic: string) => (partition: number) => number, dirCount: number): number[] {
    this.sync();
    return this.moves.usedBytesByDirWalk(brokerId, dirIndex, dirCount);
  }

  /** Bytes of every replica one broker hosts (its log dir's used space). */
  logDirUsedBytes(brokerId: number): number {
    this.sync();
    return this.moves.usedBytes(brokerId);
  }

  /** Number of partitions being reassigned now. */
  movingPartitionCount(): number {
    this.sync();
    return this.moves.movingCount;
  }

  /**
   * The clock time (ms) the last reassignment of this partition completed, as Kafka would have
   * finished it (the moment its last new replica caught up), or null if none completed.
   */
  reassignmentCompletedAt(topic: string, partition: number): number | null {
    this.sync();
    return this.moves.completionTime(this.partitionState(topic, partition));
  }

  /**
   * Calls `listener` for each reassignment that completes, with the clock time Kafka finished it.
   * Copies advance lazily: the call comes on the next read or change (or Simulator's tick), with
   * completedAt possibly earlier. Returns the unsubscribe function.
   */
  onReassignmentCompleted(listener: (c: CompletedReassignment) => void): () => void {
    return this.moves.onCompleted(listener);
  }

  /**
   * Settle replica copies up to the clock now (reads do this themselves). False when
   * maxCatchUpsPerAdvance stopped it short: call again (on a later turn of the event loop).
   */
  advanceReplication(): boolean {
    return this.sync();
  }
}
