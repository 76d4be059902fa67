// The plan half of a throttle sync (throttle-sync.ts): the domain's reconcileThrottles paced and
// memoised, the ledger records that make the stored ledger the planned one, and the removals a
// pass without the state topic may still make. Pure (pace only yields to the event loop).
import {
  ALL_REPLICAS,
  LEADER_THROTTLED_RATE,
  LEADER_THROTTLED_REPLICAS,
  LOG_DIRS_THROTTLED_RATE,
  parseThrottledReplicas,
  reconcileThrottles,
  throttleResourcesToRead,
  type ResourceAlteration,
  type ThrottleConfigValues,
  type ThrottleDemand,
  type ThrottleLedger,
  type ThrottleReconciliation,
} from '../domain/reassignment/index.js';
import { brokerLedgerId, ledgerKey, RECORD_VERSION, topicLedgerId, type LedgerRecord } from '../state/records.js';
import type { StateView } from '../state/store.js';

/** Ledger records to write so that the stored ledger becomes `next` (changed resources only; tombstones for emptied ones). */
export function ledgerDiff(
  view: StateView,
  next: ThrottleLedger,
  resources: { topics: string[]; brokers: string[] },
  now: number,
): { values: LedgerRecord[]; deletes: string[] } {
  const values: LedgerRecord[] = [];
  const deletes: string[] = [];
  const consider = (id: string, field: 'topic' | 'broker', want: object | undefined) => {
    const have = view.ledger.get(id)?.[field];
    const empty = want === undefined || Object.keys(want).length === 0;
    if (empty) {
      if (view.ledger.has(id)) deletes.push(ledgerKey(id));
      return;
    }
    if (sameJson(have, want)) return;
    values.push({ kind: 'ledger', v: RECORD_VERSION, id, [field]: want, updatedAt: now });
  };
  for (const t of resources.topics) consider(topicLedgerId(t), 'topic', next.topics[t]);
  for (const b of resources.brokers) consider(brokerLedgerId(b), 'broker', next.brokers[b]);
  return { values, deletes };
}

/**
 * Equal as JSON would serialise them (keys with undefined values count as absent), without
 * serialising: identical sub-objects (the usual case for an unchanged ledger) are skipped at once.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    if (a.length !== bs.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], bs[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined);
  const ak = keys(ao);
  const bk = keys(bo);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!Object.hasOwn(bo, k) || !sameJson(ao[k], bo[k])) return false;
  return true;
}

/** Same config values read (same resources, same values). */
export function sameConfigValues(a: ThrottleConfigValues, b: ThrottleConfigValues): boolean {
  const same = <T extends object>(x: Readonly<Record<string, T>>, y: Readonly<Record<string, T>>, fields: readonly (keyof T)[]) => {
    const xk = Object.keys(x);
    if (xk.length !== Object.keys(y).length) return false;
    for (const k of xk) {
      const xv = x[k];
      const yv = y[k];
      if (!yv) return false;
      for (const f of fields) if ((xv[f] ?? null) !== (yv[f] ?? null)) return false;
    }
    return true;
  };
  return same(a.topics, b.topics, ['leader', 'follower']) && same(a.brokers, b.brokers, ['leaderRate', 'followerRate']);
}

/**
 * reconcileThrottles, yielding to the event loop (`pace`) between topics: the same answer. Each
 * resource is reconciled on its own (its values, demand and ledger entry), so the whole is the
 * brokers' answer followed by each topic's in the same sorted order. At 100,000 moving
 * partitions the lists of a hundred topics hold a thousand entries each (~1 ms per list).
 */
