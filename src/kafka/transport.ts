// The Kafka transport: the connection pool (an @platformatic/kafka Admin kept only for it:
// TLS, SASL, timeouts), routing to any broker, the controller or one broker by id, our retry
// policy, and the per-request metrics hook. The requests themselves are built and read in
// src/kafka/apis/<api>-v<N>.ts; src/kafka/admin.ts puts both together as KafkaAdmin.
//
// Retries are ours (the client's are set to 0): bounded (KAFKA_RETRIES), exponential backoff
// with equal jitter (retryDelayMs in ./config.ts: retry n waits a uniform draw from
// [c/2, c) with c = min(KAFKA_RETRY_BACKOFF_MAX_MS, KAFKA_RETRY_BACKOFF_MS * 2^(n-1))), only for NOT_CONTROLLER, REQUEST_TIMED_OUT,
// LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, NETWORK_EXCEPTION and refused/lost
// connections; never for THROTTLING_QUOTA_EXCEEDED. The controller and the brokers are
// learned from Metadata / DescribeCluster answers and forgotten on NOT_CONTROLLER or a broken
// connection.
import { Admin, ConnectionStatuses, ResponseError, type Connection } from '@platformatic/kafka';
import { metadataErrorName, metadataRequest } from './apis/metadata-v12.js';
import { retryDelayMs, type BrokerAddress, type ClientOptions, type KafkaConfig, type RandomSource } from './config.js';
import { KafkaRequestError } from './errors.js';
import { ERROR_CODES, NONE, isConnectionFailure, isRetriable, kafkaErrorInfo, kafkaErrorName, toKafkaRequestError } from './errors-map.js';
import { firstErrorName, type Answered, type MetadataResponse, type OnKafkaRequest, type RawItem, type RequestTarget, type Transport } from './request.js';
import type { ItemResult } from './types.js';

type Target = RequestTarget;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class KafkaTransport implements Transport {
  readonly #config: KafkaConfig;
  readonly #admin: Admin;
  readonly #hook: OnKafkaRequest | undefined;
  #brokers = new Map<number, BrokerAddress>();
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

  /** `random`: the jitter's random source (Math.random; tests inject their own). */
  constructor(config: KafkaConfig, onKafkaRequest: OnKafkaRequest | undefined, clientOptions: ClientOptions, random: RandomSource = Math.random) {
    this.#config = config;
    this.#hook = onKafkaRequest;
    this.#random = random;
    // retries: 0 — the client's own retry loop would retry THROTTLING_QUOTA_EXCEEDED (89).
    // We only use the Admin's connection pool anyway (see src/kafka/admin.ts).
    this.#admin = new Admin({ ...clientOptions, retries: 0 });
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

  #bootstrapList(): BrokerAddress[] {
    const list = this.#config.bootstrapServers.map((b) => ({ ...b }));
    const seen = new Set(list.map((b) => `${b.host}:${b.port}`));
    for (const b of this.#brokers.values()) {
      const key = `${b.host}:${b.port}`;
      if (!seen.has(key)) {
        seen.add(key);
        list.push({ ...b });
      }
    }
    return list;
  }

  learnBrokers(brokers: { id: number; host: string; port: number }[], controllerId: number): void {
    if (brokers.length) this.#brokers = new Map(brokers.map((b) => [b.id, { host: b.host, port: b.port }]));
    this.#controllerId = controllerId >= 0 && this.#brokers.has(controllerId) ? controllerId : null;
  }

  async #connection(api: string, target: Target): Promise<Connection> {
    if (this.#closed) {
      throw new KafkaRequestError('unavailable', {
        code: ERROR_CODES.NETWORK_EXCEPTION,
        name: kafkaErrorName(ERROR_CODES.NETWORK_EXCEPTION),
        message: 'Kafka gateway is closed',
      });
    }
    let broker: BrokerAddress | undefined;
    if (typeof target === 'object') {
      if (!this.#brokers.has(target.broker)) await this.metadata([]); // learns the brokers
      broker = this.#brokers.get(target.broker);
      if (!broker) {
        throw new KafkaRequestError('kafka', kafkaErrorInfo(8 /* BROKER_NOT_AVAILABLE */, `Broker ${target.broker} is not in the cluster metadata`));
      }
    } else if (target === 'controller' && this.#followReportedController) {
      if (this.#controllerId === null) await this.metadata([]); // learns the controller
      broker = this.#controllerId === null ? undefined : this.#brokers.get(this.#controllerId);
      if (!broker) {
        throw new KafkaRequestError('kafka', kafkaErrorInfo(ERROR_CODES.NOT_CONTROLLER, 'No controller is known to the cluster metadata'));
      }
    }
    const startedAt = process.hrtime.bigint();
    try {
      const pool = this.#admin.connections;
      return broker ? await pool.get(broker) : await pool.getFirstAvailable(this.#bootstrapList());
    } catch (err) {
      // No request went out, but this is still a failed Kafka call for the metrics.
      this.#report(api, toKafkaRequestError(err).kafka.name, startedAt);
      throw err;
    }
  }

  /**
   * Send one request. With `inBand`, a ResponseError (the parser saw item error codes)
   * yields its complete `.response` instead of throwing; `errorName` picks the label.
   */
  async send<T>(
    api: string,
    target: Target,
    call: (conn: Connection) => Promise<T>,
    inBand?: (res: T) => string,
  ): Promise<T> {
    const conn = await this.#connection(api, target);
    const startedAt = process.hrtime.bigint();
    let res: T;
    try {
      res = await call(conn);
    } catch (err) {
      if (inBand && err instanceof ResponseError && err.response && typeof err.response === 'object') {
        res = err.response as T;
      } else {
        this.#report(api, toKafkaRequestError(err).kafka.name, startedAt);
        if (target === 'controller' && isConnectionFailure(err)) this.#controllerId = null;
        await connectionGone(conn);
        throw err;
      }
    }
    this.#report(api, inBand ? inBand(res) : NONE, startedAt);
    return res;
  }

  /** Run fn with our retry policy; everything that escapes is a KafkaRequestError. */
  async withRetry<T>(api: string, fn: (attempt: number) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn(attempt);
      } catch (err) {
        if (this.#closed || !isRetriable(err)) throw toKafkaRequestError(err, { api });
        if (toKafkaRequestError(err).kafka.code === ERROR_CODES.NOT_CONTROLLER) this.#followReportedController = true;
        // NOT_CONTROLLER or a broken connection: forget the route, re-learn it next time.
        this.#controllerId = null;
        if (attempt >= this.#config.retries) throw toKafkaRequestError(err, { api, exhausted: true });
        await sleep(retryDelayMs(this.#config, attempt + 1, this.#random));
      }
    }
  }

  async metadata(topics: string[] | null): Promise<MetadataResponse> {
    const res = await this.send(
'Metadata', 'any', metadataRequest(topics), metadataErrorName);
    this.learnBrokers(
      res.brokers.map((b) => ({ id: b.nodeId, host: b.host, port: b.port })),
      res.controllerId,
    );
    return res;
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
  async sendRequest<T>(api: string, target: RequestTarget, call: (conn: Connection) => Promise<T>, inBand?: (res: T) => string): Promise<T> {
    return this.withRetry(api, () => this.send(api, target, call, inBand));
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
