// One throttle synchronisation pass: bring the cluster's replication throttle configs to
// what the live demands ask for, owning (and later removing) only what the gateway adds.
// The decisions are the domain's (reconcileThrottles); this file does the I/O in the order
// that makes a crash at any point harmless:
//
//   1. read the throttle configs of every resource a demand or the ledger names;
//   2. refresh the state topic to its end (AFTER step 1: a value seen in step 1 was set after
//      its ledger record was acknowledged, so step 2 sees that record);
//   3. compute the operations and the ledger before/after them;
//   4. write the "before" ledger (it already owns everything about to be added);
//   5. IncrementalAlterConfigs;
//   6. write the "after" ledger for resources whose change succeeded.
//
// A crash between 4 and 5 leaves a ledger owning entries that are not there (the next pass
// forgets them); between 5 and 6, entries that are there and owned (the next pass keeps or
// removes them). Never an entry that is there and not owned.
//
// Across instances, passes over the same config resource are SERIALISED through the state
// topic: before step 1 a pass claims `throttle/topic/<t>` and `throttle/broker/<id>` for every
// resource it will read (a compare-and-set decided by the topic's log order, src/state/claims.ts)
// and releases the claim in the same batch as its step-6 ledger. A pass that loses the claim
// touches nothing and tries again after the holder's release, reading the configs the holder
// wrote. Without this, A planning from {A} while B planned from {A, B} could land A's config
// after B's ledger: a value the ledger did not own, left behind for good (issue 14, F4).
// Within a process passes are serialised by a mutex.
//
// REMOVAL-ONLY MODE (the reconciler's passes, `removalOnlyFallback`): when the state topic
// cannot be read or written (no claim can be taken), a pass still removes the throttles whose
// end this instance has observed, from the last view it read: ended or expired demands in that
// view, and running reassignments / autoRemove requests none of whose partitions Kafka shows
// moving any more. It only ever DELETEs a config, restores a ledger's prior value, or takes
// entries out of a list; it never adds or raises anything, and writes no ledger (the next
// normal pass finds those entries gone, or the prior value back, and forgets them).
// Why this is safe without a claim (the F4 race): F4 leaks a value that no ledger owns, which
// takes a write that ADDS a value planned from a stale view landing after another instance's
// ledger. A removal-only pass adds nothing: what it writes is either no value, a value with
// fewer entries, or the prior value the ledger recorded as someone else's, so it cannot leave
// behind anything the gateway would have to own. The worst an interleaving can do is remove an
// entry another instance (with a readable state topic) has just demanded again; that
// instance's next pass re-adds it (a throttle missing for one reconcile interval, never one
// left for good). Configs changed by someone else since are left alone as in every pass (the
// domain only restores values the gateway wrote).
import {
  FOLLOWER_THROTTLED_RATE,
  FOLLOWER_THROTTLED_REPLICAS,
  LEADER_THROTTLED_RATE,
  LOG_DIRS_THROTTLED_RATE,
  LEADER_THROTTLED_REPLICAS,
  mergeThrottleDemands,
  reconcileThrottles,
  throttleResourcesToRead,
  type ResourceAlteration,
  type ThrottleDemand,
} from '../domain/reassignment/index.js';
import type { ConfigResult, KafkaAdmin } from '../kafka/kafka-admin.js';
import { brokerLedgerId, ledgerKey, topicLedgerId, type LedgerRecord } from '../state/records.js';
import type { DecidedClaim } from '../state/claims.js';
import type { StateStore, StateView } from '../state/store.js';
import { makePacer } from '../state/layout.js';
import { activePartitions, demandsThrottles, ledgerOf, liveDemands, orphanedId, ownedId, partitionId } from './ownership.js';
import {
  applyAlterations,
  ratesAfter,
  THROTTLE_KEYS,
  toConfigValues,
  UNKNOWN_TOPIC,
  type BrokerRates,
  type ThrottleFailure,
} from './throttle-configs.js';
import { ledgerDiff, PlanCache, removalsOnly } from './throttle-plan.js';

// Read and apply (throttle-configs.ts) and plan (throttle-plan.ts), importable from here as before.
export { applyAlterations, THROTTLE_KEYS } from './throttle-configs.js';
export { PlanCache, reconcileThrottlesPaced, removalsOnly, sameConfigValues, sameJson } from './throttle-plan.js';

