// Kafka error codes and the error type every cluster-model operation throws.

export const ErrorCode = {
  UNKNOWN_SERVER_ERROR: -1,
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  BROKER_NOT_AVAILABLE: 8,
  REPLICA_NOT_AVAILABLE: 9,
  MESSAGE_TOO_LARGE: 10,
  INVALID_TOPIC_EXCEPTION: 17,
  RECORD_LIST_TOO_LARGE: 18,
  NOT_ENOUGH_REPLICAS: 19,
  INVALID_REQUIRED_ACKS: 21,
  TOPIC_AUTHORIZATION_FAILED: 29,
  CLUSTER_AUTHORIZATION_FAILED: 31,
  UNSUPPORTED_SASL_MECHANISM: 33,
  ILLEGAL_SASL_STATE: 34,
  UNSUPPORTED_VERSION: 35,
  TOPIC_ALREADY_EXISTS: 36,
  INVALID_PARTITIONS: 37,
  INVALID_REPLICATION_FACTOR: 38,
  INVALID_REPLICA_ASSIGNMENT: 39,
  INVALID_CONFIG: 40,
  NOT_CONTROLLER: 41,
  INVALID_REQUEST: 42,
  POLICY_VIOLATION: 44,
  KAFKA_STORAGE_ERROR: 56,
  SASL_AUTHENTICATION_FAILED: 58,
  REASSIGNMENT_IN_PROGRESS: 60,
  TOPIC_DELETION_DISABLED: 73,
  NO_REASSIGNMENT_IN_PROGRESS: 85,
  THROTTLING_QUOTA_EXCEEDED: 89,
  UNKNOWN_TOPIC_ID: 100,
  BROKER_ID_NOT_REGISTERED: 102,
} as const;

export type ErrorName = keyof typeof ErrorCode;

const NAMES = new Map<number, ErrorName>(
  (Object.entries(ErrorCode) as [ErrorName, number][]).map(([n, c]) => [c, n]),
);

/** Reverse lookup: 36 -> "TOPIC_ALREADY_EXISTS"; unknown codes -> "UNKNOWN_<code>". */
export function errorName(code: number): string {
  return NAMES.get(code) ?? `UNKNOWN_${code}`;
}

/** Kafka's default message for an error (Errors.java), used when the broker supplies none. */
export const DEFAULT_ERROR_MESSAGES: Partial<Record<number, string>> = {
  [-1]: 'The server experienced an unexpected error when processing the request.',
  1: 'The requested offset is not within the range of offsets maintained by the server.',
  2: 'This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt.',
  3: 'This server does not host this topic-partition.',
  5: 'There is no leader for this topic-partition as we are in the middle of a leadership election.',
  6: 'For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.',
  8: 'Broker not available. Not attempted to establish a connection.',
  19: 'Messages are rejected since there are fewer in-sync replicas than required.',
  100: 'This server does not host this topic ID.',
  102: 'The given broker ID was not registered.',
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
