// The CLI's rendering of a finishBy reassignment (issue 30, part 2): the deadline, whether it
// holds, the end at the highest allowed throttle when it does not, and the end against it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReassignmentStatus } from '../../src/client/api.js';
import { deadlineLines, progressLines } from '../../src/cli/render.js';

const MiB = 1024 * 1024;
const base: ReassignmentStatus['summary'] = {
  id: 'r-1',
  state: 'running',
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: null,
  throttle: 5 * MiB,
  autoRemoveThrottle: true,
  throttlesRemovedAt: null,
  requestedBy: null,
  owner: 'gw-1',
  paused: false,
  concurrency: null,
  order: 'as-given',
  counts: { total: 4, queued: 0, moving: 2, completed: 2, failed: 0, cancelled: 0 },
  progress: {
    percent: 50,
    bytesTotal: 100,
    bytesDone: 50,
    bytesCopied: 50,
    bytesRemaining: 50,
    bytesPerSecond: null,
    etaSeconds: null,
    stalled: false,
    lastProgressAt: null,
    asOf: null,
  },
  deadline: {
    finishBy: '2026-01-01T01:00:00.000Z',
    holds: true,
    throttle: 5 * MiB,
    expectedEnd: '2026-01-01T00:57:00.000Z',
    expectedEndAtMaxThrottle: '2026-01-01T00:20:00.000Z',
    throttleBounds: { min: MiB, max: 64 * MiB },
    decidedAt: '2026-01-01T00:10:00.000Z',
  },
};

test('a deadline that holds: the expected end at the throttle picked, and the bounds', () => {
  const text = progressLines({ summary: base, moving: [], more: null }).join('\n');
  assert.match(
    text,
    /^ {2}deadline: finish by 2026-01-01T01:00:00.000Z; holds, expected end 2026-01-01T00:57:00.000Z at 5(\.0)? MiB\/s \(bounds 1(\.0)? MiB\/s–64(\.0)? MiB\/s\)$/m,
  );
});

test('a deadline that does not hold: the end at the highest allowed throttle', () => {
  const r = {
    ...base,
    deadline: { ...base.deadline!, holds: false, throttle: 64 * MiB, expectedEndAtMaxThrottle: '2026-01-01T01:30:00.000Z' },
  };
  assert.deepEqual(deadlineLines(r), [
    '  deadline: finish by 2026-01-01T01:00:00.000Z; DOES NOT HOLD: at the highest allowed throttle (64.0 MiB/s) it ends 2026-01-01T01:30:00.000Z',
  ]);
});

test('ended: how long before (or after) the deadline; nothing without one', () => {
  assert.deepEqual(deadlineLines({ ...base, state: 'completed', endedAt: '2026-01-01T00:58:30.000Z' }), [
    '  deadline: finish by 2026-01-01T01:00:00.000Z; ended 90 s before it',
  ]);
  assert.deepEqual(deadlineLines({ ...base, state: 'completed', endedAt: '2026-01-01T01:00:05.000Z' }), [
    '  deadline: finish by 2026-01-01T01:00:00.000Z; ended 5 s AFTER it',
  ]);
  const { deadline: _d, ...plain } = base;
  assert.deepEqual(deadlineLines(plain), []);
});
