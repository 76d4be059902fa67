// POST /reassignments bodies: the gateway's own shape and the exact file of
// kafka-reassign-partitions.sh, normalised into one ReassignmentRequest.
//
// This is shape and type normalisation only (what a JSON file alone can tell). Everything that
// needs the request as a whole or the cluster (empty list, duplicates, unknown brokers, topics,
// replication-factor rules, conflicts) is validateReassignment's job (plan.ts), so that all of
// those errors come back together, per partition.
//
// Kafka's reference: ReassignPartitionsCommand.parsePartitionReassignmentData and
// formatAsReassignmentJson (tools/src/main/java/org/apache/kafka/tools/reassign/).

import { internReplicaList } from '../replica-list.js';
import type { PartitionAssignment } from './types.js';
import { PACING_ORDERS, type ConcurrencyBounds, type PacingOrder } from './pacing.js';
import { drain as runSteps, STEP_ITEMS, type Steps } from '../steps.js';
import { parseSafety, type Safety } from './health.js';
import type { ThrottleBounds } from './deadline.js';
import { parseFinishBy, parseThrottleBounds } from './deadline-request.js';
import { parseOrigin, type ReassignmentOrigin } from './origin.js';

/** `throttle` is bytes/s for both the leader and follower rates; below this it is a typo. */
export const MIN_THROTTLE_BYTES_PER_SECOND = 1024;
/** The only version of the reassignment file format Kafka has ever defined. */
export const REASSIGNMENT_FILE_VERSION = 1;
/** Kafka's ANY_LOG_DIR: "no particular log directory". */
export const ANY_LOG_DIR = 'any';

const MAX_INT32 = 2 ** 31 - 1;

/** Where a body came from: the gateway's JSON or kafka-reassign-partitions.sh's file. */
export type ReassignmentRequestFormat = 'gateway' | 'kafka-reassign-partitions';

/** A POST /reassignments body after normalisation. */
export interface ReassignmentRequest {
  /** Target replicas, in request order, duplicates kept (validateReassignment reports them). */
  readonly partitions: readonly PartitionAssignment[];
  /** Bytes/s for leader and follower rates; null = no throttle. */
  readonly throttle: number | null;
  /** Remove the throttles this reassignment sets when it ends (default true). */
  readonly autoRemoveThrottle: boolean;
  /** Elect each partition's preferred leader (first target replica) once its move completes (default false). */
  readonly electLeaders?: boolean;
  /** Answer with the plan and change nothing (default false). */
  readonly validateOnly: boolean;
  /** Partitions already moving may be re-targeted instead of answering 409 (default false). */
  readonly addToExisting: boolean;
  /** Paced execution (issue 9): bounds on moves in flight; null = absent (the gateway's default applies). */
  readonly concurrency: ConcurrencyBounds | null;
  /** Queue order of a paced execution; null = absent (size-asc). */
  readonly order: PacingOrder | null;
  /** Deadline pacing (issue 30): finish by this time (epoch ms), the gateway picking the throttle; null = absent. */
  readonly finishBy: number | null;
  /** The rates a deadline may pick from; null = absent (DEFAULT_THROTTLE_BOUNDS). Only with finishBy. */
  readonly throttleBounds: ThrottleBounds | null;
  /** Health interlocks (issue 30): null = absent (DEFAULT_SAFETY), `off`, or the caller's policy. */
  readonly safety?: Safety | null;
  /** Where it came from (a plan's goal or the caller's label, origin.ts); absent or null = none ("manual"). */
  readonly origin?: ReassignmentOrigin | null;
  readonly format: ReassignmentRequestFormat;
}

/** One problem with one field; `path` is a JSON Pointer into the body (`/partitions/2/replicas/1`). */
export interface FieldError {
  readonly path: string;
  readonly code: FieldErrorCode;
  readonly message: string;
}

export type FieldErrorCode =
  | 'INVALID_BODY'
  | 'REQUIRED'
  | 'INVALID_TYPE'
  | 'OUT_OF_RANGE'
  | 'UNSUPPORTED_VERSION'
  | 'LOG_DIRS_SIZE_MISMATCH'
  | 'LOG_DIR_NOT_ABSOLUTE'
  | 'MUTUALLY_EXCLUSIVE'
  | 'DEADLINE_TOO_CLOSE';

