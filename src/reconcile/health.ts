// Health interlocks (issue 30, part 1), the reconciler's step: while a paced reassignment has
// moves waiting for a wave, every pass reads the cluster's health from Kafka (ONE Metadata
// request with ISRs, ../kafka/replica-health.ts; min.insync.replicas only for topics with a
// shrunk ISR), decides with src/domain/reassignment/health.ts, and writes the decision into the
// record (`hold`), under the record's claim, header only:
//   - trouble its policy holds on -> `hold` set: the pacer starts no new wave (moves in flight go
//     on), the API says `held` with the reasons; every instance and a restart see it;
//   - healthy for `resumeAfterPasses` passes in a row -> `hold` removed: it runs again by itself.
// A user's pause is a separate flag: a reassignment paused while held stays paused after the
// hold ends. Each hold and resume is an audit line (as the HTTP audit trail's, type 'audit',
// actor 'reconciler'), a log line and a metric; the gauge of held reassignments is set every pass.
//
// No read at all while nothing can be held (no running record with a queue, or every one `off`).
import type { KafkaAdmin } from '../kafka/kafka-admin.js';
import type { ReplicaHealth } from '../kafka/replica-health.js';
import type { Logger } from '../observability/logger.js';
import type { ReassignmentMetrics } from '../observability/reassignment-metrics.js';
import type { ReassignmentRecord } from '../state/records.js';
import type { StateStore, StateView } from '../state/store.js';
import {
  assessHealthSteps,
  decideHold,
  drainedBrokers,
  healthFor,
  minIsrCandidates,
  safetyOf,
  targetsOnGoneBrokers,
  type ClusterHealth,
  type HealthTopic,
  type HoldDecision,
  type HoldState,
  type Safety,
} from '../domain/reassignment/health.js';
import type { ReassignmentConfig } from './config.js';
import { driveSteps } from '../event-loop-turns.js';
import { makePacer } from '../state/layout.js';
import { partitionId } from './ownership.js';
import { hasQueue, withRecordClaim } from './pacer.js';

export interface HealthInterlockDeps {
  kafka: KafkaAdmin;
  store: StateStore;
  config: ReassignmentConfig;
  metrics?: ReassignmentMetrics;
  logger?: Logger;
  now: () => number;
}

/** How long the cluster default of min.insync.replicas (a broker config) is reused before it is read again. */
export const MIN_ISR_DEFAULT_TTL_MS = 60_000;
/** Longest the health walk computes before it yields to the event loop (ms), as the reconciler's passes. */
const PASS_SLICE_MS = 10;
/** How long a pass waits for another holder of a record's claim before leaving the write to the next pass. */
const CLAIM_WAIT_MS = 2000;

/** Most partitions with a short ISR outside the moves read at the pass's start that Kafka is asked about again (#cleared). */
export const MAX_RECHECK = 10_000;

const NO_TROUBLE: ClusterHealth = { troubles: [], goneBrokers: [], partitions: 0 };
/**
 * The pass's read lists only the partitions without a leader or with a short ISR (all the walk
 * looks at one by one): at 200,000 partitions the full listing was 200,000 objects per pass.
 */
const ONLY_TROUBLED = { onlyTroubled: true };

/**
 * What the health read is made for: a record, or a reassignment not written yet (its POST,
 * ./start-health.ts): its policy and its moves (open ones: queued or moving).
 */
export type HealthSubject = Pick<ReassignmentRecord, 'partitions' | 'safety'>;

/** A start's health read begun ahead of its body (readAhead), and when (the deps' clock). */
export interface AheadRead {
  readonly read: Promise<ReplicaHealth>;
  readonly startedAt: number;
}

/** Oldest read begun ahead that a start is judged by (its body took longer to arrive: a new read). */
export const AHEAD_MAX_AGE_MS = 5000;

/** Records the interlocks look at: running, moves not ended, with a queue (something to hold) or held now. */
export function holdCandidates(view: StateView): ReassignmentRecord[] {
  const out: ReassignmentRecord[] = [];
  for (const r of view.reassignments.values()) {
    if (r.state !== 'running' || r.movesEndedAt !== undefined) continue;
    if (r.hold || hasQueue(r)) out.push(r);
  }
  return out;
}

export class HealthInterlock {
  readonly #d: HealthInterlockDeps;
  #minIsrDefault: { value: number; at: number } | undefined;
  /** Target brokers of a record's open moves, per record version (records are immutable). */
  readonly #targets = new WeakMap<HealthSubject, readonly number[]>();
  /** Brokers a record's open moves drain, per record version. */
  readonly #drained = new WeakMap<HealthSubject, ReadonlySet<number>>();
  /** The start's read under way (readAhead), shared by starts arriving meanwhile. */
  #ahead: AheadRead | null = null;

