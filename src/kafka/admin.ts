// KafkaGateway on @platformatic/kafka 2.x (checked on 2.12.1; see docs/platformatic-kafka.md).
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
// at fixed versions: CreateTopics v7, DeleteTopics v6, CreatePartitions v3 (strict quota
// mode: the broker answers 89 per topic), Metadata v12, DescribeCluster v1,
// DescribeConfigs v4. Their parsers throw a ResponseError when any item carries an error
// code, but only after parsing the whole response, which the error carries as `.response`:
// we take it from there and read the per-item codes ourselves.
//
// Retries are ours (the client's are set to 0): bounded, exponential backoff, only for
// NOT_CONTROLLER, REQUEST_TIMED_OUT, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER,
// NETWORK_EXCEPTION and refused/lost connections; never for THROTTLING_QUOTA_EXCEEDED.
import {
  Admin,
  ConfigResourceTypes,
  ConnectionStatuses,
  ConfigSources,
  ResponseError,
  createPartitionsV3,
  createTopicsV7,
  deleteTopicsV6,
  describeClusterV1,
  describeConfigsV4,
  metadataV12,
  type Connection,
} from '@platformatic/kafka';
import { backoffMs, toClientOptions, type BrokerAddress, type ClientOptions, type KafkaConfig } from './config.js';
import { CallerClients, type CallerClientsOptions } from './caller-clients.js';
import { KafkaRequestError } from './errors.js';
import {
  ERROR_CODES,
  NONE,
  RETRIABLE_CODES,
  isConnectionFailure,
  isRetriable,
  kafkaErrorInfo,
  kafkaErrorName,
  toKafkaRequestError,
} from './errors-map.js';
import type {
  ClusterDescription,
  ConfigEntry,
  CreatedTopic,
  ItemResult,
  KafkaErrorInfo,
  KafkaGateway,
  NewTopic,
  PartitionDescription,
  PartitionIncrease,
  RequestOptions,
  TopicDescription,
  TopicSummary,
} from './types.js';

/** Called once per Kafka request sent (or attempted): api = Kafka API name, errorName = NONE on success. */
export type OnKafkaRequest = (api: string, errorName: string, seconds: number) => void;

export interface GatewayHooks {
  onKafkaRequest?: OnKafkaRequest;
  /** Bounds of the per-caller client pool behind forCaller() (src/kafka/caller-clients.ts). */
  callerClients?: Partial<CallerClientsOptions>;
}

type MetadataResponse = Awaited<ReturnType<typeof metadataV12.api.async>>;
type DescribeClusterResponse = Awaited<ReturnType<typeof describeClusterV1.api.async>>;
type DescribeConfigsResponse = Awaited<ReturnType<typeof describeConfigsV4.api.async>>;
type CreateTopicsResponse = Awaited<ReturnType<typeof createTopicsV7.api.async>>;
type DeleteTopicsResponse = Awaited<ReturnType<typeof deleteTopicsV6.api.async>>;
type CreatePartitionsResponse = Awaited<ReturnType<typeof createPartitionsV3.api.async>>;
type CreateTopicsRequestTopic = Parameters<typeof createTopicsV7.createRequest>[0][number];
type CreatePartitionsRequestTopic = Parameters<typeof createPartitionsV3.createRequest>[0][number];

/** Where a request goes: any broker, the controller, or one broker by id (broker configs, log dirs, partition leaders). */
export type RequestTarget = 'any' | 'controller' | { broker: number };
type Target = RequestTarget;

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const CONFIG_SOURCE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(ConfigSources as Record<string, number>).map(([name, n]) => [n, name]),
);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Topic ids as Kafka's own tools print them (Uuid.toString(): URL-safe base64 of the
 * 16 bytes, 22 chars), so what the gateway shows matches `kafka-topics.sh --describe`.
 * The client hands them over in the dashed hex form.
 */
