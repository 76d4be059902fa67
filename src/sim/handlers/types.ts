// What every API handler of the simulator gets and returns. One file per API key in
// this folder (NN_name.ts, after franz-go's kfake), each opening with the behaviour it
// models and its per-version notes.
import type { MessageSchema, VersionRange } from '../protocol/schema.js';
import type { RequestHeader } from '../protocol/messages.generated.js';
import type { Clock } from '../clock.js';
import type { ClusterModel } from '../cluster/model.js';
import type { ClientQuotaStore, ControllerMutationQuota } from '../quotas.js';
import type { LogDirs } from '../log-dirs.js';
export type { ControllerMutationQuota } from '../quotas.js';
import type { ScramUserStore } from '../sasl/scram.js';
import type { SaslServerSettings } from '../sasl/settings.js';
import type { KafkaRelease } from '../releases/release.js';

export interface ConnectionState {
  remote: string;
  /** False until SASL authentication succeeds, when the cluster requires SASL. */
  authenticated: boolean;
  saslMechanism: string | null;
  /** The SCRAM exchange in progress (SaslAuthenticate is called twice); opaque to the server. */
  saslSession?: unknown;
  /** The authenticated user name (the principal is User:<name>); null = ANONYMOUS. */
  user: string | null;
  closed: boolean;
  /**
   * Set by a handler when Kafka closes the connection after this response (failed SASL), or
   * instead of it when none is due (a failed Produce with acks=0).
   */
  closeAfterResponse: boolean;
  /** The client id of the last request's header (null: none sent yet, or the header had none). */
  clientId?: string | null;
}

export interface BrokerEndpoint {
  id: number;
  host: string;
  port: number;
  rack: string | null;
  up: boolean;
}

/** Cluster-wide state the handlers share, beyond the model of topics and configs. */
export interface SimulatorRuntime {
  readonly model: ClusterModel;
  readonly clock: Clock;
  readonly saslRequired: boolean;
  readonly saslPlainUsers: Readonly<Record<string, string>>;
  /** SCRAM-SHA-256/512 credentials (from SimulatorOptions.saslScramUsers). */
  readonly saslScramUsers: ScramUserStore;
  /** Mechanisms SaslHandshake accepts and advertises. */
  readonly saslMechanisms: readonly string[];
  /** OAUTHBEARER validation, connections.max.reauth.ms and the authentication hook (../sasl/session.ts). */
  readonly saslServer: SaslServerSettings;
  /**
   * KRaft brokers forward controller requests (CreateTopics, ...) to the controller
   * themselves; ZooKeeper-mode brokers answer NOT_CONTROLLER. Off = KRaft (Kafka 3.x/4.x).
   */
  readonly notControllerErrors: boolean;
  /** The release the brokers answer as (SimulatorOptions.kafkaVersion / kafkaMode). */
  readonly release: KafkaRelease;
  /**
   * API key -> the versions served: the release's range cut to the handler's. An API missing
   * here is not advertised and a request for it closes the connection.
   */
  readonly apiRanges: ReadonlyMap<number, readonly [number, number]>;
  /** Broker config auto.create.topics.enable (SimulatorOptions.autoCreateTopicsEnable). */
  readonly autoCreateTopicsEnable: boolean;
  endpoints(): BrokerEndpoint[];
  /**
   * The controller id Metadata and DescribeCluster report: KRaft brokers report a random live
   * broker (MetadataCache.getRandomAliveBrokerId: clients only need some broker to send
   * controller requests to, which forwards them); ZooKeeper mode reports the real controller.
   */
  reportedControllerId(): number;
  /** Log dirs and intra-broker moves: DescribeLogDirs (35), AlterReplicaLogDirs (34). */
  readonly logDirs: LogDirs;
  /** Client quotas: AlterClientQuotas (49) / DescribeClientQuotas (48). */
  readonly clientQuotas: ClientQuotaStore;
  /** KIP-599 controller mutation quota for one request (see ../quotas.ts). */
  mutationQuota(ctx: RequestContext, strict: boolean): ControllerMutationQuota;
}

export interface RequestContext {
  brokerId: number;
  runtime: SimulatorRuntime;
  conn: ConnectionState;
  header: RequestHeader;
  version: number;
  clientId: string | null;
}

// The table of handlers holds every message type: code that takes any handler (the server, a test
// wrapping one) names neither type, and each handler checks its own.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ApiHandler<Req = any, Res = any> {
  apiKey: number;
  name: string;
  request: MessageSchema;
  response: MessageSchema;
  /** Versions served, when narrower than the spec's. Advertised as is by ApiVersions. */
  versions?: VersionRange;
  allowedBeforeAuthentication?: boolean;
  /** ApiVersions only: the v0 body for a version it does not know. */
  unsupportedVersionResponse?: (runtime: SimulatorRuntime) => Res;
  /**
   * Whether this request is heavy (../request-turns.ts): its work grows with the cluster, as an
   * answer about every topic or partition, or about more than HEAVY_ITEMS of them. Heavy
   * requests of all brokers take turns; others are answered at once. Absent = never (a frame
   * over HEAVY_FRAME_BYTES is heavy anyway).
   */
  heavy?(request: Req): boolean;
  /** Returns the response body, or null when no response is due (Produce acks=0). */
  handle(ctx: RequestContext, request: Req): Res | null | Promise<Res | null>;
}

export function defineHandler<Req, Res>(h: ApiHandler<Req, Res>): ApiHandler<Req, Res> {
  return h;
}
