// The HTTP thread's summary answers (src/worker/summary-answers.ts) with a fake state log: a
// posted summary answers only when its position has reached the log's end asked after the GET
// arrived, in the same topic, with nothing lost below; otherwise (and when the worker ended
// meanwhile, or the offsets cannot be asked) the worker answers. Concurrent GETs share the
// offsets request sent after the one out.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { PostedSummaries, type StateLogOffsets } from '../../src/worker/summary-answers.js';

type Offsets = { start: bigint; end: bigint; topicId?: string };

/** A log whose offsets requests the test answers one by one. */
function heldLog() {
  const pending: { resolve: (o: Offsets) => void; reject: (e: Error) => void }[] = [];
  const log: StateLogOffsets = {
    offsets: () => new Promise<Offsets>((resolve, reject) => pending.push({ resolve, reject })),
  };
  return { log, pending };
}

const post = (position: bigint, set: [string, string][] = [], topicId = 't1') => ({
  t: 'summaries' as const,
  at: { position, topicId },
  set,
  drop: [],
});

test('fresh: the posted summary answers when its position has reached the end asked after the GET', async () => {
  const { log, pending } = heldLog();
  const posted = new PostedSummaries(log);
  posted.receive(post(10n, [['a', '{"id":"a"}']]));
  const answer = posted.answer('a');
  pending.shift()!.resolve({ start: 0n, end: 10n, topicId: 't1' });
  assert.equal(await answer, '{"id":"a"}');
  assert.equal(posted.answered, 1);
});

test('not fresh: a write past the position, a lost log, another topic, the worker gone, an unknown id, offsets failing', async () => {
  const cases: [string, (p: PostedSummaries) => void, Offsets | Error][] = [
    ['a write past the position', () => undefined, { start: 0n, end: 11n, topicId: 't1' }],
    ['an end below the position (the log lost records: a reset)', () => undefined, { start: 0n, end: 9n, topicId: 't1' }],
    ['a start beyond the position', () => undefined, { start: 11n, end: 10n, topicId: 't1' }],
    ['another topic id (re-created)', () => undefined, { start: 0n, end: 10n, topicId: 't2' }],
    ['the worker ended meanwhile', (p) => p.clear(), { start: 0n, end: 10n, topicId: 't1' }],
    [
      'the view said nothing meanwhile',
      (p) => p.receive({ t: 'summaries', at: null, set: [], drop: [] }),
      { start: 0n, end: 10n, topicId: 't1' },
    ],
    ['dropped meanwhile', (p) => p.receive({ ...post(10n), drop: ['a'] }), { start: 0n, end: 10n, topicId: 't1' }],
    ['the offsets request failed', () => undefined, new Error('no leader')],
  ];
  for (const [name, meanwhile, offsets] of cases) {
    const { log, pending } = heldLog();
    const posted = new PostedSummaries(log);
    posted.receive(post(10n, [['a', '{"id":"a"}']]));
    const answer = posted.answer('a');
    meanwhile(posted);
    const asked = pending.shift()!;
    if (offsets instanceof Error) asked.reject(offsets);
    else asked.resolve(offsets);
    assert.equal(await answer, null, name);
    assert.deepEqual([posted.answered, posted.passed], [0, 1], name);
  }
  // Not posted, or nothing posted yet: the worker answers without an offsets request.
  const { log, pending } = heldLog();
  const posted = new PostedSummaries(log);
  assert.equal(await posted.answer('a'), null);
  posted.receive(post(10n, [['a', '{"id":"a"}']]));
  assert.equal(await posted.answer('b'), null);
  assert.equal(pending.length, 0);
});

test('a post that arrives while the offsets are asked counts: the worker caught up with the end', async () => {
  const { log, pending } = heldLog();
  const posted = new PostedSummaries(log);
  posted.receive(post(10n, [['a', '{"v":1}']]));
  const answer = posted.answer('a');
  posted.receive(post(12n, [['a', '{"v":2}']]));
  pending.shift()!.resolve({ start: 0n, end: 12n, topicId: 't1' });
  assert.equal(await answer, '{"v":2}');
});

test('GETs that arrive while an offsets request is out share the one sent after it', async () => {
  const { log, pending } = heldLog();
  const posted = new PostedSummaries(log);
  posted.receive(post(10n, [['a', '{"id":"a"}']]));
  const first = posted.answer('a');
  const second = posted.answer('a');
  const third = posted.answer('a');
  assert.equal(pending.length, 1, 'one request out');
  pending.shift()!.resolve({ start: 0n, end: 10n, topicId: 't1' });
  assert.equal(await first, '{"id":"a"}');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(pending.length, 1, 'one more, for the two that came while the first was out');
  pending.shift()!.resolve({ start: 0n, end: 10n, topicId: 't1' });
  assert.deepEqual(await Promise.all([second, third]), ['{"id":"a"}', '{"id":"a"}']);
});
