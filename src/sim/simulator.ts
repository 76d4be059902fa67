// A whole simulated cluster in one process: the cluster model, one BrokerServer per
// broker on its own loopback port, and the runtime the handlers share.
import { randomBytes } from 'node:crypto';
import { ClusterModel } from './cluster/model.js';
import { BrokerServer } from './server.js';
import { allHandlers } from './handlers/index.js';
import type { ApiHandler, BrokerEndpoint, ControllerMutationQuota, RequestContext, SimulatorRuntime } from './handlers/types.js';
import { systemClock, type Clock } from './clock.js';
import { ClientQuotaStore, ControllerMutationQuotaManager } from './quotas.js';
import { SCRAM_MECHANISMS, ScramUserStore } from './sasl/scram.js';
import { OAuthBearerValidator } from './sasl/oauthbearer.js';
import type { SaslServerSettings } from './sasl/settings.js';
import type { OutOfRangeRequest, SimulatedCluster, SimulatorOptions } from './options.js';
import { kafkaRelease, servedRange, type KafkaRelease } from './releases/release.js';
import { topicConfigDefsFor } from './cluster/configs.js';
import type { AlteredReassignment, CompletedReassignment } from './cluster/partition-moves.js';
import { RequestTurns } from './request-turns.js';
import { FaultInjector } from './faults.js';
import { LogDirs } from './log-dirs.js';

/**
 * With the system clock, replica copies are also settled this often without any request, so
 * onReassignmentCompleted listeners hear of a completion within this much of it (completedAt is
 * exact either way). With a hand-driven clock nothing runs in the background.
 */
export const REPLICATION_TICK_MS = 100;
/**
 * With the system clock, catch-ups handled per read or tick at most: a burst of completions at
 * one instant (100k equal moves under one throttle) is spread over turns of the event loop.
 */
export const MAX_CATCH_UPS_PER_TURN = 2000;
/** Requests refused as outside the release's ranges kept in Simulator.outOfRange (the first ones: a long-running `npm run sim` stays bounded). */
export const MAX_OUT_OF_RANGE_KEPT = 1000;

function seedEvery(bytes: number): () => number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`seedBytes must be a non-negative integer, got ${bytes}`);
  return () => bytes;
}

/** Kafka cluster ids are 16 random bytes in URL-safe base64 without padding (22 chars). */
function newClusterId(): string {
  return randomBytes(16).toString('base64url');
}

export class Simulator implements SimulatedCluster, SimulatorRuntime {
  readonly model: ClusterModel;
  readonly clock: Clock;
  readonly clusterId: string;
  readonly saslRequired: boolean;
  readonly saslPlainUsers: Readonly<Record<string, string>>;
  readonly saslScramUsers: ScramUserStore;
  readonly saslMechanisms: readonly string[];
  readonly saslServer: SaslServerSettings;
  readonly notControllerErrors: boolean;
  readonly autoCreateTopicsEnable: boolean;
  /** The release the brokers answer as, and the versions they serve of each API. */
  readonly release: KafkaRelease;
  readonly apiRanges: ReadonlyMap<number, readonly [number, number]>;
  /** The requests a broker refused as outside the release's ranges (a client bug: Kafka closes the connection); the first MAX_OUT_OF_RANGE_KEPT. */
  readonly outOfRange: OutOfRangeRequest[] = [];
  /** Log dirs of every broker and intra-broker replica moves (AlterReplicaLogDirs). */
  readonly logDirs: LogDirs;
  private readonly reportedController: 'random' | 'controller';
  private readonly controllerRandom: () => number;
  /** Client quotas (AlterClientQuotas / DescribeClientQuotas). */
  readonly clientQuotas: ClientQuotaStore;
  /** KIP-599 buckets, charged by CreateTopics / DeleteTopics / CreatePartitions. */
  readonly mutationQuotas: ControllerMutationQuotaManager;
  private readonly servers = new Map<number, BrokerServer>();
  private readonly racks = new Map<number, string | null>();
  readonly handlers: ReadonlyMap<number, ApiHandler>;
  /** Faults on demand by API key, broker, version and count (./faults.ts). */
  readonly faults = new FaultInjector();
  /** Heavy requests of every broker take turns (one thread answers them all: request-turns.ts). */
  readonly turns = new RequestTurns();
  private readonly host: string;
  private ticker: NodeJS.Timeout | null = null;
  /** Client ids cut off by cutOffClient, shared with every broker. */
  private readonly cutOff = new Set<string>();

