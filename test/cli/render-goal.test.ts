// The CLI's status render says where a reassignment came from (issue 33: "goal or plan"): the
// plan's goal with its description, a rollback's original, or "manual".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReassignmentStatus } from '../../src/client/api.js';
import { progressLines } from '../../src/cli/render.js';

const base: ReassignmentStatus['summary'] = {
  id: 'r-1',
  state: 'running',
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: null,
  throttle: null,
  autoRemoveThrottle: true,
  throttlesRemovedAt: null,
  requestedBy: 'ci',
  owner: 'gw-1',
  paused: false,
  concurrency: null,
  order: 'as-given',
  counts: { total: 1, queued: 0, moving: 1, completed: 0, failed: 0, cancelled: 0 },
  progress: {
    percent: 0,
    bytesTotal: 100,
    bytesDone: 0,
    bytesCopied: 0,
    bytesRemaining: 100,
    bytesPerSecond: null,
    etaSeconds: null,
    stalled: false,
    lastProgressAt: null,
    asOf: null,
  },
};

const goalOf = (summary: ReassignmentStatus['summary']) =>
  progressLines({ summary, moving: [], more: null }).find((l) => l.startsWith('  goal: '));

test("the goal line: a plan's goal and description, a rollback, or manual", () => {
  assert.equal(
    goalOf({ ...base, origin: { goal: 'decommission', description: 'broker 3 emptied; 4 partitions changed; 4 replicas moved' } }),
    '  goal: decommission (broker 3 emptied; 4 partitions changed; 4 replicas moved)  requested by ci',
  );
  assert.equal(goalOf({ ...base, origin: { goal: 'leaders' }, requestedBy: null }), '  goal: leaders');
  assert.equal(goalOf({ ...base, rollbackOf: 'r-0' }), '  goal: rollback of r-0  requested by ci');
  assert.equal(goalOf(base), '  goal: manual  requested by ci');
});
