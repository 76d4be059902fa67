// Paced execution (issue 9): starting the next wave of a running reassignment that has a
// `concurrency` bound, as earlier moves complete. Called by the reconciler (every pass and as
// soon as its fast poll sees one of a paced reassignment's moves end) in every instance.
//
// One wave, crash-safe and exclusive across instances:
//   1. claim `pacing/<id>` on the state topic (src/state/claims.ts): one instance at a time
//      starts waves of a reassignment; the loser does nothing (the holder does the work);
//   2. refresh the record and read Kafka now (ListPartitionReassignments, Metadata):
//      - a `moving` partition Kafka does not list any more: completed at its target, else cancelled;
//      - a `queued` partition Kafka lists as moving (a holder died after Kafka accepted its wave
//        but before recording it): `moving`, never sent again;
//      - a `queued` partition already at its target (same crash, and it finished meanwhile, or
//        nothing to move): `completed`, never sent;
//   3. unless paused: the next wave = the queued partitions that fit the bounds given what is
//      moving, in the record's order (src/domain/reassignment/pacing.ts);
//   4. the record's throttle demand becomes what Kafka's tool would set for the wave while the
//      moves Kafka lists run (this reassignment's and any other, merged as the tool does:
//      computeReassignmentThrottles); record written BEFORE the configs change, then one
//      throttle sync, so the wave never copies unthrottled;
//   5. ONE AlterPartitionReassignments call for the wave; refused partitions become `failed`
//      with Kafka's error (the queue goes on), the others `moving`; the record is written in the
//      same batch as the claim's release.
// A crash anywhere: the claim's lease ends and the next holder redoes 2-5 from what Kafka shows,
// so no partition is started twice and the bounds hold (what Kafka lists counts as in flight).
import {
  computeReassignmentThrottles,
  nextToStart,
  queueOrder,
  throttleDemandFor,
  withLogDirThrottle,
  type ConcurrencyBounds,
  type PacedPartition,
  type PacingOrder,
  type ThrottleDemand,
} from '../domain/reassignment/index.js';
import type { KafkaAdmin, MovingPartition } from '../kafka/kafka-admin.js';
import { boundedError } from '../state/layout.js';
import type { ReassignmentPartitionRecord, ReassignmentRecord, StateValue } from '../state/records.js';
import type { StateStore } from '../state/store.js';
import type { DecidedClaim } from '../state/claims.js';
import type { Logger } from '../observability/logger.js';
import { crashPoint, type ReassignmentConfig } from './config.js';
import { partitionId } from './ownership.js';
import type { ThrottleSync } from './throttle-sync.js';
import { logDirBrokers } from './log-dir-moves.js';

export const pacingClaimResource = (id: string): string => `pacing/${id}`;

/**
 * The claim every writer of a live reassignment's record (header and chunks) holds while it
 * reads, decides and writes: the reconciler's passes, the pacer's waves, PATCH and DELETE (and
 * the start path's last write). A write is then always computed from the record as it is in
 * the state topic, never over one written meanwhile by another instance (a lost update).
 * Same resource as the pacer's (a wave is one of those writes).
 */
export const recordClaimResource = pacingClaimResource;

/**
 * Runs `fn` holding the record claim of `id`, waiting (polling) while another holder has it,
 * at most `waitMs`; then `{ granted: false }` (the caller tries again later: its write is
 * re-derived, not lost). `fn` returns what to write: written in the same batch as the release.
 */
export async function withRecordClaim<T>(
  store: StateStore,
  opts: { owner: string; ttlMs: number; purpose: string; waitMs: number },
  id: string,
  fn: () => Promise<{ result: T; values?: StateValue[]; deleteKeys?: string[] }>,
): Promise<{ granted: true; result: T } | { granted: false }> {
  const deadline = Date.now() + opts.waitMs;
  for (let attempt = 0; ; attempt++) {
    const claimed = await store.claim([recordClaimResource(id)], {
      purpose: `${opts.purpose} ${id}`,
      owner: opts.owner,
      ttlMs: opts.ttlMs,
    });
    if (claimed.granted) {
      let released = false;
      try {
        // Every write fn makes (and its release below) is fenced by the claim (src/state/fence.ts).
        const out = await store.underClaim(claimed.claim, fn);
        released = true;
        await store.release(claimed.claim, out.values ?? [], out.deleteKeys ?? []);
        return { granted: true, result: out.result };
      } finally {
        if (!released) await store.release(claimed.claim).catch(() => undefined);
      }
    }
    if (Date.now() >= deadline) return { granted: false };
    await new Promise((r) => setTimeout(r, Math.min(10 * 2 ** attempt, 50)));
  }
}

export interface PacerDeps {
  kafka: KafkaAdmin;
  store: StateStore;
  throttles: ThrottleSync;
  config: ReassignmentConfig;
  logger?: Logger;
  now?: () => number;
}

export type AdvanceResult =
  { kind: 'busy' } | { kind: 'not-running' } | { kind: 'advanced'; started: number; failed: number; settled: number };

const sameSet = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x) => b.includes(x));

