/**
 * HTTP-facing views of the controller mutation quota: Retry-After seconds and the IETF
 * RateLimit / RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers-11, May 2026, the
 * latest revision; same field shape since -07):
 *   RateLimit-Policy: "mutations";q=22;w=11      (List of String items; q, w non-negative Integers)
 *   RateLimit: "mutations";r=0;t=4               (r = available quota, t = effective window, seconds)
 * No `qu` parameter: its values come from an IANA registry (requests, content-bytes,
 * concurrent-requests) and "partition mutations" is none of them; the policy name says it.
 */

import { snapshot, type BucketSnapshot, type TokenBucket } from './token-bucket.js';

export const DEFAULT_POLICY_NAME = 'mutations';

/** Structured Fields Integers are limited to 15 digits (RFC 8941 / RFC 9651 section 3.3.1). */
const SF_INTEGER_MAX = 999_999_999_999_999;

/**
 * Retry-After (RFC 9110 section 10.2.3, delay-seconds: a non-negative integer of seconds) for an
 * answer built from Kafka's throttle_time_ms: whole seconds rounded UP (never advise a retry
 * before Kafka's throttle ends), and never below 1. Why at least 1: Kafka can reject with
 * throttle_time_ms = 0 (Math.round of a tiny deficit, or a throttle fully elapsed while the
 * response waited, see AbstractControllerMutationQuota.throttleTime), and "Retry-After: 0" on a
 * 429 invites an immediate hot retry. No throttle time (undefined), 0, negative or NaN therefore
 * give 1. +Infinity is a caller bug (Kafka's field is an int32): it throws.
 */
export function retryAfterSeconds(throttleTimeMs: number | undefined): number {
  if (throttleTimeMs === Infinity) throw new RangeError('throttleTimeMs must be finite');
  if (throttleTimeMs === undefined || !(throttleTimeMs > 0)) return 1;
  return Math.max(1, Math.ceil(throttleTimeMs / 1000));
}

export interface RateLimitPolicy {
  readonly name?: string;
  /** Quota per window (the bucket's burst). Floored to an Integer: never advertise more. */
  readonly quota: number;
  /** Window in seconds (windowNum x windowSizeSeconds). Ceiled, at least 1 (draft: non-zero). */
  readonly windowSeconds: number;
  /** Optional partition key, sent as an sf-binary (UTF-8 bytes, base64). */
  readonly partitionKey?: string;
}

export interface ServiceLimit {
  readonly name?: string;
  /** Available quota; floored, negative becomes 0. */
  readonly remaining: number;
  /** Effective window in seconds; ceiled, never negative. */
  readonly resetSeconds: number;
  readonly partitionKey?: string;
}

/** `"name";q=<quota>;w=<window>[;pk=:..:]`, one RateLimit-Policy list member. */
export function formatRateLimitPolicy(policy: RateLimitPolicy): string {
  const q = sfInteger(Math.floor(policy.quota + 1e-9));
  const w = sfInteger(Math.max(1, Math.ceil(policy.windowSeconds - 1e-9)));
  return `${sfString(policy.name ?? DEFAULT_POLICY_NAME)};q=${q};w=${w}${pkParam(policy.partitionKey)}`;
}

/** `"name";r=<remaining>;t=<seconds>[;pk=:..:]`, one RateLimit list member. */
export function formatRateLimit(limit: ServiceLimit): string {
  const r = sfInteger(Math.floor(limit.remaining + 1e-9));
  const t = sfInteger(Math.ceil(limit.resetSeconds - 1e-9));
  return `${sfString(limit.name ?? DEFAULT_POLICY_NAME)};r=${r};t=${t}${pkParam(limit.partitionKey)}`;
}

/**
 * Effective window `t` for a bucket snapshot:
 * - tokens < 0 (the next strict mutation would be rejected): the Retry-After value, so a 429's
 *   Retry-After never points before the end of the effective window (draft section 6), and
 *   r = 0 holds for exactly that long;
 * - tokens >= 0: seconds until the bucket is full again ("reset"), 0 when already full.
 */
export function effectiveWindowSeconds(snap: BucketSnapshot): number {
  if (snap.tokens < 0) return retryAfterSeconds(snap.throttleTimeMs);
  return Math.max(0, Math.ceil(snap.msUntilFull / 1000 - 1e-9));
}

export interface RateLimitHeaderValues {
  readonly 'RateLimit-Policy': string;
  readonly RateLimit: string;
}

/** Both header values from a bucket snapshot (q = burst, w = window span, r = floor(tokens)). */
export function rateLimitHeadersFromSnapshot(
  snap: BucketSnapshot,
  options: { readonly name?: string; readonly partitionKey?: string } = {},
): RateLimitHeaderValues {
  return {
    'RateLimit-Policy': formatRateLimitPolicy({ ...options, quota: snap.burst, windowSeconds: snap.windowSeconds }),
    RateLimit: formatRateLimit({ ...options, remaining: Math.max(0, snap.tokens), resetSeconds: effectiveWindowSeconds(snap) }),
  };
}

/** Convenience: refill the bucket to `nowMs` and build both header values. */
export function rateLimitHeaders(
  bucket: TokenBucket,
  nowMs: number,
  options: { readonly name?: string; readonly partitionKey?: string } = {},
): RateLimitHeaderValues {
  return rateLimitHeadersFromSnapshot(snapshot(bucket, nowMs), options);
}

/** sf-string: printable ASCII only, with '"' and '\' escaped (RFC 8941 section 3.3.3). */
function sfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new RangeError(`not a Structured Field string: ${JSON.stringify(value)}`);
  return `"${value.replace(/[\\"]/g, (c) => '\\' + c)}"`;
}

function sfInteger(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a Structured Field integer: ${value}`);
  return String(Math.min(SF_INTEGER_MAX, Math.max(0, value)));
}

function pkParam(partitionKey: string | undefined): string {
  return partitionKey === undefined ? '' : `;pk=:${Buffer.from(partitionKey, 'utf8').toString('base64')}:`;
}
