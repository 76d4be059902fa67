// Leader elections (POST /leaders/elections, and the elections a reassignment holds as its
// partitions complete): the request's checks, which partitions need an election, batching,
// and what each of Kafka's answers means. Pure: plain data in, plain data out.
//
// Kafka's answers per partition (ReplicationControlManager.electLeader): 0 a leader was elected,
// 84 ELECTION_NOT_NEEDED (the preferred replica already leads; unclean: the partition has a
// leader), 80 PREFERRED_LEADER_NOT_AVAILABLE (the first replica is down or out of the ISR), 83
// ELIGIBLE_LEADERS_NOT_AVAILABLE (unclean: no replica is up), 3 UNKNOWN_TOPIC_OR_PARTITION.
import { ERROR_CODES } from './kafka-error-codes.js';

export type ElectionKind = 'preferred' | 'unclean';

/** The confirmation an unclean election needs: it may elect a replica that lacks acknowledged writes. */
export const UNCLEAN_CONFIRMATION = 'unclean-election-may-lose-data';

export type ElectionScope =
  | { kind: 'partitions'; partitions: readonly { topic: string; partition: number }[] }
  | { kind: 'topics'; topics: readonly string[] }
  | { kind: 'all' };

export interface ElectionRequest {
  type: ElectionKind;
  scope: ElectionScope;
}

export interface ElectionRequestBody {
  type?: unknown;
  partitions?: unknown;
  topics?: unknown;
  all?: unknown;
  confirm?: unknown;
}

export interface FieldError {
  path: string;
  message: string;
}

/** At most this many partitions in one `partitions` list (a larger scope is `topics` or `all`). */
export const MAX_LISTED_PARTITIONS = 10_000;

/**
 * The body's checks beyond the schema: exactly one scope; an unclean election only with the
 * confirmation; no partition named twice (one answer per partition).
 */
export function parseElectionRequest(
  body: ElectionRequestBody,
): { ok: true; request: ElectionRequest } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const type = body.type;
  if (type !== 'preferred' && type !== 'unclean') errors.push({ path: '/body/type', message: "type must be 'preferred' or 'unclean'" });
  const scopes = (['partitions', 'topics', 'all'] as const).filter((k) => body[k] !== undefined);
  if (scopes.length !== 1) {
    errors.push({
      path: '/body',
      message: `name exactly one scope: partitions, topics or all (${scopes.length === 0 ? 'none was given' : `got ${scopes.join(', ')}`})`,
    });
  }
  if (type === 'unclean' && body.confirm !== UNCLEAN_CONFIRMATION) {
    errors.push({
      path: '/body/confirm',
      message: `an unclean election may elect a replica that lacks acknowledged writes (data loss): set confirm to '${UNCLEAN_CONFIRMATION}'`,
    });
  }
  if (body.all !== undefined && body.all !== true) errors.push({ path: '/body/all', message: 'all must be true' });
  let scope: ElectionScope | null = null;
  if (scopes.length === 1 && scopes[0] === 'partitions') {
    const list = Array.isArray(body.partitions) ? (body.partitions as { topic: string; partition: number }[]) : [];
    if (list.length === 0) errors.push({ path: '/body/partitions', message: 'partitions must name at least one partition' });
    if (list.length > MAX_LISTED_PARTITIONS)
      errors.push({ path: '/body/partitions', message: `at most ${MAX_LISTED_PARTITIONS} partitions: name topics, or all` });
    const seen = new Set<string>();
    list.forEach((p, i) => {
      const key = `${p.topic}\u0000${p.partition}`;
      if (seen.has(key)) errors.push({ path: `/body/partitions/${i}`, message: `${p.topic}-${p.partition} is named twice` });
      seen.add(key);
    });
    scope = { kind: 'partitions', partitions: list };
  } else if (scopes.length === 1 && scopes[0] === 'topics') {
    const list = Array.isArray(body.topics) ? (body.topics as string[]) : [];
    if (list.length === 0) errors.push({ path: '/body/topics', message: 'topics must name at least one topic' });
    const seen = new Set<string>();
    list.forEach((t, i) => {
      if (seen.has(t)) errors.push({ path: `/body/topics/${i}`, message: `topic ${t} is named twice` });
      seen.add(t);
    });
    scope = { kind: 'topics', topics: list };
  } else if (scopes.length === 1) {
    scope = { kind: 'all' };
  }
  if (errors.length > 0 || scope === null) return { ok: false, errors };
  return { ok: true, request: { type: type as ElectionKind, scope } };
}

export type ElectionOutcomeKind = 'elected' | 'not-needed' | 'not-available' | 'unknown' | 'failed';

/** The errors of an election's answer this module tells apart (from Kafka's table, ./kafka-error-codes.ts). */
export const ELECTION_CODES = {
  UNKNOWN_TOPIC_OR_PARTITION: ERROR_CODES.UNKNOWN_TOPIC_OR_PARTITION,
  NOT_CONTROLLER: ERROR_CODES.NOT_CONTROLLER,
  PREFERRED_LEADER_NOT_AVAILABLE: ERROR_CODES.PREFERRED_LEADER_NOT_AVAILABLE,
  ELIGIBLE_LEADERS_NOT_AVAILABLE: ERROR_CODES.ELIGIBLE_LEADERS_NOT_AVAILABLE,
  ELECTION_NOT_NEEDED: ERROR_CODES.ELECTION_NOT_NEEDED,
} as const;

