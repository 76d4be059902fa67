// The health interlocks' read (issue 30): one Metadata request for every topic, with ISR lists,
// and the brokers it lists as live. describePartitions skips the ISR (its callers want placement
// only); this one keeps it. Read once per reconcile pass while a reassignment that can be held
// runs (src/reconcile/health.ts), at a start that can be held, and by GET /brokers.
import type { Connection } from '@platformatic/kafka';
import { decodeReplicaHealthSteps, type HealthAnswer } from './apis/metadata-health.js';
import { encodeMetadataRequest, sendRaw } from './apis/metadata.js';
import { NONE } from './errors-map.js';
import type { RequestSender } from './request.js';
import { inSlices } from './wire/slices.js';

/** See HealthAnswer: `topics` lists every partition, or (a compact read) every one of the topics asked complete and the troubled ones of the others. */
export type ReplicaHealth = HealthAnswer;

/** Which partitions a read lists: `complete` names the topics listed with every partition; of the others only those without a leader or with a short ISR. */
export interface ReplicaHealthListing {
  complete: ReadonlySet<string>;
}

const EVERY_TOPIC = encodeMetadataRequest(null);
const EVERY = { has: () => true };

/**
 * `topics`: only these (unknown ones left out); absent or null = every topic. `listing`: a
 * compact read (see ReplicaHealthListing); absent: every partition listed.
 */
export async function describeReplicaHealth(
  kafka: RequestSender,
  topics?: readonly string[] | null,
  listing?: ReplicaHealthListing,
): Promise<ReplicaHealth> {
  const body = topics ? encodeMetadataRequest([...new Set(topics)]) : EVERY_TOPIC;
  const complete = listing?.complete ?? EVERY;
  // Partitions without a leader answer LEADER_NOT_AVAILABLE: what this read looks for, not a failure.
  return kafka.sendRequest(
    'Metadata',
    'any',
    async (conn: Connection) => {
      const { answer, version } = await sendRaw(conn, body);
      return inSlices(decodeReplicaHealthSteps(answer, version, complete));
    },
    () => NONE,
  );
}