/**
 * A pass's claim lease when none is configured (the runtime passes PACING_LEASE_MS, which is at
 * least the Kafka request timeout + a margin: src/reconcile/config.ts). A pass changes configs
 * only while its lease has a whole Kafka request timeout left (StateStore.holds).
 */
const CLAIM_LEASE_MS = 10_000;
/** How long sync() waits for another instance's pass on the same resources (callers: requests). */
const WAIT_BUDGET_MS = 15_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const throttleClaimResources = (r: { topics: readonly string[]; brokers: readonly (number | string)[] }): string[] => [
  ...r.topics.map((t) => `throttle/topic/${t}`),
  ...r.brokers.map((b) => `throttle/broker/${b}`),
];

export interface ThrottleSyncResult {
  /** Operations sent (successful or not). */
  alterations: ResourceAlteration[];
  /** Resources whose read or write failed (retried at the next pass). */
  failures: ThrottleFailure[];
  /** Everything demanded is in place and nothing the gateway added lingers (as far as could be read). */
  converged: boolean;
  /** Rates on the brokers this pass read, after its changes (for the throttle-rate gauge). */
  rates: BrokerRates[];
  /** Another instance held the resources (for longer than sync() waited): nothing was touched. */
  busy?: { holder: string; purpose: string; expiresAt: number } | undefined;
  /** The state topic could not be read or written: a removal-only pass ran (see the header). */
  removalOnly?: boolean;
}

/**
 * Crash-test hooks (GATEWAY_CRASH_AFTER). They belong to the process, not to one call:
 * whichever pass does the write — the request's own or the reconciler's, which may get
 * to a new demand first — is the one a crash right after that write interrupts.
 */
export interface ThrottleSyncHooks {
  /** After the write-ahead ledger write, before any config changes. */
  afterLedgerWrite?: () => void;
  /** After the configs were changed. */
  afterConfigWrite?: () => void;
  /**
   * TEST GATES: awaited at these points of a pass, so a test can force two instances' passes
   * to interleave (test/reconcile/ledger-race.integration.test.ts).
   */
  gate?: (point: 'before-ledger-write' | 'before-config-write') => Promise<void> | void;
}

class Mutex {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(fn, fn);
    this.#tail = next.catch(() => undefined);
    return next;
  }
}

export class ThrottleSync {
  readonly #kafka: KafkaAdmin;
  readonly #store: StateStore;
  readonly #now: () => number;
  readonly #mutex = new Mutex();
  readonly #hooks: ThrottleSyncHooks;
  readonly #owner: string;
  readonly #plans = new PlanCache();
  readonly #leaseMs: number;
  /** How long a config change may take: asked of the lease before one is sent. */
  readonly #requestTimeoutMs: number;

  constructor(deps: {
    kafka: KafkaAdmin;
    store: StateStore;
    now?: () => number;
    hooks?: ThrottleSyncHooks;
    owner?: string;
    leaseMs?: number;
    requestTimeoutMs?: number;
  }) {
    this.#owner = deps.owner ?? 'gateway';
    this.#leaseMs = deps.leaseMs ?? CLAIM_LEASE_MS;
    this.#requestTimeoutMs = deps.requestTimeoutMs ?? 0;
    this.#kafka = deps.kafka;
    this.#store = deps.store;
    this.#now = deps.now ?? Date.now;
    this.#hooks = deps.hooks ?? {};
  }

  /**
   * Copies the ledger this process read before the state topic was lost (StateStore.lostLedger)
   * into the state topic it can read now, as `orphaned/...` ledger records (see ownership.ts),
   * so that every instance, also one started after the loss, knows which throttle values the
   * gateway had set. Entries the current ledger owns again, or already copied, are skipped;
   * then this process forgets them (the copies are the record). Called by the reconciler on
   * every pass (nothing to do unless the topic was lost). Returns how many were written.
   */
  async persistLostLedger(): Promise<number> {
    const lost = this.#store.lostLedger();
    if (lost.size === 0) return 0;
    const view = this.#store.view();
    const now = this.#now();
    const writes: LedgerRecord[] = [];
    for (const [id, r] of lost) {
      const owned = ownedId(id);
      if (view.ledger.has(owned) || view.ledger.has(orphanedId(owned))) continue;
      writes.push({ ...r, id: orphanedId(owned), updatedAt: now });
    }
    if (writes.length) await this.#store.write(writes);
    // The copies in the topic are the record from now on: once another instance has cleaned
    // them up (tombstoned), this one must not write them again.
    this.#store.forgetLost([...lost.keys()]);
    return writes.length;
  }

