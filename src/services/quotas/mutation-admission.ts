// Every controller mutation (CreateTopics, DeleteTopics, CreatePartitions) of the HTTP API
// goes through here: the quota admission service. It decides:
// - who is charged: the REST caller's own Kafka client id (KAFKA_CLIENT_ID_PATTERN), so
//   broker-side client-id quotas apply per caller;
// - gateway-side admission (GATEWAY_MUTATION_RATE, off by default): the caller's own token
//   bucket, refusing topics with the same THROTTLING_QUOTA_EXCEEDED (89) Kafka would;
// - ?retryOnQuotaViolation=true (off by default, as in kafka-topics.sh / the Java
//   AdminClient's retryOnQuotaViolation): wait the throttle and re-send ONLY the throttled
//   topics until ?timeoutMs= is spent; then the answer carries the wait that remains;
// - the values of the IETF RateLimit / RateLimit-Policy fields (policies "gateway" and "kafka");
// - what the quota metrics count (QuotaMetrics: prom-client's in src/http/quota/metrics.ts).
// No HTTP here: the caller, the retry options and the abort signal come in a MutationCall, the
// results and the RateLimit values go out in a MutationOutcome. src/http/quota/mutation-guard.ts
// reads them from the request and writes them to the response; routes turn the per-topic
// results into HTTP (src/http/batch.ts, errors.ts: 89 is 429 with Retry-After =
// ceil(throttle_time_ms / 1000)).
import { callerClientId } from '../../domain/caller-client-id.js';
import { remainingThrottleMs } from '../../domain/token-bucket.js';
import { ERROR_CODES, kafkaErrorInfo } from '../../kafka/errors-map.js';
import type { ItemResult, KafkaGateway } from '../../kafka/types.js';
import { retryAfterSeconds } from '../../domain/retry-after.js';
import { GatewayAdmission } from './gateway-admission.js';
import { BrokerQuotaPolicy } from './broker-policy.js';
import type { QuotaConfig } from './config.js';
import type { ClientQuotaAdmin } from '../../kafka/kafka-admin.js';

export type { ItemResult };

/** Who refused the mutation: Kafka's controller (error 89) or the gateway's own bucket. */
export type QuotaSource = 'broker' | 'gateway';

/** What the quota metrics count (the prom-client implementation: src/http/quota/metrics.ts). */
export interface QuotaMetrics {
  /** `items` topics of one `api` request were refused with THROTTLING_QUOTA_EXCEEDED; `throttleMs` = the longest wait among them. */
  rejected(api: string, source: QuotaSource, items: number, throttleMs: number): void;
  /** retryOnQuotaViolation re-sent `items` throttled topics. */
  resent(api: string, items: number): void;
  /** A response left with status 429. */
  answered429(api: string): void;
}

export type MutationApi = 'CreateTopics' | 'DeleteTopics' | 'CreatePartitions';

/** ?timeoutMs= default and bound (openapi.yaml QuotaTimeoutMs says the same). */
export const DEFAULT_QUOTA_TIMEOUT_MS = 30_000;
export const MAX_QUOTA_TIMEOUT_MS = 300_000;
/** Shortest wait before a re-send: Kafka can refuse with throttle_time_ms 0 (a rounding of a tiny deficit). */
const MIN_RETRY_WAIT_MS = 10;

/** The principal when no authentication middleware set one (the embedded demo). */
export const ANONYMOUS_PRINCIPAL = 'anonymous';

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });

export interface MutationAdmissionOptions {
  config: QuotaConfig;
  /** The gateway's Kafka layer: each caller's client comes from it (forCaller). */
  kafka: KafkaGateway;
  /** For the broker RateLimit-Policy; undefined = no "kafka" policy header. */
  quotas: ClientQuotaAdmin | undefined;
  /** KAFKA_CLIENT_ID: the client id every caller shares without a pattern. */
  baseClientId: string;
  /** The principal Kafka sees for the gateway (SASL username, else ANONYMOUS). */
  kafkaUser: string;
  /** Injectable for tests: the clock and sleep of gateway-side buckets and of retryOnQuotaViolation. */
  now?: () => number;
  sleep?: Sleep;
}

export interface Caller {
  /** The authenticated principal's id, or "anonymous". */
  principal: string;
  /** The Kafka client id this caller's requests carry. */
  clientId: string;
  kafka: KafkaGateway;
}

export interface MutationSpec<In, T> {
  api: MutationApi;
  items: readonly In[];
  nameOf(item: In): string;
  send(kafka: KafkaGateway, items: In[]): Promise<ItemResult<T>[]>;
  /** Partitions each item costs; called only with gateway-side admission (it may read metadata). */
  costs(kafka: KafkaGateway, items: In[]): Promise<number[]>;
  /** What a successful item really cost, when Kafka's answer says (created topics: their partition count). */
  actualCost?(value: T): number;
}

