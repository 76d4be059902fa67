// partitionOwners / attributeMoves: the newest live reassignment owns a partition (ties: the
// first in view order), partitions failed at start or handed on are nobody's, and the cached
// answer follows every change of the live records.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { attributeMoves, LATE_START_WINDOW_MS, lateStartsOfCancelled, partitionOwners } from '../../src/reconcile/ownership.js';
import type { ReassignmentRecord } from '../../src/state/records.js';
import type { StateView } from '../../src/state/store.js';

type P = { topic: string; partition: number; startError?: string; supersededBy?: string };
const rec = (id: string, createdAt: number, partitions: P[], state = 'running'): ReassignmentRecord =>
  ({ id, createdAt, state, partitions }) as unknown as ReassignmentRecord;
const viewOf = (reassignments: Map<string, ReassignmentRecord>): StateView => ({
  reassignments,
  throttleRequests: new Map(),
  ledger: new Map(),
  progress: new Map(),
});

it('newest live record wins, ties go to the first in view order, inactive partitions and ended records own nothing', () => {
  const map = new Map<string, ReassignmentRecord>([
    [
      'old',
      rec('old', 1, [
        { topic: 't', partition: 0 },
        { topic: 't', partition: 1 },
        { topic: 't', partition: 2 },
      ]),
    ],
    [
      'new',
      rec('new', 5, [
        { topic: 't', partition: 1 },
        { topic: 't', partition: 2, startError: 'x' },
        { topic: 't', partition: 3, supersededBy: 'z' },
      ]),
    ],
    ['tieA', rec('tieA', 3, [{ topic: 'u', partition: 0 }])],
    ['tieB', rec('tieB', 3, [{ topic: 'u', partition: 0 }])],
    ['done', rec('done', 9, [{ topic: 't', partition: 0 }], 'completed')],
  ]);
  const view = viewOf(map);
  assert.deepEqual(Object.fromEntries(partitionOwners(view)), { 't:0': 'old', 't:1': 'new', 't:2': 'old', 'u:0': 'tieA' });
  assert.deepEqual(
    attributeMoves(
      [
        { topic: 't', partition: 1 },
        { topic: 'x', partition: 0 },
      ] as never,
      view,
    ).map((m) => m.reassignmentId),
    ['new', null],
  );

  // Cached while the same records are live; a changed record (a new object) is seen at once.
  const first = partitionOwners(view);
  assert.equal(partitionOwners(view), first);
  map.set('old', rec('old', 1, [{ topic: 't', partition: 0 }]));
  assert.deepEqual(Object.fromEntries(partitionOwners(view)), { 't:0': 'old', 't:1': 'new', 'u:0': 'tieA' });
  map.set('tieA', rec('tieA', 3, [], 'cancelled'));
  assert.equal(partitionOwners(view).get('u:0'), 'tieB');
});

it("late starts of a cancelled reassignment: its cancelled partitions moving to its target, nobody else's, within the window", () => {
  const now = 10_000_000;
  const cancelled = {
    ...rec('c', 1, []),
    state: 'cancelled',
    endedAt: now - 1000,
    partitions: [
      { topic: 't', partition: 0, state: 'cancelled', target: [2, 3] },
      { topic: 't', partition: 1, state: 'cancelled', target: [2, 3] },
      { topic: 't', partition: 2, state: 'completed', target: [2, 3] },
      { topic: 't', partition: 3, state: 'cancelled', target: [2, 3] },
    ],
  } as unknown as ReassignmentRecord;
  const live = rec('l', 2, [{ topic: 't', partition: 3 }]);
  const view = viewOf(
    new Map([
      ['c', cancelled],
      ['l', live],
    ]),
  );
  const move = (partition: number, replicas: number[], removing: number[]) => ({ topic: 't', partition, replicas, adding: [], removing });
  const moving = [move(0, [3, 2, 0, 1], [0, 1]), move(1, [2, 4, 0], [0]), move(2, [2, 3, 0], [0]), move(3, [2, 3, 0], [0])];
  // 0: its target in another order -> late; 1: another target (someone else's); 2: completed in the record; 3: a live record owns it.
  assert.deepEqual(
    lateStartsOfCancelled(moving, view, now).map((m) => m.partition),
    [0],
  );
  assert.deepEqual(lateStartsOfCancelled(moving, view, now + LATE_START_WINDOW_MS), [], 'long after the cancel: not ours any more');
});
