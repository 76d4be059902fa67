// The Kafka transport: the connection pool (an @platformatic/kafka Admin kept only for it:
// TLS, SASL, timeouts), routing to any broker, the controller or one broker by id, our retry
// policy, and the per-request metrics hook. The requests themselves are built and read in
// src/kafka/apis/ (each at the version negotiated per connection, apis/versions.ts);
// src/kafka/admin.ts puts both together as KafkaAdmin.
//
// Contact (issue 28): a request any broker may answer goes to the brokers of the shared contact
// set (./contacts.ts says which, in which order, and the back-off of a failed broker), not to the
// bootstrap list. Within one send, and within its deadline (KAFKA_REQUEST_TIMEOUT_MS), it moves
// on to the next address when
//   - no connection could be made (refused, reset, connect timeout): the request was not written,
//     so any request may go elsewhere, writes included; or
//   - the connection was lost under the request and the request is a read (READS below): asking
//     again, elsewhere, changes nothing. A write whose connection was lost may have been applied:
//     it is never re-sent here; the retry policy below decides, as for any lost connection.
// Requests for one broker (a partition leader, a broker's configs or log dirs, the controller
// of a ZooKeeper-mode cluster) still go to that broker only; when it is gone, the leader or
// controller is re-learned from a Metadata request, which itself goes through any live broker.
// The client's own Admin would cache the controller and use the bootstrap list: none of its
// methods is called (./admin.ts).
//
// Retries are ours (the client's are set to 0): bounded (KAFKA_RETRIES), exponential backoff
// with equal jitter (retryDelayMs in ./config.ts: retry n waits a uniform draw from
// [c/2, c) with c = min(KAFKA_RETRY_BACKOFF_MAX_MS, KAFKA_RETRY_BACKOFF_MS * 2^(n-1))), only for
// NOT_CONTROLLER, REQUEST_TIMED_OUT, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER,
// NETWORK_EXCEPTION and refused/lost connections; never for THROTTLING_QUOTA_EXCEEDED. The controller and the brokers are
// learned from Metadata / DescribeCluster answers and forgotten on NOT_CONTROLLER or a broken
// connection.
import { Admin, ConnectionStatuses, MultipleErrors, ResponseError, type Connection } from '@platformatic/kafka';
import type { MetadataAnswer, Placement } from './apis/metadata-answer.js';
import { metadataErrorName, metadataRequest } from './apis/metadata.js';
import { retryDelayMs, type BrokerAddress, type ClientOptions, type KafkaConfig, type RandomSource } from './config.js';
import { addressKey, BrokerContacts } from './contacts.js';
import { KafkaRequestError } from './errors.js';
import { ERROR_CODES, NONE, isConnectionFailure, isRetriable, kafkaErrorInfo, kafkaErrorName, toKafkaRequestError } from './errors-map.js';
import { untilReauthenticated, watchConnection } from './sasl/reauth.js';
import {
  firstErrorName,
  type Answered,
  type MetadataResponse,
  type OnKafkaRequest,
  type RawItem,
  type RequestTarget,
  type SendOptions,
  type Transport,
} from './request.js';
import type { ItemResult } from './types.js';

type Target = RequestTarget;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Requests that change nothing (by API name, as the transport is given it): after a connection
 * lost under one of them, the same request goes to the next broker at once. Every other API
 * (CreateTopics, DeleteTopics, CreatePartitions, IncrementalAlterConfigs, AlterClientQuotas,
 * AlterPartitionReassignments, AlterReplicaLogDirs, Produce) is a write and is not re-sent there.
 */
export const READS: ReadonlySet<string> = new Set([
  'Metadata',
  'DescribeCluster',
  'DescribeConfigs',
  'DescribeClientQuotas',
  'DescribeLogDirs',
  'ListPartitionReassignments',
  'ListOffsets',
  'Fetch',
]);

