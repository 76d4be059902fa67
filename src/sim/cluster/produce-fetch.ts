// Produce, Fetch and ListOffsets on the simulator's cluster model (ClusterModel's log calls,
// ./model.ts): the partition's leader checks, Kafka's size and min.insync.replicas refusals, and
// the log growing, which the log-dir sums and the copies catching up must follow.
import type { ClusterState } from './cluster-state.js';
import { ErrorCode, KafkaError } from './errors.js';
import { PartitionLog, type AppendResult, type OffsetAndTimestamp, type ReadResult } from './log.js';
import type { FetchOptions, ProduceOptions } from './model-types.js';
import { NO_LEADER, type PartitionState, type TopicState } from './topics.js';

function partitionLog(s: ClusterState, topic: string, partition: number): { p: PartitionState; log: PartitionLog; t: TopicState } {
  // Callers that grow the log tell the moves (sizeChanged): copies have more to copy.
  s.sync(); // appends move the copies' target; reads see current sizes
  const p = s.partitionState(topic, partition);
  const t = s.topics.get(topic)!;
  return { p, t, log: s.logs.get(t.topicId)![partition] };
}

function checkLeader(p: PartitionState, brokerId: number | undefined): void {
  if (brokerId !== undefined) {
    if (p.leader !== brokerId) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  } else if (p.leader === NO_LEADER) {
    throw new KafkaError(ErrorCode.LEADER_NOT_AVAILABLE);
  }
}

/**
 * Produce: append concatenated v2 record batches; each batch's baseOffset is rewritten to the log
 * end offset (and partitionLeaderEpoch to the leader epoch). Returns the first batch's offset.
 */
export function append(s: ClusterState, topic: string, partition: number, batches: Buffer, opts: ProduceOptions = {}): number {
  return appendWithResult(s, topic, partition, batches, opts).baseOffset;
}

/** append(), also returning logAppendTime and logStartOffset for the Produce response. */
export function appendWithResult(
  s: ClusterState,
  topic: string,
  partition: number,
  batches: Buffer,
  opts: ProduceOptions = {},
): AppendResult {
  const { p, t, log } = partitionLog(s, topic, partition);
  checkLeader(p, opts.brokerId);
  const split = PartitionLog.prepare(batches, s.verifyCrc);
  const maxBytes = Number(s.configs.effectiveTopicValue(t.configs, 'max.message.bytes'));
  for (const b of split) {
    if (b.length > maxBytes) {
      throw new KafkaError(
        ErrorCode.MESSAGE_TOO_LARGE,
        `Message batch size is ${b.length} bytes in append to partition ${topic}-${partition} which exceeds the maximum configured size of ${maxBytes}.`,
      );
    }
  }
  if ((opts.acks ?? -1) === -1) {
    const minIsr = Number(s.configs.effectiveTopicValue(t.configs, 'min.insync.replicas'));
    if (p.isr.length < minIsr) {
      throw new KafkaError(
        ErrorCode.NOT_ENOUGH_REPLICAS,
        `The size of the current ISR : ${p.isr.length} is insufficient to satisfy the min.isr requirement of ${minIsr} for partition ${topic}-${partition}, live replica(s) broker.id are : [${p.isr.join(', ')}]`,
      );
    }
  }
  const before = log.sizeBytes;
  const result = log.appendPrepared(split, p.leaderEpoch);
  grown(s, t, p, log.sizeBytes - before);
  return result;
}

/** Fetch: the batches holding offsets >= fetchOffset (at least one whole batch). */
export function read(
  s: ClusterState,
  topic: string,
  partition: number,
  fetchOffset: number,
  maxBytes: number,
  opts: FetchOptions = {},
): ReadResult {
  const { p, log } = partitionLog(s, topic, partition);
  checkLeader(p, opts.brokerId);
  return log.read(fetchOffset, maxBytes);
}

/** ListOffsets: -1 latest, -2 earliest, -3 max timestamp, -4 earliest local, -5 latest tiered, or a timestamp. */
export function listOffset(
  s: ClusterState,
  topic: string,
  partition: number,
  timestamp: number,
  opts: FetchOptions = {},
): OffsetAndTimestamp {
  const { p, log } = partitionLog(s, topic, partition);
  checkLeader(p, opts.brokerId);
  return log.listOffset(timestamp);
}

export function logOffsets(
  s: ClusterState,
  topic: string,
  partition: number,
): { logStartOffset: number; logEndOffset: number; highWatermark: number } {
  const { log } = partitionLog(s, topic, partition);
  return { logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset, highWatermark: log.highWatermark };
}

/** Partition size in bytes (appended batches plus seeded bytes). */
export function sizeBytes(s: ClusterState, topic: string, partition: number): number {
  return partitionLog(s, topic, partition).log.sizeBytes;
}

/** Give a partition n more bytes of size without real data (e.g. for reassignment progress). */
export function seedBytes(s: ClusterState, topic: string, partition: number, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new KafkaError(ErrorCode.INVALID_REQUEST, `seedBytes needs a non-negative integer, got ${n}.`);
  }
  const { p, t, log } = partitionLog(s, topic, partition);
  const before = log.sizeBytes;
  log.seedBytes(n);
  grown(s, t, p, log.sizeBytes - before);
}

/** A partition's log grew: the log-dir sums and the copies catching up follow. */
function grown(s: ClusterState, t: TopicState, p: PartitionState, delta: number): void {
  s.replicaIndex.sizeChanged(t, p, delta);
  s.moves.sizeChanged(p, delta);
}
