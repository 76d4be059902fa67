// releaseHeapPages (src/heap-release.ts) against V8 itself: the pages a full collection keeps
// resident are given back to the OS. The test's own process (node --test runs each file in one).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { releaseHeapPages } from '../src/heap-release.js';

const MiB = 1024 * 1024;
const rss = () => process.memoryUsage().rss;

/** ~120 MiB of small objects in the old generation, then dropped. */
function peak(): void {
  let kept: { topic: string; partition: number; replicas: number[] }[] = [];
  for (let i = 0; i < 1_200_000; i++) kept.push({ topic: `t${i % 1000}`, partition: i, replicas: [1, 2, 3] });
  assert.equal(kept.length, 1_200_000);
  kept = [];
}

test('a release gives back the pages of a dropped peak, which a full collection keeps resident', async () => {
  // A plain full collection, for the comparison: V8's gc extension, as heap-release.ts takes it.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (o: { type: 'major'; execution: 'sync' }) => void;
  setFlagsFromString('--no-expose-gc');
  const before = rss();
  const usedBefore = getHeapStatistics().used_heap_size;
  peak();
  gc({ type: 'major', execution: 'sync' });
  const afterFullGc = rss();
  // The objects are gone, their pages are not: what the release is for.
  assert.ok(getHeapStatistics().used_heap_size < usedBefore + 40 * MiB);
  assert.ok(afterFullGc - before > 60 * MiB, `a full collection kept ${Math.round((afterFullGc - before) / MiB)} MiB resident`);

  const released = await releaseHeapPages();
  const afterRelease = rss();
  assert.ok(afterFullGc - afterRelease > 50 * MiB, `released ${Math.round((afterFullGc - afterRelease) / MiB)} MiB`);
  assert.ok(released.seconds > 0 && released.seconds < 30);
  assert.ok(released.heapAfter <= released.heapBefore);
  // Nothing in this context got a global gc from it.
  assert.equal((globalThis as { gc?: unknown }).gc, undefined);
  assert.equal(runInNewContext('typeof gc'), 'undefined');
});
