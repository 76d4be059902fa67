// The simulator's in-memory cluster model: brokers, topics, partitions, configs and logs.
// Every mutation validates everything first and only then applies (atomic), and every bad input
// is reported as a KafkaError carrying Kafka's error code and message.
//
// ClusterModel is the API the handlers, the control port and the tests use; it keeps none of the
// work itself (issue 31: a file a reader can hold). The state is ./cluster-state.ts; topic reads
// ./topic-views.ts; CreateTopics, CreatePartitions and DeleteTopics ./topic-writes.ts; brokers
// stopped or started, ElectLeaders and ISRs ./leadership.ts; Produce, Fetch and ListOffsets
// ./produce-fetch.ts; AlterPartitionReassignments ./reassignment-requests.ts; the replica copies
// ./partition-moves.ts; configs ./config-ops.ts. The API's types are ./model-types.ts.
import type { Clock } from '../clock.js';
import { ClusterState } from './cluster-state.js';
import * as leadership from './leadership.js';
import * as produceFetch from './produce-fetch.js';
import { ReassignmentRequests } from './reassignment-requests.js';
import * as topicViews from './topic-views.js';
import * as topicWrites from './topic-writes.js';
import type { BrokerInfo } from './brokers.js';
import type { ConfigRequestOptions, ConfigResourceRef, DescribeConfigsEntry, IncrementalAlterOp, LegacyAlterConfig } from './config-ops.js';
import { ErrorCode, KafkaError } from './errors.js';
import type { AppendResult, OffsetAndTimestamp, ReadResult } from './log.js';
import type { AlteredReassignment, CompletedReassignment, TopicLogSizes, TopicReassignments } from './partition-moves.js';
import type { PartitionInfo, TopicInfo } from './topics.js';
import type { ElectionTopicResult } from './elections.js';

export type * from './model-types.js';
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

export class ClusterModel {
  readonly clusterId: string;
  readonly clock: Clock;
  readonly numPartitionsDefault: number;
  readonly defaultReplicationFactor: number;
  /** Number of log dirs of every broker (ClusterModelOptions.logDirCount). */
  readonly logDirCount: number;
  /** What every part of the model works on (./cluster-state.ts). */
  private readonly s: ClusterState;
  /** AlterPartitionReassignments requests and their listeners (./reassignment-requests.ts). */
  private readonly reassignments: ReassignmentRequests;

  constructor(opts: ClusterModelOptions) {
    this.s = new ClusterState(opts);
    this.reassignments = new ReassignmentRequests(this.s);
    this.clusterId = this.s.clusterId;
    this.clock = this.s.clock;
    this.numPartitionsDefault = this.s.numPartitionsDefault;
    this.defaultReplicationFactor = this.s.defaultReplicationFactor;
    this.logDirCount = this.s.logDirCount;
  }

  /**
   * Runs `fn` at one instant of the clock: a request touching 100,000 partitions is one controller
   * event, as in Kafka, so copies do not advance between its items (./cluster-state.ts).
   */
  atOneInstant<T>(fn: () => T): T {
    return this.s.atOneInstant(fn);
  }

  // ------------------------------------------------------------------ brokers

  get controllerId(): number {
    return this.s.brokers.controllerId;
  }

  listBrokers(): BrokerInfo[] {
    return this.s.brokers.list();
  }

  isBrokerUp(id: number): boolean {
    return this.s.brokers.isUp(id);
  }

  /**
   * Stop (fence) a broker: it leaves every ISR it is in, partitions it led elect a new leader or
   * go leaderless (-1) (./leadership.ts). Idempotent.
   */
  stopBroker(id: number): void {
    leadership.stopBroker(this.s, id);
  }

  /**
   * Start (unfence) a broker: leaderless partitions elect a leader again and the returning replica
   * rejoins the ISRs (./leadership.ts). Idempotent.
   */
  startBroker(id: number): void {
    leadership.startBroker(this.s, id);
  }

