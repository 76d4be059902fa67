// RateLimit-Policy for the broker-side controller mutation quota: which
// controller_mutation_rate Kafka applies to a caller, from a cached DescribeClientQuotas
// of every client quota, resolved with Kafka's precedence (src/domain/quota-entity.ts) for
// (the gateway's Kafka principal, the caller's client id).
//
// What the gateway can and cannot know: the configured rate, yes (one DescribeClientQuotas
// per cache period, shared by every caller); the broker's window (controller.quota.window.*)
// is broker config the gateway takes from KAFKA_CONTROLLER_QUOTA_WINDOW_SECONDS; the
// bucket's current tokens, no - so `RateLimit` for the broker is sent only with a broker
// 429 (r=0 for the Retry-After). The user is the SASL username (or ANONYMOUS); with mTLS
// principals (a certificate DN) the resolution may miss user quotas.
import { quotaTable, resolveQuota, type QuotaTable } from '../../domain/quota-entity.js';
import { formatRateLimit, formatRateLimitPolicy } from '../../domain/retry-after.js';
import type { ClientQuotaAdmin } from '../../kafka/kafka-admin.js';

export const BROKER_POLICY_NAME = 'kafka';

export interface BrokerPolicyOptions {
  cacheMs: number;
  windowSeconds: number;
  /** The principal name Kafka sees for the gateway's connections. */
  kafkaUser: string;
}

export class BrokerQuotaPolicy {
  readonly #quotas: ClientQuotaAdmin | undefined;
  readonly #opts: BrokerPolicyOptions;
  readonly #now: () => number;
  #cached: { at: number; table: Promise<QuotaTable | undefined> } | undefined;

  constructor(quotas: ClientQuotaAdmin | undefined, opts: BrokerPolicyOptions, now: () => number) {
    this.#quotas = quotas;
    this.#opts = opts;
    this.#now = now;
  }

  /** Drop the cache (quotas were changed through this gateway). */
  invalidate(): void {
    this.#cached = undefined;
  }

  /** The RateLimit-Policy member for `clientId`, or undefined when no controller_mutation_rate applies or it is unknown. */
  async policyFor(clientId: string): Promise<string | undefined> {
    const table = await this.#table();
    if (!table) return undefined;
    const resolved = resolveQuota(table, 'controller_mutation_rate', this.#opts.kafkaUser, clientId);
    if (!resolved) return undefined;
    return formatRateLimitPolicy({
      name: BROKER_POLICY_NAME,
      quota: resolved.value * this.#opts.windowSeconds,
      windowSeconds: this.#opts.windowSeconds,
    });
  }

  /** The RateLimit member after a broker 429: nothing left until Retry-After. */
  exhausted(retryAfterSeconds: number): string {
    return formatRateLimit({ name: BROKER_POLICY_NAME, remaining: 0, resetSeconds: retryAfterSeconds });
  }

  #table(): Promise<QuotaTable | undefined> {
    if (!this.#quotas || this.#opts.cacheMs <= 0) return Promise.resolve(undefined);
    const now = this.#now();
    if (this.#cached && now - this.#cached.at < this.#opts.cacheMs) return this.#cached.table;
    const quotas = this.#quotas;
    // A failure (no ALTER_CONFIGS/DESCRIBE_CONFIGS on the cluster, an old broker) is cached
    // too: no header for the period rather than an extra failing request per mutation.
    const table = quotas
      .describeClientQuotas({})
      .then((entries) => quotaTable(entries.map((e) => [e.entity, e.values] as const)))
      .catch(() => undefined);
    this.#cached = { at: now, table };
    return table;
  }
}
