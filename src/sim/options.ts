// Options and the public surface of a simulated cluster. Their own module (not index.ts)
// so that simulator.ts can implement them without an import cycle through the entry point.
import type { Clock } from './clock.js';
import type { AlteredReassignment, CompletedReassignment } from './cluster/partition-moves.js';

export interface SimulatorOptions {
  /** Number of brokers, ids 0..n-1 unless brokerIds is given. Default 3. */
  brokers?: number;
  brokerIds?: number[];
  /** Rack per broker (same order as the ids); null or missing = no rack. */
  racks?: (string | null)[];
  host?: string; // default 127.0.0.1
  /** Fixed ports per broker; default 0 = random free port. */
  ports?: number[];
  clock?: Clock;
  clusterId?: string;
  /** SASL PLAIN users (username -> password). When set, SASL is required. */
  saslPlainUsers?: Record<string, string>;
  /**
   * SASL SCRAM-SHA-256 and SCRAM-SHA-512 users (username -> password; credentials for
   * both mechanisms are derived at start, 4096 iterations). When set, SASL is required.
   */
  saslScramUsers?: Record<string, string>;
  /**
   * SASL OAUTHBEARER as Kafka's KIP-768 validator with a JWKS (and, for AWS_MSK_IAM tests, the
   * AWS MSK IAM signer's tokens with static test credentials): ./sasl/oauthbearer.ts. When set,
   * SASL is required.
   */
  saslOAuthBearer?: import('./sasl/oauthbearer.js').SimOAuthBearerOptions;
  /**
   * Broker config `connections.max.reauth.ms` (KIP-368): the longest session SaslAuthenticate
   * grants before the client must re-authenticate; a connection that has not is closed at its next
   * request. 0 (default): sessions end only with an OAUTHBEARER token's expiry.
   */
  connectionsMaxReauthMs?: number;
  /** Hear of every successful SASL authentication and re-authentication (tests). */
  onSaslAuthenticated?: (e: import('./sasl/settings.js').SaslAuthenticatedEvent) => void;
  /**
   * Serve TLS instead of plaintext on every broker (node:tls server options: key, cert,
   * and ca + requestCert + rejectUnauthorized for client certificates).
   */
  tls?: import('node:tls').TlsOptions;
  /**
   * Answer NOT_CONTROLLER from brokers that are not the controller for controller
   * requests, as ZooKeeper-mode Kafka did, instead of forwarding them as KRaft does.
   */
  notControllerErrors?: boolean;
  /**
   * The controller id that Metadata and DescribeCluster report. 'random' (default, as KRaft
   * brokers do): a random live broker for every response, which need not be the controller;
   * 'controller': the simulated controller. ZooKeeper mode (notControllerErrors) always
   * reports the controller.
   */
  reportedController?: 'random' | 'controller';
  /** Random source of the reported controller id, in [0, 1) (default Math.random). */
  controllerRandom?: () => number;
  /** KIP-599 `controller.quota.window.num`: burst = num x size x rate. Default 11. */
  controllerQuotaWindowNum?: number;
  /** KIP-599 `controller.quota.window.size.seconds`. Default 1. */
  controllerQuotaWindowSizeSeconds?: number;
  /**
   * Replication bandwidth of every broker, bytes/s in each direction, shared by the replica
   * copies of reassignments into and out of it. Default 50 MiB/s (52428800).
   */
  replicationBytesPerSecond?: number;
  /**
   * Least time (ms) from the start of a new replica's copy to its joining the ISR: one
   * replication round trip (fetch, the leader's AlterPartition, the controller's commit), so
   * even a move of an empty partition completes after the AlterPartitionReassignments
   * response, as in Kafka. Default 10.
   */
  isrJoinRoundTripMs?: number;
  /**
   * Bytes every new partition starts with, as if it held that much data, so reassignments have
   * something to copy: a number for every partition, or per topic and partition. Default 0.
   * `Simulator.seedBytes()` adds bytes to a partition that exists already.
   */
  seedBytes?: number | ((topic: string, partition: number) => number);
  /**
   * Replica placer for topics and partitions created without assignments: 'classic' (default;
   * rack-aware round-robin, deterministic) or 'striped' (KRaft's StripedReplicaPlacer, driven by
   * placementRandom).
   */
  placer?: 'classic' | 'striped';
  /** Random source of the striped placer (uniform int in [0, bound)); default always 0. */
  placementRandom?: { nextInt(bound: number): number };
  /**
   * Broker config `auto.create.topics.enable` (default false, unlike Kafka's true): a Metadata
   * request with allow_auto_topic_creation (v0-3 always, v4+ when set) creates each unknown
   * topic with num.partitions / default.replication.factor and answers LEADER_NOT_AVAILABLE
   * for it in that response.
   */
  autoCreateTopicsEnable?: boolean;
  /**
   * `log.dirs` of every broker (JBOD), e.g. ['/var/lib/kafka/data-0', '/var/lib/kafka/data-1']:
   * DescribeLogDirs reports each, AlterReplicaLogDirs (34) moves replicas between them (see
   * ./log-dirs.ts). Default: one dir per broker, /var/lib/kafka/data-<brokerId>.
   */
  logDirs?: readonly string[];
  /** Broker config `num.partitions` (default 1): partitions of a topic created without a count. */
  numPartitions?: number;
  /** Broker config `default.replication.factor` (default 1). */
  defaultReplicationFactor?: number;
  /**
   * The Kafka release the brokers answer as ('2.8' ... '4.2'; default the newest the table in
   * ./releases/ knows): ApiVersions advertises that release's ranges (cut to what the handlers
   * serve) and its features, and a request outside them closes the connection, as Kafka does.
   */
  kafkaVersion?: string;
  /**
   * 'kraft' (default where the release has it) or 'zookeeper': a ZooKeeper-mode cluster reports
   * no finalized metadata.version and, unless notControllerErrors says otherwise, answers
   * NOT_CONTROLLER from brokers that are not the controller.
   */
  kafkaMode?: 'zookeeper' | 'kraft';
}