  /** ElectLeaders (API 43), as KRaft's controller runs it (./leadership.ts). `partitions` null = all. */
  electLeaders(
    partitions: readonly { topic: string; partitions: readonly number[] }[] | null,
    electionType: number,
    zk = false,
  ): ElectionTopicResult[] {
    return leadership.electLeaders(this.s, partitions, electionType, zk);
  }

  /**
   * Trouble on demand (./trouble.ts): partitions' ISRs set as given, their leaders unchanged
   * (./leadership.ts). Returns how many changed; throws UNKNOWN_TOPIC_OR_PARTITION (3) before
   * changing anything.
   */
  setIsrs(entries: readonly { topic: string; partition: number; isr: readonly number[] }[]): number {
    return leadership.setIsrs(this.s, entries);
  }

  // ------------------------------------------------------------------ topics (./topic-views.ts, ./topic-writes.ts)

  listTopics(): TopicInfo[] {
    return topicViews.listTopics(this.s);
  }

  /**
   * Every topic as Metadata reports it, sorted by name. The views are cached until something in
   * them changes and are shared: callers must not modify them.
   */
  topicViews(): TopicView[] {
    return topicViews.topicViews(this.s);
  }

  /** One topic's Metadata view (shared, see topicViews), by name or by id. */
  topicView(ref: { name: string } | { id: string | Uint8Array }): TopicView | undefined {
    return topicViews.topicView(this.s, ref);
  }

  getTopic(name: string): TopicInfo | undefined {
    return topicViews.getTopic(this.s, name);
  }

  /** Accepts the Kafka string form (22-char base64url) or the 16 raw bytes. */
  getTopicById(id: string | Uint8Array): TopicInfo | undefined {
    return topicViews.getTopicById(this.s, id);
  }

  /** Throws UNKNOWN_TOPIC_OR_PARTITION (3). */
  getPartition(topic: string, partition: number): PartitionInfo {
    return topicViews.getPartition(this.s, topic, partition);
  }

  /** CreateTopics for one topic, as KRaft's ReplicationControlManager.createTopic does it. */
  createTopic(req: CreateTopicRequest, opts: ValidateOnlyOption = {}): CreateTopicResult {
    return topicWrites.createTopic(this.s, req, opts);
  }

  /** CreatePartitions for one topic (ReplicationControlManager.createPartitions). */
  createPartitions(
    name: string,
    count: number,
    assignments: number[][] | null = null,
    opts: ValidateOnlyOption = {},
  ): CreatePartitionsResult {
    return topicWrites.createPartitions(this.s, name, count, assignments, opts);
  }

  /** DeleteTopics by name: unknown -> UNKNOWN_TOPIC_OR_PARTITION (3). */
  deleteTopic(name: string): DeletedTopic {
    return topicWrites.deleteTopic(this.s, name);
  }

  /** DeleteTopics by id (string form or 16 bytes): unknown -> UNKNOWN_TOPIC_ID (100). */
  deleteTopicById(id: string | Uint8Array): DeletedTopic {
    return topicWrites.deleteTopicById(this.s, id);
  }

  // ------------------------------------------------------------------ configs

  /** Effective value of one topic config (override, cluster-default broker synonym, default). */
  effectiveTopicConfig(topic: string, name: string): string | null {
    const t = this.s.topics.get(topic);
    if (!t) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${topic}' does not exist.`);
    return this.s.configs.effectiveTopicValue(t.configs, name);
  }

  /** Effective value of one broker config on a broker (dynamic, cluster default, static, default). */
  effectiveBrokerConfig(brokerId: number, name: string): string | null {
    this.s.brokers.get(brokerId);
    return this.s.configs.effectiveBrokerValue(brokerId, name);
  }

  describeConfigs(resource: ConfigResourceRef, keys: readonly string[] | null, opts?: ConfigRequestOptions): DescribeConfigsEntry[] {
    return this.s.configs.describe(resource, keys, opts);
  }

