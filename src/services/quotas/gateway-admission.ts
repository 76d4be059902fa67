// Gateway-side admission (off by default): KIP-599's controller mutation quota enforced by
// the gateway itself, one token bucket per REST caller, for clusters older than Kafka 2.7
// (no broker-side quota) or to give tenants a budget below the cluster's.
//
// Same maths as the broker (src/domain/token-bucket.ts), strict mode: topics are charged
// one by one in request order; a topic is admitted while the bucket is >= 0 and then costs
// its whole partition count, however far below zero that goes; once negative, the rest of
// the request is refused with THROTTLING_QUOTA_EXCEEDED and the time until the bucket is
// back at zero. Charges are settled after Kafka answers: a topic Kafka did not change is
// refunded, and a topic created with the broker's default partition count is charged what
// Kafka reports (src/domain/mutation-cost.ts).
//
// State is per process: several gateway instances each hold their own buckets, so the
// effective limit is the configured rate times the number of instances.
import { settleCharge } from '../../domain/mutation-cost.js';
import { rateLimitHeaders, type RateLimitHeaderValues } from '../../domain/retry-after.js';
import { chargeInOrder, createBucketForRate, refill, type TokenBucket } from '../../domain/token-bucket.js';
import type { GatewayAdmissionConfig } from './config.js';

export const GATEWAY_POLICY_NAME = 'gateway';

/** Above this many callers, buckets that have refilled completely are dropped (a new bucket starts full: same behaviour). */
const PRUNE_ABOVE = 1024;

export interface AdmissionVerdict {
  accepted: boolean;
  /** 0 when accepted. */
  throttleTimeMs: number;
}

export class GatewayAdmission {
  readonly #config: GatewayAdmissionConfig;
  readonly #now: () => number;
  readonly #buckets = new Map<string, TokenBucket>();

  constructor(config: GatewayAdmissionConfig, now: () => number) {
    this.#config = config;
    this.#now = now;
  }

  /** Charge `costs` (partitions, request order) to `caller`'s bucket; one verdict per cost. */
  admit(caller: string, costs: readonly number[]): AdmissionVerdict[] {
    const now = this.#now();
    const charged = chargeInOrder(this.#bucket(caller, now), costs, now, 'strict');
    this.#buckets.set(caller, charged.bucket);
    this.#prune(now);
    return charged.results.map((r) => ({ accepted: r.accepted, throttleTimeMs: r.accepted ? 0 : r.throttleTimeMs }));
  }

  /** Correct an admitted charge: delta > 0 charges more, < 0 refunds. */
  settle(caller: string, delta: number): void {
    if (delta === 0) return;
    const now = this.#now();
    this.#buckets.set(caller, settleCharge(this.#bucket(caller, now), delta, now));
  }

  /** RateLimit / RateLimit-Policy for `caller` now (policy "gateway"). */
  headers(caller: string): RateLimitHeaderValues {
    const now = this.#now();
    return rateLimitHeaders(this.#bucket(caller, now), now, { name: GATEWAY_POLICY_NAME });
  }

  #bucket(caller: string, now: number): TokenBucket {
    return this.#buckets.get(caller) ?? createBucketForRate(this.#config.rate, now, this.#config.window);
  }

  #prune(now: number): void {
    if (this.#buckets.size <= PRUNE_ABOVE) return;
    for (const [caller, b] of this.#buckets) {
      const r = refill(b, now);
      if (r.tokens >= r.burst) this.#buckets.delete(caller);
    }
  }
}
