// The CLI's rendering of a held reassignment (issue 30): state, reason, the hold's progress
// towards resuming and the re-plan hint; nothing extra for a reassignment that is not held.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReassignmentStatus } from '../../src/client/api.js';
import { holdLines, progressLines } from '../../src/cli/render.js';

const base: ReassignmentStatus['summary'] = {
  id: 'r-1',
  state: 'held',
  reason: 'held: 1 broker(s) gone (4); no new move starts until the cluster is healthy',
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: null,
  throttle: 1_000_000,
  autoRemoveThrottle: true,
  throttlesRemovedAt: null,
  requestedBy: null,
  owner: 'gw-1',
  paused: false,
  concurrency: { perBroker: 1, cluster: null },
  order: 'size-asc',
  counts: { total: 4, queued: 2, moving: 0, completed: 2, failed: 0, cancelled: 0 },
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
  hold: {
    since: '2026-01-01T00:01:00.000Z',
    reasons: [{ kind: 'brokerGone', count: 1, examples: ['4'] }],
    healthyPasses: 1,
    resumeAfterPasses: 3,
    targetsGone: [{ broker: 4, partitions: 2, examples: ['t-0', 't-1'] }],
    replan: 'Cancel it (DELETE /reassignments/r-1 ...), then POST /plans ...',
  },
};

test('a held reassignment: state, reason, resume progress, gone targets and the re-plan hint', () => {
  const text = progressLines({ summary: base, moving: [], more: null }).join('\n');
  assert.match(text, /^r-1 {2}held {5}/);
  assert.match(text, /reason: held: 1 broker\(s\) gone \(4\)/);
  assert.match(
    text,
    /HELD since 2026-01-01T00:01:00.000Z \(brokerGone 1\): no new move starts; resumes after 3 healthy pass\(es\) in a row \(1 so far\)$/m,
  );
  assert.match(text, /target broker 4 is gone: 2 open move\(s\) go to it \(t-0, t-1\)/);
  assert.match(text, /re-plan: Cancel it/);
});

test('paused while held says it stays paused; not held: no hold lines', () => {
  assert.match(holdLines({ ...base, state: 'paused', paused: true }).join('\n'), /then stays paused/);
  const { hold: _hold, ...running } = base;
  assert.deepEqual(holdLines({ ...running, state: 'running' }), []);
});