/** One mutation request: who calls, whether to retry throttled topics, when to give up, where to count. */
export interface MutationCall {
  /** The authenticated principal's id; undefined or '' = anonymous. */
  principal: string | undefined;
  retry: RetryOptions;
  /** Aborted when the caller is gone: no more waiting and re-sending. */
  signal: AbortSignal;
  metrics: QuotaMetrics;
}

/** The values of the IETF RateLimit fields for the answer (absent: no such field). */
export interface RateLimitFields {
  policy?: string;
  limit?: string;
}

export interface MutationOutcome<T> {
  /** One result per item, in request order. */
  results: ItemResult<T>[];
  rateLimit: RateLimitFields;
}

interface Answer<T> {
  result: ItemResult<T>;
  /** When a 89 was received (its throttle counts from then). */
  at: number;
  /** The round that produced it: answers from an earlier round than the last are stale. */
  round: number;
  source?: QuotaSource;
}

function isThrottled(r: ItemResult<unknown>): boolean {
  return !r.ok && r.error.code === ERROR_CODES.THROTTLING_QUOTA_EXCEEDED;
}

function throttleOf(r: ItemResult<unknown>): number {
  return r.ok ? 0 : (r.error.throttleTimeMs ?? 0);
}

export class MutationAdmission {
  readonly #opts: MutationAdmissionOptions;
  readonly #now: () => number;
  readonly #sleep: Sleep;
  readonly #admission: GatewayAdmission | null;
  readonly brokerPolicy: BrokerQuotaPolicy;

  constructor(opts: MutationAdmissionOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    this.#sleep = opts.sleep ?? realSleep;
    this.#admission = opts.config.admission ? new GatewayAdmission(opts.config.admission, this.#now) : null;
    this.brokerPolicy = new BrokerQuotaPolicy(
      opts.quotas,
      { cacheMs: opts.config.brokerQuotaCacheMs, windowSeconds: opts.config.brokerWindowSeconds, kafkaUser: opts.kafkaUser },
      this.#now,
    );
  }

  /** Drop the cached broker quotas (client quotas were changed through this gateway). */
  quotasChanged(): void {
    this.brokerPolicy.invalidate();
  }