  /** Reads the throttle configs of these resources (overrides only). */
  async readConfigs(topics: string[], brokers: number[]): Promise<ConfigResult<Record<string, string>>[]> {
    return this.#kafka.describeConfigOverrides(
      [...topics.map((name) => ({ kind: 'topic' as const, name })), ...brokers.map((b) => ({ kind: 'broker' as const, name: String(b) }))],
      THROTTLE_KEYS,
    );
  }

  /**
   * One pass. `wait` (default true): when another instance's pass holds the resources, try
   * again (backoff) for up to WAIT_BUDGET_MS; false = answer `busy` at once (the reconciler).
   */
  sync(opts: { wait?: boolean; removalOnlyFallback?: boolean } = {}): Promise<ThrottleSyncResult> {
    return this.#mutex.run(async () => {
      const deadline = Date.now() + WAIT_BUDGET_MS;
      for (let attempt = 0; ; attempt++) {
        const r = await this.#pass(this.#hooks, opts.removalOnlyFallback ?? false);
        if (!r.busy || opts.wait === false) return r;
        const wait = Math.min(500, 20 * 2 ** attempt);
        if (Date.now() + wait > deadline) return r;
        await sleep(wait);
      }
    });
  }

  /**
   * The operator's "remove everything" (DELETE /throttles/*?includeExternal=true): deletes the
   * throttle configs of these resources (replica lists of `topics`, rates of `brokers`), the
   * gateway's and anyone else's, under the same claim as a pass (so it cannot interleave with
   * another instance's sync of them), and drops those resources' ledger in the release batch
   * (nothing is left for it to own). Waits for another holder like sync().
   */
  deleteAll(resources: { topics: string[]; brokers: number[] }): Promise<Pick<ThrottleSyncResult, 'failures' | 'busy'>> {
    if (resources.topics.length === 0 && resources.brokers.length === 0) return Promise.resolve({ failures: [] });
    return this.#mutex.run(async () => {
      const deadline = Date.now() + WAIT_BUDGET_MS;
      for (let attempt = 0; ; attempt++) {
        const claimed = await this.#store.claim(throttleClaimResources(resources), {
          purpose: 'throttle-delete-all',
          owner: this.#owner,
          ttlMs: this.#leaseMs,
        });
        if (claimed.granted) {
          let released = false;
          // Its ledger deletes are fenced by the claim (src/state/fence.ts).
          return this.#store.underClaim(claimed.claim, async () => {
            try {
              const ops = [
                ...resources.topics.map((name) => ({
                  kind: 'topic' as const,
                  name,
                  ops: [LEADER_THROTTLED_REPLICAS, FOLLOWER_THROTTLED_REPLICAS].map((n) => ({ name: n, op: 'DELETE' as const })),
                })),
                ...resources.brokers.map((b) => ({
                  kind: 'broker' as const,
                  name: String(b),
                  ops: [LEADER_THROTTLED_RATE, FOLLOWER_THROTTLED_RATE, LOG_DIRS_THROTTLED_RATE].map((n) => ({
                    name: n,
                    op: 'DELETE' as const,
                  })),
                })),
              ];
              const failures: ThrottleSyncResult['failures'] = [];
              const ledgerDeletes: string[] = [];
              if (this.#store.holds(claimed.claim, this.#requestTimeoutMs)) {
                const view = await this.#store.refresh(); // the ledger as of the claim
                for (const r of await this.#kafka.incrementalAlterConfigs(ops)) {
                  // A topic deleted meanwhile has no throttles left either.
                  if (r.ok || (r.kind === 'topic' && r.error.code === UNKNOWN_TOPIC)) {
                    const id = r.kind === 'topic' ? topicLedgerId(r.name) : brokerLedgerId(r.name);
                    if (view.ledger.has(id)) ledgerDeletes.push(ledgerKey(id));
                  } else failures.push({ resource: `${r.kind}/${r.name}`, error: r.error });
                }
              } else {
                failures.push({
                  resource: 'claim',
                  error: {
                    code: 7,
                    name: 'REQUEST_TIMED_OUT',
                    message: 'The removal ran out of its claim lease before changing configs; try again.',
                  },
                });
              }
              // Nothing is left for the ledger to own: dropped in the release batch.
              await this.#store.release(claimed.claim, [], ledgerDeletes);
              released = true;
              return { failures };
            } finally {
              if (!released) await this.#store.release(claimed.claim).catch(() => undefined); // or its lease ends
            }
          });
        }
        const h = claimed.holder;
        const busy = { holder: h?.owner ?? 'unknown', purpose: h?.purpose ?? 'unknown', expiresAt: h?.expiresAt ?? 0 };
        const wait = Math.min(500, 20 * 2 ** attempt);
        if (Date.now() + wait > deadline) {
          const error = {
            code: 7,
            name: 'REQUEST_TIMED_OUT',
            message: `Another gateway instance (${busy.holder}) is changing these throttles; try again.`,
          };
          return { failures: [{ resource: 'claim', error }], busy };
        }
        await sleep(wait);
      }
    });
  }

  async #pass(hooks: ThrottleSyncHooks, removalOnlyFallback: boolean): Promise<ThrottleSyncResult> {
    // Which resources to read: from the view as it is now (a refresh first, so new demands count).
    let first: StateView;
    try {
      first = await this.#store.refresh();
    } catch (err) {
      if (removalOnlyFallback) return this.#removalOnly(err);
      throw err;
    }
    const wanted = throttleResourcesToRead(mergeThrottleDemands(liveDemands(first, this.#now())), ledgerOf(first.ledger.values()));
    if (wanted.topics.length === 0 && wanted.brokers.length === 0) return { alterations: [], failures: [], converged: true, rates: [] };
    let claimed: Awaited<ReturnType<StateStore['claim']>>;
    try {
      claimed = await this.#store.claim(throttleClaimResources(wanted), {
        purpose: 'throttle-sync',
        owner: this.#owner,
        ttlMs: this.#leaseMs,
      });
    } catch (err) {
      if (removalOnlyFallback) return this.#removalOnly(err);
      throw err;
    }
    if (!claimed.granted) {
      const h = claimed.holder;
      const busy = { holder: h?.owner ?? 'unknown', purpose: h?.purpose ?? 'unknown', expiresAt: h?.expiresAt ?? 0 };
      const error = {
        code: 7,
        name: 'REQUEST_TIMED_OUT',
        message: `Another gateway instance (${busy.holder}) is changing these throttles; try again.`,
      };
      const failures = [
        ...wanted.topics.map((t) => ({ resource: `topic/${t}`, error })),
        ...wanted.brokers.map((b) => ({ resource: `broker/${b}`, error })),
      ];
      return { alterations: [], failures, converged: false, rates: [], busy };
    }
    let released = false;
    const claim = claimed.claim;
    try {
      // Every ledger write of the pass is fenced by the claim (src/state/fence.ts).
      return await this.#store.underClaim(claim, () => this.#claimedPass(hooks, wanted, claim, () => (released = true)));
    } finally {
      if (!released) await this.#store.release(claimed.claim).catch(() => undefined); // or its lease ends
    }
  }

  /** The removal-only pass (see the header): the state topic failed with `cause`. */
  async #removalOnly(cause: unknown): Promise<ThrottleSyncResult> {
    const stateFailure = {
      resource: 'state',
      error: {
        code: -1,
        name: 'STATE_UNAVAILABLE',
        message: `state topic unreadable (${cause instanceof Error ? cause.message : String(cause)}): removal-only pass`,
      },
    };
    const view = this.#store.view(); // the last view this instance read
    const ledger = ledgerOf(view.ledger.values());
    const owned = { topics: Object.keys(ledger.topics), brokers: Object.keys(ledger.brokers).map(Number) };
    if (owned.topics.length === 0 && owned.brokers.length === 0)
      return { alterations: [], failures: [stateFailure], converged: false, rates: [], removalOnly: true };
    const now = this.#now();
    // Ends observed from Kafka itself: a reassignment (or an autoRemove request) none of whose partitions moves.
    let moving: Set<string> | null = null;
    try {
      moving = new Set((await this.#kafka.listPartitionReassignments()).map((m) => partitionId(m.topic, m.partition)));
    } catch {
      moving = null; // unknown: only ends already in the view count
    }
    const stillMoving = (ids: string[]) => moving === null || ids.some((id) => moving.has(id));
    const demands: ThrottleDemand[] = [];
    for (const r of view.reassignments.values()) {
      if (!demandsThrottles(r)) continue;
      if (r.state === 'running' && !stillMoving(activePartitions(r).map((p) => partitionId(p.topic, p.partition)))) continue;
      demands.push(r.throttleDemand!); // pending ones may still be starting: kept
    }
    for (const t of view.throttleRequests.values()) {
      if (t.expiresAt !== null && t.expiresAt <= now) continue;
      if (t.autoRemove && t.waitFor !== null && !stillMoving(t.waitFor)) continue;
      demands.push(t.demand);
    }
    const read = toConfigValues(await this.readConfigs(owned.topics, owned.brokers));
    const plan = reconcileThrottles(read.values, mergeThrottleDemands(demands), ledger);
    const removals = removalsOnly(plan.alterations, read.values, ledger);
    const failures = [stateFailure, ...read.failures];
    const failed = new Set<string>();
    if (removals.length) {
      failures.push(...(await applyAlterations(this.#kafka, removals, failed)));
    }
    return { alterations: removals, failures, converged: false, rates: ratesAfter(read.values, removals, failed), removalOnly: true };
  }

  async #claimedPass(
    hooks: ThrottleSyncHooks,
    wanted: { topics: string[]; brokers: number[] },
    claim: DecidedClaim,
    markReleased: () => void,
  ): Promise<ThrottleSyncResult> {
    // Only what we hold is read, so only that is changed (the domain leaves unread resources alone).
    const read = toConfigValues(await this.readConfigs(wanted.topics, wanted.brokers));
    // Write-ahead ordering: the state is read AFTER the configs (see the header).
    const view = await this.#store.refresh();
    const now = this.#now();
    const demand = mergeThrottleDemands(liveDemands(view, now));
    const ledger = ledgerOf(view.ledger.values());

    // A deleted topic took its configs with it: what the gateway owned there is gone too.
    const deletedLedger = read.deletedTopics.filter((t) => view.ledger.has(topicLedgerId(t))).map((t) => ledgerKey(topicLedgerId(t)));
    if (deletedLedger.length) await this.#store.write([], deletedLedger);

    const plan = await this.#plans.planPaced(read.values, demand, ledger, makePacer(10));
    const resources = { topics: Object.keys(read.values.topics), brokers: Object.keys(read.values.brokers) };
    const before = ledgerDiff(view, plan.ledgerBeforeOps, resources, now);
    await hooks.gate?.('before-ledger-write');
    if (before.values.length || before.deletes.length) await this.#store.write(before.values, before.deletes);
    if (plan.alterations.length > 0) hooks.afterLedgerWrite?.();

    const failures = [...read.failures];
    const failed = new Set<string>();
    if (plan.alterations.length > 0) {
      await hooks.gate?.('before-config-write');
      if (!this.#store.holds(claim, this.#requestTimeoutMs)) {
        // Too close to the end of our lease to change configs safely: the next pass redoes it.
        const error = {
          code: 7,
          name: 'REQUEST_TIMED_OUT',
          message: 'The throttle sync ran out of its claim lease before changing configs; try again.',
        };
        return {
          alterations: [],
          failures: plan.alterations.map((a) => ({ resource: `${a.resourceType}/${a.resourceName}`, error })),
          converged: false,
          rates: [],
        };
      }
      failures.push(...(await applyAlterations(this.#kafka, plan.alterations, failed)));
      hooks.afterConfigWrite?.();
    }

    // The "after" ledger only where the change went through; a failed resource keeps "before".
    const afterResources = {
      topics: resources.topics.filter((t) => !failed.has(`topic/${t}`)),
      brokers: resources.brokers.filter((b) => !failed.has(`broker/${b}`)),
    };
    const after = ledgerDiff(this.#store.view(), plan.ledgerAfterOps, afterResources, this.#now());
    // The "after" ledger and the release in one batch: whoever claims next reads both.
    await this.#store.release(claim, after.values, after.deletes);
    markReleased();

    const unread = plan.unread.topics.length + plan.unread.brokers.length;
    return {
      alterations: [...plan.alterations],
      failures,
      converged: failures.length === 0 && unread === 0,
      rates: ratesAfter(read.values, plan.alterations, failed),
    };
  }
}
