// The one polling helper of the tests (test/eventually.ts): it returns what the check found,
// treats a throwing check as "not yet", and on a timeout names what it waited for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from './eventually.js';

test('returns the first value other than undefined, after polling', async () => {
  let calls = 0;
  const v = await eventually('the third call', () => (++calls >= 3 ? calls : undefined), { everyMs: 1 });
  assert.equal(v, 3);
  assert.equal(calls, 3);
});

test('a check that throws counts as not yet; its value is returned once it holds', async () => {
  let calls = 0;
  const v = await eventually(
    'an assertion',
    async () => {
      calls++;
      assert.ok(calls >= 2, 'not yet');
      return 'done';
    },
    { everyMs: 1 },
  );
  assert.equal(v, 'done');
  assert.equal(calls, 2);
});

test('on a timeout it names what it waited for and carries the last error', async () => {
  const last = new Error('replicas still [0,1]');
  await assert.rejects(
    eventually(
      'the move to end',
      () => {
        throw last;
      },
      { timeoutMs: 20, everyMs: 5 },
    ),
    (err: Error) => {
      assert.match(err.message, /^timed out after 20 ms waiting for the move to end; the last check threw: replicas still \[0,1\]$/);
      assert.equal(err.cause, last);
      return true;
    },
  );
});

test('without a name, the timeout names the check by its source; timeout and pause positional', async () => {
  const started = Date.now();
  await assert.rejects(
    eventually(async () => (Date.now() < 0 ? 'never' : undefined), 30, 5),
    /waiting for async ?\(\) ?=>.*never/,
  );
  assert.ok(Date.now() - started >= 30);
});