/** A decoded Metadata answer (not the topic summaries listTopics decodes instead): it lists the brokers. */
function isMetadataAnswer(res: unknown): res is MetadataAnswer<Placement> {
  const r = res as Partial<MetadataAnswer> | null;
  return typeof r === 'object' && r !== null && Array.isArray(r.brokers) && typeof r.controllerId === 'number';
}

export class KafkaTransport implements Transport {
  readonly #config: KafkaConfig;
  readonly #admin: Admin;
  readonly #hook: OnKafkaRequest | undefined;
  /** The brokers and which of them to ask: shared by every transport of a gateway (./contacts.ts). */
  readonly #contacts: BrokerContacts;
  #controllerId: number | null = null;
  /**
   * KRaft brokers forward controller requests, and report a random live broker as the
   * controller: controller requests go to any broker. Only once a broker answered NOT_CONTROLLER
   * (a ZooKeeper-mode cluster, whose reported controller is the real one) do they follow the
   * reported controller id.
   */
  #followReportedController = false;
  #closed = false;
  readonly #random: RandomSource;

  /**
   * `random`: the jitter's random source (Math.random; tests inject their own). `contacts`: the
   * gateway's shared contact set; a transport of its own gets one seeded with the bootstrap list.
   */
  constructor(
    config: KafkaConfig,
    onKafkaRequest: OnKafkaRequest | undefined,
    clientOptions: ClientOptions,
    random: RandomSource = Math.random,
    contacts: BrokerContacts = new BrokerContacts(config.bootstrapServers),
  ) {
    this.#config = config;
    this.#hook = onKafkaRequest;
    this.#random = random;
    this.#contacts = contacts;
    // retries: 0 — the client's own retry loop would retry THROTTLING_QUOTA_EXCEEDED (89).
    // We only use the Admin's connection pool anyway (see src/kafka/admin.ts).
    this.#admin = new Admin({ ...clientOptions, retries: 0 });
    // SASL re-authentication (KIP-368) is the library's; ./sasl/reauth.ts closes its gaps.
    if (clientOptions.sasl)
      this.#admin.connections.on('connect', ({ connection }: { connection: Connection }) => watchConnection(connection));
  }

  /** The underlying client (for APIs the gateway does not wrap yet). */
  get client(): Admin {
    return this.#admin;
  }

  /** @internal Tests only: pretend the cached controller is `id` (a stale route). */
  setControllerForTest(id: number): void {
    this.#controllerId = id;
    this.#followReportedController = true;
  }

  #report(api: string, errorName: string, startedAt: bigint): void {
    if (!this.#hook) return;
    try {
      this.#hook(api, errorName, Number(process.hrtime.bigint() - startedAt) / 1e9);
    } catch {
      // metrics must never break a Kafka call
    }
  }

  learnBrokers(brokers: { id: number; host: string; port: number }[], controllerId: number): void {
    this.#contacts.learn(brokers);
    this.#controllerId = controllerId >= 0 && this.#contacts.has(controllerId) ? controllerId : null;
  }

