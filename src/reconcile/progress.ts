// Copy progress of running reassignments: samples of each adding replica's size against its
// leader's (DescribeLogDirs to every broker involved), kept in memory per reassignment. The
// arithmetic (percent, observed rate, ETA, stalled) is the domain's computeProgress. A
// restarted instance starts with no history: it shows sizes at once and a rate after the
// second sample.
import { computeProgress, retainSamples, type ProgressOptions, type ProgressSample, type ReassignmentProgress, type ReplicaSample } from '../domain/reassignment/index.js';
import type { KafkaAdmin } from '../kafka/kafka-admin.js';
import { describeReplicaSizes, replicaKey } from '../kafka/log-dirs.js';
import type { MovingPartition } from '../kafka/reassignments.js';

export interface SampleInput {
  /** Moving partitions of the reassignment, with the partition's current leader (-1 unknown). */
  moving: (MovingPartition & { leader: number })[];
}

export class ProgressTracker {
  readonly #kafka: KafkaAdmin;
  readonly #options: ProgressOptions;
  readonly #now: () => number;
  readonly #samples = new Map<string, ProgressSample[]>();

  constructor(deps: { kafka: KafkaAdmin; options: ProgressOptions; now?: () => number }) {
    this.#kafka = deps.kafka;
    this.#options = deps.options;
    this.#now = deps.now ?? Date.now;
  }

  /** Takes one sample for each reassignment (one DescribeLogDirs per broker for all of them). */
  async sample(inputs: Map<string, SampleInput>): Promise<void> {
    const all = [...inputs.values()].flatMap((i) => i.moving);
    const brokers = new Set<number>();
    for (const m of all) {
      if (m.leader >= 0) brokers.add(m.leader);
      for (const b of m.adding) brokers.add(b);
    }
    const answers = all.length ? await describeReplicaSizes(this.#kafka, [...brokers], all) : [];
    const sizes = new Map<number, Map<string, number>>();
    for (const a of answers) if (a.ok) sizes.set(a.broker, a.sizes);
    const now = this.#now();
    for (const [id, input] of inputs) {
      const replicas: ReplicaSample[] = [];
      for (const m of input.moving) {
        const k = replicaKey(m.topic, m.partition);
        const leaderBytes = m.leader >= 0 ? (sizes.get(m.leader)?.get(k) ?? null) : null;
        for (const b of m.adding) replicas.push({ topic: m.topic, partition: m.partition, broker: b, bytes: sizes.get(b)?.get(k) ?? null, leaderBytes });
      }
      const list = [...(this.#samples.get(id) ?? []), { timeMs: now, replicas }];
      this.#samples.set(id, retainSamples(list, now, this.#options));
    }
  }

  progress(id: string): ReassignmentProgress | null {
    const s = this.#samples.get(id);
    return s && s.length ? computeProgress(s, this.#options) : null;
  }

  /** Drops the history of reassignments not in `ids` (finished or forgotten). */
  retain(ids: Set<string>): void {
    for (const id of this.#samples.keys()) if (!ids.has(id)) this.#samples.delete(id);
  }
}
