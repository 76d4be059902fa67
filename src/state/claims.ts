// Compare-and-set on the state topic: exclusive, leased claims on named resources, decided by
// the order of the state topic's single partition. Used wherever two gateway instances could
// otherwise both act on one thing (two overlapping reassignments accepted at once, two throttle
// syncs of one config resource, one partition started twice).
//
// Why not "a conditional record under the resource's key": the topic is compacted, and
// compaction keeps only the LATEST record per key, so a losing record written after the winner
// under the same key would replace the winner once the cleaner runs. Instead:
//
// - every claim has its OWN key, `claim/<claimId>` (the id is unique per attempt), so the
//   cleaner never merges two claims; the only later record under that key is its tombstone;
// - the decision is made in log order: a claim at offset o is GRANTED iff no claim granted
//   before o, not tombstoned before o and not expired at the new claim's createdAt, names one of
//   its resources. The decision of a claim never changes afterwards;
// - a loser tombstones its claim at once (any instance may tombstone a claim that lost or
//   expired: the reconciler sweeps them); a winner tombstones its claim when it is done,
//   usually in the same batch as the records it wrote while holding it (an atomic hand-over:
//   readers see the result and the release together).
//
// A reader starting from scratch reaches the same decisions as instances that watched: the
// cleaner only removes claims that were tombstoned (their decision no longer matters: they hold
// nothing), and every surviving claim is decided against the surviving earlier claims. The one
// case where removing a released winner W could promote a surviving loser L (its writer died
// before tombstoning it, and no instance swept it within min.compaction.lag.ms, which is at
// least MAX_CLAIM_TTL_MS) costs time, not safety: L's writer is gone, so L is a holder that
// writes nothing, and it is taken over once its lease is over by the next claimant's clock.
//
// Leases, on no wall clock (issue 28, K1: one instance's clock 20 s ahead saw others' claims
// as expired and started extra moves). A lease is measured by each instance on its own
// monotonic clock, from the moment it first READ the claim (never from a timestamp another
// machine wrote):
// - the holder's lease ends `ttl` after it started writing its claim (ClaimHandle.mono): it
//   checks that before each write and stops writing after;
// - another instance sees the claim first after it was written, so the holder's own end is
//   always earlier than the end by any other reader's clock. A new claim that wants the
//   resources of a claim whose lease is over by its writer's clock names it in `takesOver`,
//   and the decision stays in log order: a holder is passed over only where a later claim named
//   it (deterministic for every reader, whatever their clocks). From that offset the old claim
//   is ended as if tombstoned: its writes after it are refused (fencing, src/state/fence.ts).
// Claims written by older gateways (no `takesOver`) are decided by the old wall-clock rule.
// A holder paused past its lease cannot undo another's work: see fence.ts.
export const CLAIM_PREFIX = 'claim/';
export const CLAIM_VERSION = 1;
/** The longest lease a claim may ask for; the state topic's min.compaction.lag.ms is at least this. */
export const MAX_CLAIM_TTL_MS = 15 * 60_000;

export interface ClaimValue {
  kind: 'claim';
  v: number;
  id: string;
  /** Opaque resource names, e.g. `partition/orders:0`, `throttle/topic/orders`, `throttle/broker/1`. */
  resources: string[];
  /** What the claim is for (logs, metrics, 409 details). */
  purpose: string;
  /** Gateway instance that wrote it. */
  owner: string;
  createdAt: number;
  /** createdAt + the lease (writer's wall clock): the lease's length, and the rule of claims without `takesOver`. */
  expiresAt: number;
  /**
   * Granted claims on these resources whose lease was over by the writer's monotonic clock
   * (seen for a whole lease): they do not block this claim, and end where it is granted.
   * Absent in claims of older gateways (decided by createdAt/expiresAt).
   */
  takesOver?: string[];
}

export interface DecidedClaim extends ClaimValue {
  /** Offset of the claim record in the state topic. */
  offset: bigint;
  /** This process's monotonic time when it first applied the claim (leases are measured from it). */
  seenAt: number;
  granted: boolean;
  /** Lost: the granted claim that held one of its resources. */
  blockedBy?: string;
}

export const claimKey = (id: string): string => CLAIM_PREFIX + id;

export function decodeClaim(key: string, raw: string): ClaimValue | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const c = v as Partial<ClaimValue> | null;
  if (!c || c.kind !== 'claim' || typeof c.v !== 'number' || c.v > CLAIM_VERSION || typeof c.id !== 'string' || key !== claimKey(c.id))
    return undefined;
  if (!Array.isArray(c.resources) || !c.resources.every((r) => typeof r === 'string')) return undefined;
  if (typeof c.createdAt !== 'number' || typeof c.expiresAt !== 'number') return undefined;
  if (c.takesOver !== undefined && !(Array.isArray(c.takesOver) && c.takesOver.every((r) => typeof r === 'string'))) return undefined;
  return c as ClaimValue;
}

/** How many tombstoned claims a table remembers (claim() looks its own up right after writing it). */
const ENDED_REMEMBERED = 1024;
/**
 * How long an ended claim's id is remembered for fencing: a holder stops writing once its lease
 * is over by its own clock (at most MAX_CLAIM_TTL_MS) and a write in flight then lands within a
 * request timeout, so a write under a claim that ended longer ago than this cannot arrive.
 */
export const ENDED_FENCE_MS = MAX_CLAIM_TTL_MS + 5 * 60_000;

/** The lease a claim asked for (a difference of its writer's own clock: no skew in it). */
export const leaseOf = (c: Pick<ClaimValue, 'createdAt' | 'expiresAt'>): number => c.expiresAt - c.createdAt;

