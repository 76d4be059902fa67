// The failures the services let through to their caller, as the caller may see them: a Kafka
// request that failed (what Kafka said, or that it could not be reached), the state topic
// gone, or state held by another operation. src/http maps them to problems (errors.ts,
// error-handler.ts) without knowing the Kafka layer's or the state store's error classes.
import { KafkaRequestError, type KafkaFailureKind } from '../kafka/errors.js';
import type { KafkaErrorInfo } from '../kafka/types.js';
import { ClaimBusyError, FencedWriteError } from '../state/fence.js';
import { StateTopicMissingError } from '../state/store.js';

export type { KafkaErrorInfo, KafkaFailureKind };
/** Retry-After seconds for a throttle time (src/domain/retry-after.ts): the one rounding the answers use. */
export { retryAfterSeconds } from '../domain/retry-after.js';

/** A Kafka request that failed: Kafka's error (or the client's, for unavailable / timeout) and its kind. */
export interface KafkaFailure {
  readonly kind: KafkaFailureKind;
  readonly kafka: KafkaErrorInfo;
}

export type ServiceFailure =
  | { kind: 'kafka'; failure: KafkaFailure }
  /** The state topic was deleted outside the gateway: it refuses to act on state it no longer has. */
  | { kind: 'state-topic-missing'; message: string }
  /** Another operation (maybe another instance) holds what this one must change, or took it over meanwhile; nothing was changed. */
  | { kind: 'state-busy'; message: string; retryAfterSeconds: number | undefined };

export function isKafkaFailure(err: unknown): err is KafkaFailure {
  return err instanceof KafkaRequestError;
}

/** What a thrown error means to the caller of a service, or undefined for anything else (a bug). */
export function serviceFailureOf(err: unknown): ServiceFailure | undefined {
  if (err instanceof KafkaRequestError) return { kind: 'kafka', failure: err };
  if (err instanceof StateTopicMissingError) return { kind: 'state-topic-missing', message: err.message };
  if (err instanceof ClaimBusyError) return { kind: 'state-busy', message: err.message, retryAfterSeconds: err.retryAfterSeconds };
  if (err instanceof FencedWriteError) return { kind: 'state-busy', message: err.message, retryAfterSeconds: undefined };
  return undefined;
}