/** What one partition's answer means. */
export function outcomeOf(code: number): ElectionOutcomeKind {
  switch (code) {
    case 0:
      return 'elected';
    case ELECTION_CODES.ELECTION_NOT_NEEDED:
      return 'not-needed';
    case ELECTION_CODES.PREFERRED_LEADER_NOT_AVAILABLE:
    case ELECTION_CODES.ELIGIBLE_LEADERS_NOT_AVAILABLE:
      return 'not-available';
    case ELECTION_CODES.UNKNOWN_TOPIC_OR_PARTITION:
      return 'unknown';
    default:
      return 'failed';
  }
}

export interface ElectionSummary {
  /** Partitions in the request's scope. */
  partitions: number;
  elected: number;
  notNeeded: number;
  notAvailable: number;
  unknown: number;
  failed: number;
}

export function emptySummary(): ElectionSummary {
  return { partitions: 0, elected: 0, notNeeded: 0, notAvailable: 0, unknown: 0, failed: 0 };
}

const SUMMARY_FIELD: Record<ElectionOutcomeKind, keyof ElectionSummary> = {
  elected: 'elected',
  'not-needed': 'notNeeded',
  'not-available': 'notAvailable',
  unknown: 'unknown',
  failed: 'failed',
};

/** Counts one answer into `s`. */
export function count(s: ElectionSummary, outcome: ElectionOutcomeKind, n = 1): void {
  s[SUMMARY_FIELD[outcome]] += n;
}

/** A partition's placement, as Metadata tells it. */
export interface LeaderPlacement {
  partition: number;
  /** -1: none. */
  leader: number;
  replicas: readonly number[];
}

/**
 * Whether Metadata shows that an election of this type could change something: preferred,
 * the leader is not the first replica; unclean, there is no leader. Kafka decides (a stale
 * read costs an ELECTION_NOT_NEEDED answer, never a wrong election).
 */
export function needsElection(type: ElectionKind, p: LeaderPlacement): boolean {
  return type === 'preferred' ? p.replicas.length > 0 && p.leader !== p.replicas[0] : p.leader === -1;
}

/** `items` in consecutive slices of at most `size` (the requests of one election). */
export function* batches<T>(items: readonly T[], size: number): Generator<readonly T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/**
 * A reassignment's leader elections (`electLeaders: true`): what Kafka answered for its
 * completed partitions so far, and how many of them still wait for their preferred replica to
 * lead. Kept on the record's header (src/state/records.ts), written by
 * src/reconcile/leader-elections.ts.
 */
export interface LeaderElectionTally {
  /** Completed partitions whose first replica leads now (elected, or it already led). */
  elected: number;
  /** Completed partitions still waiting for an election (next passes). */
  pending: number;
  /** Given up: the preferred replica was not available (down or out of the ISR) pass after pass, or Kafka refused. */
  failed: number;
  /** Completed partitions of the record when this was counted. */
  completed: number;
  /** The last refusal Kafka gave (name, code, message), if any. */
  lastError?: { name: string; code: number; message: string; topic: string; partition: number };
  updatedAt: number;
}

/** Times a completed partition's preferred election is tried (one per pass) before it counts as failed. */
export const ELECTION_ATTEMPTS = 3;

/** Where a reassignment's partition is with its election (per index into the record's partitions). */
export const ELECTION_STATUS = { NONE: 0, LEADING: 1, FAILED: 2 } as const;

/**
 * The next partitions to send for a preferred election, at most `limit`: completed (not
 * superseded), not answered yet (`status` NONE). Indexes into `partitions`. Pure.
 */
export function nextElections(
  partitions: readonly { state: string; supersededBy?: string }[],
  status: Uint8Array,
  limit: number,
): number[] {
  const out: number[] = [];
  for (let i = 0; i < partitions.length && out.length < limit; i++) {
    const p = partitions[i];
    if (p.state === 'completed' && !p.supersededBy && status[i] === ELECTION_STATUS.NONE) out.push(i);
  }
  return out;
}

/** The tally from the statuses: completed partitions leading, failed, the rest pending. */
export function tallyOf(
  partitions: readonly { state: string; supersededBy?: string }[],
  status: Uint8Array,
): { elected: number; failed: number; pending: number; completed: number } {
  let elected = 0;
  let failed = 0;
  let completed = 0;
  for (let i = 0; i < partitions.length; i++) {
    const p = partitions[i];
    if (p.state !== 'completed' || p.supersededBy) continue;
    completed++;
    if (status[i] === ELECTION_STATUS.LEADING) elected++;
    else if (status[i] === ELECTION_STATUS.FAILED) failed++;
  }
  return { elected, failed, pending: completed - elected - failed, completed };
}