export type ParseReassignmentResult =
  { readonly ok: true; readonly request: ReassignmentRequest } | { readonly ok: false; readonly errors: readonly FieldError[] };

/** One entry of kafka-reassign-partitions.sh's file (keys and their order as Kafka writes them). */
export interface ReassignmentFileEntry {
  readonly topic: string;
  readonly partition: number;
  readonly replicas: readonly number[];
  readonly log_dirs: readonly string[];
}

/** kafka-reassign-partitions.sh's file: `--reassignment-json-file`, usable for a rollback. */
export interface ReassignmentFile {
  readonly version: typeof REASSIGNMENT_FILE_VERSION;
  readonly partitions: readonly ReassignmentFileEntry[];
}

/**
 * Normalise a POST /reassignments body. Accepts
 * - `{"partitions":[{"topic","partition","replicas"}],"throttle","autoRemoveThrottle","validateOnly","addToExisting"}`
 * - Kafka's file `{"version":1,"partitions":[{"topic","partition","replicas","log_dirs"}]}`, where
 *   each log dir is `"any"` or an absolute path on the replica's broker (an intra-broker move,
 *   AlterReplicaLogDirs), optionally with the gateway's options beside `version`. `log_dirs` is
 *   accepted in the gateway's shape too.
 * Every problem is reported (not just the first); nothing is deduplicated or reordered.
 */
export function parseReassignmentRequest(body: unknown): ParseReassignmentResult {
  return runSteps(parseReassignmentRequestSteps(body));
}

/** parseReassignmentRequest in steps (plan.ts Steps): the same result, yielding every STEP_ITEMS partitions. */
export function* parseReassignmentRequestSteps(body: unknown): Steps<ParseReassignmentResult> {
  const errors: FieldError[] = [];
  if (!isObject(body)) {
    return { ok: false, errors: [{ path: '', code: 'INVALID_BODY', message: 'The body must be a JSON object.' }] };
  }

  let format: ReassignmentRequestFormat = 'gateway';
  if (body.version !== undefined) {
    format = 'kafka-reassign-partitions';
    if (body.version !== REASSIGNMENT_FILE_VERSION) {
      // Kafka: AdminOperationException("Not supported version field value " + version)
      errors.push({
        path: '/version',
        code: 'UNSUPPORTED_VERSION',
        message: `Not supported version field value ${JSON.stringify(body.version)}: the reassignment file format has only version 1.`,
      });
    }
  }

  let partitions: PartitionAssignment[] = [];
  if (body.partitions === undefined) {
    errors.push({ path: '/partitions', code: 'REQUIRED', message: 'partitions is required: a list of {topic, partition, replicas}.' });
  } else if (!Array.isArray(body.partitions)) {
    errors.push({ path: '/partitions', code: 'INVALID_TYPE', message: 'partitions must be an array of {topic, partition, replicas}.' });
  } else {
    const entries: unknown[] = body.partitions;
    // Sized at once (push would copy the growing array of 100,000 a few times over).
    partitions = new Array<PartitionAssignment>(entries.length);
    let n = 0;
    for (let i = 0; i < entries.length; i++) {
      // The common entry is checked without building a path or a copy; anything else is parseEntry's.
      const parsed = plainEntry(entries[i]) ?? parseEntry(entries[i], `/partitions/${i}`, errors);
      if (parsed) partitions[n++] = parsed;
      if ((i + 1) % STEP_ITEMS === 0) yield;
    }
    partitions.length = n;
  }

  const throttle = parseThrottle(body.throttle, errors);
  const autoRemoveThrottle = parseBoolean(body, 'autoRemoveThrottle', true, errors);
  const electLeaders = parseBoolean(body, 'electLeaders', false, errors);
  const validateOnly = parseBoolean(body, 'validateOnly', false, errors);
  const addToExisting = parseBoolean(body, 'addToExisting', false, errors);
  const concurrency = parseConcurrency(body.concurrency, '/concurrency', errors);
  let order: PacingOrder | null = null;
  if (body.order !== undefined) {
    if (typeof body.order === 'string' && (PACING_ORDERS as readonly string[]).includes(body.order)) order = body.order as PacingOrder;
    else errors.push({ path: '/order', code: 'INVALID_TYPE', message: `order must be one of ${PACING_ORDERS.join(', ')}.` });
  }

  // Deadline pacing: the gateway picks the throttle, so a fixed one cannot come with it.
  const finishBy = parseFinishBy(body.finishBy, errors);
  const throttleBounds = parseThrottleBounds(body.throttleBounds, '/throttleBounds', errors);
  if (body.finishBy !== undefined && body.finishBy !== null && body.throttle !== undefined && body.throttle !== null) {
    errors.push({
      path: '/throttle',
      code: 'MUTUALLY_EXCLUSIVE',
      message: 'throttle and finishBy are mutually exclusive: with finishBy the gateway picks the throttle (bound it with throttleBounds).',
    });
  }
  if (body.throttleBounds !== undefined && body.throttleBounds !== null && (body.finishBy === undefined || body.finishBy === null)) {
    errors.push({
      path: '/throttleBounds',
      code: 'MUTUALLY_EXCLUSIVE',
      message: 'throttleBounds bounds the throttle a finishBy deadline picks: give finishBy too, or a fixed throttle instead.',
    });
  }

  const safety = parseSafety(body.safety, '/safety', errors);
  const origin = parseOrigin(body.origin, '/origin', errors);

  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    request: {
      partitions,
      throttle,
      autoRemoveThrottle,
      ...(electLeaders && { electLeaders }),
      validateOnly,
      addToExisting,
      concurrency,
      order,
      finishBy,
      throttleBounds,
      safety,
      ...(origin && { origin }),
      format,
    },
  };
}

