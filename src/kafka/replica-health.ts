// The health interlocks' read (issue 30): one Metadata request for every topic, with ISR lists,
// and the brokers it lists as live. describePartitions skips the ISR (its callers want placement
// only); this one keeps it. Read once per reconcile pass while a reassignment that can be held
// runs (src/reconcile/health.ts), at a paced start (it can be held), and by GET /brokers.
// describePlacementAndHealth: an unpaced start's placement read, whose same bytes also give the
// health of its own topics (its warning), with no second request.
import type { Connection } from '@platformatic/kafka';
import { decodeReplicaHealthSteps, type HealthAnswer } from './apis/metadata-health.js';
import { decodeMetadataSteps, encodeMetadataRequest, placementOf, sendRaw, type TopicPartitions } from './apis/metadata.js';
import { NONE } from './errors-map.js';
import type { RequestSender } from './request.js';
import { inSlices } from './wire/slices.js';

/** See HealthAnswer: `topics` lists every partition, or (`onlyTroubled`) only those without a leader or with a short ISR. */
export type ReplicaHealth = HealthAnswer;

/** `onlyTroubled`: a compact read (apis/metadata-health.ts), the interlocks' passes and starts. */
export interface ReplicaHealthOptions {
  onlyTroubled?: boolean;
}

const EVERY_TOPIC = encodeMetadataRequest(null);

/** `topics`: only these (unknown ones left out); absent or null = every topic. */
export async function describeReplicaHealth(
  kafka: RequestSender,
  topics?: readonly string[] | null,
  opts: ReplicaHealthOptions = {},
): Promise<ReplicaHealth> {
  const body = topics ? encodeMetadataRequest([...new Set(topics)]) : EVERY_TOPIC;
  const onlyTroubled = opts.onlyTroubled ?? false;
  // Partitions without a leader answer LEADER_NOT_AVAILABLE: what this read looks for, not a failure.
  return kafka.sendRequest(
    'Metadata',
    'any',
    async (conn: Connection) => {
      const { answer, version } = await sendRaw(conn, body);
      return inSlices(decodeReplicaHealthSteps(answer, version, onlyTroubled));
    },
    () => NONE,
  );
}

/** Placement of some topics, and the compact health of the same topics (onlyTroubled), from one answer. */
export interface PlacementAndHealth {
  placement: TopicPartitions[];
  health: ReplicaHealth;
}

/**
 * describePartitions of `topics` (unknown ones left out) that also answers their health: the
 * one Metadata answer is decoded twice, placement then the compact health read
 * (apis/metadata-health.ts, onlyTroubled). At 100,000 partitions the second decode is a few ms;
 * a second request of the same topics would be encoded by the broker and sent again.
 */
export async function describePlacementAndHealth(kafka: RequestSender, topics: readonly string[]): Promise<PlacementAndHealth> {
  const body = encodeMetadataRequest([...new Set(topics)]);
  return kafka.sendRequest(
    'Metadata',
    'any',
    async (conn: Connection) => {
      const { answer, version } = await sendRaw(conn, body);
      const start = answer.pos;
      const placement = placementOf(await inSlices(decodeMetadataSteps(answer, 'replicas', version)));
      answer.pos = start;
      return { placement, health: await inSlices(decodeReplicaHealthSteps(answer, version, true)) };
    },
    // Unknown topics are an expected answer here (the start's validation reports them).
    () => NONE,
  );
}
