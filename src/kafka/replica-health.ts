// The health interlocks' read (issue 30): one Metadata request for every topic, with ISR lists,
// and the brokers it lists as live. describePartitions skips the ISR (its callers want placement
// only); this one keeps it. Read once per reconcile pass while a reassignment that can be held
// runs (src/reconcile/health.ts), never otherwise.
import { metadataRequest, type PartitionPlacement } from './apis/metadata.js';
import { NONE } from './errors-map.js';
import type { RequestSender } from './request.js';

export interface ReplicaHealth {
  /** Broker ids Metadata lists (live brokers). */
  brokers: number[];
  /** Topics without a topic-level error; partitions in the answer's order. */
  topics: { name: string; partitions: PartitionPlacement[] }[];
}

const EVERY_TOPIC = metadataRequest(null);

/** `topics`: only these (unknown ones left out); absent or null = every topic. */
export async function describeReplicaHealth(kafka: RequestSender, topics?: readonly string[] | null): Promise<ReplicaHealth> {
  // Partitions without a leader answer LEADER_NOT_AVAILABLE: what this read looks for, not a failure.
  const res = await kafka.sendRequest('Metadata', 'any', topics ? metadataRequest([...new Set(topics)]) : EVERY_TOPIC, () => NONE);
  const out: ReplicaHealth['topics'] = [];
  for (const t of res.topics) if (t.errorCode === 0 && t.name != null) out.push({ name: t.name, partitions: t.partitions });
  return { brokers: res.brokers.map((b) => b.nodeId), topics: out };
}
