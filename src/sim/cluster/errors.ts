// Kafka error codes and the error type every cluster-model operation throws.

// The codes come from the one table of Kafka's error codes (src/domain/kafka-error-codes.ts, pure data
// checked against Kafka's own material), shared with the gateway.
import { ERROR_CODES, kafkaErrorCode, type KafkaErrorName } from '../../domain/kafka-error-codes.js';

export const ErrorCode = ERROR_CODES;

export type ErrorName = KafkaErrorName;

/** Reverse lookup: 36 -> "TOPIC_ALREADY_EXISTS"; unknown codes -> "UNKNOWN_<code>". */
export function errorName(code: number): string {
  return kafkaErrorCode(code)?.name ?? `UNKNOWN_${code}`;
}

/**
 * The errors whose message the simulator fills in with Kafka's default (Errors.java) when the
 * broker supplies none; the others carry their name.
 */
const WITH_DEFAULT_MESSAGE = [-1, 1, 2, 3, 5, 6, 19, 100, 102];

/** Kafka's default message for an error, used when the broker supplies none. */
export const DEFAULT_ERROR_MESSAGES: Partial<Record<number, string>> = {
  ...Object.fromEntries(WITH_DEFAULT_MESSAGE.map((code) => [code, kafkaErrorCode(code)?.message ?? undefined])),
  // The simulator's own text, kept as it was (Errors.java says "The broker is not available.").
  8: 'Broker not available. Not attempted to establish a connection.',
};

export class KafkaError extends Error {
  readonly code: number;
  /**
   * The message sent on the wire: the message, or null where Kafka sends none (it builds the
   * error from the code alone, e.g. ApiError(code) in the controller).
   */
  readonly wireMessage: string | null;
  constructor(code: number, message?: string | null, opts: { wireMessage?: null } = {}) {
    super(message ?? DEFAULT_ERROR_MESSAGES[code] ?? errorName(code));
    this.name = 'KafkaError';
    this.code = code;
    this.wireMessage = 'wireMessage' in opts ? null : this.message;
  }

  /** An error Kafka sends with a null message. */
  static withoutMessage(code: number): KafkaError {
    return new KafkaError(code, undefined, { wireMessage: null });
  }
  get errorName(): string {
    return errorName(this.code);
  }
}

export function kafkaError(code: number, message?: string | null): KafkaError {
  return new KafkaError(code, message);
}
