/**
 * What a controller mutation costs in KIP-599 terms, and settling a charge made before the
 * cost was known. Pure functions over plain data; used by the gateway-side admission bucket
 * (src/services/quotas/gateway-admission.ts), which must decide before Kafka answers.
 *
 * Kafka charges partitions, not requests (KIP-599): CreateTopics the new topic's partition
 * count, CreatePartitions the partitions added, DeleteTopics the deleted topic's partitions.
 * A topic Kafka rejects for another reason (already exists, unknown, invalid) is not charged.
 */
import { refill, type TokenBucket } from './token-bucket.js';

/**
 * Kafka's `num.partitions` default. A topic created without a count or assignments gets the
 * broker's default, which the gateway does not know before Kafka answers: it charges this
 * estimate first and settles against the count Kafka reports (see settleCharge).
 */
export const ESTIMATED_DEFAULT_PARTITIONS = 1;

export function createTopicCost(topic: { partitions?: number; assignments?: readonly unknown[] }): number {
  return topic.assignments?.length ?? topic.partitions ?? ESTIMATED_DEFAULT_PARTITIONS;
}

/** Partitions a CreatePartitions adds; 0 when the count does not grow (Kafka rejects it, uncharged) or the topic is unknown. */
export function partitionIncreaseCost(currentPartitions: number | undefined, newCount: number): number {
  if (currentPartitions === undefined) return 0;
  return Math.max(0, newCount - currentPartitions);
}

/** Partitions a DeleteTopics removes; 0 for an unknown topic (Kafka answers 3 and charges nothing). */
export function deleteTopicCost(currentPartitions: number | undefined): number {
  return currentPartitions ?? 0;
}

/**
 * Correct a charge once the real cost is known: `delta` > 0 records more (never refused:
 * strict mode records the whole cost of an admitted mutation), `delta` < 0 gives tokens
 * back (a mutation Kafka did not perform costs nothing). Refills to `nowMs` first, as every
 * bucket operation does; never above the burst.
 */
export function settleCharge(bucket: TokenBucket, delta: number, nowMs: number): TokenBucket {
  if (!Number.isFinite(delta)) throw new RangeError(`delta must be finite, got ${delta}`);
  const b = refill(bucket, nowMs);
  return Object.freeze({ ...b, tokens: Math.min(b.burst, b.tokens - delta) });
}
