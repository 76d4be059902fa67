// When the reassignment worker releases its free heap pages (src/worker/heap-releaser.ts): after
// large exchanges only, one release at a time, a peak that ends meanwhile released after it.
import { strict as assert } from 'node:assert';
import { setImmediate as turn } from 'node:timers/promises';
import { test } from 'node:test';
import type { ReducedCollections } from '../../src/heap-release.js';
import { HeapReleaser } from '../../src/worker/heap-releaser.js';

const RELEASED: ReducedCollections = { collections: 2, seconds: 1.5, heapBefore: 200, heapAfter: 100 };

/** A releaser whose releases end when the test says. */
function setup(minBytes = 1000) {
  const started: ((fail?: boolean) => void)[] = [];
  const released: ReducedCollections[] = [];
  const errors: unknown[] = [];
  const releaser = new HeapReleaser({
    release: () =>
      new Promise<ReducedCollections>((resolve, reject) => started.push((fail) => (fail ? reject(new Error('no')) : resolve(RELEASED)))),
    minBytes,
    onReleased: (r) => released.push(r),
    onError: (e) => errors.push(e),
  });
  return { releaser, started, released, errors };
}

test('an exchange below the size asks nothing; one at or above it releases at once', async () => {
  const s = setup();
  s.releaser.exchanged(999);
  assert.equal(s.started.length, 0);
  s.releaser.exchanged(1000);
  assert.equal(s.started.length, 1);
  s.started[0]();
  await turn();
  assert.deepEqual(s.released, [RELEASED]);
});

test('one at a time: peaks that end while one runs get one release after it', async () => {
  const s = setup();
  s.releaser.exchanged(5000); // a dry run
  s.releaser.exchanged(5000); // its start
  s.releaser.exchanged(5000); // another
  assert.equal(s.started.length, 1, 'not while one runs');
  s.started[0]();
  await turn();
  assert.equal(s.started.length, 2, 'one more for what ended meanwhile');
  s.started[1]();
  await turn();
  assert.equal(s.started.length, 2);
  assert.equal(s.released.length, 2);
});

test('a failed release is reported and the next is still made; 0 bytes turns it off; stop() ends it', async () => {
  const s = setup();
  s.releaser.exchanged(1000);
  s.started[0](true);
  await turn();
  assert.equal(s.errors.length, 1);
  assert.equal(s.released.length, 0);
  s.releaser.exchanged(1000);
  assert.equal(s.started.length, 2);

  const off = setup(0);
  off.releaser.exchanged(1e9);
  assert.equal(off.started.length, 0);

  const stopped = setup();
  stopped.releaser.exchanged(1000);
  stopped.releaser.exchanged(1000);
  stopped.releaser.stop();
  stopped.started[0]();
  await turn();
  stopped.releaser.exchanged(1000);
  assert.equal(stopped.started.length, 1, 'none after stop(), not even the one asked before');
});
