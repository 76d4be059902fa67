// DescribeLogDirs' key table: the partitions a request asks about, numbered (slots), so that each
// broker's answer is read into columns indexed by slot (./describe-log-dirs.ts) with no string per
// partition. The request's topics are built in the same walk.
import { partitionKey } from '../../domain/partition-key.js';
import { drain, type Steps } from '../../domain/steps.js';
import { ENTRIES_PER_STEP } from '../wire/slices.js';
import type { PartitionRef } from './list-partition-reassignments-v0.js';

/**
 * Where a topic's partitions asked about have their slot: an Int32Array indexed by partition
 * number (-1 = not asked) when the numbers are integers from 0 to a bound (as Kafka numbers
 * partitions), else a Map (negative or far scattered numbers). A number[] indexed by
 * partition, as before, cost ~340 bytes per partition when a leader's partitions (every 12th)
 * were asked about: one Int32Array per topic, sized once, costs 4 bytes per partition number.
 */
export type TopicSlots = Int32Array | Map<number, number>;

/**
 * The partitions asked about, numbered: slot s is partition slotPartition[s] of topic
 * topicNames[slotTopic[s]]; slots.get(topic) finds the slot of a partition of `topic` (slotOf);
 * inputSlot[i] is the slot of the i-th partition as given (a partition given twice has one slot).
 * No string per partition: a per-pass caller (progress snapshots) would otherwise build 100,000
 * of them per pass, promoted then dropped (issue 8: that promotion rate is what grows the heap).
 * `keys` (the replica keys, one string per slot shared by every broker's answer) is built only
 * by the Map form (replicaSizesSteps), on first use.
 */
export interface KeyTable {
  readonly count: number;
  readonly topicNames: readonly string[];
  readonly slotTopic: Int32Array;
  readonly slotPartition: Int32Array;
  readonly slots: ReadonlyMap<string, TopicSlots>;
  readonly inputSlot: Int32Array;
  keys?: string[];
}

const slotIn = (at: TopicSlots, partition: number): number =>
  at instanceof Int32Array ? (at[partition] ?? -1) : (at.get(partition) ?? -1);

/** The slot of a partition in `table`, -1 if it was not asked about. */
export function slotOf(table: KeyTable, topic: string, partition: number): number {
  const at = table.slots.get(topic);
  return at === undefined ? -1 : slotIn(at, partition);
}

/** The replica keys of `table`'s slots (built once per table; the Map form's keys). */
export function keysOf(table: KeyTable): string[] {
  if (table.keys) return table.keys;
  const keys = new Array<string>(table.count);
  for (let s = 0; s < table.count; s++) keys[s] = partitionKey(table.topicNames[table.slotTopic[s]], table.slotPartition[s]);
  return (table.keys = keys);
}

/**
 * The request's topics (each once, in order of first appearance; its partitions once and sorted)
 * and the key table of the partitions asked about. Two walks: the first counts each topic's
 * partitions and their range, so that every array is allocated once at its size.
 */
export function* topicsOfSteps(
  partitions: readonly PartitionRef[],
): Steps<{ topics: { name: string; partitions: number[] }[]; keys: KeyTable }> {
  const byName = new Map<string, number>();
  const topicNames: string[] = [];
  const given: number[] = [];
  const low: number[] = [];
  const high: number[] = [];
  const integers: boolean[] = [];
  let name: string | undefined;
  let k = -1;
  for (let i = 0; i < partitions.length; i++) {
    const p = partitions[i];
    if (p.topic !== name) {
      name = p.topic;
      const known = byName.get(name);
      if (known === undefined) {
        byName.set(name, (k = topicNames.length));
        topicNames.push(name);
        given.push(0);
        low.push(p.partition);
        high.push(p.partition);
        integers.push(true);
      } else k = known;
    }
    given[k]++;
    if (p.partition < low[k]) low[k] = p.partition;
    if (p.partition > high[k]) high[k] = p.partition;
    if (!Number.isInteger(p.partition)) integers[k] = false;
    if (i % ENTRIES_PER_STEP === ENTRIES_PER_STEP - 1) yield;
  }
  const at: TopicSlots[] = [];
  const topics: { name: string; partitions: number[] }[] = [];
  const slots = new Map<string, TopicSlots>();
  for (let t = 0; t < topicNames.length; t++) {
    // (Up to 16,384 numbers whatever the count: a leader's share of a topic is every n-th partition.)
    const dense = integers[t] && low[t] >= 0 && high[t] < Math.max(4 * given[t], 16_384);
    at.push(dense ? new Int32Array(high[t] + 1).fill(-1) : new Map<number, number>());
    slots.set(topicNames[t], at[t]);
    topics.push({ name: topicNames[t], partitions: new Array<number>(given[t]) });
  }
  const filled = new Int32Array(topicNames.length);
  // Per slot, written as slots are numbered (at most one per partition given).
  const slotTopicAll = new Int32Array(partitions.length);
  const slotPartitionAll = new Int32Array(partitions.length);
  const inputSlot = new Int32Array(partitions.length);
  let count = 0;
  name = undefined;
  for (let i = 0; i < partitions.length; i++) {
    const p = partitions[i];
    if (p.topic !== name) k = byName.get((name = p.topic))!;
    const ofTopic = at[k];
    const known = slotIn(ofTopic, p.partition);
    if (known >= 0) {
      inputSlot[i] = known;
      continue;
    }
    if (ofTopic instanceof Int32Array) ofTopic[p.partition] = count;
    else ofTopic.set(p.partition, count);
    inputSlot[i] = count;
    slotTopicAll[count] = k;
    slotPartitionAll[count] = p.partition;
    topics[k].partitions[filled[k]++] = p.partition;
    count++;
    if (count % ENTRIES_PER_STEP === 0) yield;
  }
  for (let t = 0; t < topics.length; t++) {
    const ps = topics[t].partitions;
    if (filled[t] < ps.length) ps.length = filled[t]!; // partitions given twice
    // Usually given in order already: a sort (and its copy) only when not.
    let sorted = true;
    for (let j = 1; j < ps.length && sorted; j++) sorted = ps[j - 1] <= ps[j];
    if (!sorted) ps.sort((a, b) => a - b);
  }
  const keys: KeyTable = {
    count,
    topicNames,
    slotTopic: count === partitions.length ? slotTopicAll : slotTopicAll.slice(0, count),
    slotPartition: count === partitions.length ? slotPartitionAll : slotPartitionAll.slice(0, count),
    slots,
    inputSlot,
  };
  return { topics, keys };
}

export const topicsOf = (partitions: readonly PartitionRef[]) => drain(topicsOfSteps(partitions));