/**
 * The live claims (not tombstoned) with their decisions, built by applying the state topic's
 * claim records in offset order. The decisions are pure and deterministic: the same records
 * give the same grants. Only `seenAt` (when this process first read a claim) is local: it
 * measures leases, and decides nothing that other readers could see differently.
 */
export class ClaimTable {
  readonly #claims = new Map<string, DecidedClaim>();
  /** resource -> ids of granted live claims naming it (more than one only once all but one expired). */
  readonly #holders = new Map<string, Set<string>>();
  /**
   * Claims tombstoned recently, as decided before their tombstone (bounded, oldest dropped).
   * Another instance may sweep a losing claim between its writer's produce and read-back; the
   * writer then finds only the tombstone and still needs to learn that it lost, and to whom.
   */
  readonly #ended = new Map<string, DecidedClaim>();
  /** Ids of granted claims that ended (tombstoned or taken over) -> when (monotonic): fencing. */
  readonly #endedIds = new Map<string, number>();

  clear(): void {
    this.#claims.clear();
    this.#holders.clear();
    this.#ended.clear();
    this.#endedIds.clear();
  }

  /** A claim record (or its tombstone) at `offset`, in log order; `mono`: this process's monotonic now. */
  apply(offset: bigint, id: string, value: ClaimValue | null, mono = 0): void {
    if (value === null) {
      this.#end(id, mono);
      return;
    }
    const seen = this.#claims.get(id);
    if (seen && seen.offset === offset) return; // re-read after a rebuild: same record
    if (seen) this.#end(id, mono); // a rewrite of one id: its newest record decides
    const blocker = this.#blocker(value);
    const decided: DecidedClaim = {
      ...value,
      offset,
      seenAt: mono,
      granted: blocker === undefined,
      ...(blocker !== undefined && { blockedBy: blocker }),
    };
    if (decided.granted) {
      // The holders it takes over end here: from this offset on their writes are refused.
      for (const old of value.takesOver ?? []) if (this.#claims.get(old)?.granted) this.#end(old, mono);
    }
    this.#claims.set(id, decided);
    if (decided.granted) {
      for (const r of value.resources) {
        let set = this.#holders.get(r);
        if (!set) this.#holders.set(r, (set = new Set()));
        set.add(id);
      }
    }
  }

  #end(id: string, mono: number): void {
    const c = this.#claims.get(id);
    if (!c) return;
    this.#claims.delete(id);
    if (c.granted) {
      for (const r of c.resources) this.#holders.get(r)?.delete(id);
      this.#endedIds.set(id, mono);
      // Forget ends no late write can refer to any more (their claims' leases are long over).
      for (const [old, at] of this.#endedIds) {
        if (at > mono - ENDED_FENCE_MS) break;
        this.#endedIds.delete(old);
      }
    }
    this.#ended.set(id, c);
    if (this.#ended.size > ENDED_REMEMBERED) this.#ended.delete(this.#ended.keys().next().value as string);
  }

  /** The granted live claim that blocks `value`, if any (log order: everything before it is applied). */
  #blocker(value: ClaimValue): string | undefined {
    const passed = value.takesOver ? new Set(value.takesOver) : undefined;
    for (const r of value.resources) {
      for (const id of this.#holders.get(r) ?? []) {
        const h = this.#claims.get(id);
        if (!h) continue;
        // New rule: only the holders the claim names are passed over. Old rule (a claim of an
        // older gateway): holders whose lease was over at its createdAt, by wall clocks.
        if (passed ? !passed.has(id) : h.expiresAt > value.createdAt) return id;
      }
    }
    return undefined;
  }

  get(id: string): DecidedClaim | undefined {
    return this.#claims.get(id);
  }

  /** A claim tombstoned recently (by anyone), as it was decided; undefined when not remembered. */
  ended(id: string): DecidedClaim | undefined {
    return this.#ended.get(id);
  }

  /**
   * Whether a write made under claim `id` is accepted at this point of the log: refused when
   * the claim lost, or ended (released, swept or taken over) before it. A claim this table
   * never saw is accepted: compaction removed it, or its end is too old for any late write.
   */
  fenceHolds(id: string): boolean {
    const c = this.#claims.get(id);
    if (c) return c.granted;
    return !this.#endedIds.has(id) && this.#ended.get(id)?.granted !== false;
  }

  /** Whether claim `c`'s lease is over by this process's clock: it was seen a whole lease ago. */
  static leaseOver(c: DecidedClaim, mono: number): boolean {
    return c.seenAt + leaseOf(c) <= mono;
  }

  /** The granted claim holding `resource` whose lease is not over by this process's clock, if any. */
  holder(resource: string, mono: number): DecidedClaim | undefined {
    for (const id of this.#holders.get(resource) ?? []) {
      const c = this.#claims.get(id);
      if (c && !ClaimTable.leaseOver(c, mono)) return c;
    }
    return undefined;
  }

  /** Granted live claims on `resources` whose lease is over by this process's clock: a new claim takes them over. */
  leaseOverOn(resources: readonly string[], mono: number): string[] {
    const out = new Set<string>();
    for (const r of resources) {
      for (const id of this.#holders.get(r) ?? []) {
        const c = this.#claims.get(id);
        if (c && ClaimTable.leaseOver(c, mono)) out.add(id);
      }
    }
    return [...out];
  }

  /** Live claims nobody needs any more: lost ones, and ones whose lease is over. Any instance may tombstone them. */
  garbage(mono: number): DecidedClaim[] {
    return [...this.#claims.values()].filter((c) => !c.granted || ClaimTable.leaseOver(c, mono));
  }

  get size(): number {
    return this.#claims.size;
  }

  values(): IterableIterator<DecidedClaim> {
    return this.#claims.values();
  }
}
