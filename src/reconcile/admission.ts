// Admission of a new reassignment when several gateway instances accept requests at once.
// Validation (the domain's) reads Kafka's moves and the state view and answers 409 for a
// partition already moving; between that read and the record's write another instance may
// admit an overlapping reassignment (check-then-act). The state topic arbitrates: the request
// claims its partitions (`partition/<topic>:<p>`, src/state/claims.ts) and the first claim in
// the state topic's order wins. Holding the claim, it checks the fresh view once more (a
// reassignment admitted just before ours, still pending, is not in Kafka's moves yet) and the
// caller writes its record in the same batch as the claim's release. The loser answers 409 and
// writes nothing but its claim's tombstone.
import { KAFKA_ERRORS, type PartitionError } from '../domain/reassignment/index.js';
import type { DecidedClaim } from '../state/claims.js';
import type { StateStore, StateView } from '../state/store.js';
import { activePartitions, isLive, partitionId } from './ownership.js';

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
  // FNV-1a over `topic:partition`.
  let h = 0x811c9dc5;
  const key = `${topic}:${partition}`;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `partition-bucket/${h % PARTITION_BUCKETS}`;
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
): Promise<Admission> {
  const resources = [...new Set(req.partitions.map((p) => partitionResource(p.topic, p.partition)))];
  const claimed = await store.claim(resources, { purpose: reassignmentPurpose(req.id), owner: req.owner, ttlMs: ADMISSION_LEASE_MS });
  const indexOf = new Map(req.partitions.map((p, i) => [partitionId(p.topic, p.partition), i]));
  const conflict = (topic: string, partition: number, who: string | null, message: string): PartitionError => ({
    topic,
    partition,
    index: indexOf.get(partitionId(topic, partition)) ?? null,
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
        .map((p) => conflict(p.topic, p.partition, who, `${p.topic}-${p.partition} may be claimed by another reassignment${who ? ` (${who})` : ''} being accepted at the same moment by gateway instance ${holder?.owner ?? 'unknown'}. Retry in a moment; if it is moving then, set addToExisting to true to replace its move.`)),
    };
  }
  const view = store.view();
  if (!req.addToExisting) {
    const wanted = new Set(req.partitions.map((p) => partitionId(p.topic, p.partition)));
    const errors: PartitionError[] = [];
    for (const r of view.reassignments.values()) {
      // Running when validation looked (and its partition not moving then): its move is over.
      if (!isLive(r) || r.id === req.id || req.validated.get(r.id) === 'running') continue;
      for (const p of activePartitions(r)) {
        if (wanted.has(partitionId(p.topic, p.partition))) {
          errors.push(conflict(p.topic, p.partition, r.id, `${p.topic}-${p.partition} was just taken by reassignment ${r.id} (${r.state}). Set addToExisting to true to replace its move.`));
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
