// The stream hub's rules on plain data (src/events/sse-hub.ts): a fake state view and a fake
// change feed, streams as arrays of frames. What the integration test over the simulator cannot
// force: a change heard but not yet sent when a stream opens, a client that does not read, the
// drain, and what the progress tick sends or leaves alone.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { EventStreamParser } from '../../src/client/event-stream.js';
import type { ReassignmentChange } from '../../src/events/reassignment-changes.js';
import { ReassignmentStreamHub, type StreamSink, type SummarySource } from '../../src/events/sse-hub.js';
import type { ReassignmentRecord } from '../../src/state/records.js';

const record = (id: string, state: string, updatedAt: number, extra: Partial<ReassignmentRecord> = {}) =>
  ({ id, state, updatedAt, createdAt: 1, ...extra }) as unknown as ReassignmentRecord;

function fakeWorld() {
  const reassignments = new Map<string, ReassignmentRecord>();
  const progress = new Map<string, unknown>();
  const view = () => ({ reassignments, progress }) as unknown as ReturnType<SummarySource['view']>;
  let refreshes = 0;
  const source: SummarySource = {
    refresh: async () => (refreshes++, view()),
    view,
    brief: (r) => ({ record: r, counts: { total: 1, queued: 0, moving: 0, completed: 0, failed: 0, cancelled: 0 }, progress: {} as never }),
  };
  const changes: ReassignmentChange[] = [];
  let listener: ((c: ReassignmentChange) => void) | undefined;
  const feed = {
    subscribe: (l: (c: ReassignmentChange) => void) => ((listener = l), () => (listener = undefined)),
    get: (id: string) => changes.find((c) => c.eventId === id),
    since: (after?: string, opts: { reassignmentId?: string } = {}) => {
      const i = after === undefined ? -1 : changes.findIndex((c) => c.eventId === after);
      if (after !== undefined && i === -1) return { changes: [], complete: false };
      return {
        changes: changes.slice(i + 1).filter((c) => !opts.reassignmentId || c.reassignmentId === opts.reassignmentId),
        complete: true,
      };
    },
  };
  /** Applies a record version and emits its change, as the store and the feed do. */
  const change = (id: string, type: string, state: string, previousState: string | null) => {
    reassignments.set(id, record(id, state, changes.length + 2));
    const c = {
      eventId: `${id}:${type}`,
      reassignmentId: id,
      type,
      state,
      previousState,
      at: '2026-01-01T00:00:00.000Z',
      seq: changes.length + 1,
    } as ReassignmentChange;
    changes.push(c);
    listener?.(c);
  };
  return { source, feed, change, reassignments, progress, refreshes: () => refreshes };
}

function sink(bufferedBytes = () => 0) {
  const parser = new EventStreamParser();
  const events: { event: string; id: string | null; data: any }[] = [];
  let ended = false;
  const s: StreamSink = {
    write: (frame) => {
      for (const i of parser.push(frame))
        if (i.kind === 'event') events.push({ event: i.event.event, id: i.event.id, data: JSON.parse(i.event.data) });
    },
    buffered: bufferedBytes,
    end: () => (ended = true),
  };
  return { s, events, ended: () => ended };
}

const turn = () => new Promise((r) => setImmediate(r));
const options = {
  render: (d: { record: ReassignmentRecord }) => ({ id: d.record.id, state: d.record.state }),
  maxStreams: 2,
  progressIntervalMs: 10_000,
  heartbeatMs: 10_000,
};

it('a change heard but not yet sent when a stream opens is in its snapshot, not sent again; later ones are sent once, in order', async () => {
  const w = fakeWorld();
  const hub = new ReassignmentStreamHub({ ...options, source: w.source, feed: w.feed });
  const first = sink();
  assert.equal((await hub.open(null, null, first.s)).kind, 'opened');
  w.change('r1', 'created', 'pending', null); // queued for the next turn
  const second = sink();
  await hub.open(null, null, second.s); // opens before that turn
  await turn();
  w.change('r1', 'started', 'running', 'pending');
  await turn();
  assert.deepEqual(
    first.events.map((e) => e.event),
    ['snapshot', 'created', 'started'],
  );
  assert.deepEqual(
    second.events.map((e) => e.event),
    ['snapshot', 'started'],
  );
  assert.deepEqual(
    second.events[0].data.reassignments,
    [{ id: 'r1', state: 'pending' }],
    'its snapshot reflects the change it was not sent',
  );
  assert.equal(second.events[0].id, 'r1:created', 'the snapshot carries the cursor of the last change heard');
  hub.close();
});

