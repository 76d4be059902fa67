// Preferred leader elections for reassignments started with `electLeaders: true` (and every
// rollback): once a partition's move has completed, its first target replica should lead, as
// kafka-leader-election.sh --election-type preferred would make it. One step of each reconcile
// pass (reconciler.ts), after the records were resolved:
//
// - records: running ones with electLeaders, and finished ones (completed or cancelled) whose
//   tally still has partitions pending or has not counted their last completions, up to
//   FINISHED_WINDOW_MS after their end;
// - Metadata of the topics of their completed partitions (only when something may be pending:
//   the count of completed partitions changed since the tally, or the tally has some pending),
//   then one ElectLeaders for the completed partitions whose first target replica does not lead,
//   at most ELECTION_BATCH of them per pass (the rest next pass);
// - Kafka's answers: 0 elected; 84 not needed (it leads already); 80/83 the preferred replica is
//   down or out of the ISR: tried again next pass, ELECTION_ATTEMPTS times in all (attempts are
//   this instance's memory: after a restart a partition gets its tries again, harmless, an
//   election is idempotent); any other code fails the partition at once;
// - the record's header gets the tally (src/domain/leaders.ts LeaderElectionTally), written
//   under the record's claim on a fresh read, only when it changed.
import { ELECTION_ATTEMPTS, pendingElections, outcomeOf, type LeaderElectionTally } from '../domain/leaders.js';
import type { KafkaAdmin } from '../kafka/kafka-admin.js';
import { canElectLeaders, ELECTION_BATCH, electLeaders } from '../kafka/leaders.js';
import { describePartitions } from '../kafka/partitions.js';
import { kafkaErrorInfo } from '../kafka/errors-map.js';
import type { Logger } from '../observability/logger.js';
import type { ReassignmentPartitionRecord, ReassignmentRecord } from '../state/records.js';
import type { StateStore, StateView } from '../state/store.js';
import type { ReassignmentConfig } from './config.js';
import { withRecordClaim } from './pacer.js';

/** How long after its end a finished record still gets its last elections. */
export const FINISHED_WINDOW_MS = 10 * 60_000;

export interface LeaderElectionDeps {
  kafka: KafkaAdmin;
  store: StateStore;
  config: ReassignmentConfig;
  now: () => number;
  logger?: Logger;
  /** Yields to the event loop in long walks. */
  pace?: () => Promise<void>;
}

const key = (id: string, topic: string, partition: number) => `${id}\u0000${topic}\u0000${partition}`;

export class LeaderElections {
  readonly #d: LeaderElectionDeps;
  /** Failed tries per (record, partition), this instance's memory. */
  readonly #attempts = new Map<string, number>();
  /** The last refusal per record (for the tally). */
  readonly #lastError = new Map<string, LeaderElectionTally['lastError']>();

  constructor(deps: LeaderElectionDeps) {
    this.#d = deps;
  }

  /** Whether a record wants elections now (see the file's opening comment). */
  wants(r: ReassignmentRecord, now: number): boolean {
    if (!r.electLeaders) return false;
    if (r.state === 'running') return true;
    if (r.state !== 'completed' && r.state !== 'cancelled') return false;
    if (r.endedAt !== undefined && now - r.endedAt > FINISHED_WINDOW_MS) return false;
    const t = r.leaderElections;
    return t === undefined || t.pending > 0 || t.completed !== completedCount(r.partitions);
  }