function topicIdOrNull(id: string | null | undefined): string | null {
  if (!id || id === ZERO_UUID) return null;
  const hex = id.replace(/-/g, '');
  return /^[0-9a-f]{32}$/i.test(hex) ? Buffer.from(hex, 'hex').toString('base64url') : id;
}

/** Error name of a response for the metrics hook: the first non-zero code, else NONE. */
function firstErrorName(codes: Iterable<number>): string {
  for (const c of codes) if (c !== 0) return kafkaErrorName(c);
  return NONE;
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

/**
 * Requests that carry several topics: names used more than once are rejected locally
 * (Kafka answers INVALID_REQUEST for duplicates; doing it here keeps results keyed by name).
 */
function splitDuplicates<T>(items: T[], nameOf: (t: T) => string): { unique: T[]; duplicates: Set<string> } {
  const counts = new Map<string, number>();
  for (const it of items) counts.set(nameOf(it), (counts.get(nameOf(it)) ?? 0) + 1);
  const duplicates = new Set([...counts].filter(([, n]) => n > 1).map(([k]) => k));
  return { unique: items.filter((it) => !duplicates.has(nameOf(it))), duplicates };
}

interface Answered<Raw> {
  item: Raw;
  throttleTimeMs: number;
}

function itemError(a: Answered<RawItem> | undefined): KafkaErrorInfo {
  if (!a) return kafkaErrorInfo(ERROR_CODES.UNKNOWN_SERVER_ERROR, 'The response holds no result for this topic');
  const { errorCode, errorMessage } = a.item;
  return kafkaErrorInfo(errorCode, errorMessage, errorCode === ERROR_CODES.THROTTLING_QUOTA_EXCEEDED ? a.throttleTimeMs : undefined);
}

/** Result list in request order; `ok` builds the value of a successful item. */
function buildItems<In, Raw extends RawItem, T>(
  inputs: In[],
  nameOf: (i: In) => string,
  duplicates: Set<string>,
  answered: Map<string, Answered<Raw>>,
  ok: (raw: Raw) => T,
): ItemResult<T>[] {
  return inputs.map((input): ItemResult<T> => {
    const name = nameOf(input);
    if (duplicates.has(name)) return duplicateItem(name);
    const a = answered.get(name);
    return a && a.item.errorCode === 0 ? { ok: true, name, value: ok(a.item) } : { ok: false, name, error: itemError(a) };
  });
}

interface RawItem {
  name: string;
  errorCode: number;
  errorMessage: string | null | undefined;
}

export class PlatformaticKafkaGateway implements KafkaGateway {
  readonly #config: KafkaConfig;
  readonly #admin: Admin;
  readonly #hook: OnKafkaRequest | undefined;
  readonly #hooks: GatewayHooks;
  readonly #clientOptions: ClientOptions;
  /** Created on the first forCaller(): one client per caller client id. */
  #callers: CallerClients | undefined;
  readonly #partitionsMutex = new Mutex();
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

  constructor(config: KafkaConfig, hooks: GatewayHooks = {}, clientOptions: ClientOptions = toClientOptions(config)) {
    this.#config = config;
    this.#hook = hooks.onKafkaRequest;
    this.#hooks = hooks;
    this.#clientOptions = clientOptions;
    // retries: 0 — the client's own retry loop would retry THROTTLING_QUOTA_EXCEEDED (89).
    // We only use the Admin's connection pool anyway (see the header comment).
    this.#admin = new Admin({ ...clientOptions, retries: 0 });
  }

  /** The underlying client (for APIs this module does not wrap yet). */
  get client(): Admin {
    return this.#admin;
  }

  /** @internal Tests only: pretend the cached controller is `id` (a stale route). */
  _setControllerForTest(id: number): void {
    this.#controllerId = id;
    this.#followReportedController = true;
  }

  // ---------------------------------------------------------------- plumbing

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

  #learnBrokers(brokers: { id: number; host: string; port: number }[], controllerId: number): void {
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
      if (!this.#brokers.has(target.broker)) await this.#metadataRaw([]); // learns the brokers
      broker = this.#brokers.get(target.broker);
      if (!broker) {
        throw new KafkaRequestError('kafka', kafkaErrorInfo(8 /* BROKER_NOT_AVAILABLE */, `Broker ${target.broker} is not in the cluster metadata`));
      }
    } else if (target === 'controller' && this.#followReportedController) {
      if (this.#controllerId === null) await this.#metadataRaw([]); // learns the controller
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
  async #send<T>(
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
  async #withRetry<T>(api: string, fn: (attempt: number) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn(attempt);
      } catch (err) {
        if (this.#closed || !isRetriable(err)) throw toKafkaRequestError(err, { api });
        if (toKafkaRequestError(err).kafka.code === ERROR_CODES.NOT_CONTROLLER) this.#followReportedController = true;
        // NOT_CONTROLLER or a broken connection: forget the route, re-learn it next time.
        this.#controllerId = null;
        if (attempt >= this.#config.retries) throw toKafkaRequestError(err, { api, exhausted: true });
        await sleep(backoffMs(this.#config, attempt + 1));
      }
    }
  }

  async #metadataRaw(topics: string[] | null): Promise<MetadataResponse> {
    const res = await this.#send(
      'Metadata',
      'any',
      (conn) => metadataV12.api.async(conn, topics, false, false),
      (r) => firstErrorName(r.topics.map((t) => t.errorCode)),
    );
    this.#learnBrokers(
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
  async #mutateOnController<Req extends { name: string }, Raw extends RawItem, Out>(
    api: string,
    requests: Req[],
    send: (conn: Connection, batch: Req[]) => Promise<{ throttleTimeMs: number; items: Raw[] }>,
    build: (answered: Map<string, Answered<Raw>>) => Out[],
  ): Promise<Out[]> {
    const pending = new Map(requests.map((r) => [r.name, r]));
    const answered = new Map<string, Answered<Raw>>();
    try {
      await this.#withRetry(api, async () => {
        const res = await this.#send(
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
   * For the adapters in src/kafka/ (reassignments, configs, log dirs, state topic): send
   * one low-level request through this connection pool with the same retry policy and
   * metrics as every other call. `inBand` as in #send: per-item error codes come back
   * in the response instead of being thrown.
   */
  async sendRequest<T>(api: string, target: RequestTarget, call: (conn: Connection) => Promise<T>, inBand?: (res: T) => string): Promise<T> {
    return this.#withRetry(api, () => this.#send(api, target, call, inBand));
  }

  /** The configured per-request timeout, for requests that carry a timeout_ms field. */
  get requestTimeoutMs(): number {
    return this.#config.requestTimeoutMs;
  }

  // ---------------------------------------------------------------- KafkaGateway

  async describeCluster(): Promise<ClusterDescription> {
    return this.#withRetry('DescribeCluster', async () => {
      let res: DescribeClusterResponse;
      try {
        res = await this.#send('DescribeCluster', 'any', (conn) => describeClusterV1.api.async(conn, false, 1));
      } catch (err) {
        const e = toKafkaRequestError(err);
        if (e.kind !== 'kafka' || e.kafka.code !== ERROR_CODES.UNSUPPORTED_VERSION) throw err;
        // Older brokers: Metadata carries the same facts.
        const md = await this.#metadataRaw([]);
        return {
          clusterId: md.clusterId ?? null,
          controllerId: md.controllerId,
          brokers: md.brokers
            .map((b) => ({ id: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null }))
            .sort((a, b) => a.id - b.id),
        };
      }
      this.#learnBrokers(
        res.brokers.map((b) => ({ id: b.brokerId, host: b.host, port: b.port })),
        res.controllerId,
      );
      return {
        clusterId: res.clusterId || null,
        controllerId: res.controllerId,
        brokers: res.brokers
          .map((b) => ({ id: b.brokerId, host: b.host, port: b.port, rack: b.rack ?? null }))
          .sort((a, b) => a.id - b.id),
      };
    });
  }

  async listTopics(): Promise<TopicSummary[]> {
    const md = await this.#withRetry('Metadata', () => this.#metadataRaw(null));
    return md.topics
      .filter((t) => t.name != null)
      .map((t) => ({
        name: t.name as string,
        topicId: topicIdOrNull(t.topicId),
        partitions: t.partitions.length,
        replicationFactor: t.partitions.reduce((m, p) => Math.max(m, p.replicaNodes.length), 0),
        internal: t.isInternal,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async describeTopic(name: string): Promise<TopicDescription> {
    const md = await this.#withRetry('Metadata', async () => {
      const res = await this.#metadataRaw([name]);
      const t = res.topics.find((x) => x.name === name) ?? res.topics[0];
      if (!t) throw new KafkaRequestError('kafka', kafkaErrorInfo(ERROR_CODES.UNKNOWN_TOPIC_OR_PARTITION));
      if (t.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(t.errorCode));
      return t;
    });
    const partitions: PartitionDescription[] = md.partitions
      .map((p) => ({
        partition: p.partitionIndex,
        leader: p.leaderId,
        replicas: [...p.replicaNodes],
        isr: [...p.isrNodes],
        offlineReplicas: [...p.offlineReplicas],
      }))
      .sort((a, b) => a.partition - b.partition);

    const configs = await this.#withRetry('DescribeConfigs', async () => {
      const res: DescribeConfigsResponse = await this.#send(
        'DescribeConfigs',
        'any',
        (conn) => describeConfigsV4.api.async(conn, [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: name, configurationKeys: null }], false, false),
        (r) => firstErrorName(r.results.map((x) => x.errorCode)),
      );
      const result = res.results[0];
      if (!result) throw new KafkaRequestError('kafka', kafkaErrorInfo(ERROR_CODES.UNKNOWN_SERVER_ERROR, 'Empty DescribeConfigs response'));
      if (result.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(result.errorCode, result.errorMessage));
      return result.configs
        .map(
          (c): ConfigEntry => ({
            name: c.name,
            value: c.isSensitive ? null : (c.value ?? null),
            source: CONFIG_SOURCE_NAMES[c.configSource] ?? 'UNKNOWN',
            isDefault: c.configSource === ConfigSources.DEFAULT_CONFIG,
            readOnly: c.readOnly,
            sensitive: c.isSensitive,
          }),
        )
        .sort((a, b) => a.name.localeCompare(b.name));
    });

    return { name, topicId: topicIdOrNull(md.topicId), internal: md.isInternal, partitions, configs };
  }

  async createTopics(topics: NewTopic[], opts: RequestOptions = {}): Promise<ItemResult<CreatedTopic>[]> {
    if (topics.length === 0) return [];
    const validateOnly = opts.validateOnly ?? false;
    const { unique, duplicates } = splitDuplicates(topics, (t) => t.name);
    const requests: CreateTopicsRequestTopic[] = unique.map((t) => ({
      name: t.name,
      // -1 = broker default; must be -1 when explicit assignments are given.
      numPartitions: t.partitions ?? -1,
      replicationFactor: t.replicationFactor ?? -1,
      assignments: (t.assignments ?? []).map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds })),
      configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
    }));
    const build = (answered: Map<string, Answered<CreateTopicsResponse['topics'][number]>>) =>
      buildItems(topics, (t) => t.name, duplicates, answered, (raw) => ({
        name: raw.name,
        topicId: topicIdOrNull(raw.topicId),
        partitions: raw.numPartitions,
        replicationFactor: raw.replicationFactor,
      }));
    if (requests.length === 0) return build(new Map());
    return this.#mutateOnController(
      'CreateTopics',
      requests,
      async (conn, batch) => {
        const res = await catchInBand<CreateTopicsResponse>(
          createTopicsV7.api.async(conn, batch, this.#config.requestTimeoutMs, validateOnly),
        );
        return { throttleTimeMs: res.throttleTimeMs, items: res.topics };
      },
      build,
    );
  }

  async deleteTopics(names: string[]): Promise<ItemResult<null>[]> {
    if (names.length === 0) return [];
    const { unique, duplicates } = splitDuplicates(names, (n) => n);
    const build = (answered: Map<string, Answered<RawItem>>) => buildItems(names, (n) => n, duplicates, answered, () => null);
    if (unique.length === 0) return build(new Map());
    return this.#mutateOnController(
      'DeleteTopics',
      unique.map((name) => ({ name })),
      async (conn, batch) => {
        const res = await catchInBand<DeleteTopicsResponse>(
          deleteTopicsV6.api.async(conn, batch.map((b) => ({ name: b.name, topicId: null })), this.#config.requestTimeoutMs),
        );
        const items = res.responses.map((r) => ({ name: r.name ?? '', errorCode: r.errorCode, errorMessage: r.errorMessage }));
        return { throttleTimeMs: res.throttleTimeMs, items };
      },
      build,
    );
  }

  async createPartitions(increases: PartitionIncrease[], opts: RequestOptions = {}): Promise<ItemResult<null>[]> {
    if (increases.length === 0) return [];
    const validateOnly = opts.validateOnly ?? false;
    const { unique, duplicates } = splitDuplicates(increases, (i) => i.topic);
    const requests: CreatePartitionsRequestTopic[] = unique.map((i) => ({
      name: i.topic,
      count: i.count,
      assignments: i.assignments ? i.assignments.map((brokerIds) => ({ brokerIds })) : null,
    }));
    const build = (answered: Map<string, Answered<RawItem>>) => buildItems(increases, (i) => i.topic, duplicates, answered, () => null);
    if (requests.length === 0) return build(new Map());
    // Serialised: one CreatePartitions in flight at a time. The client's own
    // createPartitions merges concurrent calls and silently loses one; we do not use it,
    // but keep the guarantee (and a predictable order of quota charges).
    return this.#partitionsMutex.run(() =>
      this.#mutateOnController(
        'CreatePartitions',
        requests,
        async (conn, batch) => {
          const res = await catchInBand<CreatePartitionsResponse>(
            createPartitionsV3.api.async(conn, batch, this.#config.requestTimeoutMs, validateOnly),
          );
          return { throttleTimeMs: res.throttleTimeMs, items: res.results };
        },
        build,
      ),
    );
  }

  async ping(): Promise<void> {
    // One attempt, no retries, bounded by pingTimeoutMs (connect + request).
    const attempt = this.#metadataRaw([]).then(() => undefined);
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

  /**
   * This gateway as Kafka client id `clientId`, so broker-side client-id quotas charge that
   * caller (issue 4). Same config and hooks; clients are pooled in a bounded LRU.
   */
  forCaller(clientId: string): KafkaGateway {
    if (clientId === this.#clientOptions.clientId) return this;
    this.#callers ??= new CallerClients(
      (id) => new PlatformaticKafkaGateway({ ...this.#config, clientId: id }, { ...this.#hooks, callerClients: undefined }, { ...this.#clientOptions, clientId: id }),
      this.#hooks.callerClients,
    );
    return this.#callers.view(clientId);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([this.#admin.close(), this.#callers?.close()]);
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

/** Resolve a low-level call's ResponseError (items carrying error codes) to its parsed response. */
async function catchInBand<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof ResponseError && err.response && typeof err.response === 'object') return err.response as T;
    throw err;
  }
}

function duplicateItem(name: string): { ok: false; name: string; error: KafkaErrorInfo } {
  return { ok: false, name, error: kafkaErrorInfo(42, `Topic ${name} appears more than once in the request`) };
}

export function createKafkaGateway(config: KafkaConfig, hooks: GatewayHooks = {}): PlatformaticKafkaGateway {
  return new PlatformaticKafkaGateway(config, hooks);
}

export { RETRIABLE_CODES };
