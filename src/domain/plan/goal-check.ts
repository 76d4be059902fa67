// What the plan reaches, checked on the result (not on how it was made): where it falls short of
// the goal, or leaves preferred leaders uneven, it says so as warnings.
import { sameList, type Model } from './model.js';
import { counter, type Steps } from '../steps.js';
import type { BrokerLoad, PlanRequest, PlanWarning } from './types.js';

/** Says, as warnings, where the plan falls short of the goal (checked on the result, not on how it was made). */
export function* checkGoal(
  m: Model,
  request: PlanRequest,
  removed: ReadonlySet<number>,
  destinations: readonly number[],
  evenTotals: boolean,
  after: BrokerLoad[],
  warnings: PlanWarning[],
): Steps<void> {
  const ids = m.ids;
  if (request.goal === 'decommission') {
    for (const l of after) {
      if (removed.has(l.broker) && l.replicas > 0) {
        warnings.push({
          code: 'GOAL_NOT_REACHED',
          broker: l.broker,
          message: `Broker ${l.broker} still holds ${l.replicas} replica(s) after the plan (topics out of scope, or partitions being moved now).`,
        });
      }
    }
  }
  if (request.goal === 'rebalance' && (request.weight ?? 'replicas') === 'replicas') {
    const set = new Set(destinations);
    const inSet = after.filter((l) => set.has(l.broker));
    if (evenTotals && inSet.length > 0) {
      const max = Math.max(...inSet.map((l) => l.replicas));
      const min = Math.min(...inSet.map((l) => l.replicas));
      if (max - min > 1) {
        warnings.push({
          code: 'GOAL_NOT_REACHED',
          message: `Replica counts per broker still differ by ${max - min} (max ${max}, min ${min}): constraints (racks, one replica per broker, partitions being moved) do not allow closer.`,
        });
      }
    }
  }
  if (request.goal === 'rebalance' && request.weight === 'bytes') {
    const set = new Set(destinations);
    const inSet = after.filter((l) => set.has(l.broker));
    let largest = 0;
    for (const p of m.parts) if (p.free) largest = Math.max(largest, p.bytes);
    if (inSet.length > 1) {
      const max = Math.max(...inSet.map((l) => l.bytes));
      const min = Math.min(...inSet.map((l) => l.bytes));
      if (max - min > largest && !warnings.some((w) => w.code === 'GOAL_NOT_REACHED')) {
        warnings.push({
          code: 'GOAL_NOT_REACHED',
          message: `Bytes per broker still differ by ${max - min}, more than the largest partition (${largest}).`,
        });
      }
    }
  }
  if (request.goal === 'replication-factor') {
    const short = m.parts.filter((p) => m.inScope[p.topic] && p.free && p.target.length !== request.replicationFactor);
    if (short.length > 0)
      warnings.push({
        code: 'GOAL_NOT_REACHED',
        message: `${short.length} partition(s) could not reach replication factor ${request.replicationFactor}.`,
      });
  }
  if (m.rackAware) {
    // Changed partitions that share a rack although the destinations have a rack to spare.
    const available = new Set(m.eligibleList.map((b) => m.rackKey[b]));
    let shared = 0;
    const tick = counter(4096);
    for (const p of m.parts) {
      if (tick()) yield;
      if (!p.free || sameList(p.original, p.target)) continue;
      const used = new Set(p.target.map((b) => m.rackKey[b]));
      if (used.size < p.target.length && [...available].some((r) => !used.has(r))) shared++;
    }
    if (shared > 0) {
      warnings.push({
        code: 'RACK_CONSTRAINT',
        message: `${shared} changed partition(s) keep two replicas on one rack although another rack has room${request.goal === 'rack-repair' ? '' : ' (goal rack-repair spreads them)'}.`,
      });
    }
  }
  const deadHolders = after.filter((l) => !l.live && l.replicas > 0 && !removed.has(l.broker));
  for (const l of deadHolders) {
    warnings.push({
      code: 'BROKER_NOT_LIVE',
      broker: l.broker,
      message: `Broker ${l.broker} is not alive and holds ${l.replicas} replica(s); plan its decommission to move them.`,
    });
  }
  void ids;
}

export function checkLeaders(m: Model, after: BrokerLoad[], warnings: PlanWarning[]): void {
  const inSet = after.filter((l) => m.eligible[m.ids.indexOf(l.broker)]);
  if (inSet.length === 0) return;
  const max = Math.max(...inSet.map((l) => l.leaders));
  const min = Math.min(...inSet.map((l) => l.leaders));
  if (max - min > 1) {
    warnings.push({
      code: 'LEADERS_NOT_BALANCED',
      message: `Preferred leaders per broker still differ by ${max - min} (max ${max}, min ${min}): partitions out of scope or whose replicas are all on busy leaders keep theirs.`,
    });
  }
}