/**
 * kafka-reassign-partitions.sh's file for these assignments, as Kafka's formatAsReassignmentJson
 * writes it: sorted by topic then partition, every log dir `"any"` (Kafka's tool too: a rollback
 * does not move replicas back between the log dirs of a broker). Feed it back to POST
 * /reassignments (or to Kafka's tool) to roll back.
 */
export function formatReassignmentFile(assignments: Iterable<PartitionAssignment>): ReassignmentFile {
  return runSteps(formatReassignmentFileSteps(assignments));
}

/**
 * formatReassignmentFile in steps (plan.ts Steps). The same order as a stable sort by
 * compareTopicPartitions, done per topic: topics by name, then each topic's entries by
 * partition with numeric keys (partition * 2^20 + position: ties keep the input order).
 * An entry shares its assignment's replica array and a frozen `log_dirs` of "any" per length
 * (both read-only): one object per partition, not three (100,000 at the largest).
 */
export function* formatReassignmentFileSteps(assignments: Iterable<PartitionAssignment>): Steps<ReassignmentFile> {
  // Indexed loops: a generator allocates an iterator result per for-of step.
  const all: readonly PartitionAssignment[] = Array.isArray(assignments) ? assignments : Array.from(assignments);
  const byTopic = new Map<string, PartitionAssignment[]>();
  let steps = 0;
  for (let i = 0; i < all.length; i++) {
    const a = all[i];
    const list = byTopic.get(a.topic);
    if (list) list.push(a);
    else byTopic.set(a.topic, [a]);
    if (++steps % STEP_ITEMS === 0) yield;
  }
  const partitions = new Array<ReassignmentFileEntry>(all.length);
  let n = 0;
  const topics = [...byTopic.keys()].sort();
  for (let t = 0; t < topics.length; t++) {
    const list = byTopic.get(topics[t])!;
    let numeric = list.length < 1_048_576;
    for (let i = 0; i < list.length && numeric; i++)
      numeric = Number.isInteger(list[i].partition) && list[i].partition >= 0 && list[i].partition < 2 ** 32;
    if (numeric) {
      const keys = new Float64Array(list.length);
      for (let i = 0; i < list.length; i++) keys[i] = list[i].partition * 1_048_576 + i;
      keys.sort();
      for (let i = 0; i < keys.length; i++) {
        partitions[n++] = fileEntry(list[keys[i] % 1_048_576]);
        if (++steps % STEP_ITEMS === 0) yield;
      }
    } else {
      const sorted = [...list].sort(compareTopicPartitions);
      for (let i = 0; i < sorted.length; i++) {
        partitions[n++] = fileEntry(sorted[i]);
        if (++steps % STEP_ITEMS === 0) yield;
      }
    }
  }
  return { version: REASSIGNMENT_FILE_VERSION, partitions };
}

