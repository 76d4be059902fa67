// Who owns the throttles set now (GET /throttles): a rate is the gateway's while it still holds a
// value the gateway wrote; a throttled-replicas list is split into the entries the gateway added
// (its ledger, throttle-ledger.ts) and everybody else's.
import { drain, STEP_ITEMS, type Steps } from '../steps.js';
import { ALL_REPLICAS, parseThrottledReplicas } from './throttle-configs.js';
import { isSortedUnique, setOf, sortedEntries } from './throttle-entries.js';
import type { RateOwnership, ReplicaListOwnership } from './throttle-ledger.js';

/** The ledger entry of a list the gateway owns nothing of (a WeakMap key). */
const NOT_OWNED = Object.freeze({});

export type ThrottleOwner = 'gateway' | 'external';

/** Who set a rate now: the gateway only while it still holds a value the gateway wrote. */
export function rateOwner(current: string | null, owned: RateOwnership | undefined): ThrottleOwner | null {
  if (current === null) return null;
  return owned && owned.values.includes(current) && current !== owned.prior ? 'gateway' : 'external';
}

/** A list value split into the entries the gateway added and everybody else's. */
export interface ReplicaListOwnershipView {
  /** The value is `*`, and who set it. */
  readonly all: ThrottleOwner | null;
  readonly gateway: readonly string[];
  readonly external: readonly string[];
  /** gateway / external when all entries are one party's, `mixed` otherwise, null when empty. */
  readonly owner: ThrottleOwner | 'mixed' | null;
}

export function replicaListOwnership(current: string | null, owned: ReplicaListOwnership | undefined): ReplicaListOwnershipView {
  return drain(replicaListOwnershipSteps(current, owned));
}

/**
 * replicaListOwnership in steps (see Steps): the same answer, with a yield every STEP_ITEMS
 * entries. Linear: the value's entries (sorted when the gateway wrote it: formatThrottledReplicas)
 * and the ledger's `added` (kept sorted) are walked side by side, so both parts come out
 * sorted without a Set or a sort per call (GET /throttles at 100,000 moving partitions splits
 * 200 lists of 1,000-3,000 entries). A value written unsorted is sorted once per parsed value.
 * Memoised per parsed value (parseThrottledReplicas keeps long ones) and ledger entry object:
 * the next GET over unchanged lists answers at once. Answers are frozen (shared).
 */
export function* replicaListOwnershipSteps(
  current: string | null,
  owned: ReplicaListOwnership | undefined,
): Steps<ReplicaListOwnershipView> {
  const parsed = parseThrottledReplicas(current);
  if (!parsed) return { all: null, gateway: [], external: [], owner: 'external' };
  if (parsed.all) {
    const by: ThrottleOwner = owned?.added.includes(ALL_REPLICAS) ? 'gateway' : 'external';
    return { all: by, gateway: [], external: [], owner: by };
  }
  const byOwned = ownershipMemo.get(parsed);
  const hit = byOwned?.get(owned ?? NOT_OWNED);
  if (hit) return hit;
  // Parsed entries are deduplicated: sorted, they are strictly ascending, and every part taken
  // from them in order is sorted too (what `.filter(...).sort()` gave).
  const entries = sortedEntries(parsed.entries);
  const added = owned?.added ?? [];
  const gateway: string[] = [];
  const external: string[] = [];
  let steps = 0;
  if (isSortedUnique(added)) {
    // Merge walk; `<` orders strings as Array.prototype.sort does (UTF-16 code units).
    let j = 0;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      while (j < added.length && added[j] < e) {
        j++;
        if (++steps % STEP_ITEMS === 0) yield;
      }
      if (j < added.length && added[j] === e) {
        gateway.push(e);
        j++;
      } else external.push(e);
      if (++steps % STEP_ITEMS === 0) yield;
    }
  } else {
    // A ledger list that is not sorted and deduplicated (the ledger keeps them so): membership by Set, still no sort.
    const ours = setOf(added);
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      (ours.has(e) ? gateway : external).push(e);
      if (++steps % STEP_ITEMS === 0) yield;
    }
  }
  const owner = gateway.length === 0 ? (external.length === 0 ? null : 'external') : external.length === 0 ? 'gateway' : 'mixed';
  const view: ReplicaListOwnershipView = Object.freeze({
    all: null,
    gateway: Object.freeze(gateway),
    external: Object.freeze(external),
    owner,
  });
  // Only parsed values that cannot change are keys (parseThrottledReplicas freezes them).
  if (Object.isFrozen(parsed)) {
    if (byOwned) byOwned.set(owned ?? NOT_OWNED, view);
    else ownershipMemo.set(parsed, new WeakMap([[owned ?? NOT_OWNED, view]]));
  }
  return view;
}

const ownershipMemo = new WeakMap<object, WeakMap<object, ReplicaListOwnershipView>>();
