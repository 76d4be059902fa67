// Every controller mutation (CreateTopics, DeleteTopics, CreatePartitions) of the HTTP API
// goes through here. It decides:
// - who is charged: the REST caller's own Kafka client id (KAFKA_CLIENT_ID_PATTERN), so
//   broker-side client-id quotas apply per caller;
// - gateway-side admission (GATEWAY_MUTATION_RATE, off by default): the caller's own token
//   bucket, refusing topics with the same THROTTLING_QUOTA_EXCEEDED (89) Kafka would;
// - ?retryOnQuotaViolation=true (off by default, as in kafka-topics.sh / the Java
//   AdminClient's retryOnQuotaViolation): wait the throttle and re-send ONLY the throttled
//   topics until ?timeoutMs= is spent; then the answer carries the wait that remains;
// - the IETF RateLimit / RateLimit-Policy fields (policies "gateway" and "kafka");
// - metrics (src/http/quota/metrics.ts).
// Routes still turn the per-topic results into HTTP (src/http/batch.ts, errors.ts: 89 is
// 429 with Retry-After = ceil(throttle_time_ms / 1000)).
import type { Request, Response } from 'express';
import { callerClientId } from '../../domain/caller-client-id.js';
import { remainingThrottleMs } from '../../domain/token-bucket.js';
import { ERROR_CODES, kafkaErrorInfo } from '../../kafka/errors-map.js';
import type { ItemResult, KafkaGateway } from '../../kafka/types.js';
import { retryAfterSeconds } from '../../domain/retry-after.js';
import { GatewayAdmission } from './admission.js';
import { BrokerQuotaPolicy } from './broker-policy.js';
import type { QuotaConfig } from './config.js';
import type { QuotaMetrics, QuotaSource } from './metrics.js';
import type { ClientQuotaAdmin } from '../../kafka/quotas.js';

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

export interface MutationGuardOptions {
  config: QuotaConfig;
  metrics: QuotaMetrics;
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
  /** res.locals.principal.id, or "anonymous". */
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

export class MutationGuard {
  readonly #opts: MutationGuardOptions;
  readonly #now: () => number;
  readonly #sleep: Sleep;
  readonly #admission: GatewayAdmission | null;
  readonly brokerPolicy: BrokerQuotaPolicy;

  constructor(opts: MutationGuardOptions) {
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

  /** Who is calling and the Kafka client that charges them. */
  caller(res: Response, kafka: KafkaGateway): Caller {
    const principal = (res.locals.principal as { id?: unknown } | undefined)?.id;
    const id = typeof principal === 'string' && principal !== '' ? principal : ANONYMOUS_PRINCIPAL;
    const pattern = this.#opts.config.clientIdPattern;
    if (pattern === null || !kafka.forCaller) return { principal: id, clientId: this.#opts.baseClientId, kafka };
    const clientId = callerClientId(pattern, id);
    return { principal: id, clientId, kafka: kafka.forCaller(clientId) };
  }

  /**
   * Runs the mutation for the request's caller with admission and retryOnQuotaViolation,
   * sets RateLimit headers on `res`, and returns one result per item in request order.
   * The first round throws exactly what the Kafka layer throws (as without the guard); a
   * failing re-send ends the retries and keeps the results already known, so no topic
   * created by an earlier round goes unreported.
   */
  async run<In, T>(req: Request, res: Response, kafka: KafkaGateway, spec: MutationSpec<In, T>): Promise<ItemResult<T>[]> {
    const caller = this.caller(res, kafka);
    const retry = readRetryOptions(req);
    const started = this.#now();
    const deadline = started + retry.timeoutMs;
    // Started now, awaited at the end: the one DescribeClientQuotas per cache period overlaps the mutation.
    const brokerPolicy = this.brokerPolicy.policyFor(caller.clientId);
    res.once('finish', () => {
      if (res.statusCode === 429) this.#opts.metrics.answered429(spec.api);
    });
    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort();
    });

    const answers = new Map<string, Answer<T>>();
    let pending = [...spec.items];
    let lastRound = 0;
    for (let round = 0; ; round++) {
      lastRound = round;
      try {
        await this.#attempt(caller, spec, pending, answers, round);
      } catch (err) {
        if (round === 0) throw err;
        break; // keep what earlier rounds learned; the throttled items stay 429
      }
      const throttled = pending.filter((i) => {
        const a = answers.get(spec.nameOf(i));
        return a !== undefined && isThrottled(a.result);
      });
      if (!retry.enabled || throttled.length === 0 || aborted.signal.aborted) break;
      const wait = Math.max(MIN_RETRY_WAIT_MS, ...throttled.map((i) => this.#remaining(answers.get(spec.nameOf(i))!)));
      // Like the Java AdminClient: a retry that could only happen after the deadline is not waited for.
      if (this.#now() + wait > deadline) break;
      await this.#sleep(wait, aborted.signal);
      if (aborted.signal.aborted) break;
      this.#opts.metrics.resent(spec.api, throttled.length);
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
    this.#setRateLimitHeaders(res, caller, answers, results, await brokerPolicy);
    return results;
  }

  #remaining(a: Answer<unknown>): number {
    return remainingThrottleMs(throttleOf(a.result), a.at, this.#now());
  }

  /** One round: gateway admission, then Kafka for the admitted items; answers updated in place. */
  async #attempt<In, T>(caller: Caller, spec: MutationSpec<In, T>, items: In[], answers: Map<string, Answer<T>>, round: number): Promise<void> {
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
        const v = verdicts[i]!;
        const name = spec.nameOf(item);
        if (v.accepted) {
          toSend.push(item);
          charged.set(name, costs[i]!);
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
      this.#opts.metrics.rejected(spec.api, 'gateway', refused, longest);
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
    this.#opts.metrics.rejected(spec.api, 'broker', refused, longest);
  }

  #setRateLimitHeaders<T>(res: Response, caller: Caller, answers: Map<string, Answer<T>>, results: ItemResult<T>[], brokerPolicy: string | undefined): void {
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
    if (policies.length > 0) res.set('RateLimit-Policy', policies.join(', '));
    if (limits.length > 0) res.set('RateLimit', limits.join(', '));
  }
}

export interface RetryOptions {
  enabled: boolean;
  timeoutMs: number;
}

/** ?retryOnQuotaViolation and ?timeoutMs (already schema-validated; Express 5 re-parses the query, so read the raw strings). */
export function readRetryOptions(req: Request): RetryOptions {
  const q = req.query as Record<string, unknown>;
  const enabled = q.retryOnQuotaViolation === 'true' || q.retryOnQuotaViolation === true;
  const raw = Number(q.timeoutMs);
  const timeoutMs = q.timeoutMs === undefined || !Number.isFinite(raw) ? DEFAULT_QUOTA_TIMEOUT_MS : Math.min(MAX_QUOTA_TIMEOUT_MS, Math.max(0, raw));
  return { enabled, timeoutMs };
}

/** Partition counts of existing topics by name (one Metadata request), for admission costs. */
export async function partitionCounts(kafka: KafkaGateway): Promise<Map<string, number>> {
  return new Map((await kafka.listTopics()).map((t) => [t.name, t.partitions]));
}
