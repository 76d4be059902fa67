// The (topic, partition) order of a reassignment's partitions, the order its pages are served
// in (GET /reassignments/{id}/partitions): indexes into the record's list, in steps.
//
// Why steps: at 100,000 partitions the order took 7–30 ms in one go, 70 ms once in bench:scale
// (GC and a busy CPU), on the first page GET after a start; /healthz waited behind it.
import { STEP_ITEMS, type Steps } from '../steps.js';

/** 2^20: partition indexes below it share a float64 key with the partition number (see below). */
const INDEX_LIMIT = 1_048_576;

/**
 * Indexes of `partitions` ordered by topic (UTF-16 code units, as compareTopicPartitions), then
 * partition, then index (a partition named twice keeps its request order). Yields every
 * STEP_ITEMS partitions and between topics. O(n log n); at most 2^20 partitions.
 */
export function* topicPartitionOrderSteps(partitions: readonly { topic: string; partition: number }[]): Steps<Uint32Array> {
  if (partitions.length > INDEX_LIMIT) throw new RangeError(`at most ${INDEX_LIMIT} partitions, got ${partitions.length}`);
  const byTopic = new Map<string, number[]>();
  for (let i = 0; i < partitions.length; i++) {
    const topic = partitions[i].topic;
    const list = byTopic.get(topic);
    if (list) list.push(i);
    else byTopic.set(topic, [i]);
    if ((i + 1) % STEP_ITEMS === 0) yield;
  }
  const out = new Uint32Array(partitions.length);
  let k = 0;
  let sinceYield = 0;
  for (const topic of [...byTopic.keys()].sort()) {
    const idx = byTopic.get(topic)!;
    // Numeric keys (partition * 2^20 + index) sort natively, far faster than a comparator.
    const keys = new Float64Array(idx.length);
    for (let j = 0; j < idx.length; j++) keys[j] = partitions[idx[j]].partition * INDEX_LIMIT + idx[j];
    keys.sort();
    for (let j = 0; j < keys.length; j++) out[k++] = keys[j] % INDEX_LIMIT;
    sinceYield += idx.length;
    if (sinceYield >= STEP_ITEMS) {
      sinceYield = 0;
      yield;
    }
  }
  return out;
}
