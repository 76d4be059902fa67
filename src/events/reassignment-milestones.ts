// Which state changes lie between two versions of a reassignment record: pure, O(1) (only the
// record's header fields are read, never its partitions).
//
// Every instance reads the same state topic, but not necessarily the same versions of a record
// (one that starts later may find only the latest: older versions compacted away, or written
// before a reset). So the events are derived so that every instance names the same change with
// the same id, whatever versions it saw:
//
// - once-only milestones (created, started, and the end: completed / failed / cancelled) are
//   a function of a single version: `milestones(record)`. A change emits the milestones of the
//   new version that the previous one lacked. Their id is `<id>:<type>`: a reassignment reaches
//   each at most once, so the id needs no time, and an instance that first sees a finished
//   record emits the same ids as one that watched it run.
// - repeatable changes (paused, resumed, held and any state this version does not know) are
//   seen only between two versions; their id carries the version's updatedAt
//   (`<id>:<type>:<updatedAt>`; a hold: its `since`), the same for every instance that saw
//   that version.
//
// States are the API's (routes/reassignments.ts): a running record that is paused is `paused`,
// one with a `hold` (issue 30's interlocks) `held`.

import { TERMINAL_STATES, type ReassignmentRecord, type ReassignmentState } from '../state/records.js';

/** The kinds of change. `held` comes with issue 30; any state this version does not know is its own type. */
export type ReassignmentChangeType =
  'created' | 'started' | 'held' | 'paused' | 'resumed' | 'completed' | 'failed' | 'cancelled' | (string & {});

export const KNOWN_CHANGE_TYPES: readonly string[] = [
  'created',
  'started',
  'held',
  'paused',
  'resumed',
  'completed',
  'failed',
  'cancelled',
];

/** The part of a record the derivation reads (states are strings: newer gateways may write states we do not know). */
export type RecordHead = Pick<ReassignmentRecord, 'id' | 'createdAt' | 'updatedAt' | 'paused'> & {
  state: ReassignmentState | (string & {});
  startedAt?: number | undefined;
  endedAt?: number | undefined;
  /** When its hold began (a held record: issue 30's `hold.since`): the held change's time and id. */
  heldSince?: number | undefined;
};

export interface DerivedChange {
  eventId: string;
  type: ReassignmentChangeType;
  /** The state the record is in after the change. */
  state: string;
  previousState: string | null;
  /** ms since the epoch: when it happened, as the record says. */
  atMs: number;
}

const isTerminal = (state: string): boolean => TERMINAL_STATES.has(state as ReassignmentState);

/** Once-only milestones a record has reached, in the order they happen. */
function milestones(r: RecordHead): { type: string; state: string; atMs: number }[] {
  const out = [{ type: 'created', state: 'pending', atMs: r.createdAt }];
  const terminal = isTerminal(r.state);
  // Started: moves were sent to Kafka. A failed record counts only if it ran (a refused start
  // also stamps startedAt, but nothing moved: it failed from pending).
  const started = r.state !== 'pending' && (!terminal || (r.state !== 'failed' && r.startedAt !== undefined));
  if (started) out.push({ type: 'started', state: 'running', atMs: r.startedAt ?? r.updatedAt });
  if (terminal) out.push({ type: r.state, state: r.state, atMs: r.endedAt ?? r.updatedAt });
  return out;
}

/**
 * The changes from `prev` (undefined: the record is new to this view) to `next`, in the order
 * they happened. Empty when nothing a caller cares about changed (progress, throttles, ...).
 */
export function changesBetween(prev: RecordHead | undefined, next: RecordHead): DerivedChange[] {
  const out: DerivedChange[] = [];
  const had = new Set(prev ? milestones(prev).map((m) => m.type) : []);
  let previousState: string | null = prev ? prev.state : null;
  for (const m of milestones(next)) {
    if (had.has(m.type)) continue;
    out.push({ eventId: `${next.id}:${m.type}`, type: m.type, state: m.state, previousState, atMs: m.atMs });
    previousState = m.state;
  }
  if (isTerminal(next.state)) return out;
  const at = next.updatedAt;
  const repeatable = (type: string, atMs = at): void => {
    const eventId = `${next.id}:${type}:${atMs}`;
    // A hold that ends in the version that also un-pauses: one `resumed`.
    if (!out.some((e) => e.eventId === eventId))
      out.push({ eventId, type, state: next.state, previousState: prev?.state ?? previousState, atMs });
  };
  // Paused or resumed by the caller (paced execution): a flag beside the state. A record first
  // seen paused was paused at some point: `paused` (with this version's time).
  if ((prev?.paused ?? false) !== next.paused) repeatable(next.paused ? 'paused' : 'resumed');
  // A state other than pending/running (paused, held, or one a newer gateway added): entered.
  if (next.state !== 'pending' && next.state !== 'running' && prev?.state !== next.state)
    repeatable(next.state, next.state === 'held' ? (next.heldSince ?? at) : at);
  // Back to running from such a state (a pause or a hold ended).
  if (prev && next.state === 'running' && prev.state !== 'pending' && prev.state !== 'running' && !isTerminal(prev.state))
    repeatable('resumed');
  return out;
}