export async function reconcileThrottlesPaced(
  current: ThrottleConfigValues,
  demand: ThrottleDemand,
  ledger: ThrottleLedger,
  pace: () => Promise<void>,
): Promise<ThrottleReconciliation> {
  const { topics } = throttleResourcesToRead(demand, ledger);
  if (topics.length <= 1) return reconcileThrottles(current, demand, ledger);
  const one = <T>(from: Readonly<Record<string, T>>, key: string): Record<string, T> =>
    Object.hasOwn(from, key) ? { [key]: from[key] } : {};
  const parts = [
    reconcileThrottles(
      { topics: {}, brokers: current.brokers },
      { topics: {}, brokers: demand.brokers },
      { topics: {}, brokers: ledger.brokers },
    ),
  ];
  for (const t of topics) {
    await pace();
    parts.push(
      reconcileThrottles(
        { topics: one(current.topics, t), brokers: {} },
        { topics: one(demand.topics, t), brokers: {} },
        { topics: one(ledger.topics, t), brokers: {} },
      ),
    );
  }
  const [head] = parts as [ThrottleReconciliation];
  return {
    alterations: parts.flatMap((p) => p.alterations),
    ledgerBeforeOps: {
      topics: Object.assign({}, ...parts.map((p) => p.ledgerBeforeOps.topics)) as ThrottleLedger['topics'],
      brokers: head.ledgerBeforeOps.brokers,
    },
    ledgerAfterOps: {
      topics: Object.assign({}, ...parts.map((p) => p.ledgerAfterOps.topics)) as ThrottleLedger['topics'],
      brokers: head.ledgerAfterOps.brokers,
    },
    overridden: parts.flatMap((p) => p.overridden),
    unread: { topics: parts.flatMap((p) => p.unread.topics), brokers: head.unread.brokers },
    invalid: parts.flatMap((p) => p.invalid),
  };
}

/**
 * reconcileThrottles with a one-entry memo: it is pure, so the same demand and ledger objects
 * (mergeThrottleDemands and ledgerOf answer the same object while their inputs are unchanged)
 * and equal config values give the same plan. A converged cluster is re-read every pass and
 * nothing changes: the plan of the last pass is reused instead of re-parsing and re-merging
 * every topic's `partition:broker` lists.
 */
export class PlanCache {
  #last:
    | { values: ThrottleConfigValues; demand: ThrottleDemand; ledger: ThrottleLedger; plan: ReturnType<typeof reconcileThrottles> }
    | undefined;
  hits = 0;
  plan(values: ThrottleConfigValues, demand: ThrottleDemand, ledger: ThrottleLedger): ReturnType<typeof reconcileThrottles> {
    const last = this.#last;
    if (last && last.demand === demand && last.ledger === ledger && sameConfigValues(last.values, values)) {
      this.hits++;
      return last.plan;
    }
    const plan = reconcileThrottles(values, demand, ledger);
    this.#last = { values, demand, ledger, plan };
    return plan;
  }

  /** plan(), computed with reconcileThrottlesPaced (yields to the event loop between topics). */
  async planPaced(
    values: ThrottleConfigValues,
    demand: ThrottleDemand,
    ledger: ThrottleLedger,
    pace: () => Promise<void>,
  ): Promise<ReturnType<typeof reconcileThrottles>> {
    const last = this.#last;
    if (last && last.demand === demand && last.ledger === ledger && sameConfigValues(last.values, values)) {
      this.hits++;
      return last.plan;
    }
    const plan = await reconcileThrottlesPaced(values, demand, ledger, pace);
    this.#last = { values, demand, ledger, plan };
    return plan;
  }
}

/**
 * The operations of `alterations` that only take away: a DELETE, a rate SET back to the
 * ledger's prior value, a list SET to a subset of the current entries (or the gateway's own
 * `*` given back). Anything that would add or raise a throttle is dropped.
 */
export function removalsOnly(
  alterations: readonly ResourceAlteration[],
  current: ThrottleConfigValues,
  ledger: ThrottleLedger,
): ResourceAlteration[] {
  const out: ResourceAlteration[] = [];
  for (const a of alterations) {
    const configs = a.configs.filter((c) => {
      if (c.operation === 'DELETE') return true;
      if (a.resourceType === 'broker') {
        const field = c.name === LEADER_THROTTLED_RATE ? 'leaderRate' : c.name === LOG_DIRS_THROTTLED_RATE ? 'logDirRate' : 'followerRate';
        return ledger.brokers[a.resourceName]?.[field]?.prior === c.value;
      }
      const field = c.name === LEADER_THROTTLED_REPLICAS ? 'leader' : 'follower';
      const cur = parseThrottledReplicas(current.topics[a.resourceName]?.[field] ?? null);
      const next = parseThrottledReplicas(c.value);
      if (!cur || !next || next.all) return false;
      if (cur.all) return ledger.topics[a.resourceName]?.[field]?.added.includes(ALL_REPLICAS) ?? false;
      return next.entries.every((e) => cur.entries.includes(e));
    });
    if (configs.length) out.push({ ...a, configs });
  }
  return out;
}