  constructor(opts: SimulatorOptions = {}) {
    const ids = opts.brokerIds ?? Array.from({ length: opts.brokers ?? 3 }, (_, i) => i);
    if (ids.length === 0) throw new Error('a cluster needs at least one broker');
    if (new Set(ids).size !== ids.length) throw new Error('broker ids must be unique');
    this.clock = opts.clock ?? systemClock;
    this.clusterId = opts.clusterId ?? newClusterId();
    this.host = opts.host ?? '127.0.0.1';
    this.saslPlainUsers = opts.saslPlainUsers ?? {};
    this.saslScramUsers = new ScramUserStore(opts.saslScramUsers);
    const oauthBearer = opts.saslOAuthBearer !== undefined;
    this.saslRequired = opts.saslPlainUsers !== undefined || opts.saslScramUsers !== undefined || oauthBearer;
    // PLAIN stays enabled without SASL users (the handshake then fails every login), as before.
    this.saslMechanisms = [
      ...(opts.saslPlainUsers !== undefined || (opts.saslScramUsers === undefined && !oauthBearer) ? ['PLAIN'] : []),
      ...(opts.saslScramUsers ? SCRAM_MECHANISMS : []),
      ...(oauthBearer ? ['OAUTHBEARER'] : []),
    ];
    const maxReauthMs = opts.connectionsMaxReauthMs ?? 0;
    if (!Number.isSafeInteger(maxReauthMs) || maxReauthMs < 0)
      throw new RangeError(`connectionsMaxReauthMs must be a non-negative integer, got ${maxReauthMs}`);
    this.saslServer = {
      oauthBearer: opts.saslOAuthBearer ? new OAuthBearerValidator(opts.saslOAuthBearer) : null,
      connectionsMaxReauthMs: maxReauthMs,
      ...(opts.onSaslAuthenticated && { onAuthenticated: opts.onSaslAuthenticated }),
    };
    this.release = kafkaRelease(opts.kafkaVersion, opts.kafkaMode);
    // ZooKeeper-mode brokers answer NOT_CONTROLLER (KafkaApis before KRaft's forwarding).
    this.notControllerErrors = opts.notControllerErrors ?? this.release.mode === 'zookeeper';
    this.reportedController = opts.reportedController ?? 'random';
    this.controllerRandom = opts.controllerRandom ?? Math.random;
    this.autoCreateTopicsEnable = opts.autoCreateTopicsEnable ?? false;
    ids.forEach((id, i) => this.racks.set(id, opts.racks?.[i] ?? null));
    this.clientQuotas = new ClientQuotaStore();
    this.mutationQuotas = new ControllerMutationQuotaManager(this.clientQuotas, this.clock, {
      windowNum: opts.controllerQuotaWindowNum,
      windowSizeSeconds: opts.controllerQuotaWindowSizeSeconds,
    });
    const logDirs = opts.logDirs;
    if (
      logDirs !== undefined &&
      (logDirs.length === 0 || new Set(logDirs).size !== logDirs.length || logDirs.some((d) => !d.startsWith('/') || d.includes(',')))
    ) {
      throw new Error('logDirs must be distinct absolute paths without commas, at least one');
    }
    this.model = new ClusterModel({
      brokers: ids.map((id) => ({ id, rack: this.racks.get(id) ?? null })),
      clock: this.clock,
      clusterId: this.clusterId,
      replicationBytesPerSecond: opts.replicationBytesPerSecond,
      isrJoinRoundTripMs: opts.isrJoinRoundTripMs,
      seedBytes: typeof opts.seedBytes === 'number' ? seedEvery(opts.seedBytes) : opts.seedBytes,
      ...(opts.placer && { placer: opts.placer }),
      ...(opts.numPartitions !== undefined && { numPartitionsDefault: opts.numPartitions }),
      ...(opts.defaultReplicationFactor !== undefined && { defaultReplicationFactor: opts.defaultReplicationFactor }),
      staticBrokerConfigs: {
        ...(this.autoCreateTopicsEnable && { 'auto.create.topics.enable': 'true' }),
        ...(opts.logDirs !== undefined && { 'log.dirs': opts.logDirs.join(',') }),
        ...(opts.controllerQuotaWindowNum !== undefined && { 'controller.quota.window.num': String(opts.controllerQuotaWindowNum) }),
        ...(opts.controllerQuotaWindowSizeSeconds !== undefined && {
          'controller.quota.window.size.seconds': String(opts.controllerQuotaWindowSizeSeconds),
        }),
      },
      ...(opts.placementRandom && { placementRandom: opts.placementRandom }),
      ...(this.clock === systemClock && { maxCatchUpsPerAdvance: MAX_CATCH_UPS_PER_TURN }),
      // Every broker has the same log.dirs (LogDirs below): the model sums used bytes per dir.
      logDirCount: logDirs?.length ?? 1,
      // 4.0 removed three topic configs and changed a default (configs.topicConfigDefsFor).
      topicConfigDefs: topicConfigDefsFor(Number(this.release.version.split('.')[0])),
    });
    const model = this.model;
    this.logDirs = new LogDirs((id) => logDirs ?? [`/var/lib/kafka/data-${id}`], this.clock, {
      hosts: (id, topic, partition) => model.topicView({ name: topic })?.partitions[partition]?.replicas.includes(id) ?? false,
      sizeBytes: (id, topic, partition) => model.logDirSizes(id, [{ topic, partitions: [partition] }])[0]?.partitions[0]?.sizeBytes ?? 0,
      brokerConfig: (id, name) => model.effectiveBrokerConfig(id, name),
    });
    this.handlers = new Map(allHandlers().map((h) => [h.apiKey, h]));
    const apiRanges = new Map<number, readonly [number, number]>();
    for (const h of this.handlers.values()) {
      const served = servedRange(this.release, h.apiKey, h.versions ?? h.request.valid);
      if (served) apiRanges.set(h.apiKey, served);
    }
    this.apiRanges = apiRanges;
    ids.forEach((id, i) => {
      this.servers.set(
        id,
        new BrokerServer({
          brokerId: id,
          host: this.host,
          port: opts.ports?.[i] ?? 0,
          runtime: this,
          handlers: this.handlers,
          faults: this.faults,
          turns: this.turns,
          cutOff: this.cutOff,
          onOutOfRange: (r) => void (this.outOfRange.length < MAX_OUT_OF_RANGE_KEPT && this.outOfRange.push(r)),
          ...(opts.tls && { tls: opts.tls }),
        }),
      );
    });
  }

