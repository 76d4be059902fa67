// Steps 4 and 5 of a start, once its record is written: the throttles (ledger first, then the
// configs, inside the throttle sync), then the moves (intra-broker moves first, then
// AlterPartitionReassignments: paced, the first wave only), and the record as Kafka answered.
// A failure before anything was sent ends the record failed (its partitions cancelled); a
// failure while sending leaves it pending for the reconciler to resolve from what Kafka shows.
import { PartitionMap, STEP_ITEMS, type ThrottleDemand } from '../../domain/reassignment/index.js';
import { KafkaRequestError } from '../../kafka/errors.js';
import type { PartitionMoveResult } from '../../kafka/kafka-admin.js';
import { crashPoint } from '../../reconcile/config.js';
import { withRecordClaim } from '../../reconcile/pacer.js';
import { boundedError } from '../../state/layout.js';
import type { ReassignmentPartitionRecord, ReassignmentRecord } from '../../state/records.js';
import type { PlannedStart } from './start-plan.js';
import type { ValidatedStart } from './start-validate.js';
import type { ServiceContext, StartResult } from './types.js';

const REPLICA_NOT_AVAILABLE = 9;

/** Partitions per AlterPartitionReassignments request of a start. */
const ALTER_BATCH = 5000;
/** AlterPartitionReassignments requests of a start in flight at once. */
const ALTER_IN_FLIGHT = 4;

/** Kafka's refusal of one partition of a start, if it refused it. */
function failureOf(
  result: { ok: true } | { ok: false; error: { code: number; name: string; message: string } } | undefined,
): { code: number; name: string; message: string } | undefined {
  return result && !result.ok ? result.error : undefined;
}

/** A partition written ahead as started that was refused: failed, never started. */
function refusedAtStart(
  p: ReassignmentPartitionRecord,
  at: number,
  error: { code: number; name: string; message: string },
): ReassignmentPartitionRecord {
  const { startedAt: _started, endedAt: _ended, ...rest } = p;
  return { ...rest, state: 'failed', endedAt: at, startError: boundedError(error) };
}

/** Partitions of a start that failed before anything was sent: cancelled (nothing moved). */
function notStarted(partitions: readonly ReassignmentPartitionRecord[], at: number): ReassignmentPartitionRecord[] {
  return partitions.map((p) => {
    if (p.supersededBy || (p.state !== 'queued' && p.state !== 'moving')) return p;
    const { startedAt: _started, ...rest } = p;
    return { ...rest, state: 'cancelled', endedAt: at };
  });
}

/**
 * Sets the throttles of a written record, then (unless it was cancelled meanwhile or is past its
 * start deadline) sends its moves and writes what Kafka answered.
 */
