// The worker supervisor (src/worker/supervisor.ts) with a stub worker: ready, calls, a crash
// seen and logged with the pending call failed, the reason while it restarts, the restart, and
// no restart after stop.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { WORKER_YOUNG_GENERATION_MB, WorkerSupervisor, WorkerUnavailableError } from '../../src/worker/supervisor.js';
import type { Logger } from '../../src/observability/logger.js';
import { eventually } from '../eventually.js';

function recordingLogger(): Logger & { lines: { level: string; msg: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const log = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, msg, ...(fields && { fields }) });
  return { lines, info: log('info'), warn: log('warn'), error: log('error') };
}

test('the supervisor restarts a crashed worker, failing what was pending and saying why meanwhile', async () => {
  const logger = recordingLogger();
  const supervisor = new WorkerSupervisor({
    start: { env: {}, externalKafka: false, bandwidthBytesPerSecond: null, heapReleaseBytes: 0, nodeFlags: [], testHooks: true },
    logger,
    entry: new URL('./fixtures/stub-worker.ts', import.meta.url),
    // Long enough to observe the gap between the crash and the restart.
    initialBackoffMs: 300,
  });
  try {
    assert.equal(supervisor.unavailableReason(), 'the reassignment worker thread is starting');
    supervisor.start();
    await supervisor.whenReady();
    assert.deepEqual(await supervisor.refreshState(), { status: 'ok' });

    // A call the stub never answers, then the crash: the call fails at once, as a 503 would.
    const pending = supervisor.call('drain');
    supervisor.crashForTest();
    await assert.rejects(pending, (err: Error) => err instanceof WorkerUnavailableError && /stub worker crashed/.test(err.message));
    assert.equal(supervisor.ready, false);
    assert.match(supervisor.unavailableReason() ?? '', /^the reassignment worker thread is restarting \(it failed: stub worker crashed\)$/);
    assert.throws(() => supervisor.openStream(), WorkerUnavailableError);
    await assert.rejects(supervisor.call('stateRefresh'), WorkerUnavailableError);
    assert.ok(
      logger.lines.some(
        (l) => l.level === 'error' && l.msg === 'reassignment worker thread ended; restarting it' && l.fields?.restartInMs === 300,
      ),
    );

    await supervisor.whenReady();
    assert.equal(supervisor.starts, 2);
    assert.equal(supervisor.unavailableReason(), null);
    assert.deepEqual(await supervisor.refreshState(), { status: 'ok' });
  } finally {
    await supervisor.stop();
  }
  // Stopped: not restarted.
  assert.equal(supervisor.ready, false);
  await eventually('no restart after stop', () => (supervisor.unavailableReason()?.includes('stopped') ? true : undefined));
  assert.equal(supervisor.starts, 2);
});

test('the worker gets its own young generation (8 MiB by default, or as asked), and its heap is read', async () => {
  for (const asked of [undefined, 24]) {
    const supervisor = new WorkerSupervisor({
      start: { env: {}, externalKafka: false, bandwidthBytesPerSecond: null, heapReleaseBytes: 0, nodeFlags: [], testHooks: true },
      logger: recordingLogger(),
      entry: new URL('./fixtures/stub-worker.ts', import.meta.url),
      ...(asked !== undefined && { youngGenerationMb: asked }),
    });
    try {
      supervisor.start();
      await supervisor.whenReady();
      assert.equal(supervisor.resourceLimits?.maxYoungGenerationSizeMb, asked ?? WORKER_YOUNG_GENERATION_MB);
      const heap = await supervisor.heap();
      assert.ok(heap && heap.used > 0 && heap.used <= heap.total, JSON.stringify(heap));
      assert.ok(heap.external >= 0 && heap.malloced > 0, JSON.stringify(heap));
    } finally {
      await supervisor.stop();
    }
    assert.equal(await supervisor.heap(), null, 'no heap once stopped');
  }
});
