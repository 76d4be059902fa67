// Admission of a new reassignment when several gateway instances accept requests at once.
// Validation (the domain's) reads Kafka's moves and the state view and answers 409 for a
// partition already moving; between that read and the record's write another instance may
// admit an overlapping reassignment (check-then-act). The state topic arbitrates: the request
// claims its partitions (`partition/<topic>:<p>`, src/state/claims.ts) and the first claim in
// the state topic's order wins. Holding the claim, it checks the fresh view once more (a
// reassignment admitted just before ours, still pending, is not in Kafka's moves yet) and the
// caller writes its record in the same batch as the claim's release. The loser answers 409 and
// writes nothing but its claim's tombstone.
import { KAFKA_ERRORS, PartitionMap, type PartitionError } from '../../domain/reassignment/index.js';
import type { DecidedClaim } from '../../state/claims.js';
import type { StateStore, StateView } from '../../state/store.js';
import { activePartitions, isLive } from '../../reconcile/ownership.js';

/** How long an admission may hold its partitions before its record is written. */
const ADMISSION_LEASE_MS = 60_000;

/**
 * Claims name partition BUCKETS, not partitions: a claim record must stay bounded whatever the
 * reassignment's size (100,000 partition names would be ~2.5 MB, over Kafka's message limit),
 * so a partition claims `partition-bucket/<hash(topic:partition) mod PARTITION_BUCKETS>` (at most
 * 8192 names, ~130 KB). Two requests with a partition in common always share its bucket, so
 * exclusion holds; two disjoint requests admitted at the same moment may share a bucket by
 * chance (1 in 8192 for single partitions, likely for very large ones): the later one answers
 * 409 and a retry succeeds, since the claim is released as soon as the record is written.
 */
export const PARTITION_BUCKETS = 8192;
export function partitionResource(topic: string, partition: number): string {
  return `partition-bucket/${bucketOf(topicHash(topic), partition)}`;
}

// FNV-1a over `topic:partition`, in two parts: the topic's (with the ':') once per topic, then
// the partition's decimal digits, so that 100,000 partitions build no `topic:partition` string.
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
function topicHash(topic: string): number {
  let h = FNV_OFFSET;
  const key = `${topic}:`;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME) >>> 0;
  }
  return h;
}
function bucketOf(topicHashed: number, partition: number): number {
  let h = topicHashed;
  const digits = String(partition);
  for (let i = 0; i < digits.length; i++) {
    h ^= digits.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME) >>> 0;
  }
  return h % PARTITION_BUCKETS;
}

/** The bucket resources of `partitions`, each once, in order of first appearance. */
export async function bucketResources(
  partitions: readonly { topic: string; partition: number }[],
  pace: () => Promise<void>,
): Promise<string[]> {
  const seen = new Uint8Array(PARTITION_BUCKETS);
  const out: string[] = [];
  let topic: string | null = null;
  let hashed = 0;
  for (let i = 0; i < partitions.length; i++) {
    const p = partitions[i];
    if (p.topic !== topic) {
      topic = p.topic;
      hashed = topicHash(topic);
    }
    const b = bucketOf(hashed, p.partition);
    if (!seen[b]) {
      seen[b] = 1;
      out.push(`partition-bucket/${b}`);
    }
    if (i % 2048 === 0) await pace();
  }
  return out;
}
const reassignmentPurpose = (id: string): string => `reassignment/${id}`;

export type Admission = { ok: true; claim: DecidedClaim; view: StateView } | { ok: false; errors: PartitionError[] };

export async function admitReassignment(
  store: StateStore,
  req: {
    id: string;
    owner: string;
    partitions: readonly { topic: string; partition: number }[];
    /** The request replaces running moves on purpose: other records' partitions are not conflicts. */
    addToExisting: boolean;
    /** Live records as validation saw them (id -> state): a record already running then passed validation. */
    validated: ReadonlyMap<string, string>;
  },
  /** Gives the event loop a turn in long loops (makePacer); default: never. */
  pace: () => Promise<void> = () => Promise.resolve(),
): Promise<Admission> {
  const resources = await bucketResources(req.partitions, pace);
  const claimed = await store.claim(resources, { purpose: reassignmentPurpose(req.id), owner: req.owner, ttlMs: ADMISSION_LEASE_MS });
  // Request positions, for errors only (built on the first one).
  let indexOf: PartitionMap<number> | null = null;
  const indexOfPartition = (topic: string, partition: number): number | null => {
    if (!indexOf) {
      indexOf = new PartitionMap<number>();
      // Last occurrence wins, as a Map built from the list would have it.
      req.partitions.forEach((p, i) => indexOf!.set(p.topic, p.partition, i));
    }
    return indexOf.get(topic, partition) ?? null;
  };
  const conflict = (topic: string, partition: number, who: string | null, message: string): PartitionError => ({
    topic,
    partition,
    index: indexOfPartition(topic, partition),
    code: 'REASSIGNMENT_CONFLICT',
    message,
    kafkaError: KAFKA_ERRORS.REASSIGNMENT_IN_PROGRESS,
    conflictingReassignmentId: who,
  });
  if (!claimed.granted) {
    const holder = claimed.holder;
    const who = holder?.purpose.startsWith('reassignment/') ? holder.purpose.slice('reassignment/'.length) : null;
    const held = new Set(holder?.resources ?? resources);
    return {
      ok: false,
      errors: req.partitions
        .filter((p) => held.has(partitionResource(p.topic, p.partition)))
        .map((p) =>
          conflict(
            p.topic,
            p.partition,
            who,
            `${p.topic}-${p.partition} may be claimed by another reassignment${who ? ` (${who})` : ''} being accepted at the same moment by gateway instance ${holder?.owner ?? 'unknown'}. Retry in a moment; if it is moving then, set addToExisting to true to replace its move.`,
          ),
        ),
    };
  }
  const view = store.view();
  // Running when validation looked (and its partition not moving then): its move is over.
  const others = req.addToExisting
    ? []
    : [...view.reassignments.values()].filter((r) => isLive(r) && r.id !== req.id && req.validated.get(r.id) !== 'running');
  if (others.length > 0) {
    const wanted = new PartitionMap<true>();
    for (let i = 0; i < req.partitions.length; i++) {
      wanted.set(req.partitions[i].topic, req.partitions[i].partition, true);
      if (i % 2048 === 0) await pace();
    }
    const errors: PartitionError[] = [];
    for (const r of others) {
      for (const p of activePartitions(r)) {
        if (wanted.has(p.topic, p.partition)) {
          errors.push(
            conflict(
              p.topic,
              p.partition,
              r.id,
              `${p.topic}-${p.partition} was just taken by reassignment ${r.id} (${r.state}). Set addToExisting to true to replace its move.`,
            ),
          );
        }
      }
    }
    if (errors.length) {
      await store.release(claimed.claim);
      return { ok: false, errors };
    }
  }
  return { ok: true, claim: claimed.claim, view };
}