export async function throttleAndSend(
  ctx: ServiceContext,
  v: ValidatedStart,
  s: PlannedStart,
  pending: ReassignmentRecord,
  pace: () => Promise<void>,
): Promise<StartResult> {
  const { dirMoves } = v;
  const { heldAtStart, firstWave, inFirstWave, planView } = s;
  let record = pending;
  // 2. Throttles: ledger first, then the configs (inside the sync).
  if (record.throttleDemand) {
    // The ledger write and then the config write happen inside (crash-test hooks there).
    const sync = await ctx.d.throttles.sync();
    const ours = sync.failures.filter((f) => demandNames(record.throttleDemand!, f.resource));
    if (ours.length > 0) {
      // Do not move unthrottled what the caller wanted throttled: give up, undo the throttles.
      record = await failBeforeSending(
        ctx,
        record,
        `could not set throttles: ${ours.map((f) => `${f.resource}: ${f.error.name}`).join('; ')}`,
      );
      await ctx.d.throttles.sync().catch(() => undefined);
      const first = ours[0].error;
      throw new KafkaRequestError(first.code === 13 || first.code === 7 ? 'unavailable' : 'kafka', first);
    }
  }

  // 3. Start, unless we are so late that a reconciler may already be resolving the record.
  // Cancelled meanwhile (DELETE on any instance reads the pending record): do not start it.
  const latest = (await ctx.d.store.refresh()).reassignments.get(record.id);
  if (latest && latest.state !== 'pending') return { kind: 'start-failed', record: latest, plan: await planView() };
  if (ctx.now() >= record.startDeadline) {
    record = await failBeforeSending(ctx, record, 'start deadline passed before the reassignment could be started');
    await ctx.d.throttles.sync().catch(() => undefined);
    return { kind: 'start-failed', record, plan: await planView() };
  }
  // Intra-broker moves first (kafka-reassign-partitions.sh sends them too): a broker that hosts
  // the replica starts copying; one that does not yet answers 9 and remembers the dir (the
  // reconciler re-sends it once the reassignment created the replica). Other errors fail the partition.
  const dirFailed = new PartitionMap<{ code: number; name: string; message: string }>();
  if (dirMoves.length > 0) {
    for (const r of await ctx.d.kafka.alterReplicaLogDirs(dirMoves)) {
      if (r.ok || r.error.code === REPLICA_NOT_AVAILABLE) continue;
      if (!dirFailed.has(r.topic, r.partition))
        dirFailed.set(r.topic, r.partition, {
          code: r.error.code,
          name: r.error.name,
          message: `AlterReplicaLogDirs ${r.logDir} on broker ${r.broker}: ${r.error.message}`,
        });
    }
  }
  // Paced: the first wave only (a paced no-op is at its target already: completed, not sent).
  const send: ReassignmentPartitionRecord[] = [];
  for (let i = 0; i < record.partitions.length; i++) {
    const p = record.partitions[i];
    if ((!firstWave || inFirstWave.has(p.topic, p.partition)) && (dirFailed.size === 0 || !dirFailed.has(p.topic, p.partition)))
      send.push(p);
    if (i % STEP_ITEMS === 0) await pace();
  }
  // In requests of at most ALTER_BATCH partitions: each is encoded and decoded in one go, so
  // one request for 100,000 would hold the event loop for hundreds of ms. Kafka handles each
  // partition of a request on its own anyway; a failure between two requests leaves the
  // record pending like a failure of one request does (the reconciler resolves it).
  // Up to ALTER_IN_FLIGHT requests at once: one is encoded while Kafka handles another.
  const batches: { topic: string; partition: number; replicas: readonly number[] }[][] = [];
  // Held at the start: nothing is sent (not even an empty request).
  for (let from = 0; from < send.length || (from === 0 && !heldAtStart); from += ALTER_BATCH) {
    const batch: { topic: string; partition: number; replicas: readonly number[] }[] = [];
    for (let i = from; i < Math.min(send.length, from + ALTER_BATCH); i++)
      batch.push({ topic: send[i].topic, partition: send[i].partition, replicas: send[i].target });
    batches.push(batch);
    await pace();
  }
  // The answer's own parts are computed while the requests are out (a failure below: nobody waits on it).
  planView().catch(() => undefined);
  const answers = new Array<PartitionMoveResult[]>(batches.length);
  // A failure here is thrown as it is: unknown whether Kafka started it, the record is left
  // pending; the reconciler resolves it from what Kafka shows after the start deadline.
  let next = 0;
  let failed = false;
  const sender = async (): Promise<void> => {
    while (next < batches.length && !failed) {
      const k = next++;
      try {
        answers[k] = await ctx.d.kafka.alterPartitionReassignments(batches[k]);
      } catch (err) {
        failed = true; // no further request once one failed
        throw err;
      }
      await pace();
    }
  };
  await Promise.all(Array.from({ length: Math.min(ALTER_IN_FLIGHT, batches.length) }, sender));
  const results = answers.flat();
  crashPoint(ctx.d.config, 'reassignment-start');

  // Refusals only: an accepted partition and one Kafka did not answer for are both moving (as
  // written ahead), so no map of 100,000 answers.
  const byKey = new PartitionMap<(typeof results)[number]>();
  for (let i = 0; i < results.length; i++) if (!results[i].ok) byKey.set(results[i].topic, results[i].partition, results[i]);
  // The partitions were written ahead as started: only those refused (by AlterReplicaLogDirs
  // or by Kafka) change, so only their chunks are written again.
  const refusedAt = ctx.now();
  let partitions: readonly ReassignmentPartitionRecord[] = record.partitions;
  if (dirFailed.size > 0 || byKey.size > 0) {
    const changed = new Array<ReassignmentPartitionRecord>(record.partitions.length);
    for (let i = 0; i < record.partitions.length; i++) {
      const p = record.partitions[i];
      const refused =
        (dirFailed.size > 0 ? dirFailed.get(p.topic, p.partition) : undefined) ??
        (byKey.size > 0 ? failureOf(byKey.get(p.topic, p.partition)) : undefined);
      changed[i] = refused ? refusedAtStart(p, refusedAt, refused) : p;
      if (i % STEP_ITEMS === 0) await pace();
    }
    partitions = changed;
  }
  // Paced: still running while anything is queued (the reconciler starts it) even if this wave was refused.
  const started = partitions.some((p) => !p.startError && (p.state === 'moving' || p.state === 'queued' || p.state === 'completed'));
  const outcome = {
    partitions,
    state: started ? ('running' as const) : ('failed' as const),
    startedAt: ctx.now(),
    updatedAt: ctx.now(),
    ...(!started && { reason: 'Kafka refused every partition', endedAt: ctx.now() }),
  };
  // Under the record's claim, over the record as it is now: a PATCH made while it was pending
  // (throttle, paused, concurrency) is kept; a cancel or an adoption meanwhile is not overwritten.
  const written = await withRecordClaim(
    ctx.d.store,
    { owner: ctx.d.config.instanceId, ttlMs: ctx.d.config.pacingLeaseMs, purpose: 'start', waitMs: ctx.d.config.pacingLeaseMs + 1000 },
    record.id,
    async () => {
      const fresh = (await ctx.d.store.refresh()).reassignments.get(record.id) ?? record;
      if (fresh.state !== 'pending') return { result: fresh };
      const next: ReassignmentRecord = { ...fresh, ...outcome };
      return { result: next, values: [next] };
    },
  );
  if (!written.granted) {
    // Not written without the claim: the reconciler resolves the pending record from what
    // Kafka shows (REASSIGNMENT_START_TIMEOUT_MS), as after a crash of this instance here.
    ctx.d.logger?.warn('start: record claim not had in time; the reconciler will record the outcome', { reassignment: record.id });
    record = { ...record, ...outcome };
  } else record = written.result;
  if (heldAtStart && record.state === 'running' && record.hold) ctx.health().announceHeld(record.id, record.hold);
  if (record.state === 'running' || record.state === 'completed') return { kind: 'started', record, plan: await planView() };
  await ctx.d.throttles.sync().catch(() => undefined);
  return { kind: 'start-failed', record, plan: await planView() };
}

function demandNames(demand: ThrottleDemand, resource: string): boolean {
  const [kind, ...rest] = resource.split('/');
  const name = rest.join('/');
  return kind === 'topic' ? name in demand.topics : name in demand.brokers;
}

/** Ends a start that failed before anything was sent to Kafka. */
async function failBeforeSending(ctx: ServiceContext, record: ReassignmentRecord, reason: string): Promise<ReassignmentRecord> {
  const now = ctx.now();
  const next: ReassignmentRecord = {
    ...record,
    partitions: notStarted(record.partitions, now),
    state: 'failed',
    endedAt: now,
    updatedAt: now,
    reason,
  };
  await ctx.d.store.write([next]);
  return next;
}
