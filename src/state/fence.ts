// Fencing: every state-topic write made under a claim proves, in log order, that the claim
// still held when the write landed (issue 28, L1: a pacer whose AlterPartitionReassignments
// took longer than its lease wrote `running` over the `cancelled` that a DELETE had written
// meanwhile, and the cancelled moves went on).
//
// As Kafka's own producer epochs fence zombie producers, the fence here is the claim: a batch
// written under claim C starts with a marker record `fence/<C>` that says how many records
// after it are C's, and ends with the marker's tombstone (so markers never pile up in the
// compacted topic). Every reader applies the log in offset order; at the marker it asks its
// claim table (claims.ts ClaimTable.fenceHolds) whether C still holds there: granted, and not
// released, swept or taken over by a later claim before the marker. If not, the covered
// records are refused by every reader alike (logged, counted, and handed to the repair below),
// whatever the writer believed. Claim records themselves are never fenced: they are what
// decides.
//
// Compaction keeps the latest record per key, so a refused record that stays the latest of
// its key would, once its marker is cleaned away, be read as valid by a reader starting from
// scratch. Any instance that refuses a batch therefore re-asserts the keys' accepted values
// under a claim on the same resources (StateStore.repairRefused, run by every reconcile pass),
// long before min.compaction.lag.ms (>= MAX_CLAIM_TTL_MS) lets the cleaner near them.
import { AsyncLocalStorage } from 'node:async_hooks';

export const FENCE_PREFIX = 'fence/';
export const FENCE_VERSION = 1;

export interface FenceMarker {
  kind: 'fence';
  v: number;
  /** The claim the covered records were written under. */
  claim: string;
  /** Its resources: what a repair claims to write the keys again. */
  resources: string[];
  /** How many records right after the marker it covers. */
  count: number;
}

export const fenceKey = (claimId: string): string => FENCE_PREFIX + claimId;

export function encodeFence(m: Omit<FenceMarker, 'kind' | 'v'>): string {
  return JSON.stringify({ kind: 'fence', v: FENCE_VERSION, ...m });
}

export function decodeFence(key: string, raw: string): FenceMarker | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const m = v as Partial<FenceMarker> | null;
  if (
    !m ||
    m.kind !== 'fence' ||
    typeof m.v !== 'number' ||
    m.v > FENCE_VERSION ||
    typeof m.claim !== 'string' ||
    key !== fenceKey(m.claim)
  )
    return undefined;
  if (!Number.isSafeInteger(m.count) || m.count! < 0 || !Array.isArray(m.resources) || !m.resources.every((r) => typeof r === 'string'))
    return undefined;
  return m as FenceMarker;
}

/**
 * A write under a claim that the store did not make: the claim's lease is over by this
 * process's clock (refused before producing), or the log shows it ended before the write
 * (refused by every reader). Nothing the write carried took effect.
 */
export class FencedWriteError extends Error {
  constructor(
    readonly claimId: string,
    readonly where: 'before-write' | 'in-log',
  ) {
    super(
      where === 'before-write'
        ? `write under claim ${claimId} not made: its lease is over (another instance may hold it now)`
        : `write under claim ${claimId} refused: the claim had ended before the write reached the state topic`,
    );
    this.name = 'FencedWriteError';
  }
}

/**
 * A claim could not be had within the time a caller may wait (its holder is alive and slow,
 * or died and its lease is not over yet). Nothing was changed; the caller may try again.
 */
export class ClaimBusyError extends Error {
  constructor(
    readonly resource: string,
    readonly retryAfterSeconds: number,
  ) {
    super(`${resource} is held by another operation; try again in ${retryAfterSeconds} s`);
    this.name = 'ClaimBusyError';
  }
}

/**
 * The claim the code running now holds (innermost): StateStore.write() fences its records with
 * it. Set by StateStore.underClaim around the work done while holding a claim, so that every
 * write of that work (a service's, a throttle sync's) is fenced without passing the claim down.
 */
export const ambientClaim = new AsyncLocalStorage<string>();

/** The fence state of a reader going through the log in offset order. */
export class FenceCursor {
  #to = -1n;
  #marker: FenceMarker | undefined;
  #holds = true;

  /** A marker read at `offset`; `holds`: whether its claim held there. */
  enter(offset: bigint, marker: FenceMarker, holds: boolean): void {
    this.#to = offset + BigInt(marker.count);
    this.#marker = marker;
    this.#holds = holds;
  }

  /** The refused marker covering `offset`, if the record there is refused. */
  refusedAt(offset: bigint): FenceMarker | undefined {
    return offset <= this.#to && !this.#holds ? this.#marker : undefined;
  }

  reset(): void {
    this.#to = -1n;
    this.#marker = undefined;
    this.#holds = true;
  }
}