  async start(): Promise<this> {
    try {
      for (const s of this.servers.values()) await s.start();
      if (this.clock === systemClock && this.ticker === null) {
        this.ticker = setInterval(() => this.drainReplication(), REPLICATION_TICK_MS);
        this.ticker.unref();
      }
    } catch (err) {
      await this.close();
      throw err;
    }
    return this;
  }

  private draining = false;

  /** Settles copies up to now, a bounded slice per turn of the event loop. */
  private drainReplication(): void {
    if (this.draining) return;
    if (this.model.advanceReplication()) return;
    this.draining = true;
    const more = (): void => {
      if (this.ticker === null || this.model.advanceReplication()) {
        this.draining = false;
        return;
      }
      setImmediate(more);
    };
    setImmediate(more);
  }

  reportedControllerId(): number {
    if (this.notControllerErrors || this.reportedController === 'controller') return this.model.controllerId;
    const live = this.endpoints().filter((e) => e.up);
    return live.length === 0 ? -1 : live[Math.floor(this.controllerRandom() * live.length)].id;
  }

  endpoints(): BrokerEndpoint[] {
    return [...this.servers.entries()].map(([id, s]) => ({
      id,
      host: this.host,
      port: s.port,
      rack: this.racks.get(id) ?? null,
      up: s.listening,
    }));
  }

  get bootstrapServers(): string[] {
    return this.endpoints()
      .filter((e) => e.up)
      .map((e) => `${e.host}:${e.port}`);
  }

  private server(id: number): BrokerServer {
    const s = this.servers.get(id);
    if (!s) throw new Error(`no broker ${id}`);
    return s;
  }

  async stopBroker(id: number): Promise<void> {
    await this.server(id).stop();
    this.model.stopBroker(id);
  }

  async startBroker(id: number): Promise<void> {
    await this.server(id).start();
    this.model.startBroker(id);
  }

  seedBytes(topic: string, partition: number, n: number): void {
    this.model.seedBytes(topic, partition, n);
  }

  onReassignmentCompleted(listener: (c: CompletedReassignment) => void): () => void {
    return this.model.onReassignmentCompleted(listener);
  }

  reassignmentCompletedAt(topic: string, partition: number): number | null {
    return this.model.reassignmentCompletedAt(topic, partition);
  }

  onReassignmentAltered(listener: (a: AlteredReassignment) => void): () => void {
    return this.model.onReassignmentAltered(listener);
  }

  cutOffClient(clientId: string): number {
    this.cutOff.add(clientId);
    let closed = 0;
    for (const s of this.servers.values()) closed += s.dropClient(clientId);
    return closed;
  }

  /** Fault injection: a slow broker. Requests already waiting keep their delay. */
  setBrokerDelay(id: number, ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`delay must be >= 0 ms, got ${ms}`);
    this.server(id).delayMs = ms;
  }

  mutationQuota(ctx: RequestContext, strict: boolean): ControllerMutationQuota {
    // The SASL user (null = ANONYMOUS) and the request's client id pick the bucket.
    return this.mutationQuotas.forRequest(ctx.conn.user, ctx.clientId, strict);
  }

  async close(): Promise<void> {
    if (this.ticker !== null) clearInterval(this.ticker);
    this.ticker = null;
    for (const s of this.servers.values()) await s.stop();
  }
}
