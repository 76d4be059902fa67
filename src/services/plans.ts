// Plans and broker loads as the HTTP API sees them (POST /plans, GET /brokers). Reads the cluster
// (DescribeCluster for brokers and racks, Metadata for every partition, ListPartitionReassignments
// for what moves now, DescribeLogDirs on every live broker for sizes) and hands plain data to the
// pure planner (src/domain/plan). Changes nothing and stores nothing. Typed outcomes, no HTTP.
import {
  planReassignmentSteps,
  type Plan,
  type PlanCluster,
  type PlanError,
  type PlanRequest,
  type PlanTopic,
} from '../domain/plan/index.js';
import { drain, type Steps } from '../domain/steps.js';
import { formatReassignmentFile, type ReassignmentFile } from '../domain/reassignment/index.js';
import { replicaKey, type BrokerLogDirs, type KafkaAdmin, type MovingPartition, type TopicPartitions } from '../kafka/kafka-admin.js';
import type { BrokerDescription, KafkaErrorInfo } from '../kafka/types.js';
import { runSliced, type SliceOptions } from '../plan/sliced.js';
import { partitionKey } from '../domain/partition-key.js';

/** Errors the request alone shows (400) versus those the cluster shows (422). */
const MALFORMED: ReadonlySet<PlanError['code']> = new Set(['MISSING_FIELD', 'INVALID_TOPIC_PATTERN']);

export type PlanOutcome =
  | { kind: 'malformed'; errors: readonly PlanError[] }
  | { kind: 'invalid'; errors: readonly PlanError[] }
  | { kind: 'plan'; plan: Plan; reassignment: ReassignmentFile; sizeErrors: readonly { broker: number; error: KafkaErrorInfo }[] };

export interface BrokerView {
  id: number;
  host: string | null;
  port: number | null;
  rack: string | null;
  live: boolean;
  replicas: number;
  /** Partitions it leads now. */
  leaders: number;
  /** Partitions whose first replica it is (where a preferred leader election puts leadership). */
  preferredLeaders: number;
  /** Sum of its replicas' sizes from its own DescribeLogDirs; null when it did not answer. */
  bytes: number | null;
  /** Partitions a running reassignment is copying to it / will drop from it. */
  reassignment: { adding: number; removing: number };
  /** Partitions it leads whose ISR is shorter than their replicas (Kafka's UnderReplicatedPartitions of the broker); absent when ISRs were not read. */
  underReplicated?: number;
  /** Its replicas that are out of their partition's ISR (a lagging or stopped broker); absent when ISRs were not read. */
  outOfSyncReplicas?: number;
}

export interface BrokersOutcome {
  brokers: BrokerView[];
  sizeErrors: { broker: number; error: KafkaErrorInfo }[];
}

export interface ClusterRead {
  brokers: BrokerDescription[];
  placement: TopicPartitions[];
  moving: MovingPartition[];
  logDirs: BrokerLogDirs[];
}

export class PlanService {
  readonly #kafka: KafkaAdmin;
  readonly #slicing: SliceOptions;

  /** `slicing`: how long the planner may hold the event loop at a time (src/plan/sliced.ts). */
  constructor(kafka: KafkaAdmin, slicing: SliceOptions = {}) {
    this.#kafka = kafka;
    this.#slicing = slicing;
  }

  async plan(request: PlanRequest): Promise<PlanOutcome> {
    const read = await this.#read();
    return this.planCluster(read, request);
  }