it('Last-Event-ID replays the retained changes after it (of this reassignment on its own stream), then the snapshot; the limit refuses, a close frees a place', async () => {
  const w = fakeWorld();
  const hub = new ReassignmentStreamHub({ ...options, source: w.source, feed: w.feed });
  w.change('r1', 'created', 'pending', null);
  w.change('r2', 'created', 'pending', null);
  w.change('r1', 'started', 'running', 'pending');
  w.change('r1', 'completed', 'completed', 'running');
  const s = sink();
  const opened = await hub.open('r1', 'r1:created', s.s);
  assert.equal(opened.kind, 'opened');
  assert.deepEqual(
    s.events.map((e) => [e.event, e.id]),
    [
      ['started', 'r1:started'],
      ['completed', 'r1:completed'],
      ['snapshot', 'r1:completed'],
    ],
  );
  assert.deepEqual(s.events[0].data.change, {
    eventId: 'r1:started',
    type: 'started',
    state: 'running',
    previousState: 'pending',
    at: '2026-01-01T00:00:00.000Z',
  });
  assert.equal((await hub.open('nope', null, sink().s)).kind, 'not-found');
  await hub.open(null, null, sink().s);
  assert.deepEqual(await hub.open(null, null, sink().s), { kind: 'limit', open: 2 });
  assert.equal(hub.refused, 1);
  if (opened.kind === 'opened') opened.close();
  assert.equal(hub.openCount, 1);
  assert.equal((await hub.open(null, null, sink().s)).kind, 'opened');
  hub.close();
  assert.equal(hub.openCount, 0);
});

it('a client that does not read is dropped (ended) instead of buffered without bound', async () => {
  const w = fakeWorld();
  const hub = new ReassignmentStreamHub({ ...options, source: w.source, feed: w.feed, maxBufferedBytes: 100 });
  let unread = 0;
  const slow = sink(() => unread);
  await hub.open(null, null, slow.s);
  unread = 101;
  w.change('r1', 'created', 'pending', null);
  await turn();
  assert.equal(slow.ended(), true);
  assert.equal(hub.openCount, 0);
  assert.equal(hub.dropped, 1);
});

it('the progress tick: one refresh for all streams; a live record whose version changed is sent, an unchanged or long-finished one is not; the drain ends every stream', async () => {
  const w = fakeWorld();
  let draining = false;
  const hub = new ReassignmentStreamHub({ ...options, progressIntervalMs: 20, source: w.source, closing: () => draining });
  w.reassignments.set('live', record('live', 'running', 1));
  w.reassignments.set('old', record('old', 'completed', 1));
  const a = sink();
  const b = sink();
  await hub.open(null, null, a.s);
  await hub.open('live', null, b.s);
  const progressOf = (s: typeof a, id: string) => s.events.filter((e) => e.event === 'progress' && e.data.reassignment.id === id).length;
  // The first tick sends the live one (not known to the hub yet), never the finished one.
  await waitFor(() => progressOf(b, 'live') === 1);
  const refreshesThen = w.refreshes();
  await waitFor(() => w.refreshes() >= refreshesThen + 3); // ticks with nothing changed
  assert.equal(progressOf(b, 'live'), 1, 'unchanged: nothing sent');
  w.reassignments.set('live', record('live', 'running', 2)); // a new version (progress)
  await waitFor(() => progressOf(b, 'live') === 2 && progressOf(a, 'live') === 2);
  // Without a feed, the end is found by the tick and named by its state.
  w.reassignments.set('live', record('live', 'completed', 3));
  await waitFor(() => b.events.some((e) => e.event === 'completed'));
  w.reassignments.set('old', record('old', 'completed', 5, { throttlesRemovedAt: 4 }));
  await waitFor(() => progressOf(a, 'old') === 1); // what a reader sees changed: its throttles went
  assert.equal(progressOf(b, 'old'), 0, "the other reassignment's stream is not sent it");
  draining = true;
  await waitFor(() => a.ended() && b.ended());
  assert.equal(hub.openCount, 0);
});

async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) assert.fail('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