/** Bounds of a paced record (null = not paced). */
export function pacingOf(r: ReassignmentRecord): { bounds: ConcurrencyBounds; order: PacingOrder } | null {
  if (!r.concurrency) return null;
  return { bounds: { perBroker: r.concurrency.perBroker, cluster: r.concurrency.cluster }, order: r.order };
}

/** Whether a record is paced and still has partitions waiting for a wave. */
export function hasQueue(r: ReassignmentRecord): boolean {
  return r.concurrency !== null && r.partitions.some((p) => p.state === 'queued' && !p.supersededBy);
}

/** How many waves' worth of queued candidates get their throttle lists ahead of time. */
export const PREFETCH_WAVES = 2;

/** Whether `have` throttles at least what `need` asks for: every list entry, every broker at the same rates. */
export function coversDemand(have: ThrottleDemand, need: ThrottleDemand): boolean {
  for (const [topic, t] of Object.entries(need.topics)) {
    const h = have.topics[topic];
    for (const side of ['leader', 'follower'] as const) {
      const n = t[side];
      if (n === undefined || (n !== '*' && n.length === 0)) continue;
      const hs = h?.[side];
      if (hs === '*') continue;
      if (n === '*' || hs === undefined) return false;
      const set = new Set<string>(hs);
      if (!n.every((e) => set.has(e))) return false;
    }
  }
  for (const [b, rates] of Object.entries(need.brokers)) {
    const h = have.brokers[b];
    if (!h || h.leaderRate !== rates.leaderRate || h.followerRate !== rates.followerRate) return false;
  }
  return true;
}

export class Pacer {
  readonly #d: PacerDeps;
  readonly #now: () => number;

