// When the reassignment worker releases its free heap pages (src/worker/heap-releaser.ts):
// after large exchanges only, once they have been quiet for a while (or at the longest wait),
// one at a time.
import { strict as assert } from 'node:assert';
import { setImmediate as turn } from 'node:timers/promises';
import { test, type TestContext } from 'node:test';
import type { HeapRelease } from '../../src/heap-release.js';
import { HeapReleaser } from '../../src/worker/heap-releaser.js';

const RELEASED: HeapRelease = { seconds: 0.1, heapBefore: 200, heapAfter: 100 };
const QUIET = 3000;
const MAX_WAIT = 30_000;

const mocked = new WeakSet<TestContext>();

/** A releaser on a clock the test moves, whose releases end when the test says. */
function setup(t: TestContext, minBytes = 1000) {
  if (!mocked.has(t)) t.mock.timers.enable({ apis: ['setTimeout'] });
  mocked.add(t);
  let now = 0;
  const started: (() => void)[] = [];
  const released: HeapRelease[] = [];
  const errors: unknown[] = [];
  let fail = false;
  const releaser = new HeapReleaser({
    release: () => new Promise<HeapRelease>((resolve, reject) => started.push(() => (fail ? reject(new Error('no')) : resolve(RELEASED)))),
    minBytes,
    quietMs: QUIET,
    maxWaitMs: MAX_WAIT,
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
    /** Moves the clock, runs the timers due, lets a release's promise settle. */
    advance: async (ms: number) => {
      now += ms;
      t.mock.timers.tick(ms);
      await turn();
    },
  };
}

test('an exchange below the size asks nothing; one at or above it releases once the exchanges have been quiet', async (t) => {
  const s = setup(t);
  s.releaser.exchanged(999);
  await s.advance(QUIET * 10);
  assert.equal(s.started.length, 0);
  s.releaser.exchanged(1000);
  await s.advance(QUIET - 1);
  assert.equal(s.started.length, 0, 'not before the quiet time');
  await s.advance(1);
  assert.equal(s.started.length, 1);
  s.started[0]();
  await turn();
  assert.deepEqual(s.released, [RELEASED]);
  await s.advance(QUIET * 10);
  assert.equal(s.started.length, 1, 'one release for one peak');
});

test('each large exchange restarts the quiet time (a dry run, then its start), up to the longest wait', async (t) => {
  const s = setup(t);
  s.releaser.exchanged(5000);
  await s.advance(QUIET - 500);
  s.releaser.exchanged(5000); // the start that followed its dry run
  await s.advance(QUIET - 1);
  assert.equal(s.started.length, 0);
  await s.advance(1);
  assert.equal(s.started.length, 1, 'one release after both');
  s.started[0]();
  await turn();

  // Large exchanges every 2 s without end: released all the same, MAX_WAIT after the first.
  for (let elapsed = 0; elapsed < MAX_WAIT; elapsed += 2000) {
    s.releaser.exchanged(5000);
    await s.advance(2000);
  }
  assert.equal(s.started.length, 2);
});

test('one release at a time: what ends while one runs is released after it', async (t) => {
  const s = setup(t);
  s.releaser.exchanged(5000);
  await s.advance(QUIET);
  assert.equal(s.started.length, 1);
  s.releaser.exchanged(5000);
  s.releaser.exchanged(5000);
  await s.advance(QUIET * 2);
  assert.equal(s.started.length, 1, 'not while one runs');
  s.started[0]();
  await turn();
  await s.advance(0);
  assert.equal(s.started.length, 2, 'the quiet time had passed: at once');
  s.started[1]();
  await turn();
  await s.advance(QUIET * 10);
  assert.equal(s.started.length, 2);
  assert.equal(s.released.length, 2);
});

test('a failed release is reported and the next is still made; 0 bytes turns it off; stop() ends it', async (t) => {
  const s = setup(t);
  s.failNext();
  s.releaser.exchanged(1000);
  await s.advance(QUIET);
  s.started[0]();
  await turn();
  assert.equal(s.errors.length, 1);
  assert.equal(s.released.length, 0);
  s.releaser.exchanged(1000);
  await s.advance(QUIET);
  assert.equal(s.started.length, 2);

  const off = setup(t, 0);
  off.releaser.exchanged(1e9);
  await off.advance(MAX_WAIT * 2);
  assert.equal(off.started.length, 0);

  const stopped = setup(t);
  stopped.releaser.exchanged(1000);
  stopped.releaser.stop();
  await stopped.advance(MAX_WAIT * 2);
  stopped.releaser.exchanged(1000);
  await stopped.advance(MAX_WAIT * 2);
  assert.equal(stopped.started.length, 0);
});