function fileEntry(a: PartitionAssignment): ReassignmentFileEntry {
  return { topic: a.topic, partition: a.partition, replicas: a.replicas, log_dirs: anyDirs(a.replicas.length) };
}

/** `log_dirs` of `length` "any", frozen and shared (one per length up to ANY_DIRS_SHARED). */
function anyDirs(length: number): readonly string[] {
  if (length >= ANY_DIRS_SHARED) return Object.freeze(new Array<string>(length).fill(ANY_LOG_DIR));
  return (ANY_DIRS[length] ??= Object.freeze(new Array<string>(length).fill(ANY_LOG_DIR)));
}
const ANY_DIRS_SHARED = 64;
const ANY_DIRS: (readonly string[])[] = [];

/** Kafka's compareTopicPartitions: topic (String.compareTo, i.e. UTF-16 code units), then partition. */
export function compareTopicPartitions(a: { topic: string; partition: number }, b: { topic: string; partition: number }): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  return a.partition - b.partition;
}

// ---------------------------------------------------------------------------------------------

function parseEntry(entry: unknown, path: string, errors: FieldError[]): PartitionAssignment | null {
  if (!isObject(entry)) {
    errors.push({ path, code: 'INVALID_TYPE', message: 'Each partition must be an object {topic, partition, replicas}.' });
    return null;
  }
  const before = errors.length;
  const { topic, partition, replicas } = entry;
  if (topic === undefined) errors.push({ path: `${path}/topic`, code: 'REQUIRED', message: 'topic is required.' });
  else if (typeof topic !== 'string' || topic === '') {
    errors.push({ path: `${path}/topic`, code: 'INVALID_TYPE', message: 'topic must be a non-empty string.' });
  }
  if (partition === undefined) errors.push({ path: `${path}/partition`, code: 'REQUIRED', message: 'partition is required.' });
  else checkInt32(partition, `${path}/partition`, 'partition', errors);

  if (replicas === undefined) {
    errors.push({
      path: `${path}/replicas`,
      code: 'REQUIRED',
      message: 'replicas is required: the target broker ids, preferred leader first.',
    });
  } else if (!Array.isArray(replicas)) {
    errors.push({ path: `${path}/replicas`, code: 'INVALID_TYPE', message: 'replicas must be an array of broker ids.' });
  } else {
    replicas.forEach((r, j) => checkInt32(r, `${path}/replicas/${j}`, 'a broker id', errors));
    checkLogDirs(entry.log_dirs, replicas, path, topic, partition, errors);
  }
  if (errors.length > before) return null;
  const dirs = entry.log_dirs as string[] | undefined;
  return {
    topic: topic as string,
    partition: partition as number,
    replicas: [...(replicas as number[])],
    ...(dirs && dirs.some((d) => d !== ANY_LOG_DIR) && { logDirs: [...dirs] }),
  };
}

/**
 * An entry parseEntry would accept as is, parsed the same way (a fresh replicas array, logDirs
 * only when a dir is not "any"); null for anything else (parseEntry then reports it).
 */
function plainEntry(entry: unknown): PartitionAssignment | null {
  if (!isObject(entry)) return null;
  const { topic, partition, replicas } = entry;
  const logDirs = entry.log_dirs;
  if (typeof topic !== 'string' || topic === '' || !isInt32(partition) || !Array.isArray(replicas)) return null;
  for (let j = 0; j < replicas.length; j++) if (!isInt32(replicas[j])) return null;
  let moves = false;
  if (logDirs !== undefined) {
    if (!Array.isArray(logDirs) || logDirs.length !== replicas.length) return null;
    for (let j = 0; j < logDirs.length; j++) {
      const dir: unknown = logDirs[j];
      if (typeof dir !== 'string') return null;
      if (dir !== ANY_LOG_DIR) {
        if (!dir.startsWith('/')) return null;
        moves = true;
      }
    }
  }
  // The replicas as a shared frozen list (src/domain/replica-list.ts), not a copy per partition.
  return moves
    ? { topic, partition, replicas: internReplicaList(replicas as number[]), logDirs: [...(logDirs as string[])] }
    : { topic, partition, replicas: internReplicaList(replicas as number[]) };
}