  /** Who is calling and the Kafka client that charges them. */
  caller(principal: string | undefined): Caller {
    const kafka = this.#opts.kafka;
    const id = principal !== undefined && principal !== '' ? principal : ANONYMOUS_PRINCIPAL;
    const pattern = this.#opts.config.clientIdPattern;
    if (pattern === null || !kafka.forCaller) return { principal: id, clientId: this.#opts.baseClientId, kafka };
    const clientId = callerClientId(pattern, id);
    return { principal: id, clientId, kafka: kafka.forCaller(clientId) };
  }

  /**
   * Runs the mutation for the call's caller with admission and retryOnQuotaViolation, and
   * returns one result per item in request order with the RateLimit values for the answer.
   * The first round throws exactly what the Kafka layer throws (as without admission); a
   * failing re-send ends the retries and keeps the results already known, so no topic
   * created by an earlier round goes unreported.
   */
  async run<In, T>(call: MutationCall, spec: MutationSpec<In, T>): Promise<MutationOutcome<T>> {
    const caller = this.caller(call.principal);
    const retry = call.retry;
    const metrics = call.metrics;
    const started = this.#now();
    const deadline = started + retry.timeoutMs;
    // Started now, awaited at the end: the one DescribeClientQuotas per cache period overlaps the mutation.
    const brokerPolicy = this.brokerPolicy.policyFor(caller.clientId);
    const signal = call.signal;

    const answers = new Map<string, Answer<T>>();
    let pending = [...spec.items];
    let lastRound = 0;
    for (let round = 0; ; round++) {
      lastRound = round;
      try {
        await this.#attempt(caller, spec, pending, answers, round, metrics);
      } catch (err) {
        if (round === 0) throw err;
        break; // keep what earlier rounds learned; the throttled items stay 429
      }
      const throttled = pending.filter((i) => {
        const a = answers.get(spec.nameOf(i));
        return a !== undefined && isThrottled(a.result);
      });
      if (!retry.enabled || throttled.length === 0 || signal.aborted) break;
      const wait = Math.max(MIN_RETRY_WAIT_MS, ...throttled.map((i) => this.#remaining(answers.get(spec.nameOf(i))!)));
      // Like the Java AdminClient: a retry that could only happen after the deadline is not waited for.
      if (this.#now() + wait > deadline) break;
      await this.#sleep(wait, signal);
      if (signal.aborted) break;
      metrics.resent(spec.api, throttled.length);
      pending = throttled;
    }

    const results = spec.items.map((item): ItemResult<T> => {
      const a = answers.get(spec.nameOf(item));
      if (!a) throw new Error(`Kafka layer returned no result for topic '${spec.nameOf(item)}'`);
      if (!isThrottled(a.result) || a.result.ok || a.round === lastRound) return a.result;
      // Refused in an earlier round (a later re-send failed): the wait that remains now,
      // not the one Kafka computed then. A fresh refusal is reported as Kafka sent it.
      return { ...a.result, error: { ...a.result.error, throttleTimeMs: this.#remaining(a) } };
    });
    return { results, rateLimit: this.#rateLimitFields(caller, answers, results, await brokerPolicy) };
  }

  #remaining(a: Answer<unknown>): number {
    return remainingThrottleMs(throttleOf(a.result), a.at, this.#now());
  }

  /** One round: gateway admission, then Kafka for the admitted items; answers updated in place. */
  async #attempt<In, T>(
    caller: Caller,
    spec: MutationSpec<In, T>,
    items: In[],
    answers: Map<string, Answer<T>>,
    round: number,
    metrics: QuotaMetrics,
  ): Promise<void> {
    let toSend = items;
    const charged = new Map<string, number>();
    const admission = this.#admission;
    if (admission) {
      const costs = await spec.costs(caller.kafka, items);
      const verdicts = admission.admit(caller.principal, costs);
      const now = this.#now();
      toSend = [];
      let longest = 0;
      let refused = 0;
      items.forEach((item, i) => {
        const v = verdicts[i];
        const name = spec.nameOf(item);
        if (v.accepted) {
          toSend.push(item);
          charged.set(name, costs[i]);
          return;
        }
        refused++;
        longest = Math.max(longest, v.throttleTimeMs);
        const error = kafkaErrorInfo(
          ERROR_CODES.THROTTLING_QUOTA_EXCEEDED,
          `The gateway's mutation quota for caller '${caller.principal}' is exhausted (gateway-side admission; Kafka was not asked).`,
          v.throttleTimeMs,
        );
        answers.set(name, { result: { ok: false, name, error }, at: now, round, source: 'gateway' });
      });
      metrics.rejected(spec.api, 'gateway', refused, longest);
    }
    if (toSend.length === 0) return;

    let results: ItemResult<T>[];
    try {
      results = await spec.send(caller.kafka, toSend);
    } catch (err) {
      if (admission) for (const cost of charged.values()) admission.settle(caller.principal, -cost);
      throw err;
    }
    const now = this.#now();
    let longest = 0;
    let refused = 0;
    for (const r of results) {
      answers.set(r.name, { result: r, at: now, round, ...(isThrottled(r) && { source: 'broker' as const }) });
      if (isThrottled(r)) {
        refused++;
        longest = Math.max(longest, throttleOf(r));
      }
      const cost = charged.get(r.name);
      if (admission && cost !== undefined) {
        // Kafka did not perform it: refund. Kafka performed it: settle to what it really cost.
        const actual = r.ok ? (spec.actualCost?.(r.value) ?? cost) : 0;
        admission.settle(caller.principal, actual - cost);
      }
    }
    metrics.rejected(spec.api, 'broker', refused, longest);
  }

  #rateLimitFields<T>(
    caller: Caller,
    answers: Map<string, Answer<T>>,
    results: ItemResult<T>[],
    brokerPolicy: string | undefined,
  ): RateLimitFields {
    const policies: string[] = [];
    const limits: string[] = [];
    if (this.#admission) {
      const h = this.#admission.headers(caller.principal);
      policies.push(h['RateLimit-Policy']);
      limits.push(h.RateLimit);
    }
    if (brokerPolicy) policies.push(brokerPolicy);
    const brokerThrottles = results.filter((r) => isThrottled(r) && answers.get(r.name)?.source === 'broker').map(throttleOf);
    if (brokerThrottles.length > 0) limits.push(this.brokerPolicy.exhausted(retryAfterSeconds(Math.max(...brokerThrottles))));
    return { ...(policies.length > 0 && { policy: policies.join(', ') }), ...(limits.length > 0 && { limit: limits.join(', ') }) };
  }
}

export interface RetryOptions {
  enabled: boolean;
  timeoutMs: number;
}

/** The retry options from ?retryOnQuotaViolation and ?timeoutMs as given (already schema-validated): default and bounds applied here. */
export function retryOptions(retryOnQuotaViolation: unknown, timeoutMs: unknown): RetryOptions {
  const enabled = retryOnQuotaViolation === 'true' || retryOnQuotaViolation === true;
  const raw = Number(timeoutMs);
  return {
    enabled,
    timeoutMs:
      timeoutMs === undefined || !Number.isFinite(raw) ? DEFAULT_QUOTA_TIMEOUT_MS : Math.min(MAX_QUOTA_TIMEOUT_MS, Math.max(0, raw)),
  };
}

/** Partition counts of existing topics by name (one Metadata request), for admission costs. */
export async function partitionCounts(kafka: KafkaGateway): Promise<Map<string, number>> {
  return new Map((await kafka.listTopics()).map((t) => [t.name, t.partitions]));
}