/** A request a broker refused because the release it answers as does not accept it (Simulator.outOfRange). */
export interface OutOfRangeRequest {
  brokerId: number;
  apiKey: number;
  /** The API's name, or null for a key the simulator does not know at all. */
  api: string | null;
  version: number;
  clientId: string | null;
  /** The range the release accepts, null when it has no such API. */
  accepted: readonly [number, number] | null;
}

export interface SimulatedCluster {
  readonly clusterId: string;
  /** "host:port" of every broker that is up. */
  readonly bootstrapServers: string[];
  stopBroker(id: number): Promise<void>;
  startBroker(id: number): Promise<void>;
  /** Fault injection: broker `id` waits `ms` before handling each request (0 = no delay). */
  setBrokerDelay(id: number, ms: number): void;
  /** Give an existing partition n more bytes of log without real records. */
  seedBytes(topic: string, partition: number, n: number): void;
  /**
   * Hear of every reassignment that completes, with `completedAt`: the clock time Kafka finished
   * it (its last new replica caught up). With the system clock the simulator settles copies
   * every 100 ms on its own, so the call comes at most ~100 ms after completedAt; with a
   * hand-driven clock it comes on the next request or clock-driven read. Returns unsubscribe.
   */
  onReassignmentCompleted(listener: (c: CompletedReassignment) => void): () => void;
  /** When the last reassignment of a partition completed (clock ms), or null. */
  reassignmentCompletedAt(topic: string, partition: number): number | null;
  /**
   * Hear of every AlterPartitionReassignments entry the controller applies (started, re-targeted,
   * cancelled), synchronously as it is applied, with the sender's client id. Returns unsubscribe.
   */
  onReassignmentAltered(listener: (a: AlteredReassignment) => void): () => void;
  /**
   * As if the process behind `clientId` died: its connections close now, unanswered (requests
   * waiting on a delay are never handled), and every later request naming that client id closes
   * its connection unanswered, for good. Returns the number of connections closed.
   */
  cutOffClient(clientId: string): number;
  close(): Promise<void>;
}
