// partitionOwners / attributeMoves: the newest live reassignment owns a partition (ties: the
// first in view order), partitions failed at start or handed on are nobody's, and the cached
// answer follows every change of the live records.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { attributeMoves, partitionOwners } from '../../src/reconcile/ownership.js';
import type { ReassignmentRecord } from '../../src/state/records.js';
import type { StateView } from '../../src/state/store.js';

type P = { topic: string; partition: number; startError?: string; supersededBy?: string };
const rec = (id: string, createdAt: number, partitions: P[], state = 'running'): ReassignmentRecord => ({ id, createdAt, state, partitions }) as unknown as ReassignmentRecord;
const viewOf = (reassignments: Map<string, ReassignmentRecord>): StateView => ({ reassignments, throttleRequests: new Map(), ledger: new Map(), progress: new Map() }) as StateView;

it('newest live record wins, ties go to the first in view order, inactive partitions and ended records own nothing', () => {
  const map = new Map<string, ReassignmentRecord>([
    ['old', rec('old', 1, [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }, { topic: 't', partition: 2 }])],
    ['new', rec('new', 5, [{ topic: 't', partition: 1 }, { topic: 't', partition: 2, startError: 'x' }, { topic: 't', partition: 3, supersededBy: 'z' }])],
    ['tieA', rec('tieA', 3, [{ topic: 'u', partition: 0 }])],
    ['tieB', rec('tieB', 3, [{ topic: 'u', partition: 0 }])],
    ['done', rec('done', 9, [{ topic: 't', partition: 0 }], 'completed')],
  ]);
  const view = viewOf(map);
  assert.deepEqual(Object.fromEntries(partitionOwners(view)), { 't:0': 'old', 't:1': 'new', 't:2': 'old', 'u:0': 'tieA' });
  assert.deepEqual(
    attributeMoves([{ topic: 't', partition: 1 }, { topic: 'x', partition: 0 }] as never, view).map((m) => m.reassignmentId),
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
