// The worker's summary posts (src/worker/summary-posts.ts) over a fake state store: the live
// reassignments posted with the position, nothing re-rendered that did not change, ended ones
// kept up to the bound, removed ones dropped, and nothing to answer from while the view says
// nothing (position null).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { ReassignmentRecord, ReassignmentState } from '../../src/state/records.js';
import type { SummaryPost } from '../../src/worker/protocol.js';
import { SummaryPoster, type SummaryPostSource } from '../../src/worker/summary-posts.js';

function record(id: string, state: ReassignmentState): ReassignmentRecord {
  return { id, state } as ReassignmentRecord;
}

function fakeStore() {
  const reassignments = new Map<string, ReassignmentRecord>();
  const progress = new Map<string, unknown>();
  let at: { position: bigint; topicId: string } | null = { position: 0n, topicId: 't1' };
  const observers = new Set<() => void>();
  const source: SummaryPostSource = {
    view: () => ({ reassignments, progress }),
    position: () => at,
    observePosition: (o) => {
      observers.add(o);
      return () => void observers.delete(o);
    },
  };
  return {
    source,
    reassignments,
    progress,
    move(to: bigint | null) {
      at = to === null ? null : { position: to, topicId: 't1' };
      for (const o of observers) o();
    },
    observers,
  };
}

function poster(store: ReturnType<typeof fakeStore>, endedKept?: number) {
  const posts: SummaryPost[] = [];
  const rendered: string[] = [];
  const p = new SummaryPoster({
    source: store.source,
    render: (r) => {
      rendered.push(r.id);
      if (r.id === 'broken') throw new Error('cannot render');
      return JSON.stringify({ id: r.id, state: r.state });
    },
    post: (m) => void posts.push(m),
    ...(endedKept !== undefined && { endedKept }),
  });
  return { p, posts, rendered };
}

test('live reassignments are posted with the position they were rendered at; unchanged ones are not rendered again', () => {
  const store = fakeStore();
  store.reassignments.set('a', record('a', 'running'));
  store.reassignments.set('old', record('old', 'completed'));
  const { p, posts, rendered } = poster(store);
  store.move(5n);
  p.publish();
  assert.deepEqual(posts, [
    { t: 'summaries', at: { position: 5n, topicId: 't1' }, set: [['a', '{"id":"a","state":"running"}']], drop: [] },
  ]);
  // An ended reassignment this worker never posted live is left to the worker's route.
  assert.deepEqual(rendered, ['a']);

  // The position alone moved: a post of the position, nothing rendered.
  store.move(7n);
  p.publish();
  assert.deepEqual(posts[1], { t: 'summaries', at: { position: 7n, topicId: 't1' }, set: [], drop: [] });
  assert.deepEqual(rendered, ['a']);
  // Nothing moved: no post.
  p.publish();
  assert.equal(posts.length, 2);

  // Its progress changed (a new snapshot record): rendered again.
  store.progress.set('a', { snapshots: [] });
  store.move(8n);
  p.publish();
  assert.deepEqual(
    posts[2]?.set.map(([id]) => id),
    ['a'],
  );
  assert.deepEqual(rendered, ['a', 'a']);
});

test('an ended reassignment keeps its last version, up to endedKept of them; a removed one is dropped', () => {
  const store = fakeStore();
  for (const id of ['a', 'b', 'c']) store.reassignments.set(id, record(id, 'running'));
  const { p, posts } = poster(store, 2);
  p.publish();
  assert.deepEqual(
    posts[0]?.set.map(([id]) => id),
    ['a', 'b', 'c'],
  );
  // a, then c, then b end: the two latest to end are kept.
  store.reassignments.set('a', record('a', 'completed'));
  store.move(1n);
  p.publish();
  store.reassignments.set('c', record('c', 'cancelled'));
  store.move(2n);
  p.publish();
  store.reassignments.set('b', record('b', 'failed'));
  store.move(3n);
  p.publish();
  assert.deepEqual(posts[1]?.set, [['a', '{"id":"a","state":"completed"}']]);
  assert.deepEqual(posts[3], {
    t: 'summaries',
    at: { position: 3n, topicId: 't1' },
    set: [['b', '{"id":"b","state":"failed"}']],
    drop: ['a'],
  });
  // Gone from the view (a reset): dropped.
  store.reassignments.delete('c');
  store.move(4n);
  p.publish();
  assert.deepEqual(posts[4]?.drop, ['c']);
});

test('a summary that cannot be rendered is dropped (the worker answers it); a view that says nothing empties everything', () => {
  const store = fakeStore();
  store.reassignments.set('a', record('a', 'running'));
  store.reassignments.set('broken', record('broken', 'running'));
  const { p, posts } = poster(store);
  p.publish();
  assert.deepEqual(
    posts[0]?.set.map(([id]) => id),
    ['a'],
  );
  store.move(null);
  p.publish();
  assert.deepEqual(posts[1], { t: 'summaries', at: null, set: [], drop: ['a'] });
  p.publish();
  assert.equal(posts.length, 2, 'nothing more to say');
  store.move(9n);
  p.publish();
  assert.deepEqual(
    posts[2]?.set.map(([id]) => id),
    ['a'],
    'posted afresh',
  );
});

test('started, it posts once per turn however often the position moves, and stops', async () => {
  const store = fakeStore();
  store.reassignments.set('a', record('a', 'running'));
  const { p, posts } = poster(store);
  p.start();
  for (let i = 1n; i <= 5n; i++) store.move(i);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(posts.length, 1);
  assert.deepEqual(posts[0]?.at, { position: 5n, topicId: 't1' });
  p.stop();
  assert.equal(store.observers.size, 0);
  store.move(6n);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(posts.length, 1);
});