  incrementalAlterConfigs(
    resource: ConfigResourceRef,
    ops: readonly IncrementalAlterOp[],
    validateOnly = false,
    opts?: ConfigRequestOptions,
  ): void {
    this.s.sync(); // throttle configs change copy rates from now on
    this.s.configs.incrementalAlter(resource, ops, validateOnly, opts);
    if (!validateOnly) this.s.configsChanged(resource);
  }

  /** Legacy AlterConfigs: replaces ALL dynamic configs of the resource. */
  alterConfigs(
    resource: ConfigResourceRef,
    configs: readonly LegacyAlterConfig[],
    validateOnly = false,
    opts?: ConfigRequestOptions,
  ): void {
    this.s.sync();
    this.s.configs.legacyAlter(resource, configs, validateOnly, opts);
    if (!validateOnly) this.s.configsChanged(resource);
  }

  /** Dynamic broker configs stored for "" (cluster default) or a broker id. */
  dynamicBrokerConfigs(name: string): Record<string, string> {
    return this.s.configs.brokerConfigs(name);
  }

  // ------------------------------------------------------------------ logs (./produce-fetch.ts)

  /**
   * Produce: append concatenated v2 record batches; each batch's baseOffset is rewritten to the log
   * end offset (and partitionLeaderEpoch to the leader epoch). Returns the first batch's offset.
   */
  append(topic: string, partition: number, batches: Buffer, opts: ProduceOptions = {}): number {
    return produceFetch.append(this.s, topic, partition, batches, opts);
  }

  /** append(), also returning logAppendTime and logStartOffset for the Produce response. */
  appendWithResult(topic: string, partition: number, batches: Buffer, opts: ProduceOptions = {}): AppendResult {
    return produceFetch.appendWithResult(this.s, topic, partition, batches, opts);
  }

  /** Fetch: the batches holding offsets >= fetchOffset (at least one whole batch). */
  read(topic: string, partition: number, fetchOffset: number, maxBytes: number, opts: FetchOptions = {}): ReadResult {
    return produceFetch.read(this.s, topic, partition, fetchOffset, maxBytes, opts);
  }

  /** ListOffsets: -1 latest, -2 earliest, -3 max timestamp, -4 earliest local, -5 latest tiered, or a timestamp. */
  listOffset(topic: string, partition: number, timestamp: number, opts: FetchOptions = {}): OffsetAndTimestamp {
    return produceFetch.listOffset(this.s, topic, partition, timestamp, opts);
  }

  logOffsets(topic: string, partition: number): { logStartOffset: number; logEndOffset: number; highWatermark: number } {
    return produceFetch.logOffsets(this.s, topic, partition);
  }

  /** Partition size in bytes (appended batches plus seeded bytes). */
  sizeBytes(topic: string, partition: number): number {
    return produceFetch.sizeBytes(this.s, topic, partition);
  }

  /** Give a partition n more bytes of size without real data (e.g. for reassignment progress). */
  seedBytes(topic: string, partition: number, n: number): void {
    produceFetch.seedBytes(this.s, topic, partition, n);
  }

  // ------------------------------------------------------------------ reassignments (./reassignment-requests.ts, ./partition-moves.ts)

  /**
   * One partition of AlterPartitionReassignments: `replicas` is the target, null cancels.
   * Throws KafkaError (3, 39, 85) and then changes nothing.
   */
  alterPartitionReassignment(topic: string, partition: number, replicas: readonly number[] | null): void {
    this.reassignments.alterPartitionReassignment(topic, partition, replicas);
  }

  /**
   * AlterPartitionReassignments: every entry is checked against the state before the request,
   * then the good ones are applied in order (as KRaft's controller generates records first and
   * replays them after). Returns, per entry, null or the KafkaError it failed with.
   */
  alterPartitionReassignments(
    entries: readonly { topic: string; partition: number; replicas: readonly number[] | null }[],
    source: AlteredReassignment['source'] = null,
  ): (KafkaError | null)[] {
    return this.reassignments.alterPartitionReassignments(entries, source);
  }