  constructor(deps: PacerDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** Settle what ended, start the next wave of `id` if slots are free (see the top of the file). */
  async advance(id: string): Promise<AdvanceResult> {
    const claimed = await this.#d.store.claim([pacingClaimResource(id)], {
      purpose: `pacing ${id}`,
      owner: this.#d.config.instanceId,
      ttlMs: this.#d.config.pacingLeaseMs,
    });
    if (!claimed.granted) return { kind: 'busy' };
    // Every write of the wave (the write-ahead, the throttle sync's) is fenced by the claim.
    return this.#d.store.underClaim(claimed.claim, () => this.#advance(id, claimed.claim));
  }

  async #advance(id: string, claim: DecidedClaim): Promise<AdvanceResult> {
    const claimed = { claim };
    let released = false;
    try {
      // claim() read the state topic up to its claim: every write made before it is in the view.
      const r = this.#d.store.view().reassignments.get(id);
      const pacing = r && pacingOf(r);
      if (!r || r.state !== 'running' || !pacing) return { kind: 'not-running' };

      const [moving, placement] = await Promise.all([
        this.#d.kafka.listPartitionReassignments(),
        this.#d.kafka.describePartitions([...new Set(r.partitions.map((p) => p.topic))]),
      ]);
      const movingIds = new Set(moving.map((m) => partitionId(m.topic, m.partition)));
      const current = new Map<string, { replicas: number[]; leader: number }>();
      for (const t of placement)
        for (const p of t.partitions) current.set(partitionId(t.name, p.partition), { replicas: p.replicas, leader: p.leader });

      const now = this.#now();
      let settled = 0;
      let partitions: ReassignmentPartitionRecord[] = r.partitions.map((p) => {
        if (p.supersededBy) return p;
        const key = partitionId(p.topic, p.partition);
        if (p.state === 'moving' && !movingIds.has(key)) {
          settled++;
          const at = current.get(key);
          return { ...p, state: at && sameSet(at.replicas, p.target) ? ('completed' as const) : ('cancelled' as const), endedAt: now };
        }
        if (p.state === 'queued') {
          if (movingIds.has(key)) {
            settled++;
            return { ...p, state: 'moving' as const, startedAt: now };
          }
          const at = current.get(key);
          if (at && at.replicas.join() === p.target.join()) {
            settled++;
            return { ...p, state: 'completed' as const, startedAt: now, endedAt: now };
          }
        }
        return p;
      });

      // The next wave (none while paused, nor while held by the health interlocks: ./health.ts).
      const paced: (PacedPartition & { i: number })[] = [];
      partitions.forEach((p, i) => {
        if (p.supersededBy || (p.state !== 'queued' && p.state !== 'moving')) return;
        const leader = current.get(partitionId(p.topic, p.partition))?.leader;
        paced.push({
          i,
          topic: p.topic,
          partition: p.partition,
          currentReplicas: p.original,
          leader: leader !== undefined && leader >= 0 ? leader : null,
          targetReplicas: p.target,
          sizeBytes: p.bytesTotal ?? 0,
          state: p.state,
        });
      });
      const wave = r.paused || r.hold ? [] : nextToStart(paced, pacing.bounds, pacing.order);

      // Throttles for what will be in flight: Kafka's tool run now for the wave, over every move
      // Kafka lists (this reassignment's in flight and anybody else's), as the tool merges the
      // ongoing reassignments into the lists of the moves it starts. Lists that already cover
      // that are kept (no config change before the wave starts); otherwise they are set for the
      // wave AND the next candidates in the queue, so that the next waves usually find them in
      // place (a throttled replica that is in sync is not slowed down by Kafka).
      let demand = r.throttleDemand;
      if (r.throttle !== null && wave.length > 0) {
        const asMove = (p: PacedPartition) => ({
          topic: p.topic,
          partition: p.partition,
          currentReplicas: p.currentReplicas,
          targetReplicas: p.targetReplicas,
        });
        const needed = throttleDemandFor(computeReassignmentThrottles(moving, wave.map(asMove)), r.throttle);
        if (!r.throttleDemand || !coversDemand(r.throttleDemand, needed)) {
          const inWave = new Set(wave.map((p) => p.i));
          const rest = paced.filter((p) => p.state === 'queued' && !inWave.has(p.i));
          const ahead = queueOrder(rest, pacing.order)
            .slice(0, Math.max(wave.length, paced.length - rest.length) * PREFETCH_WAVES)
            .map((k) => rest[k]);
          demand = withLogDirThrottle(
            throttleDemandFor(computeReassignmentThrottles(moving, [...wave, ...ahead].map(asMove)), r.throttle),
            logDirBrokers(r),
            r.throttle,
          );
        }
      }

      let next: ReassignmentRecord = { ...r, partitions, throttleDemand: demand, updatedAt: now };
      if (wave.length === 0) {
        if (settled > 0) {
          released = true;
          await this.#d.store.release(claimed.claim, [next]);
        }
        return { kind: 'advanced', started: 0, failed: 0, settled };
      }

      // Write-ahead: the demand covering the wave, then the configs, then the wave (lists
      // already in place: straight to the wave; what was settled is written with it).
      if (demand !== r.throttleDemand) {
        await this.#d.store.write([next]);
        const sync = await this.#d.throttles.sync();
        if (!sync.converged && sync.failures.length > 0) {
          // Do not start a wave unthrottled: the next pass tries again.
          this.#d.logger?.warn('pacing: throttles for the next wave not in place; wave postponed', {
            reassignment: id,
            failures: sync.failures.length,
          });
          // The lists as they were: the next step sees them not covering its wave and syncs again.
          released = true;
          await this.#d.store.release(claimed.claim, [{ ...next, throttleDemand: r.throttleDemand }]);
          return { kind: 'advanced', started: 0, failed: 0, settled };
        }
      }
      crashPoint(this.#d.config, 'pacing-throttles');
      // The wave is sent only if Kafka's answer can arrive inside our lease: an instance that
      // takes the claim after it (a DELETE) then finds the wave in Kafka's list and cancels it.
      // Never a wave that lands after another holder has read Kafka (issue 28, L1).
      if (!this.#d.store.holds(claimed.claim, this.#d.config.kafkaRequestTimeoutMs)) {
        this.#d.logger?.warn('pacing: lease too short for the wave; left to the next holder', { reassignment: id, wave: wave.length });
        released = true;
        await this.#d.store.release(claimed.claim, [next]).catch(() => undefined);
        return { kind: 'busy' };
      }
      const results = await this.#d.kafka.alterPartitionReassignments(
        wave.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...p.targetReplicas] })),
      );
      crashPoint(this.#d.config, 'pacing-start');
      const byKey = new Map(results.map((x) => [partitionId(x.topic, x.partition), x]));
      const startedAt = this.#now();
      let started = 0;
      let failed = 0;
      const inWave = new Set(wave.map((p) => p.i));
      partitions = next.partitions.map((p, i) => {
        if (!inWave.has(i)) return p;
        const res = byKey.get(partitionId(p.topic, p.partition));
        if (res && !res.ok) {
          failed++;
          return {
            ...p,
            state: 'failed' as const,
            endedAt: startedAt,
            startError: boundedError({ code: res.error.code, name: res.error.name, message: res.error.message }),
          };
        }
        started++;
        return { ...p, state: 'moving' as const, startedAt };
      });
      next = { ...next, partitions, updatedAt: startedAt };
      released = true;
      await this.#d.store.release(claimed.claim, [next]);
      this.#d.logger?.info('pacing: wave started', { reassignment: id, started, failed });
      return { kind: 'advanced', started, failed, settled };
    } finally {
      if (!released) await this.#d.store.release(claimed.claim).catch(() => undefined);
    }
  }
}

/** Kafka's moves that belong to paced live records, by record id (for the fast poll). */
export function pacedMoving(records: Iterable<ReassignmentRecord>, moving: readonly MovingPartition[]): Map<string, number> {
  const listed = new Set(moving.map((m) => partitionId(m.topic, m.partition)));
  const out = new Map<string, number>();
  for (const r of records) {
    if (r.state !== 'running' || !r.concurrency) continue;
    let n = 0;
    for (const p of r.partitions) if (p.state === 'moving' && !p.supersededBy && listed.has(partitionId(p.topic, p.partition))) n++;
    out.set(r.id, n);
  }
  return out;
}