  /**
   * The plan for a cluster already read: conversion and planning run in slices, so the event
   * loop keeps answering (/healthz, other requests) while a large cluster is planned.
   */
  async planCluster(read: Pick<ClusterRead, 'brokers' | 'placement' | 'moving' | 'logDirs'>, request: PlanRequest): Promise<PlanOutcome> {
    const cluster = await runSliced(toPlanClusterSteps(read), { ...this.#slicing, label: 'plan-input' });
    const result = await runSliced(planReassignmentSteps(cluster, request), { ...this.#slicing, label: 'plan' });
    if (!result.ok) {
      const malformed = result.errors.filter((e) => MALFORMED.has(e.code));
      return malformed.length > 0 ? { kind: 'malformed', errors: malformed } : { kind: 'invalid', errors: result.errors };
    }
    const reassignment = formatReassignmentFile(
      result.plan.partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.targetReplicas })),
    );
    return { kind: 'plan', plan: result.plan, reassignment, sizeErrors: sizeErrors(read.logDirs) };
  }

  async brokers(): Promise<BrokersOutcome> {
    // With ISRs (the same one Metadata request), for the under-replicated counts per broker (issue 30).
    const read = await this.#read(true);
    const withIsr = this.#kafka.describeReplicaHealth !== undefined;
    const addingOf = withIsr ? new Map(read.moving.map((m) => [partitionKey(m.topic, m.partition), m.adding])) : undefined;
    const views = new Map<number, BrokerView>();
    const view = (id: number): BrokerView => {
      let v = views.get(id);
      if (!v) {
        v = {
          id,
          host: null,
          port: null,
          rack: null,
          live: false,
          replicas: 0,
          leaders: 0,
          preferredLeaders: 0,
          bytes: null,
          reassignment: { adding: 0, removing: 0 },
        };
        views.set(id, v);
      }
      return v;
    };
    for (const b of read.brokers) Object.assign(view(b.id), { host: b.host, port: b.port, rack: b.rack, live: true });
    for (const t of read.placement) {
      for (const p of t.partitions) {
        for (const b of p.replicas) view(b).replicas++;
        if (p.leader >= 0) view(p.leader).leaders++;
        if (p.replicas.length > 0) view(p.replicas[0]).preferredLeaders++;
        const isr = (p as { isr?: readonly number[] }).isr;
        if (isr && isr.length < p.replicas.length) {
          // As Kafka's Partition.isUnderReplicated: a move's adding replicas do not count (OngoingReassignmentState.replicationFactor).
          const adding = addingOf?.get(partitionKey(t.name, p.partition));
          if (p.leader >= 0 && isr.length < p.replicas.length - (adding?.length ?? 0))
            view(p.leader).underReplicated = (view(p.leader).underReplicated ?? 0) + 1;
          for (const b of p.replicas)
            if (!isr.includes(b) && !adding?.includes(b)) view(b).outOfSyncReplicas = (view(b).outOfSyncReplicas ?? 0) + 1;
        }
      }
    }
    if (withIsr)
      for (const v of views.values())
        Object.assign(v, { underReplicated: v.underReplicated ?? 0, outOfSyncReplicas: v.outOfSyncReplicas ?? 0 });
    for (const m of read.moving) {
      for (const b of m.adding) view(b).reassignment.adding++;
      for (const b of m.removing) view(b).reassignment.removing++;
    }
    for (const d of read.logDirs) {
      if (!d.ok) continue;
      let sum = 0;
      for (const size of d.sizes.values()) sum += size;
      view(d.broker).bytes = sum;
    }
    return { brokers: [...views.values()].sort((a, b) => a.id - b.id), sizeErrors: sizeErrors(read.logDirs) };
  }

  /** `isr`: the placement with ISRs where the Kafka layer reads them (GET /brokers), else placement only. */
  async #read(isr = false): Promise<ClusterRead> {
    const health = isr ? this.#kafka.describeReplicaHealth?.bind(this.#kafka) : undefined;
    const [cluster, placement, moving] = await Promise.all([
      this.#kafka.describeCluster(),
      health ? health().then((h) => h.topics) : this.#kafka.describePartitions(null),
      this.#kafka.listPartitionReassignments(),
    ]);
    const partitions = placement.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition })));
    const logDirs =
      partitions.length === 0
        ? []
        : await this.#kafka.describeReplicaSizes(
            cluster.brokers.map((b) => b.id),
            partitions,
          );
    return { brokers: cluster.brokers, placement, moving, logDirs };
  }
}

function sizeErrors(logDirs: BrokerLogDirs[]): { broker: number; error: KafkaErrorInfo }[] {
  return logDirs.filter((d): d is Extract<BrokerLogDirs, { ok: false }> => !d.ok).map((d) => ({ broker: d.broker, error: d.error }));
}

/**
 * The planner's input. A partition's size is the largest of its replicas' sizes (the leader's,
 * unless a follower is ahead of a stale answer); unknown when no replica's broker answered.
 * A moving partition is reported with its original replicas (Metadata lists target ++ removing).
 */
export function toPlanCluster(read: Pick<ClusterRead, 'brokers' | 'placement' | 'moving' | 'logDirs'>): PlanCluster {
  return drain(toPlanClusterSteps(read));
}

/** toPlanCluster in steps (a yield every 2,048 partitions). */
export function* toPlanClusterSteps(read: Pick<ClusterRead, 'brokers' | 'placement' | 'moving' | 'logDirs'>): Steps<PlanCluster> {
  // Sizes are looked up in each holder's own answer (Metadata's replicas name every broker that
  // holds the partition, moving ones included): no merged map of every replica to build.
  const sizesOf = new Map<number, ReadonlyMap<string, number>>();
  for (const d of read.logDirs) if (d.ok) sizesOf.set(d.broker, d.sizes);
  const sizeOf = (key: string, replicas: readonly number[]): number | null => {
    let size: number | null = null;
    for (const b of replicas) {
      const s = sizesOf.get(b)?.get(key);
      if (s !== undefined) size = Math.max(size ?? 0, s);
    }
    return size;
  };
  let n = 0;
  const moving = new Map<string, MovingPartition>();
  for (const m of read.moving) moving.set(replicaKey(m.topic, m.partition), m);
  const topics: PlanTopic[] = [];
  for (const t of read.placement) {
    const partitions: PlanTopic['partitions'][number][] = [];
    for (const p of t.partitions) {
      const key = replicaKey(t.name, p.partition);
      const m = moving.get(key);
      partitions.push({
        partition: p.partition,
        replicas: m ? p.replicas.filter((b) => !m.adding.includes(b)) : p.replicas,
        bytes: sizeOf(key, p.replicas),
        ...(m && { moving: true }),
      });
      if ((++n & 2047) === 0) yield;
    }
    topics.push({ name: t.name, partitions });
  }
  return { brokers: read.brokers.map((b) => ({ id: b.id, rack: b.rack })), topics };
}
