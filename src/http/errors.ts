// THE table from Kafka errors to HTTP statuses. openapi.yaml's info.description
// documents the same table; test/http/errors.test.ts pins every row so the two cannot
// silently diverge.
//
// The one rule for 400 vs 422: 400 = malformed request, rejected by schema validation
// before Kafka saw it (see validation.ts); 422 = well-formed request that Kafka's own
// semantic checks rejected. So every Kafka "invalid ..." error below is a 422.
import { isKafkaFailure, retryAfterSeconds, type KafkaErrorInfo, type KafkaFailure, type KafkaFailureKind } from '../services/errors.js';
import { kafkaSlug, kafkaTitle, problemType, type HttpProblem, type Problem } from './problem.js';

export interface StatusRule {
  status: number;
  why: string;
}

export const KAFKA_ERROR_STATUS: ReadonlyMap<number, StatusRule> = new Map<number, StatusRule>([
  [3, { status: 404, why: 'UNKNOWN_TOPIC_OR_PARTITION: the topic does not exist' }],
  [17, { status: 422, why: 'INVALID_TOPIC_EXCEPTION: semantic rejection (e.g. a "."/"_" collision)' }],
  [29, { status: 403, why: 'TOPIC_AUTHORIZATION_FAILED' }],
  [31, { status: 403, why: 'CLUSTER_AUTHORIZATION_FAILED' }],
  [36, { status: 409, why: 'TOPIC_ALREADY_EXISTS: conflicts with existing state' }],
  [37, { status: 422, why: 'INVALID_PARTITIONS' }],
  [38, { status: 422, why: 'INVALID_REPLICATION_FACTOR' }],
  [39, { status: 422, why: 'INVALID_REPLICA_ASSIGNMENT' }],
  [40, { status: 422, why: 'INVALID_CONFIG' }],
  [42, { status: 422, why: 'INVALID_REQUEST' }],
  [44, { status: 422, why: 'POLICY_VIOLATION: a broker-side policy rejected a well-formed request' }],
  [60, { status: 409, why: 'REASSIGNMENT_IN_PROGRESS: conflicts with an ongoing reassignment' }],
  // 403, not 409: delete.topic.enable=false forbids deletion for everyone and no change
  // to the topic's state can resolve it, which is what 409 would promise.
  [73, { status: 403, why: 'TOPIC_DELETION_DISABLED: the cluster forbids deletion' }],
  [89, { status: 429, why: 'THROTTLING_QUOTA_EXCEEDED: controller mutation quota (KIP-599)' }],
  // Retriable in Kafka. Reaching HTTP means the Kafka layer's retry budget is spent:
  // the same "try again later" as an unreachable cluster.
  [7, { status: 503, why: 'REQUEST_TIMED_OUT after retries' }],
  [41, { status: 503, why: 'NOT_CONTROLLER after retries' }],
  [56, { status: 503, why: 'KAFKA_STORAGE_ERROR after retries' }],
]);

/** Status for any Kafka error code not in the table: the upstream failed in a way we do not translate. */
export const UNMAPPED_KAFKA_ERROR_STATUS = 502;

/**
 * Retry-After for 503s when Kafka gave no throttle time. Long enough for a client
 * reconnect / controller failover, short enough not to strand callers.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export const THROTTLING_QUOTA_EXCEEDED = 89;

export function statusForKafkaCode(code: number): number {
  return KAFKA_ERROR_STATUS.get(code)?.status ?? UNMAPPED_KAFKA_ERROR_STATUS;
}

/** A mapped error plus its Retry-After in seconds (kept numeric so batches can take the max). */
export interface MappedProblem extends HttpProblem {
  retryAfter?: number;
}

/**
 * Maps one Kafka failure to a problem. Precedence:
 *  1. code 89 is always 429: the throttle time is the most precise advice we have;
 *  2. kind 'unavailable' / 'timeout' (no usable answer from Kafka) is 503;
 *  3. otherwise the table, and 502 for codes it does not know.
 */
export function mapKafkaError(info: KafkaErrorInfo, kind: KafkaFailureKind = 'kafka', instance?: string): MappedProblem {
  const kafkaError = { name: info.name, code: info.code };
  const base: Pick<Problem, 'instance' | 'detail'> = {
    ...(instance !== undefined && { instance }),
    ...(info.message && { detail: info.message }),
  };

  if (info.code === THROTTLING_QUOTA_EXCEEDED) {
    const retryAfter = retryAfterSeconds(info.throttleTimeMs);
    const problem: Problem = {
      type: problemType(kafkaSlug(info.name)),
      title: kafkaTitle(info.name),
      status: 429,
      ...base,
      kafkaError,
      ...(info.throttleTimeMs !== undefined && { throttleTimeMs: Math.max(0, Math.round(info.throttleTimeMs)) }),
    };
    return { problem, retryAfter, headers: { 'Retry-After': String(retryAfter) } };
  }

  if (kind === 'unavailable' || kind === 'timeout') {
    const retryAfter = info.throttleTimeMs ? retryAfterSeconds(info.throttleTimeMs) : UNAVAILABLE_RETRY_AFTER_SECONDS;
    const problem: Problem = {
      type: problemType(kind === 'timeout' ? 'kafka-timeout' : 'kafka-unavailable'),
      title: kind === 'timeout' ? 'Kafka request timed out' : 'Kafka unavailable',
      status: 503,
      ...base,
      kafkaError,
    };
    return { problem, retryAfter, headers: { 'Retry-After': String(retryAfter) } };
  }

  const status = statusForKafkaCode(info.code);
  const problem: Problem = {
    type: problemType(kafkaSlug(info.name)),
    title: kafkaTitle(info.name),
    status,
    ...base,
    kafkaError,
  };
  if (status === 503) {
    const retryAfter = UNAVAILABLE_RETRY_AFTER_SECONDS;
    return { problem, retryAfter, headers: { 'Retry-After': String(retryAfter) } };
  }
  return { problem };
}

/** A failed Kafka request (the services' KafkaFailure: the Kafka layer's KafkaRequestError). */
export function mapKafkaRequestError(err: KafkaFailure, instance?: string): MappedProblem {
  return mapKafkaError(err.kafka, err.kind, instance);
}

export function isKafkaRequestError(err: unknown): err is KafkaFailure {
  return isKafkaFailure(err);
}
