// How many bytes a reassignment copies, per broker, and how long that takes at a given rate.
//
// Every adding replica copies the whole log of its partition from the leader. So a destination
// receives the leader's partition size for each replica it gains, and the leader sends it. With
// a throttle R, Kafka limits each broker's throttled leader traffic to R (leader rate) and its
// throttled follower traffic to R (follower rate), separately; the move takes as long as the
// busiest broker: max over brokers of max(bytesIn, bytesOut) / R. Without a throttle the same
// holds with the per-broker bandwidth, when one is known; otherwise there is no estimate.
//
// An estimate, not a promise: it ignores data produced during the move and assumes every copy
// starts at once and shares its broker's rate evenly.

import { drain, STEP_ITEMS, type Steps } from '../steps.js';
import { partitionLabel, type TopicPartition } from './types.js';

/** Size in bytes of each partition's log on its leader: sizes[topic][partition] (DescribeLogDirs). */
export type PartitionSizes = Readonly<Record<string, Readonly<Record<number, number>>>>;

/**
 * The same as a function of the move and its position among the moves (undefined = unknown):
 * what a caller holding one size per requested partition passes, without building the records.
 */
export type PartitionSizeOf = (move: MoveToEstimate, index: number) => number | undefined;

/** What the estimate needs of a planned partition (a PartitionMovePlan fits). */
export interface MoveToEstimate extends TopicPartition {
  readonly currentReplicas: readonly number[];
  readonly adding: readonly number[];
  /** Current leader; when unknown (null) the first current replica (preferred leader) is assumed. */
  readonly leader: number | null;
}

export interface EstimateOptions {
  /** Throttle in bytes/s (leader and follower rate); null = none. */
  readonly throttle: number | null;
  /** Bytes/s a broker can copy unthrottled, when known (e.g. the simulator's setting). */
  readonly bandwidth?: number | null;
}

export interface BrokerTransfer {
  readonly broker: number;
  /** Bytes this broker receives (as a destination). */
  readonly bytesIn: number;
  /** Bytes this broker sends (as the leader of a moving partition). */
  readonly bytesOut: number;
}

export interface MoveEstimate {
  /** Sum of bytes received over all destinations. */
  readonly totalBytes: number;
  /** Every broker that sends or receives, ascending. */
  readonly brokers: readonly BrokerTransfer[];
  /** The rate used per broker and direction: min(throttle, bandwidth); null when neither is known. */
  readonly bytesPerSecond: number | null;
  /** Seconds until the busiest broker is done; null without a rate; 0 when nothing moves. */
  readonly estimatedSeconds: number | null;
  /** The busiest broker (the one estimatedSeconds is about); null when nothing moves. */
  readonly bottleneckBroker: number | null;
  /** Partitions with adding replicas whose size was not given (counted as 0 bytes). */
  readonly unknownSizes: readonly TopicPartition[];
}

/** Bytes to move per broker and the estimated duration. Linear in the moves. */
export function estimateMove(
  moves: Iterable<MoveToEstimate>,
  sizes: PartitionSizes | PartitionSizeOf,
  options: EstimateOptions,
): MoveEstimate {
  return drain(estimateMoveSteps(moves, sizes, options));
}

/** estimateMove in steps (plan.ts Steps): the same result, yielding every STEP_ITEMS moves. */
export function* estimateMoveSteps(
  moves: Iterable<MoveToEstimate>,
  sizes: PartitionSizes | PartitionSizeOf,
  options: EstimateOptions,
): Steps<MoveEstimate> {
  // Indexed loops (a generator allocates an iterator result per for-of step); bytes per broker
  // summed in plain arrays of doubles (a Map of sums boxes a new number at every addition).
  const list: readonly MoveToEstimate[] = Array.isArray(moves) ? moves : Array.from(moves);
  const sizeOf = typeof sizes === 'function' ? sizes : null;
  const slotOf = new Map<number, number>();
  const slotBroker: number[] = [];
  const inBytes: number[] = [];
  const outBytes: number[] = [];
  const slot = (broker: number): number => {
    let s = slotOf.get(broker);
    if (s === undefined) {
      slotOf.set(broker, (s = slotBroker.length));
      slotBroker.push(broker);
      inBytes.push(0);
      outBytes.push(0);
    }
    return s;
  };
  const unknownSizes: TopicPartition[] = [];
  let totalBytes = 0;

  for (let i = 0; i < list.length; i++) {
    const move = list[i];
    if ((i + 1) % STEP_ITEMS === 0) yield;
    if (move.adding.length === 0) continue;
    const size = sizeOf ? sizeOf(move, i) : (sizes as PartitionSizes)[move.topic]?.[move.partition];
    if (size === undefined) unknownSizes.push({ topic: move.topic, partition: move.partition });
    const bytes = size ?? 0;
    if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`bad size ${bytes} for ${partitionLabel(move)}`);
    const source = move.leader ?? move.currentReplicas[0];
    for (let j = 0; j < move.adding.length; j++) {
      inBytes[slot(move.adding[j])] += bytes;
      if (source !== undefined) outBytes[slot(source)] += bytes;
      totalBytes += bytes;
    }
  }

  const order = slotBroker.map((_, s) => s).sort((a, b) => slotBroker[a] - slotBroker[b]);
  const brokers = order.map((s) => ({ broker: slotBroker[s], bytesIn: inBytes[s], bytesOut: outBytes[s] }));

  let bottleneckBroker: number | null = null;
  let busiest = -1;
  for (const b of brokers) {
    const load = Math.max(b.bytesIn, b.bytesOut);
    if (load > busiest) {
      busiest = load;
      bottleneckBroker = b.broker;
    }
  }

  const rates = [options.throttle, options.bandwidth].filter((r): r is number => typeof r === 'number' && r > 0);
  const bytesPerSecond = rates.length > 0 ? Math.min(...rates) : null;
  let estimatedSeconds: number | null;
  if (brokers.length === 0 || busiest <= 0) estimatedSeconds = 0;
  else estimatedSeconds = bytesPerSecond === null ? null : busiest / bytesPerSecond;

  return { totalBytes, brokers, bytesPerSecond, estimatedSeconds, bottleneckBroker: busiest > 0 ? bottleneckBroker : null, unknownSizes };
}
