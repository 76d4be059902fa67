// Preferred leader elections for reassignments started with `electLeaders: true` (and every
// rollback): once a partition's move has completed, its first target replica should lead, as
// kafka-leader-election.sh --election-type preferred would make it. One step of each reconcile
// pass (reconciler.ts), after the records were resolved:
//
// - records: running ones with electLeaders, and finished ones (completed or cancelled) whose
//   tally is older than their end or still has partitions pending, up to FINISHED_WINDOW_MS
//   after their end (a finished record whose tally is done is not even unpacked);
// - the completed partitions not answered yet are sent in one ElectLeaders, at most
//   ELECTION_BATCH per pass (the rest next pass). No Metadata read: Kafka answers 84
//   (ELECTION_NOT_NEEDED) for a partition its first replica already leads, 0 when it elected
//   it: both mean "led by its preferred replica". So a pass costs what completed since the last
//   one, not the size of the reassignment;
// - 80/83 (the preferred replica down, or not in the ISR yet) is tried again next pass,
//   ELECTION_ATTEMPTS times in all, then counted as failed; any other code fails at once;
// - what each partition got is this instance's memory (a byte per partition, by index into the
//   record's partitions, which never change order). After a restart the completed partitions of
//   a running record are sent again (answered 84: harmless, an election is idempotent);
// - the tally (src/domain/leaders.ts LeaderElectionTally) goes on the record's header, under the
//   record's claim on a fresh read, only when it changed.
import { ELECTION_ATTEMPTS, ELECTION_STATUS, nextElections, outcomeOf, tallyOf, type LeaderElectionTally } from '../domain/leaders.js';
import { kafkaErrorInfo } from '../kafka/errors-map.js';
import type { KafkaAdmin } from '../kafka/kafka-admin.js';
import { canElectLeaders, ELECTION_BATCH, electLeaders } from '../kafka/leaders.js';
import type { Logger } from '../observability/logger.js';
import type { ReassignmentRecord } from '../state/records.js';
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
}

/** One record's elections as this instance knows them. */
interface RecordElections {
  /** ELECTION_STATUS per partition index. */
  status: Uint8Array;
  /** Tries answered 80/83 so far, per partition index. */
  attempts: Uint8Array;
  lastError?: LeaderElectionTally['lastError'];
}

export class LeaderElections {
  readonly #d: LeaderElectionDeps;
  readonly #records = new Map<string, RecordElections>();

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
    return t === undefined || t.pending > 0 || t.updatedAt < (r.endedAt ?? 0);
  }

  async pass(view: StateView): Promise<void> {
    if (!canElectLeaders(this.#d.kafka)) return;
    const now = this.#d.now();
    const records = [...view.reassignments.values()].filter((r) => this.wants(r, now));
    const ids = new Set(records.map((r) => r.id));
    for (const id of this.#records.keys()) if (!ids.has(id)) this.#records.delete(id);
    let budget = ELECTION_BATCH;
    for (const r of records) {
      const ps = r.partitions;
      let mine = this.#records.get(r.id);
      if (!mine || mine.status.length !== ps.length)
        this.#records.set(r.id, (mine = { status: new Uint8Array(ps.length), attempts: new Uint8Array(ps.length) }));
      const batch = budget > 0 ? nextElections(ps, mine.status, budget) : [];
      budget -= batch.length;
      if (batch.length > 0) await this.#elect(r.id, ps, batch, mine);
      const t = tallyOf(ps, mine.status);
      // Nothing to say yet while it runs; a finished one gets its (empty) tally, which ends its elections.
      if (t.completed === 0 && r.leaderElections === undefined && r.state === 'running') continue;
      const tally: LeaderElectionTally = { ...t, ...(mine.lastError && { lastError: mine.lastError }), updatedAt: now };
      await this.#write(r, tally);
    }
  }

  /** One ElectLeaders for the partitions at `batch` (indexes into `ps`); records what each got. */
  async #elect(id: string, ps: ReassignmentRecord['partitions'], batch: readonly number[], mine: RecordElections): Promise<void> {
    const at = new Map<string, number>();
    for (const i of batch) at.set(`${ps[i].topic}\u0000${ps[i].partition}`, i);
    const answer = await electLeaders(
      this.#d.kafka,
      'preferred',
      batch.map((i) => ({ topic: ps[i].topic, partition: ps[i].partition })),
    );
    let refused = 0;
    for (const a of answer.partitions) {
      const i = at.get(`${a.topic}\u0000${a.partition}`);
      if (i === undefined) continue;
      const outcome = outcomeOf(a.errorCode);
      if (outcome === 'elected' || outcome === 'not-needed') {
        mine.status[i] = ELECTION_STATUS.LEADING;
        continue;
      }
      refused++;
      // Not available (the preferred replica is down or not in the ISR yet): tried again next
      // pass, up to ELECTION_ATTEMPTS times; anything else is final.
      mine.attempts[i] = outcome === 'not-available' ? mine.attempts[i] + 1 : ELECTION_ATTEMPTS;
      if (mine.attempts[i] >= ELECTION_ATTEMPTS) mine.status[i] = ELECTION_STATUS.FAILED;
      const info = kafkaErrorInfo(a.errorCode, a.errorMessage);
      mine.lastError = { name: info.name, code: info.code, message: info.message, topic: a.topic, partition: a.partition };
    }
    if (refused > 0) this.#d.logger?.warn('preferred leader elections refused', { reassignment: id, refused, lastError: mine.lastError });
  }

  async #write(r: ReassignmentRecord, tally: LeaderElectionTally): Promise<void> {
    const before = r.leaderElections;
    if (before && sameTally(before, tally) && before.updatedAt >= (r.endedAt ?? 0)) return;
    await withRecordClaim(
      this.#d.store,
      { owner: this.#d.config.instanceId, ttlMs: this.#d.config.pacingLeaseMs, purpose: 'leader-elections', waitMs: 2000 },
      r.id,
      async () => {
        const fresh = (await this.#d.store.refresh()).reassignments.get(r.id);
        if (!fresh) return { result: undefined };
        return { result: undefined, values: [{ ...fresh, leaderElections: tally }] };
      },
    );
  }
}

function sameTally(a: LeaderElectionTally, b: LeaderElectionTally): boolean {
  return (
    a.elected === b.elected &&
    a.pending === b.pending &&
    a.failed === b.failed &&
    a.completed === b.completed &&
    a.lastError?.code === b.lastError?.code &&
    a.lastError?.topic === b.lastError?.topic &&
    a.lastError?.partition === b.lastError?.partition
  );
}
