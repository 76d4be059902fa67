// When the reassignment worker releases its free heap pages (src/worker/heap-releaser.ts):
// after large exchanges only, never within the asking turn, one at a time, spaced.
import { strict as assert } from 'node:assert';
import { setImmediate as turn } from 'node:timers/promises';
import { test } from 'node:test';
import type { HeapRelease } from '../../src/heap-release.js';
import { HeapReleaser } from '../../src/worker/heap-releaser.js';

const RELEASED: HeapRelease = { seconds: 0.1, heapBefore: 200, heapAfter: 100 };

/** A releaser on a clock the test moves, whose releases end when the test says. */
function setup(minBytes = 1000, minIntervalMs = 2000) {
  let now = 0;
  const started: (() => void)[] = [];
  const released: HeapRelease[] = [];
  const errors: unknown[] = [];
  let fail = false;
  const releaser = new HeapReleaser({
    release: () => new Promise<HeapRelease>((resolve, reject) => started.push(() => (fail ? reject(new Error('no')) : resolve(RELEASED)))),
    minBytes,
    minIntervalMs,
    onReleased: (r) => released.push(r),
    onError: (e) => errors.push(e),
    now: () => now,
  });
  return {
    releaser,
    started,
    released,
    errors,
    failNext: () => (fail = true),
    advance: async (ms: number, t: { mock: { timers: { tick(ms: number): void } } }) => {
      now += ms;
      t.mock.timers.tick(ms);
      await turn();
    },
  };
}

test('an exchange below the size asks nothing; one at or above it releases after the asking turn', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const s = setup();
  s.releaser.exchanged(999);
  await s.advance(0, t);
  assert.equal(s.started.length, 0);
  s.releaser.exchanged(1000);
  assert.equal(s.started.length, 0, 'not within the turn that asked');
  await s.advance(0, t);
  assert.equal(s.started.length, 1);
  s.started[0]();
  await turn();
  assert.deepEqual(s.released, [RELEASED]);
});

test('one release at a time, spaced by the interval; what is asked meanwhile runs once after', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const s = setup();
  s.releaser.exchanged(5000);
  await s.advance(0, t);
  assert.equal(s.started.length, 1);
  // Asked three times while it runs: one more, not three.
  s.releaser.exchanged(5000);
  s.releaser.exchanged(5000);
  s.releaser.exchanged(5000);
  await s.advance(500, t);
  assert.equal(s.started.length, 1);
  s.started[0]();
  await turn();
  await s.advance(1999, t);
  assert.equal(s.started.length, 1, 'not sooner than the interval after the last one ended');
  await s.advance(1, t);
  assert.equal(s.started.length, 2);
  s.started[1]();
  await turn();
  // Asked again later than the interval: at once (after the turn).
  await s.advance(10_000, t);
  s.releaser.exchanged(5000);
  await s.advance(0, t);
  assert.equal(s.started.length, 3);
  assert.equal(s.released.length, 2);
});

test('a failed release is reported and the next is still made; 0 bytes turns it off; stop() ends it', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const s = setup();
  s.failNext();
  s.releaser.exchanged(1000);
  await s.advance(0, t);
  s.started[0]();
  await turn();
  assert.equal(s.errors.length, 1);
  assert.equal(s.released.length, 0);
  s.releaser.exchanged(1000);
  await s.advance(2000, t);
  assert.equal(s.started.length, 2);

  const off = setup(0);
  off.releaser.exchanged(1e9);
  await off.advance(10_000, t);
  assert.equal(off.started.length, 0);

  const stopped = setup();
  stopped.releaser.exchanged(1000);
  stopped.releaser.stop();
  await stopped.advance(10_000, t);
  stopped.releaser.exchanged(1000);
  await stopped.advance(10_000, t);
  assert.equal(stopped.started.length, 0);
});
