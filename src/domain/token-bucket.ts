/**
 * Pure token bucket for Kafka's controller mutation quota (KIP-599).
 *
 * Mirrors org.apache.kafka.common.metrics.stats.TokenBucket together with the way
 * Sensor.checkQuotas / Sensor.record and Strict/PermissiveControllerMutationQuota drive it.
 * Plain data in, plain data out: every function returns a new bucket, nothing is mutated,
 * and time is always an explicit `nowMs` so the simulator and tests are deterministic.
 *
 * Rate-change choice (Kafka parity): when a quota is altered while a bucket exists, Kafka's
 * ClientQuotaManager.updateQuotaMetricConfigs swaps the metric's MetricConfig but keeps the
 * TokenBucket stat (its tokens and lastUpdateMs). The next refill therefore applies the NEW
 * rate to the whole interval since the last update and clamps to the NEW burst. `withRate`
 * reproduces exactly that (the clamp is done eagerly, which is equivalent - see withRate).
 */

/** `controller.quota.window.num` default (ClientQuotaManagerConfig / QuotaConfig). */
export const DEFAULT_WINDOW_NUM = 11;
/** `controller.quota.window.size.seconds` default. */
export const DEFAULT_WINDOW_SIZE_SECONDS = 1;

export interface QuotaWindowConfig {
  /** controller.quota.window.num (MetricConfig.samples). */
  readonly windowNum: number;
  /** controller.quota.window.size.seconds (MetricConfig.timeWindowMs / 1000). */
  readonly windowSizeSeconds: number;
}

export const DEFAULT_QUOTA_WINDOW: QuotaWindowConfig = Object.freeze({
  windowNum: DEFAULT_WINDOW_NUM,
  windowSizeSeconds: DEFAULT_WINDOW_SIZE_SECONDS,
});

/** Immutable bucket state. `tokens` may be (far) below zero after a strict accept. */
export interface TokenBucket {
  /** Refill rate in tokens (partition mutations) per second: the quota bound. */
  readonly rate: number;
  /** Maximum tokens: windowNum x windowSizeSeconds x rate. */
  readonly burst: number;
  readonly tokens: number;
  /** Time of the last refill; Kafka's TokenBucket.lastUpdateMs. */
  readonly lastUpdateMs: number;
}

export type StrictResult =
  | { readonly accepted: true; readonly bucket: TokenBucket; readonly throttleTimeMs: 0 }
  | { readonly accepted: false; readonly bucket: TokenBucket; readonly throttleTimeMs: number };

export interface PermissiveResult {
  /** Always true: permissive mode never rejects (kept for a uniform shape with StrictResult). */
  readonly accepted: true;
  readonly bucket: TokenBucket;
  /** 0 when the bucket is still >= 0 after recording. */
  readonly throttleTimeMs: number;
}

export type QuotaMode = 'strict' | 'permissive';

/** Burst B = windowNum x windowSizeSeconds x rate, as in TokenBucket.burst(MetricConfig). */
export function burstFor(rate: number, window: QuotaWindowConfig = DEFAULT_QUOTA_WINDOW): number {
  return window.windowNum * window.windowSizeSeconds * rate;
}

/**
 * A new bucket starts FULL. Kafka's TokenBucket is constructed with tokens=0 and
 * lastUpdateMs=0, but its first refill happens at wall-clock time (~1.7e12 ms), which always
 * fills it to the burst; starting full is the observable equivalent for any explicit clock.
 */
export function createBucket(rate: number, burst: number, nowMs: number): TokenBucket {
  assertRate(rate);
  assertFiniteNonNegative(burst, 'burst');
  assertFinite(nowMs, 'nowMs');
  return Object.freeze({ rate, burst, tokens: burst, lastUpdateMs: nowMs });
}

/** Convenience: a full bucket whose burst is derived from the quota window config. */
export function createBucketForRate(rate: number, nowMs: number, window: QuotaWindowConfig = DEFAULT_QUOTA_WINDOW): TokenBucket {
  return createBucket(rate, burstFor(rate, window), nowMs);
}

