// One error type for everything that goes wrong talking to Kafka. It keeps what an
// operator needs to act: the Kafka error name and code, the broker's own message,
// throttle_time_ms (for 429 Retry-After) and, for multi-item requests, per-item results.
import type { ItemResult, KafkaErrorInfo } from './types.js';

export type KafkaFailureKind =
  /** The broker answered with an error code. */
  | 'kafka'
  /** No broker reachable, connection lost, or retriable errors still failing after the retry budget. */
  | 'unavailable'
  /** The request timed out at the client. */
  | 'timeout';

export class KafkaRequestError extends Error {
  readonly kind: KafkaFailureKind;
  readonly kafka: KafkaErrorInfo;
  readonly items: ItemResult<unknown>[] | undefined;
  override readonly cause: unknown;

  constructor(kind: KafkaFailureKind, kafka: KafkaErrorInfo, opts: { items?: ItemResult<unknown>[]; cause?: unknown } = {}) {
    super(`${kafka.name} (${kafka.code}): ${kafka.message}`);
    this.name = 'KafkaRequestError';
    this.kind = kind;
    this.kafka = kafka;
    this.items = opts.items;
    this.cause = opts.cause;
  }
}
