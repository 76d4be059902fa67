// Trouble on demand (issue 30, part 4): what the gateway's health interlocks watch for, made
// happen over the control port (src/sim/control.ts) so tests and the README demo can drive it.
//
//   fallBehind(b)      broker b falls behind: it leaves the ISR of every partition it follows
//                      (not those it leads: a leader is always in its ISR), as Kafka's leader
//                      shrinks the ISR once a follower lags more than replica.lag.time.max.ms
//                      (Partition.scala maybeShrinkIsr); it stays out until catchUp(b).
//   catchUp(b)         b has caught up: it rejoins those ISRs (Partition.scala maybeExpandIsr
//                      appends it), except where a replica is held out on its own (below).
//   underMinIsr(t, ps) partitions of topic t drop followers from their ISR until it is one below
//                      the topic's min.insync.replicas (never below the leader alone): acks=all
//                      produces fail with NOT_ENOUGH_REPLICAS, the health interlocks hold.
//   restoreIsr(t, ps)  those followers rejoin.
//   reapply()          after a broker starts (the model then re-adds every live replica to the
//                      ISRs it is not in): the trouble asked for stands until it is lifted.
//
// Simplifications: a behind broker's copies for a reassignment still run (its new replicas join
// the ISR when caught up); what is held out is only the ISR membership of replicas it already had.
import type { ClusterModel } from './model.js';

const key = (topic: string, partition: number, broker: number): string => `${topic}\u0000${partition}\u0000${broker}`;

export interface IsrChange {
  topic: string;
  partition: number;
  isr: readonly number[];
}

export class ClusterTrouble {
  readonly #model: ClusterModel;
  /** Brokers that fell behind (their follower replicas are out of every ISR). */
  readonly #behind = new Set<number>();
  /** Single replicas held out of their partition's ISR (underMinIsr), by key(topic, partition, broker). */
  readonly #heldOut = new Map<string, { topic: string; partition: number; broker: number }>();

  constructor(model: ClusterModel) {
    this.#model = model;
  }

  /** Whether `broker`'s replica of the partition is to stay out of its ISR. */
  #out(topic: string, partition: number, broker: number, leader: number): boolean {
    return broker !== leader && (this.#behind.has(broker) || this.#heldOut.has(key(topic, partition, broker)));
  }

  /** The ISR changes that make every partition say what the trouble asks for (`only`: those partitions). */
  #shrinks(only?: (topic: string, partition: number) => boolean): IsrChange[] {
    const out: IsrChange[] = [];
    for (const t of this.#model.topicViews()) {
      for (const p of t.partitions) {
        if (only && !only(t.name, p.partition)) continue;
        if (!p.isr.some((r) => this.#out(t.name, p.partition, r, p.leader))) continue;
        out.push({ topic: t.name, partition: p.partition, isr: p.isr.filter((r) => !this.#out(t.name, p.partition, r, p.leader)) });
      }
    }
    return out;
  }

  /** Broker `id` falls behind: it leaves the ISR of every partition it follows. Returns the partitions changed. */
  fallBehind(id: number): number {
    this.#behind.add(id);
    return this.#model.setIsrs(this.#shrinks());
  }

  /** Broker `id` has caught up: it rejoins the ISRs it left (not those held out by underMinIsr). Returns the partitions changed. */
  catchUp(id: number): number {
    if (!this.#behind.delete(id)) return 0;
    const grows: IsrChange[] = [];
    for (const t of this.#model.topicViews()) {
      for (const p of t.partitions) {
        if (p.leader < 0 || !p.replicas.includes(id) || p.isr.includes(id) || this.#out(t.name, p.partition, id, p.leader)) continue;
        grows.push({ topic: t.name, partition: p.partition, isr: [...p.isr, id] });
      }
    }
    return this.#model.setIsrs(grows);
  }

  /**
   * Partitions `partitions` of `topic` (null = all) lose followers (the last ones in ISR order
   * first) until their ISR is min.insync.replicas - 1, at least the leader. Returns each
   * partition's ISR afterwards and the min ISR. Throws the model's KafkaError for an unknown topic.
   */
  underMinIsr(
    topic: string,
    partitions: readonly number[] | null,
  ): { minIsr: number; partitions: { partition: number; isr: readonly number[] }[] } {
    const minIsr = Number(this.#model.effectiveTopicConfig(topic, 'min.insync.replicas') ?? '1');
    const view = this.#model.topicView({ name: topic })!;
    const chosen = partitions === null ? view.partitions : partitions.map((n) => this.#partitionOf(topic, n));
    const keep = Math.max(1, minIsr - 1);
    for (const p of chosen) {
      if (p.leader < 0) continue;
      const followers = p.isr.filter((r) => r !== p.leader);
      const drop = followers.slice(Math.max(0, keep - 1));
      for (const b of drop) this.#heldOut.set(key(topic, p.partition, b), { topic, partition: p.partition, broker: b });
    }
    const names = new Set(chosen.map((p) => p.partition));
    this.#model.setIsrs(this.#shrinks((t, n) => t === topic && names.has(n)));
    return { minIsr, partitions: chosen.map((p) => ({ partition: p.partition, isr: this.#partitionOf(topic, p.partition).isr })) };
  }

  /** Followers held out by underMinIsr for `partitions` of `topic` (null = all) rejoin (unless their broker is behind). */
  restoreIsr(topic: string, partitions: readonly number[] | null): { partitions: { partition: number; isr: readonly number[] }[] } {
    this.#model.effectiveTopicConfig(topic, 'min.insync.replicas'); // throws UNKNOWN_TOPIC_OR_PARTITION for an unknown topic
    const view = this.#model.topicView({ name: topic })!;
    const chosen = partitions === null ? view.partitions : partitions.map((n) => this.#partitionOf(topic, n));
    const grows: IsrChange[] = [];
    for (const p of chosen) {
      const back: number[] = [];
      for (const r of p.replicas) {
        if (this.#heldOut.delete(key(topic, p.partition, r)) && !this.#behind.has(r)) back.push(r);
      }
      if (back.length > 0 && p.leader >= 0) grows.push({ topic, partition: p.partition, isr: [...p.isr, ...back] });
    }
    this.#model.setIsrs(grows);
    return { partitions: chosen.map((p) => ({ partition: p.partition, isr: this.#partitionOf(topic, p.partition).isr })) };
  }

  /** After a broker start (which re-adds live replicas to ISRs): the trouble asked for stands. */
  reapply(): number {
    if (this.#behind.size === 0 && this.#heldOut.size === 0) return 0;
    return this.#model.setIsrs(this.#shrinks());
  }

  /** What is asked for now. */
  state(): { behind: number[]; heldOut: { topic: string; partition: number; broker: number }[] } {
    return { behind: [...this.#behind].sort((a, b) => a - b), heldOut: [...this.#heldOut.values()] };
  }

  #partitionOf(topic: string, partition: number) {
    const p = this.#model.topicView({ name: topic })?.partitions[partition];
    if (!p || p.partition !== partition) return this.#model.getPartition(topic, partition); // throws UNKNOWN_TOPIC_OR_PARTITION
    return p;
  }
}

const byModel = new WeakMap<ClusterModel, ClusterTrouble>();

/** The one ClusterTrouble of a model (the control port's routes and a test share it). */
export function troubleOf(model: ClusterModel): ClusterTrouble {
  let t = byModel.get(model);
  if (!t) byModel.set(model, (t = new ClusterTrouble(model)));
  return t;
}