  constructor(deps: HealthInterlockDeps) {
    this.#d = deps;
  }

  /** One pass: read health if anything can be held, decide and write per record, set the gauge. `movingIds`: every move Kafka lists (partitionId). */
  async pass(view: StateView, movingIds: ReadonlySet<string>): Promise<void> {
    const records = holdCandidates(view);
    try {
      if (records.length === 0) return;
      const needsRead = records.some((r) => safetyOf(r) !== 'off');
      const health = needsRead ? await this.#read(records, movingIds, view) : NO_TROUBLE;
      for (const r of records) await this.#decide(r, health);
    } finally {
      this.#report();
    }
  }

  /**
   * The hold a reassignment about to be started (POST /reassignments, before its first wave)
   * would get from the cluster's health now: the same read and walk as a pass, `subject`'s moves
   * counted as a live reassignment's (what it is to move or drain is not trouble), decided as a
   * pass decides a record not held yet. `held` or `none` (`off`: none, and nothing read).
   */
  async decideAtStart(
    subject: HealthSubject,
    movingIds: ReadonlySet<string>,
    view: StateView,
    prefetched?: Promise<ReplicaHealth> | null,
  ): Promise<{ health: ClusterHealth; decision: HoldDecision }> {
    const policy = safetyOf(subject);
    if (policy === 'off') return { health: NO_TROUBLE, decision: { kind: 'none' } };
    const health = await this.#read([subject], movingIds, view, subject, prefetched ?? undefined);
    const targetsGone = targetsOnGoneBrokers(subject.partitions, health.goneBrokers);
    const mine = this.#healthFor(subject, health);
    return { health: mine, decision: decideHold(policy, mine, undefined, this.#d.now(), targetsGone) };
  }

  /**
   * The Metadata read a start's decision (decideAtStart) walks, started as early as possible so
   * that it overlaps the start's own work instead of following it: by the HTTP layer when a
   * POST /reassignments arrives, before its body is read (`ahead`: at 100,000 partitions the
   * body's parse and validation are longer than the read), else here when validation begins.
   * Null when nothing is read (safety "off", or a Kafka layer without the read). A failure
   * surfaces only when the decision awaits it.
   */
  prefetchAtStart(safety: Safety | null | undefined, ahead?: AheadRead | null): Promise<ReplicaHealth> | null {
    if (safety === 'off') return null;
    // A body that took long to arrive (a slow client) is not judged by a reading that old.
    if (ahead && this.#d.now() - ahead.startedAt <= AHEAD_MAX_AGE_MS) return ahead.read;
    return this.readAhead()?.read ?? null;
  }

  /**
   * A start's health read, begun now (the compact read of every topic a pass makes). Starts that
   * arrive while one is under way share it: a burst of POSTs makes one read, not one each.
   */
  readAhead(): AheadRead | null {
    const kafka = this.#d.kafka;
    if (!kafka.describeReplicaHealth) return null;
    if (this.#ahead) return this.#ahead;
    const read = kafka.describeReplicaHealth(null, ONLY_TROUBLED);
    read.catch(() => undefined); // awaited by the start's decision, if the start gets that far
    const ahead = { read, startedAt: this.#d.now() };
    this.#ahead = ahead;
    const done = () => {
      if (this.#ahead === ahead) this.#ahead = null;
    };
    read.then(done, done);
    return ahead;
  }

  /** A hold made outside a pass (a reassignment created held by its POST): audited, logged and counted as a pass's. */
  announceHeld(id: string, hold: HoldState): void {
    this.#announce(id, 'held', hold);
  }

  async #read(
    records: readonly HealthSubject[],
    movingIds: ReadonlySet<string>,
    view: StateView,
    starting?: HealthSubject,
    prefetched?: Promise<ReplicaHealth>,
  ): Promise<ClusterHealth> {
    const kafka = this.#d.kafka;
    if (!kafka.describeReplicaHealth) return NO_TROUBLE;
    const md = await (prefetched ?? kafka.describeReplicaHealth(null, ONLY_TROUBLED));
    // Kafka's moves were read earlier in the pass: a wave started since (the pacer's fast poll)
    // has its new replicas out of the ISR in this answer. Such partitions are looked at again
    // (#cleared), so that a move is never taken for trouble.
    const cleared = await this.#cleared(md.topics, movingIds, view, starting);
    const candidates = minIsrCandidates(md.topics);
    const minIsr = candidates.length > 0 ? await this.#minIsr(candidates, md.brokers) : new Map<string, number>();
    // Brokers named by the partitions the compact read left out, and not live: gone as the walk would find them.
    const expected: number[] = [...md.goneUnlisted];
    for (const r of records) if (safetyOf(r) !== 'off') expected.push(...this.#targetBrokers(r));
    // In slices: at 100,000 partitions the walk is ~5-15 ms (bench/health-read.ts).
    return driveSteps(
      assessHealthSteps({
        topics: md.topics,
        liveBrokers: new Set(md.brokers),
        expectedBrokers: expected,
        partitions: md.partitions,
        minIsr,
        moving: (topic, partition) => {
          const id = partitionId(topic, partition);
          return movingIds.has(id) || cleared.has(id);
        },
      }),
      makePacer(PASS_SLICE_MS),
    );
  }

  /**
   * Partitions with a short ISR in `topics` (the Metadata answer) that `movingIds` (the moves read
   * before it) does not list, yet whose short ISR is a move's: Kafka lists them as moving now (a
   * wave started after the moves were read), or their ISR is full in a second Metadata read of
   * their topics (a short move that ended in between); or a live gateway reassignment is to move
   * them (queued or moving in its record: the reassignment repairs them). Kafka is asked only
   * about these partitions, and only up to MAX_RECHECK of them (more is trouble whatever a few
   * waves did meanwhile).
   */
  async #cleared(
    topics: readonly HealthTopic[],
    movingIds: ReadonlySet<string>,
    view: StateView,
    starting?: HealthSubject,
  ): Promise<Set<string>> {
    const suspects: { topic: string; partition: number; id: string }[] = [];
    for (const t of topics) {
      for (const p of t.partitions) {
        if (p.leader < 0 || p.isr.length >= p.replicas.length) continue;
        const id = partitionId(t.name, p.partition);
        if (!movingIds.has(id)) suspects.push({ topic: t.name, partition: p.partition, id });
      }
    }
    const cleared = new Set<string>();
    if (suspects.length === 0) return cleared;
    if (suspects.length <= MAX_RECHECK && this.#d.kafka.describeReplicaHealth) {
      for (const m of await this.#d.kafka.listPartitionReassignments(suspects.map((x) => ({ topic: x.topic, partition: x.partition }))))
        cleared.add(partitionId(m.topic, m.partition));
      const left = suspects.filter((x) => !cleared.has(x.id));
      if (left.length > 0) {
        const again = await this.#d.kafka.describeReplicaHealth([...new Set(left.map((x) => x.topic))]);
        const full = new Set<string>();
        for (const t of again.topics)
          for (const p of t.partitions) if (p.isr.length >= p.replicas.length) full.add(partitionId(t.name, p.partition));
        for (const x of left) if (full.has(x.id)) cleared.add(x.id);
      }
    }
    const rest = new Set(suspects.filter((x) => !cleared.has(x.id)).map((x) => x.id));
    if (rest.size === 0) return cleared;
    const live: HealthSubject[] = [];
    for (const r of view.reassignments.values()) if (r.state === 'running' || r.state === 'pending') live.push(r);
    if (starting) live.push(starting);
    for (const r of live) {
      for (const p of r.partitions) {
        if (p.supersededBy || (p.state !== 'queued' && p.state !== 'moving')) continue;
        const id = partitionId(p.topic, p.partition);
        if (rest.has(id)) cleared.add(id);
      }
    }
    return cleared;
  }

  /** Brokers the open moves of `r` go to (a broker that joined for this move names no replica until its move starts). */
  #targetBrokers(r: HealthSubject): readonly number[] {
    let out = this.#targets.get(r);
    if (!out) {
      const set = new Set<number>();
      // Target lists are interned (records, parsed requests: domain/replica-list.ts): a list seen
      // before adds nothing, and a cluster has few distinct ones (100,000 partitions, ~1,000 lists).
      const seen = new Set<readonly number[]>();
      for (const p of r.partitions) {
        if (p.supersededBy || (p.state !== 'queued' && p.state !== 'moving') || seen.has(p.target)) continue;
        seen.add(p.target);
        for (const b of p.target) set.add(b);
      }
      this.#targets.set(r, (out = [...set]));
    }
    return out;
  }

  /** healthFor `r`; what it drains matters only when a broker is gone (an O(partitions) walk otherwise skipped). */
  #healthFor(r: HealthSubject, health: ClusterHealth): ClusterHealth {
    return health.goneBrokers.length === 0 ? health : healthFor(health, this.#drainedBy(r));
  }

  #drainedBy(r: HealthSubject): ReadonlySet<number> {
    let out = this.#drained.get(r);
    if (!out) this.#drained.set(r, (out = drainedBrokers(r.partitions)));
    return out;
  }

  /** min.insync.replicas of `topics`: their overrides, else the cluster's default (a broker's effective value, cached). */
  async #minIsr(topics: string[], brokers: readonly number[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const now = this.#d.now();
    if ((!this.#minIsrDefault || now - this.#minIsrDefault.at > MIN_ISR_DEFAULT_TTL_MS) && brokers.length > 0) {
      const configs = await this.#d.kafka.describeConfigs({ kind: 'broker', name: String(brokers[0]) });
      const v = Number(configs.find((c) => c.name === 'min.insync.replicas')?.value ?? '1');
      this.#minIsrDefault = { value: Number.isSafeInteger(v) && v > 0 ? v : 1, at: now };
    }
    const overrides = await this.#d.kafka.describeConfigOverrides(
      topics.map((name) => ({ kind: 'topic' as const, name })),
      ['min.insync.replicas'],
    );
    for (const o of overrides) {
      const v = o.ok ? Number(o.value['min.insync.replicas']) : NaN;
      if (Number.isSafeInteger(v) && v > 0) out.set(o.name, v);
      else if (o.ok && this.#minIsrDefault) out.set(o.name, this.#minIsrDefault.value);
    }
    return out;
  }

  async #decide(r: ReassignmentRecord, health: ClusterHealth): Promise<void> {
    const now = this.#d.now();
    const policy = safetyOf(r);
    const targetsGone = policy === 'off' ? undefined : targetsOnGoneBrokers(r.partitions, health.goneBrokers);
    const mine = this.#healthFor(r, health);
    const first = decideHold(policy, mine, r.hold, now, targetsGone);
    if (first.kind === 'none' || first.kind === 'unchanged') return;
    const out = await withRecordClaim(
      this.#d.store,
      { owner: this.#d.config.instanceId, ttlMs: this.#d.config.pacingLeaseMs, purpose: 'health', waitMs: CLAIM_WAIT_MS },
      r.id,
      async () => {
        // Decided again on the record as the state topic has it now (a PATCH, a wave, another instance's hold).
        const fresh = (await this.#d.store.refresh()).reassignments.get(r.id);
        if (!fresh || fresh.state !== 'running' || fresh.movesEndedAt !== undefined) return { result: undefined };
        const d = fresh === r ? first : decideHold(safetyOf(fresh), mine, fresh.hold, now, targetsGone);
        if (d.kind === 'none' || d.kind === 'unchanged') return { result: undefined };
        return { result: { d, before: fresh.hold }, values: [withHold(fresh, d, now)] };
      },
    );
    if (!out.granted || !out.result) return;
    const { d, before } = out.result;
    if (d.kind === 'held') this.#announce(r.id, 'held', d.hold);
    else if (d.kind === 'resumed' && before) this.#announce(r.id, 'resumed', before, d.heldForMs);
  }

  #announce(id: string, event: 'held' | 'resumed', hold: HoldState, heldForMs?: number): void {
    const reasons = hold.reasons.map((x) => ({ kind: x.kind, count: x.count, examples: x.examples }));
    const kinds = reasons.map((x) => x.kind);
    this.#d.metrics?.holdChanged?.(event, kinds);
    // The audit trail's shape (src/http/audit.ts), for a change no request made.
    this.#d.logger?.info('audit', {
      type: 'audit',
      actor: 'reconciler',
      instance: this.#d.config.instanceId,
      requestId: null,
      principal: null,
      operationId: event === 'held' ? 'holdReassignment' : 'resumeReassignment',
      method: null,
      route: '/reassignments/{id}',
      path: `/reassignments/${id}`,
      params: { id },
      outcome: 'success',
      result: {
        reasons,
        ...(hold.targetsGone && { targetsGone: hold.targetsGone }),
        ...(heldForMs !== undefined && { heldSeconds: Math.round(heldForMs / 100) / 10 }),
      },
    });
    const fields = { id, reasons: kinds, ...(heldForMs !== undefined && { heldSeconds: heldForMs / 1000 }) };
    if (event === 'held') this.#d.logger?.warn('reassignment held: the cluster is in trouble; no new move starts', fields);
    else this.#d.logger?.info('reassignment resumed: the cluster is healthy again', fields);
  }

  /** The gauge of held reassignments, from the state topic as this instance sees it (every instance reports the same). */
  #report(): void {
    const metrics = this.#d.metrics;
    if (!metrics?.setHeld) return;
    const list: { id: string; reasons: string[] }[] = [];
    for (const r of this.#d.store.view().reassignments.values()) {
      if (r.state === 'running' && r.hold) list.push({ id: r.id, reasons: r.hold.reasons.map((x) => x.kind) });
    }
    metrics.setHeld(list);
  }
}

/** `r` with the decision applied: the hold set or updated, or removed on a resume (a header-only write). */
export function withHold(r: ReassignmentRecord, d: HoldDecision, now: number): ReassignmentRecord {
  if (d.kind === 'held' || d.kind === 'updated') return { ...r, hold: d.hold, updatedAt: now };
  if (d.kind === 'resumed') {
    const { hold: _hold, ...rest } = r;
    return { ...rest, updatedAt: now };
  }
  return r;
}