  #closedError(): KafkaRequestError {
    return new KafkaRequestError('unavailable', {
      code: ERROR_CODES.NETWORK_EXCEPTION,
      name: kafkaErrorName(ERROR_CODES.NETWORK_EXCEPTION),
      message: 'Kafka gateway is closed',
    });
  }

  /** The one broker `target` must go to, or null when any broker may answer. */
  async #route(target: Target): Promise<BrokerAddress | null> {
    if (typeof target === 'object') {
      if (!this.#contacts.has(target.broker)) await this.metadata([]); // learns the brokers
      const broker = this.#contacts.broker(target.broker);
      if (!broker) {
        throw new KafkaRequestError(
          'kafka',
          kafkaErrorInfo(8 /* BROKER_NOT_AVAILABLE */, `Broker ${target.broker} is not in the cluster metadata`),
        );
      }
      return broker;
    }
    if (target === 'controller' && this.#followReportedController) {
      if (this.#controllerId === null) await this.metadata([]); // learns the controller, through any live broker
      const broker = this.#controllerId === null ? undefined : this.#contacts.broker(this.#controllerId);
      if (!broker) {
        throw new KafkaRequestError('kafka', kafkaErrorInfo(ERROR_CODES.NOT_CONTROLLER, 'No controller is known to the cluster metadata'));
      }
      return broker;
    }
    return null;
  }

  /**
   * Send one request. With `inBand`, a ResponseError (the parser saw item error codes)
   * yields its complete `.response` instead of throwing; `errorName` picks the label.
   * A request any broker may answer moves on to another broker as the header says.
   */
  async send<T>(api: string, target: Target, call: (conn: Connection) => Promise<T>, inBand?: (res: T) => string): Promise<T> {
    if (this.#closed) throw this.#closedError();
    const broker = await this.#route(target);
    if (broker === null) return this.#sendToAnyBroker(api, target, call, inBand);
    const startedAt = process.hrtime.bigint();
    let conn: Connection;
    try {
      conn = await this.#admin.connections.get(broker);
    } catch (err) {
      // No request went out, but this is still a failed Kafka call for the metrics.
      if (!this.#closed && isConnectionFailure(err)) this.#contacts.failed(broker);
      this.#report(api, toKafkaRequestError(err).kafka.name, startedAt);
      throw err;
    }
    this.#contacts.reached(broker, false);
    return this.#exchange(api, target, broker, conn, call, inBand);
  }

  /**
   * The contact set's addresses in turn, within the request's deadline: on to the next when no
   * connection could be made, or, for a read, when the connection was lost under it.
   */
  async #sendToAnyBroker<T>(api: string, target: Target, call: (conn: Connection) => Promise<T>, inBand?: (res: T) => string): Promise<T> {
    const deadline = Date.now() + this.#config.requestTimeoutMs;
    // The brokers first, once: the bootstrap list alone must not stay the only way in.
    // ApiVersions too: below the gateway's floor Metadata itself may have no common version, and
    // the release check (./releases/detect.ts) must still say what it found.
    if (!this.#contacts.learned && api !== 'Metadata' && api !== 'DescribeCluster' && api !== 'ApiVersions') {
      await this.#contacts.learnOnce(() => this.metadata([]));
    }
    const startedAt = process.hrtime.bigint();
    const tried = new Set<string>();
    const failures: Error[] = [];
    let lost: unknown; // the last read whose connection was lost (already counted in the metrics)
    for (;;) {
      // The first try without a list (contacts.first(): the preferred address when it is live).
      const address = tried.size === 0 ? this.#contacts.first() : this.#contacts.candidates().find((a) => !tried.has(addressKey(a)));
      if (address === undefined || (tried.size > 0 && Date.now() >= deadline)) {
        if (failures.length === 0) throw lost;
        // As the client's getFirstAvailable reports it (so the errors read as before).
        const err = new MultipleErrors('Cannot connect to any broker.', failures);
        this.#report(api, toKafkaRequestError(err).kafka.name, startedAt);
        throw err;
      }
      tried.add(addressKey(address));
      let conn: Connection;
      try {
        conn = await this.#admin.connections.get(address);
      } catch (err) {
        if (this.#closed || !isConnectionFailure(err)) {
          this.#report(api, toKafkaRequestError(err).kafka.name, startedAt);
          throw err;
        }
        this.#contacts.failed(address);
        failures.push(err as Error);
        continue; // not written: any request may go elsewhere
      }
      this.#contacts.reached(address, true);
      try {
        return await this.#exchange(api, target, address, conn, call, inBand);
      } catch (err) {
        // A lost connection (not a timeout, not a broker's answer): a read is asked elsewhere.
        if (this.#closed || !READS.has(api) || !isConnectionFailure(err) || Date.now() >= deadline) throw err;
        lost = err;
      }
    }
  }

  /** One request on `conn` (to `broker`): the answer, the metrics, and what it teaches about the cluster. */
  async #exchange<T>(
    api: string,
    target: Target,
    broker: BrokerAddress,
    conn: Connection,
    call: (conn: Connection) => Promise<T>,
    inBand?: (res: T) => string,
  ): Promise<T> {
    const startedAt = process.hrtime.bigint();
    let res: T;
    try {
      // Not between a re-authentication's SaslHandshake and its end: Kafka would close the connection.
      const reauthenticating = untilReauthenticated(conn);
      if (reauthenticating) await reauthenticating;
      coalesceWrites(conn);
      res = await call(conn);
    } catch (err) {
      if (inBand && err instanceof ResponseError && err.response && typeof err.response === 'object') {
        res = err.response as T;
      } else {
        this.#report(api, toKafkaRequestError(err).kafka.name, startedAt);
        if (!this.#closed && isConnectionFailure(err)) {
          this.#contacts.failed(broker);
          if (target === 'controller') this.#controllerId = null;
        }
        await connectionGone(conn);
        throw err;
      }
    }
    // Every Metadata answer refreshes the brokers (listTopics decodes none: it lists no brokers).
    if (api === 'Metadata' && isMetadataAnswer(res)) {
      this.learnBrokers(
        res.brokers.map((b) => ({ id: b.nodeId, host: b.host, port: b.port })),
        res.controllerId,
      );
    }
    this.#report(api, inBand ? inBand(res) : NONE, startedAt);
    return res;
  }

  /** Run fn with our retry policy; everything that escapes is a KafkaRequestError. */
  async withRetry<T>(api: string, fn: (attempt: number) => Promise<T>, opts: SendOptions = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn(attempt);
      } catch (err) {
        if (this.#closed || !isRetriable(err)) throw toKafkaRequestError(err, { api });
        // Lost under the request: it may have been applied; not re-sent when that would matter.
        if (opts.resendInDoubt === false && isConnectionFailure(err)) throw toKafkaRequestError(err, { api });
        if (toKafkaRequestError(err).kafka.code === ERROR_CODES.NOT_CONTROLLER) this.#followReportedController = true;
        // NOT_CONTROLLER or a broken connection: forget the route, re-learn it next time.
        this.#controllerId = null;
        if (attempt >= this.#config.retries) throw toKafkaRequestError(err, { api, exhausted: true });
        await sleep(retryDelayMs(this.#config, attempt + 1, this.#random));
      }
    }
  }

  /** One Metadata request (no retry); send() learns the brokers and the controller from its answer. */
  metadata(topics: string[] | null): Promise<MetadataResponse> {
    return this.send('Metadata', 'any', metadataRequest(topics), metadataErrorName);
  }

  /**
   * Send a multi-topic mutation to the controller. Items answered NOT_CONTROLLER are
   * re-sent (only them) to the re-discovered controller, within the retry budget; every
   * other per-item code, 89 included, is final. `build` turns the answered items into the
   * result list; when the budget runs out, the error carries build()'s partial list as
   * `items`, so topics that were created are not lost.
   */
  async mutateOnController<Req extends { name: string }, Raw extends RawItem, Out>(
    api: string,
    requests: Req[],
    send: (conn: Connection, batch: Req[]) => Promise<{ throttleTimeMs: number; items: Raw[] }>,
    build: (answered: Map<string, Answered<Raw>>) => Out[],
  ): Promise<Out[]> {
    const pending = new Map(requests.map((r) => [r.name, r]));
    const answered = new Map<string, Answered<Raw>>();
    try {
      await this.withRetry(api, async () => {
        const res = await this.send(
          api,
          'controller',
          (conn) => send(conn, [...pending.values()]),
          (r) => firstErrorName(r.items.map((i) => i.errorCode)),
        );
        for (const item of res.items) {
          if (!pending.has(item.name)) continue;
          answered.set(item.name, { item, throttleTimeMs: res.throttleTimeMs });
          if (item.errorCode !== ERROR_CODES.NOT_CONTROLLER) pending.delete(item.name);
        }
        const notController = [...pending.keys()].map((n) => answered.get(n)).find((a) => a?.item.errorCode === ERROR_CODES.NOT_CONTROLLER);
        if (notController) {
          throw new KafkaRequestError('kafka', kafkaErrorInfo(ERROR_CODES.NOT_CONTROLLER, notController.item.errorMessage));
        }
      });
    } catch (err) {
      const e = toKafkaRequestError(err, { api });
      if (answered.size === 0) throw e;
      throw new KafkaRequestError(e.kind, e.kafka, { items: build(answered) as ItemResult<unknown>[], cause: e.cause ?? err });
    }
    return build(answered);
  }

  /**
   * For the API modules in src/kafka/apis/ and the state topic: send
   * one low-level request through this connection pool with the same retry policy and
   * metrics as every other call. `inBand` as in send(): per-item error codes come back
   * in the response instead of being thrown.
   */
  async sendRequest<T>(
    api: string,
    target: RequestTarget,
    call: (conn: Connection) => Promise<T>,
    inBand?: (res: T) => string,
    opts?: SendOptions,
  ): Promise<T> {
    return this.withRetry(api, () => this.send(api, target, call, inBand), opts);
  }

  /** The configured per-request timeout, for requests that carry a timeout_ms field. */
  get requestTimeoutMs(): number {
    return this.#config.requestTimeoutMs;
  }

  async ping(): Promise<void> {
    // One attempt, no retries, bounded by pingTimeoutMs (connect + request).
    const attempt = this.metadata([]).then(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new KafkaRequestError('timeout', {
            code: ERROR_CODES.REQUEST_TIMED_OUT,
            name: kafkaErrorName(ERROR_CODES.REQUEST_TIMED_OUT),
            message: `Kafka did not answer a Metadata request within ${this.#config.pingTimeoutMs} ms`,
          }),
        );
      }, this.#config.pingTimeoutMs);
    });
    attempt.catch(() => {}); // may settle after the timeout
    try {
      await Promise.race([attempt, timeout]);
    } catch (err) {
      throw toKafkaRequestError(err, { api: 'Metadata' });
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#admin.close();
  }
}

/** Sockets corked until the check phase of this turn of the event loop. */
const corked = new WeakSet<object>();

/**
 * The requests written on one connection during this turn of the event loop go out in one write
 * (issue 32): a describe's Metadata and DescribeConfigs, the Kafka requests of the HTTP requests
 * read in the same turn. Each write to a socket is a system call, and on the Kafka side a segment
 * to receive: most of what a small request costs the gateway's CPU. The socket is corked now and
 * uncorked by setImmediate, which runs in this turn's check phase (before the loop waits again),
 * so a request is never held longer than the rest of the turn; a write larger than the socket's
 * buffer still goes out then, with 'drain' as usual.
 */
export function coalesceWrites(conn: Pick<Connection, 'socket'>): void {
  const socket = (conn as { socket?: { cork?: () => void; uncork?: () => void; destroyed?: boolean } }).socket;
  if (!socket || typeof socket.cork !== 'function' || typeof socket.uncork !== 'function' || socket.destroyed || corked.has(socket)) return;
  socket.cork();
  corked.add(socket);
  setImmediate(() => {
    corked.delete(socket);
    socket.uncork!();
  });
}

/**
 * @platformatic/kafka 2.x destroys a connection's socket when a request on it times out,
 * but its pool forgets the connection only on the socket's 'close' event, which comes a
 * tick later. A request in between would be handed the dying connection and fail with
 * "Connection closed while waiting for ready" instead of connecting afresh. So after a
 * failed request on a connection that is closing, wait for that event before answering.
 */
async function connectionGone(conn: Connection): Promise<void> {
  if (conn.status !== ConnectionStatuses.CLOSING) return;
  await new Promise<void>((resolve) => {
    conn.once('close', () => resolve());
    if (conn.status !== ConnectionStatuses.CLOSING) resolve(); // closed meanwhile
  });
}
