// releaseHeapPages (src/heap-release.ts) against V8 itself: the pages a full collection keeps
// resident are given back to the OS. The test's own process (node --test runs each file in one).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { memoryReducingCollections, releaseHeapPages } from '../src/heap-release.js';

const MiB = 1024 * 1024;
const rss = () => process.memoryUsage().rss;

/** ~120 MiB of small objects in the old generation, then dropped. */
function peak(): void {
  let kept: { topic: string; partition: number; replicas: number[] }[] = [];
  for (let i = 0; i < 1_200_000; i++) kept.push({ topic: `t${i % 1000}`, partition: i, replicas: [1, 2, 3] });
  assert.equal(kept.length, 1_200_000);
  kept = [];
}

/** V8's gc extension, as heap-release.ts takes it, for a plain full collection. */
function plainGc(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (o: { type: 'major'; execution: 'sync' }) => void;
  setFlagsFromString('--no-expose-gc');
  return () => gc({ type: 'major', execution: 'sync' });
}

/** Allocates garbage (a rolling 40,000 objects kept) until `until` settles or `majors` full collections ran. */
async function churn(majors: number, until?: Promise<unknown>): Promise<number> {
  let seen = 0;
  let settled = false;
  void until?.then(() => (settled = true));
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) seen++;
  });
  observer.observe({ entryTypes: ['gc'] });
  let live: { a: number; b: string; c: number[] }[] = [];
  try {
    while (!settled && seen < majors) {
      for (let i = 0; i < 20_000; i++) {
        live.push({ a: i, b: `x${i}`, c: [i] });
        if (live.length > 80_000) live = live.slice(40_000);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    observer.disconnect();
  }
  return seen;
}

test('a release gives back the pages of a dropped peak, which a full collection keeps resident', async () => {
  const gc = plainGc();
  const before = rss();
  const usedBefore = getHeapStatistics().used_heap_size;
  peak();
  gc();
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

test("memory-reducing collections: the thread's next full collections give the pages back, at their own pace, and later ones do not", async () => {
  const gc = plainGc();
  // Without: two full collections come and go, the dropped peak's pages stay.
  peak();
  gc();
  const kept = rss();
  await churn(2);
  assert.ok(kept - rss() < 30 * MiB, `plain collections gave back ${Math.round((kept - rss()) / MiB)} MiB`);

  // With: the same peak, then the next two full collections reduce memory.
  peak();
  gc();
  const before = rss();
  const reduced = memoryReducingCollections(2, 60_000);
  await churn(Number.POSITIVE_INFINITY, reduced);
  const r = await reduced;
  assert.equal(r.collections, 2);
  assert.ok(before - rss() > 50 * MiB, `gave back ${Math.round((before - rss()) / MiB)} MiB`);

  // And the flag is off again: a new peak's pages stay after plain collections, as at first.
  peak();
  gc();
  const again = rss();
  await churn(2);
  assert.ok(again - rss() < 30 * MiB, `after the window, plain collections gave back ${Math.round((again - rss()) / MiB)} MiB`);
});
