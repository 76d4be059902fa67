// The simulated controller's KIP-599 token bucket: one per quota sensor, written from Kafka's
// org.apache.kafka.common.metrics.stats.TokenBucket and the code that drives it
// (Sensor.checkQuotas / Sensor.record, Strict- and PermissiveControllerMutationQuota,
// ControllerMutationQuotaManager.throttleTimeMs).
//
// This is the simulator's own implementation, kept apart from the gateway's
// src/domain/token-bucket.ts (its admission control) on purpose: with one shared
// implementation, a bug in it would be on both sides of every test (issue 11 item 4). So it
// is written differently (a mutable sensor, as Kafka's is), and only Kafka's behaviour is
// common to both:
// - burst = window.num x window.size.seconds x rate; a new sensor starts full (Kafka's first
//   refill at wall-clock time fills it);
// - refill: tokens = min(burst, tokens + rate x elapsed seconds);
// - record: tokens = min(burst, tokens - cost);
// - strict (CreateTopics v6+, DeleteTopics v5+, CreatePartitions v3+): refuse while tokens < 0
//   (costs nothing), otherwise record the whole cost however far below zero it goes;
// - permissive: record, then it is a violation if tokens < 0;
// - throttle = Math.round(-tokens / rate x 1000) while tokens < 0.
// A quota change keeps the tokens and the last update (Kafka swaps the MetricConfig, not the
// stat): the new rate refills from then on, and tokens are clamped to the new burst. One
// simulator choice: a clock that goes back adds no tokens and does not move the last update.

export interface MutationQuotaWindow {
  /** controller.quota.window.num (MetricConfig.samples). */
  readonly windowNum: number;
  /** controller.quota.window.size.seconds. */
  readonly windowSizeSeconds: number;
}

/** Kafka's defaults: 11 windows of 1 second. */
export const KAFKA_DEFAULT_WINDOW: MutationQuotaWindow = Object.freeze({ windowNum: 11, windowSizeSeconds: 1 });

export interface SensorSnapshot {
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

/** What one charge did: refused (strict only), and whether it was a quota violation (with its throttle). */
export interface ChargeOutcome {
  readonly accepted: boolean;
  readonly violated: boolean;
  readonly throttleTimeMs: number;
}

export class MutationSensor {
  #rate: number;
  #burst: number;
  #windowSeconds: number;
  #tokens: number;
  #lastUpdateMs: number;

  constructor(rate: number, window: MutationQuotaWindow, nowMs: number) {
    this.#rate = rate;
    this.#windowSeconds = window.windowNum * window.windowSizeSeconds;
    this.#burst = window.windowNum * window.windowSizeSeconds * rate;
    this.#tokens = this.#burst;
    this.#lastUpdateMs = nowMs;
  }

  get rate(): number {
    return this.#rate;
  }

  get burst(): number {
    return this.#burst;
  }

  /** The quota changed (same sensor, new MetricConfig): keep tokens and last update, clamp to the new burst. */
  reconfigure(rate: number, window: MutationQuotaWindow): void {
    this.#rate = rate;
    this.#windowSeconds = window.windowNum * window.windowSizeSeconds;
    this.#burst = window.windowNum * window.windowSizeSeconds * rate;
    this.#tokens = Math.min(this.#burst, this.#tokens);
  }

  /** Charge `cost` partition mutations at `nowMs`, strictly (check, then record) or permissively (record, then check). */
  charge(cost: number, nowMs: number, strict: boolean): ChargeOutcome {
    this.#refill(nowMs);
    if (strict && this.#tokens < 0) return { accepted: false, violated: true, throttleTimeMs: this.#throttleMs(this.#tokens) };
    this.#tokens = Math.min(this.#burst, this.#tokens - cost);
    if (!strict && this.#tokens < 0) return { accepted: true, violated: true, throttleTimeMs: this.#throttleMs(this.#tokens) };
    return { accepted: true, violated: false, throttleTimeMs: 0 };
  }

  /** A read-only view at `nowMs` (refilled, without changing the sensor). */
  snapshot(nowMs: number): SensorSnapshot {
    const tokens = this.#tokensAt(nowMs);
    return {
      rate: this.#rate,
      burst: this.#burst,
      tokens,
      windowSeconds: this.#windowSeconds,
      nowMs,
      throttleTimeMs: this.#throttleMs(tokens),
      msUntilFull: Math.max(0, ((this.#burst - tokens) / this.#rate) * 1000),
    };
  }

  #tokensAt(nowMs: number): number {
    const elapsedMs = nowMs > this.#lastUpdateMs ? nowMs - this.#lastUpdateMs : 0;
    return Math.min(this.#burst, this.#tokens + this.#rate * (elapsedMs / 1000));
  }

  #refill(nowMs: number): void {
    this.#tokens = this.#tokensAt(nowMs);
    if (nowMs > this.#lastUpdateMs) this.#lastUpdateMs = nowMs;
  }

  #throttleMs(tokens: number): number {
    return tokens < 0 ? Math.round((-tokens / this.#rate) * 1000) : 0;
  }
}

/**
 * AbstractControllerMutationQuota.throttleTime(): the throttle of the last violation, "reduced
 * by the time that passes before the response is sent", never below 0.
 */
export function throttleLeftMs(throttleMs: number, violatedAtMs: number, nowMs: number): number {
  return throttleMs > 0 ? Math.max(0, throttleMs - (nowMs - violatedAtMs)) : 0;
}