/**
 * tokens = min(B, tokens + rate x elapsedSeconds); same float operation order as
 * TokenBucket.refill so results match Kafka bit for bit.
 * Deviation: a clock that goes backwards adds nothing (Kafka would subtract tokens) and does
 * not move lastUpdateMs back, so wall-clock jumps in the gateway cannot drain a bucket.
 */
export function refill(bucket: TokenBucket, nowMs: number): TokenBucket {
  assertFinite(nowMs, 'nowMs');
  const elapsedMs = Math.max(0, nowMs - bucket.lastUpdateMs);
  const tokens = Math.min(bucket.burst, bucket.tokens + bucket.rate * (elapsedMs / 1000));
  return Object.freeze({ ...bucket, tokens, lastUpdateMs: Math.max(bucket.lastUpdateMs, nowMs) });
}

/**
 * Kafka's throttle for a token bucket in deficit:
 * ControllerMutationQuotaManager.throttleTimeMs = Math.round(-tokens / rate * 1000).
 * Returns 0 when tokens >= 0 (not in violation; Sensor.checkQuotas only throws on value < 0).
 */
export function throttleTimeForTokens(tokens: number, rate: number): number {
  if (!(tokens < 0)) return 0;
  return Math.round((-tokens / rate) * 1000);
}

/** Throttle (ms) a caller would be told at `nowMs`: time until the bucket is back to zero. */
export function throttleTimeMs(bucket: TokenBucket, nowMs: number): number {
  const refilled = refill(bucket, nowMs);
  return throttleTimeForTokens(refilled.tokens, refilled.rate);
}

/**
 * Strict mode (CreateTopics v6+, DeleteTopics v5+, CreatePartitions v3+), mirroring
 * StrictControllerMutationQuota.record: checkQuotas first, then record without checking.
 * - tokens < 0 (after refill): reject, cost nothing, throttle = round(-tokens / rate * 1000).
 * - tokens >= 0 (exactly 0 included): record the WHOLE cost however far below zero it goes.
 * The returned bucket is the refilled one even on rejection (Kafka's measure() refills too).
 */
export function tryRecordStrict(bucket: TokenBucket, cost: number, nowMs: number): StrictResult {
  assertFiniteNonNegative(cost, 'cost');
  const refilled = refill(bucket, nowMs);
  if (refilled.tokens < 0) {
    return { accepted: false, bucket: refilled, throttleTimeMs: throttleTimeForTokens(refilled.tokens, refilled.rate) };
  }
  return { accepted: true, bucket: record(refilled, cost), throttleTimeMs: 0 };
}

/**
 * Permissive mode (older request versions), mirroring PermissiveControllerMutationQuota.record:
 * Sensor.record(value, timeMs, checkQuotas = true) records first and then checks, so the
 * mutation always happens and the throttle reflects the bucket AFTER this cost.
 */
export function recordPermissive(bucket: TokenBucket, cost: number, nowMs: number): PermissiveResult {
  assertFiniteNonNegative(cost, 'cost');
  const recorded = record(refill(bucket, nowMs), cost);
  return { accepted: true, bucket: recorded, throttleTimeMs: throttleTimeForTokens(recorded.tokens, recorded.rate) };
}

/** Dispatch on mode; handy for callers that pick strict/permissive by request version. */
export function recordMutation(bucket: TokenBucket, cost: number, nowMs: number, mode: QuotaMode): StrictResult | PermissiveResult {
  return mode === 'strict' ? tryRecordStrict(bucket, cost, nowMs) : recordPermissive(bucket, cost, nowMs);
}

export interface ChargeInOrderResult {
  readonly bucket: TokenBucket;
  /** One entry per cost, same order. */
  readonly results: ReadonlyArray<{ readonly accepted: boolean; readonly throttleTimeMs: number }>;
  /**
   * Request-level throttle_time_ms: AbstractControllerMutationQuota keeps the LAST violation's
   * throttle (lastThrottleTimeMs), 0 when nothing was throttled.
   */
  readonly throttleTimeMs: number;
}

/**
 * Charge a request's topics one by one in request order (KIP-599: "charged topic by topic"),
 * all at the same `nowMs` as Kafka does within one request. In strict mode topics before the
 * bucket went negative succeed and the rest are rejected.
 */