  /**
   * alterPartitionReassignments in slices of about `sliceMs` (default 10) of work that yield to
   * the event loop between them, at one instant of the clock, one request after the other
   * (./reassignment-requests.ts tells what may land between slices).
   */
  alterPartitionReassignmentsSliced(
    entries: readonly { topic: string; partition: number; replicas: readonly number[] | null }[],
    opts: { sliceMs?: number; pause?: () => Promise<void>; source?: AlteredReassignment['source'] } = {},
  ): Promise<(KafkaError | null)[]> {
    return this.reassignments.alterPartitionReassignmentsSliced(entries, opts);
  }

  /**
   * Calls `listener` for every entry of AlterPartitionReassignments the controller applies (see
   * AlteredReassignment), synchronously, in the order they are applied. Returns unsubscribe.
   */
  onReassignmentAltered(listener: (a: AlteredReassignment) => void): () => void {
    return this.reassignments.onReassignmentAltered(listener);
  }

  /** ListPartitionReassignments: null = every moving partition; others omitted silently. */
  listPartitionReassignments(topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null): TopicReassignments[] {
    this.s.sync();
    return this.s.moves.list(topics);
  }

  /** DescribeLogDirs on one broker: the replicas it hosts and their sizes in bytes. */
  logDirSizes(brokerId: number, filter: readonly { topic: string; partitions: readonly number[] }[] | null): TopicLogSizes[] {
    this.s.sync();
    return this.s.moves.logSizes(brokerId, filter);
  }

  /**
   * Bytes of every replica one broker hosts (copying replicas: what they hold so far), per
   * default log dir (logDirCount entries, LogDirs.defaultDirIndex), in O(dirs + rate classes).
   */
  logDirUsedBytesByDir(brokerId: number): number[] {
    this.s.sync();
    return this.s.moves.usedBytesByDir(brokerId);
  }

  /**
   * logDirUsedBytesByDir by walking every replica on the broker (O(replicas)), `dirIndex` placing
   * each among `dirCount` dirs: the reference for tests, and for dirs other than the default ones.
   */
  logDirUsedBytesByDirWalk(brokerId: number, dirIndex: (topic: string) => (partition: number) => number, dirCount: number): number[] {
    this.s.sync();
    return this.s.moves.usedBytesByDirWalk(brokerId, dirIndex, dirCount);
  }

  /** Bytes of every replica one broker hosts (its log dir's used space). */
  logDirUsedBytes(brokerId: number): number {
    this.s.sync();
    return this.s.moves.usedBytes(brokerId);
  }

  /** Number of partitions being reassigned now. */
  movingPartitionCount(): number {
    this.s.sync();
    return this.s.moves.movingCount;
  }

  /**
   * The clock time (ms) the last reassignment of this partition completed, as Kafka would have
   * finished it (the moment its last new replica caught up), or null if none completed.
   */
  reassignmentCompletedAt(topic: string, partition: number): number | null {
    this.s.sync();
    return this.s.moves.completionTime(this.s.partitionState(topic, partition));
  }

  /**
   * Calls `listener` for each reassignment that completes, with the clock time Kafka finished it.
   * Copies advance lazily: the call comes on the next read or change (or Simulator's tick), with
   * completedAt possibly earlier. Returns the unsubscribe function.
   */
  onReassignmentCompleted(listener: (c: CompletedReassignment) => void): () => void {
    return this.s.moves.onCompleted(listener);
  }

  /**
   * Settle replica copies up to the clock now (reads do this themselves). False when
   * maxCatchUpsPerAdvance stopped it short: call again (on a later turn of the event loop).
   */
  advanceReplication(): boolean {
    return this.s.sync();
  }
}