  async pass(view: StateView): Promise<void> {
    if (!canElectLeaders(this.#d.kafka)) return;
    const now = this.#d.now();
    const records = [...view.reassignments.values()].filter((r) => this.wants(r, now));
    this.#forgetOthers(new Set(records.map((r) => r.id)));
    let budget = ELECTION_BATCH;
    for (const r of records) {
      const t = r.leaderElections;
      const completed = completedCount(r.partitions);
      if (completed === 0 || (t && t.pending === 0 && t.completed === completed)) continue;
      const topics = new Set<string>();
      for (const p of r.partitions) if (p.state === 'completed' && !p.supersededBy) topics.add(p.topic);
      const placement = await describePartitions(this.#d.kafka, [...topics]);
      const leaders = new Map<string, number[]>();
      for (const tp of placement) {
        const byPartition: number[] = [];
        for (const p of tp.partitions) byPartition[p.partition] = p.leader;
        leaders.set(tp.name, byPartition);
      }
      const found = pendingElections(r.partitions, (topic, partition) => leaders.get(topic)?.[partition]);
      const tries = found.pending.filter((p) => (this.#attempts.get(key(r.id, p.topic, p.partition)) ?? 0) < ELECTION_ATTEMPTS);
      const batch = tries.slice(0, budget);
      budget -= batch.length;
      let elected = found.leading;
      if (batch.length > 0) elected += await this.#elect(r.id, batch);
      const failed = found.pending.length - tries.length + batch.filter((p) => (this.#attempts.get(key(r.id, p.topic, p.partition)) ?? 0) >= ELECTION_ATTEMPTS).length;
      const lastError = this.#lastError.get(r.id);
      const tally: LeaderElectionTally = {
        elected,
        pending: found.pending.length - failed - (elected - found.leading),
        failed,
        completed: found.completed,
        ...(lastError && { lastError }),
        updatedAt: now,
      };
      await this.#write(r, tally);
      if (budget <= 0) break;
    }
  }

  /** One ElectLeaders for `batch`; returns how many now have their preferred leader. */
  async #elect(id: string, batch: readonly ReassignmentPartitionRecord[]): Promise<number> {
    const answer = await electLeaders(
      this.#d.kafka,
      'preferred',
      batch.map((p) => ({ topic: p.topic, partition: p.partition })),
    );
    let leading = 0;
    for (const a of answer.partitions) {
      const outcome = outcomeOf(a.errorCode);
      const k = key(id, a.topic, a.partition);
      if (outcome === 'elected' || outcome === 'not-needed') {
        leading++;
        this.#attempts.delete(k);
        continue;
      }
      // Not available (the preferred replica is down or not in the ISR yet): tried again next
      // pass, up to ELECTION_ATTEMPTS times; anything else is final.
      this.#attempts.set(k, outcome === 'not-available' ? (this.#attempts.get(k) ?? 0) + 1 : ELECTION_ATTEMPTS);
      const info = kafkaErrorInfo(a.errorCode, a.errorMessage);
      this.#lastError.set(id, { name: info.name, code: info.code, message: info.message, topic: a.topic, partition: a.partition });
    }
    if (leading < batch.length) this.#d.logger?.warn('preferred leader elections refused', { reassignment: id, refused: batch.length - leading, lastError: this.#lastError.get(id) });
    return leading;
  }

  async #write(r: ReassignmentRecord, tally: LeaderElectionTally): Promise<void> {
    const before = r.leaderElections;
    if (before && sameTally(before, tally)) return;
    await withRecordClaim(this.#d.store, { owner: this.#d.config.instanceId, ttlMs: this.#d.config.pacingLeaseMs, purpose: 'leader-elections', waitMs: 2000 }, r.id, async () => {
      const fresh = (await this.#d.store.refresh()).reassignments.get(r.id);
      if (!fresh) return { result: undefined };
      return { result: undefined, values: [{ ...fresh, leaderElections: tally }] };
    });
  }

  #forgetOthers(ids: ReadonlySet<string>): void {
    for (const k of this.#attempts.keys()) if (!ids.has(k.slice(0, k.indexOf('\u0000')))) this.#attempts.delete(k);
    for (const id of this.#lastError.keys()) if (!ids.has(id)) this.#lastError.delete(id);
  }
}

function completedCount(ps: readonly ReassignmentPartitionRecord[]): number {
  let n = 0;
  for (const p of ps) if (p.state === 'completed' && !p.supersededBy) n++;
  return n;
}

function sameTally(a: LeaderElectionTally, b: LeaderElectionTally): boolean {
  return a.elected === b.elected && a.pending === b.pending && a.failed === b.failed && a.completed === b.completed && a.lastError?.code === b.lastError?.code && a.lastError?.topic === b.lastError?.topic && a.lastError?.partition === b.lastError?.partition;
}
