// What the moves (partition-moves.ts) keep on a partition once it has moved, and the small
// helpers every part of the moves shares.
import type { TrackedPartition } from './replica-copies.js';
import type { PartitionState, TopicState } from './topics.js';

/**
 * What the moves keep about one partition, made the first time it moves and kept until its topic
 * goes (PartitionState.moves): its reassignment while it moves, its replicas' pending ISR joins,
 * when its last move completed, and the tracker's fields (it is the tracker's partition). Found
 * without a lookup: at 100,000 partitions every lookup in a Map that large is a cache miss, and
 * one Map per concern (moves, topics, copies, start times, joins, completions) cost several per
 * partition of a request.
 */
export interface MovePartition extends TrackedPartition<MovePartition> {
  readonly topic: TopicState;
  readonly p: PartitionState;
  /** Being reassigned: adding and removing are its lists then (shared, never modified), else NONE. */
  moving: boolean;
  /** Neighbours in PartitionMoves' list of moving partitions (in the order their moves started). */
  prevMoving: MovePartition | null;
  nextMoving: MovePartition | null;
  adding: number[];
  removing: number[];
  /** Caught-up replicas waiting for their ISR join (the round trip), by broker; null when none. */
  joins: Map<number, PendingJoin> | null;
  /** When its last reassignment completed (clock ms), or null. */
  completedAt: number | null;
}

/** A caught-up replica whose ISR join is due at `at` (one round trip after its copy started). */
export interface PendingJoin {
  partition: MovePartition;
  brokerId: number;
  at: number;
}

/** The empty adding / removing list of a partition that is not moving (shared, never modified). */
export const NONE: number[] = Object.freeze([]) as unknown as number[];

/** Topics in name order. */
export const byName = (a: TopicState, b: TopicState): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The moves' record of a partition, or null when it never moved. */
export function movesOf(p: PartitionState): MovePartition | null {
  return p.moves as MovePartition | null;
}

export function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether some element of `a` is missing from `b` (short replica lists: scans, no closure). */
export function someNotIn(a: readonly number[], b: readonly number[]): boolean {
  for (const x of a) if (!b.includes(x)) return true;
  return false;
}

/** The partition's record, made on its first move. */
export function recordOf(t: TopicState, p: PartitionState): MovePartition {
  let r = movesOf(p);
  if (r === null) {
    r = {
      topic: t,
      p,
      moving: false,
      prevMoving: null,
      nextMoving: null,
      adding: NONE,
      removing: NONE,
      joins: null,
      completedAt: null,
      trackerFirstCopy: null,
      trackerDirty: false,
      trackerPrev: null,
      trackerNext: null,
    };
    p.moves = r;
  }
  return r;
}
