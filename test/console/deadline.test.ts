// The console's deadline row text (src/console/components/deadline-text.ts, shown by deadline.tsx): on track, not holding, ended.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Reassignment } from '../../src/client/api.js';
import { deadlineText } from '../../src/console/components/deadline-text.js';

const MiB = 1024 * 1024;
const r = {
  id: 'r-1',
  state: 'running',
  endedAt: null,
  throttle: 5 * MiB,
  deadline: {
    finishBy: '2026-01-01T01:00:00.000Z',
    holds: true,
    throttle: 5 * MiB,
    expectedEnd: '2026-01-01T00:57:00.000Z',
    expectedEndAtMaxThrottle: '2026-01-01T00:20:00.000Z',
    throttleBounds: { min: MiB, max: 64 * MiB },
    decidedAt: '2026-01-01T00:10:00.000Z',
  },
} as unknown as Reassignment;
const at = (iso: string) => new Date(iso).toLocaleString();

test('on track: the expected end at the throttle picked', () => {
  assert.equal(
    deadlineText(r),
    `finish by ${at('2026-01-01T01:00:00.000Z')}: on track, expected end ${at('2026-01-01T00:57:00.000Z')} at 5.0 MiB/s (bounds 1.0 MiB/s – 64.0 MiB/s)`,
  );
});

test('not holding: the end at the highest allowed throttle', () => {
  const late = { ...r, deadline: { ...r.deadline!, holds: false, expectedEndAtMaxThrottle: '2026-01-01T01:30:00.000Z' } };
  assert.equal(
    deadlineText(late),
    `finish by ${at('2026-01-01T01:00:00.000Z')}: will NOT make it; even at the highest allowed throttle (64.0 MiB/s) it ends ${at('2026-01-01T01:30:00.000Z')}`,
  );
});

test('ended: before or after it; nothing without a deadline', () => {
  assert.match(deadlineText({ ...r, state: 'completed', endedAt: '2026-01-01T00:58:30.000Z' }), /ended 90 s before it$/);
  assert.match(deadlineText({ ...r, state: 'completed', endedAt: '2026-01-01T01:00:05.000Z' }), /ended 5 s after it$/);
  assert.equal(deadlineText({ ...r, deadline: undefined }), '');
});