const isInt32 = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_INT32;

function checkLogDirs(logDirs: unknown, replicas: unknown[], path: string, topic: unknown, partition: unknown, errors: FieldError[]): void {
  if (logDirs === undefined) return;
  if (!Array.isArray(logDirs) || logDirs.some((d) => typeof d !== 'string')) {
    errors.push({ path: `${path}/log_dirs`, code: 'INVALID_TYPE', message: 'log_dirs must be an array of strings.' });
    return;
  }
  if (logDirs.length !== replicas.length) {
    // Kafka: "Size of replicas list [..] is different from size of log dirs list [..] for partition t-0"
    errors.push({
      path: `${path}/log_dirs`,
      code: 'LOG_DIRS_SIZE_MISMATCH',
      message: `Size of replicas list ${JSON.stringify(replicas)} is different from size of log dirs list ${JSON.stringify(logDirs)} for partition ${String(topic)}-${String(partition)}.`,
    });
    return;
  }
  logDirs.forEach((dir: string, j) => {
    if (dir !== ANY_LOG_DIR && !dir.startsWith('/')) {
      errors.push({
        path: `${path}/log_dirs/${j}`,
        code: 'LOG_DIR_NOT_ABSOLUTE',
        message: `log_dirs entries must be "any" or an absolute path of one of the broker's log.dirs; got ${JSON.stringify(dir)}.`,
      });
    }
  });
}

function parseThrottle(value: unknown, errors: FieldError[]): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    errors.push({ path: '/throttle', code: 'INVALID_TYPE', message: 'throttle must be an integer number of bytes per second.' });
    return null;
  }
  if (value < MIN_THROTTLE_BYTES_PER_SECOND) {
    errors.push({
      path: '/throttle',
      code: 'OUT_OF_RANGE',
      message: `throttle is in bytes per second and must be at least ${MIN_THROTTLE_BYTES_PER_SECOND}; got ${value}.`,
    });
    return null;
  }
  return value;
}

function parseBoolean(body: Record<string, unknown>, key: string, fallback: boolean, errors: FieldError[]): boolean {
  const value = body[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') {
    errors.push({ path: `/${key}`, code: 'INVALID_TYPE', message: `${key} must be true or false.` });
    return fallback;
  }
  return value;
}

function checkInt32(value: unknown, path: string, what: string, errors: FieldError[]): void {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    errors.push({ path, code: 'INVALID_TYPE', message: `${what} must be an integer.` });
  } else if (value < 0 || value > MAX_INT32) {
    errors.push({ path, code: 'OUT_OF_RANGE', message: `${what} must be between 0 and ${MAX_INT32}; got ${value}.` });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `concurrency`: `{perBroker?, cluster?}`, each an integer ≥ 1 or null (null/absent = no bound on
 * that level). Absent or null as a whole = null. Used by POST and PATCH /reassignments.
 */
export function parseConcurrency(value: unknown, path: string, errors: FieldError[]): ConcurrencyBounds | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) {
    errors.push({ path, code: 'INVALID_TYPE', message: 'concurrency must be an object {perBroker, cluster}.' });
    return null;
  }
  const out: { perBroker: number | null; cluster: number | null } = { perBroker: null, cluster: null };
  for (const key of Object.keys(value)) {
    if (key !== 'perBroker' && key !== 'cluster') {
      errors.push({ path: `${path}/${key}`, code: 'INVALID_TYPE', message: `concurrency has only perBroker and cluster, not ${key}.` });
      continue;
    }
    const v = value[key];
    if (v === null || v === undefined) continue;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
      errors.push({
        path: `${path}/${key}`,
        code: 'OUT_OF_RANGE',
        message: `concurrency.${key} must be an integer ≥ 1 (moves in flight).`,
      });
      continue;
    }
    out[key] = v;
  }
  return out;
}