export function chargeInOrder(bucket: TokenBucket, costs: readonly number[], nowMs: number, mode: QuotaMode): ChargeInOrderResult {
  let current = bucket;
  let last = 0;
  const results = costs.map((cost) => {
    const r = recordMutation(current, cost, nowMs, mode);
    current = r.bucket;
    // Kafka updates lastThrottleTimeMs only on a QuotaViolationException: a strict rejection,
    // or a permissive record that left the bucket below zero.
    const violated = !r.accepted || (mode === 'permissive' && r.bucket.tokens < 0);
    if (violated) last = r.throttleTimeMs;
    return { accepted: r.accepted, throttleTimeMs: r.throttleTimeMs };
  });
  return { bucket: current, results, throttleTimeMs: last };
}

/**
 * Throttle left at `nowMs` for a throttle computed at `recordedAtMs`; mirrors
 * AbstractControllerMutationQuota.throttleTime(): "reduced by the time that passes before the
 * response is sent" (e.g. while the request waits in purgatory), never below 0.
 */
export function remainingThrottleMs(throttleMs: number, recordedAtMs: number, nowMs: number): number {
  if (throttleMs <= 0) return 0;
  return Math.max(0, throttleMs - (nowMs - recordedAtMs));
}

/**
 * Quota altered while the bucket exists (see file header). Keeps tokens and lastUpdateMs;
 * the new rate refills the time since lastUpdateMs, and tokens are clamped to the new burst.
 * Clamping now instead of at the next refill is equivalent: min(B', min(B', x) + d) equals
 * min(B', x + d) for d >= 0, and it keeps snapshots (headers) consistent immediately.
 * `burst` defaults to the same window span the bucket was built with (burst / rate).
 * Callers preferring "settle at the old rate first" can pass `withRate(refill(b, now), r)`.
 * A removed quota means "unlimited": drop the bucket instead of calling this.
 */
export function withRate(bucket: TokenBucket, rate: number, burst?: number): TokenBucket {
  assertRate(rate);
  const newBurst = burst ?? rate * windowSecondsOf(bucket);
  assertFiniteNonNegative(newBurst, 'burst');
  return Object.freeze({ ...bucket, rate, burst: newBurst, tokens: Math.min(newBurst, bucket.tokens) });
}

/** Window span in seconds (windowNum x windowSizeSeconds) implied by burst / rate. */
export function windowSecondsOf(bucket: TokenBucket): number {
  // Round away float noise such as 0.1 * 11 / 0.1 = 11.000000000000002.
  return Math.round((bucket.burst / bucket.rate) * 1e6) / 1e6;
}

export interface BucketSnapshot {
  readonly rate: number;
  readonly burst: number;
  readonly tokens: number;
  readonly windowSeconds: number;
  readonly nowMs: number;
  /** 0 unless tokens < 0. */
  readonly throttleTimeMs: number;
  /** Time until the bucket is full again (0 when full). */
  readonly msUntilFull: number;
}

/** Read-only view at `nowMs` (after refill) for metrics and RateLimit headers. */
export function snapshot(bucket: TokenBucket, nowMs: number): BucketSnapshot {
  const b = refill(bucket, nowMs);
  return {
    rate: b.rate,
    burst: b.burst,
    tokens: b.tokens,
    windowSeconds: windowSecondsOf(b),
    nowMs,
    throttleTimeMs: throttleTimeForTokens(b.tokens, b.rate),
    msUntilFull: Math.max(0, ((b.burst - b.tokens) / b.rate) * 1000),
  };
}

/** TokenBucket.record: tokens = min(burst, tokens - value), after the caller's refill. */
function record(bucket: TokenBucket, cost: number): TokenBucket {
  return Object.freeze({ ...bucket, tokens: Math.min(bucket.burst, bucket.tokens - cost) });
}

function assertRate(rate: number): void {
  // Kafka's controller accepts any double here; a rate <= 0 would make burst 0 and the
  // throttle time infinite, so the domain refuses it (quota-entity validation does too).
  if (!Number.isFinite(rate) || rate <= 0) throw new RangeError(`rate must be a finite number > 0, got ${rate}`);
}

function assertFinite(value: number, name: string): void {
  if (!Number.isFinite(value)) throw new RangeError(`${name} must be finite, got ${value}`);
}

function assertFiniteNonNegative(value: number, name: string): void {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
}
