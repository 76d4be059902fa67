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
// before tombstoning it, and nobody swept it) is closed by time: L was written while W was
// granted, so L.createdAt < W's release; the state topic is created with
// min.compaction.lag.ms >= MAX_CLAIM_TTL_MS, so W is removed only after L has expired, and an
// expired claim holds and blocks nothing, for anyone.
//
// Leases: a holder that dies keeps its claim until it expires (ttl, at most MAX_CLAIM_TTL_MS);
// then the resources are free again. A holder must finish (or stop) before its lease ends;
// Kafka's configs offer no fencing token, so a holder paused longer than its lease could still
// write after a new holder (the holder checks its lease before each write to shrink that).
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
  /** The lease: from this time the claim holds and blocks nothing. */
  expiresAt: number;
}

export interface DecidedClaim extends ClaimValue {
  /** Offset of the claim record in the state topic. */
  offset: bigint;
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
  if (!c || c.kind !== 'claim' || typeof c.v !== 'number' || c.v > CLAIM_VERSION || typeof c.id !== 'string' || key !== claimKey(c.id)) return undefined;
  if (!Array.isArray(c.resources) || !c.resources.every((r) => typeof r === 'string')) return undefined;
  if (typeof c.createdAt !== 'number' || typeof c.expiresAt !== 'number') return undefined;
  return c as ClaimValue;
}

/** How many tombstoned claims a table remembers (claim() looks its own up right after writing it). */
const ENDED_REMEMBERED = 1024;

/**
 * The live claims (not tombstoned) with their decisions, built by applying the state topic's
 * claim records in offset order. Pure and deterministic: the same records give the same table.
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

  clear(): void {
    this.#claims.clear();
    this.#holders.clear();
    this.#ended.clear();
  }

  /** A claim record (or its tombstone) at `offset`, in log order. */
  apply(offset: bigint, id: string, value: ClaimValue | null): void {
    if (value === null) {
      const c = this.#claims.get(id);
      if (!c) return;
      this.#claims.delete(id);
      if (c.granted) for (const r of c.resources) this.#holders.get(r)?.delete(id);
      this.#ended.set(id, c);
      if (this.#ended.size > ENDED_REMEMBERED) this.#ended.delete(this.#ended.keys().next().value as string);
      return;
    }
    const seen = this.#claims.get(id);
    if (seen && seen.offset === offset) return; // re-read after a rebuild: same record
    if (seen) this.apply(seen.offset, id, null); // a rewrite of one id: its newest record decides
    const blocker = this.#blocker(value.resources, value.createdAt);
    const decided: DecidedClaim = { ...value, offset, granted: blocker === undefined, ...(blocker !== undefined && { blockedBy: blocker }) };
    this.#claims.set(id, decided);
    if (decided.granted) {
      for (const r of value.resources) {
        let set = this.#holders.get(r);
        if (!set) this.#holders.set(r, (set = new Set()));
        set.add(id);
      }
    }
  }

  #blocker(resources: readonly string[], at: number): string | undefined {
    for (const r of resources) {
      for (const id of this.#holders.get(r) ?? []) {
        const h = this.#claims.get(id);
        if (h && h.expiresAt > at) return id;
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

  /** The granted claim holding `resource` at `now` (its lease not over), if any. */
  holder(resource: string, now: number): DecidedClaim | undefined {
    for (const id of this.#holders.get(resource) ?? []) {
      const c = this.#claims.get(id);
      if (c && c.expiresAt > now) return c;
    }
    return undefined;
  }

  /** Live claims nobody needs any more: lost ones, and expired ones. Any instance may tombstone them. */
  garbage(now: number): DecidedClaim[] {
    return [...this.#claims.values()].filter((c) => !c.granted || c.expiresAt <= now);
  }

  get size(): number {
    return this.#claims.size;
  }

  values(): IterableIterator<DecidedClaim> {
    return this.#claims.values();
  }
}
