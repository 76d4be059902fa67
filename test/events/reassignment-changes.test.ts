// The change feed: one event per state change of a reassignment, with ids that every instance
// derives alike (whatever versions of the record it saw), replay after an id, bounded memory,
// and no walk over a record's partitions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createReassignmentChangeFeed, type ObservableStore, type ReassignmentChange } from '../../src/events/reassignment-changes.js';
import { changesBetween, type RecordHead } from '../../src/events/reassignment-milestones.js';
import { ObservedMap } from '../../src/state/observed-map.js';
import { RECORD_VERSION, type ReassignmentRecord } from '../../src/state/records.js';
import { StateStore } from '../../src/state/store.js';
import { MemoryLog } from '../state/memory-log.js';

function record(id: string, over: Partial<ReassignmentRecord> = {}): ReassignmentRecord {
  return {
    kind: 'reassignment',
    v: RECORD_VERSION,
    id,
    state: 'pending',
    partitions: [
      { topic: 't', partition: 0, original: [0], target: [1], state: 'queued' },
      { topic: 't', partition: 1, original: [1], target: [2], state: 'queued' },
    ],
    concurrency: null,
    order: 'as-given',
    paused: false,
    throttle: null,
    autoRemoveThrottle: true,
    throttleDemand: null,
    owner: 'i',
    requestedBy: 'alice',
    createdAt: 1000,
    startDeadline: 5000,
    updatedAt: 1000,
    ...over,
  };
}

const head = (r: Partial<RecordHead> & { id: string }): RecordHead => ({
  state: 'pending',
  createdAt: 1000,
  updatedAt: 1000,
  paused: false,
  ...r,
});
const types = (cs: { type: string }[]) => cs.map((c) => c.type);

describe('changesBetween', () => {
  it('a new pending record is created; pending to running is started; running to completed is completed', () => {
    assert.deepEqual(changesBetween(undefined, head({ id: 'r' })), [
      { eventId: 'r:created', type: 'created', state: 'pending', previousState: null, atMs: 1000 },
    ]);
    const running = head({ id: 'r', state: 'running', startedAt: 1100, updatedAt: 1100 });
    assert.deepEqual(changesBetween(head({ id: 'r' }), running), [
      { eventId: 'r:started', type: 'started', state: 'running', previousState: 'pending', atMs: 1100 },
    ]);
    const done = head({ id: 'r', state: 'completed', startedAt: 1100, endedAt: 1900, updatedAt: 2000 });
    assert.deepEqual(changesBetween(running, done), [
      { eventId: 'r:completed', type: 'completed', state: 'completed', previousState: 'running', atMs: 1900 },
    ]);
    assert.deepEqual(changesBetween(running, { ...running, updatedAt: 1500 }), [], 'progress alone is no change');
  });

  it('a record first seen finished yields the milestones it passed, with the ids of those who watched', () => {
    const done = head({ id: 'r', state: 'completed', startedAt: 1100, endedAt: 1900, updatedAt: 2000 });
    const cs = changesBetween(undefined, done);
    assert.deepEqual(
      cs.map((c) => [c.eventId, c.previousState]),
      [
        ['r:created', null],
        ['r:started', 'pending'],
        ['r:completed', 'running'],
      ],
    );
    // A refused start (startedAt stamped, nothing moved) failed from pending: never started.
    assert.deepEqual(types(changesBetween(undefined, head({ id: 'f', state: 'failed', startedAt: 1001, updatedAt: 1001 }))), [
      'created',
      'failed',
    ]);
    assert.deepEqual(types(changesBetween(head({ id: 'c' }), head({ id: 'c', state: 'cancelled', updatedAt: 1200 }))), ['cancelled']);
  });

  it('pause, resume, hold and unknown states are repeatable: their ids carry the version time', () => {
    const running = head({ id: 'r', state: 'running', startedAt: 1100, updatedAt: 1100 });
    const paused = { ...running, paused: true, updatedAt: 1200 };
    assert.deepEqual(
      changesBetween(running, paused).map((c) => c.eventId),
      ['r:paused:1200'],
    );
    assert.deepEqual(
      changesBetween(paused, { ...running, updatedAt: 1300 }).map((c) => c.eventId),
      ['r:resumed:1300'],
    );
    const held = { ...running, state: 'held', updatedAt: 1400 };
    assert.deepEqual(
      changesBetween(running, held).map((c) => [c.eventId, c.previousState]),
      [['r:held:1400', 'running']],
    );
    assert.deepEqual(
      changesBetween(held, { ...running, updatedAt: 1500 }).map((c) => c.eventId),
      ['r:resumed:1500'],
    );
    assert.deepEqual(
      changesBetween(running, { ...running, state: 'verifying', updatedAt: 1600 }).map((c) => c.type),
      ['verifying'],
    );
    // A hold that ends in the version that un-pauses: one resumed.
    assert.deepEqual(
      changesBetween({ ...held, paused: true }, { ...running, updatedAt: 1700 }).map((c) => c.eventId),
      ['r:resumed:1700'],
    );
  });
});

/** Writes the versions of one reassignment through `writer`; `watcher` refreshes after each. */
async function runLifecycle(writer: StateStore, watcher?: StateStore): Promise<void> {
  let r = record('r1');
  const versions: Partial<ReassignmentRecord>[] = [
    {},
    { state: 'running', startedAt: 1100, updatedAt: 1100 },
    { updatedAt: 1150 }, // progress only
    { paused: true, updatedAt: 1200 },
    { paused: false, updatedAt: 1300 },
    { state: 'completed', endedAt: 1900, updatedAt: 2000 },
  ];
  for (const v of versions) {
    r = { ...r, ...v };
    await writer.write([r]);
    await watcher?.refresh();
  }
}

describe('ReassignmentChanges over the state store', () => {
  it('writer, a watching instance, a late one and one that reads the compacted log name the changes alike', async () => {
    const log = new MemoryLog();
    const writer = new StateStore(log);
    const watcher = new StateStore(log);
    const wFeed = createReassignmentChangeFeed(writer);
    const aFeed = createReassignmentChangeFeed(watcher);
    const heard: ReassignmentChange[] = [];
    aFeed.subscribe((c) => heard.push(c));
    await runLifecycle(writer, watcher);

    const expected = ['r1:created', 'r1:started', 'r1:paused:1200', 'r1:resumed:1300', 'r1:completed'];
    assert.deepEqual(
      wFeed.since().changes.map((c) => c.eventId),
      expected,
    );
    assert.deepEqual(
      heard.map((c) => c.eventId),
      expected,
      'subscribers hear each change once, in order',
    );
    assert.deepEqual(
      heard.map((c) => [c.state, c.previousState]),
      [
        ['pending', null],
        ['running', 'pending'],
        ['paused', 'running'],
        ['running', 'paused'],
        ['completed', 'running'],
      ],
      'states as the API names them',
    );
    assert.equal(heard[0].at, new Date(1000).toISOString());
    assert.equal(heard[4].at, new Date(1900).toISOString());
    assert.deepEqual([heard[0].partitions, heard[0].requestedBy], [2, 'alice']);

    const late = new StateStore(log);
    const lFeed = createReassignmentChangeFeed(late);
    await late.refresh();
    assert.deepEqual(
      lFeed.since().changes.map((c) => c.eventId),
      expected,
      'the log replayed from its start gives the same ids',
    );

    // Compaction left only the latest version: the once-only milestones survive, same ids.
    const compacted = new StateStore(log.compacted());
    const cFeed = createReassignmentChangeFeed(compacted);
    await compacted.refresh();
    assert.deepEqual(
      cFeed.since().changes.map((c) => c.eventId),
      ['r1:created', 'r1:started', 'r1:completed'],
    );
  });

  it('replays after an id, per reassignment; an unknown id says the replay is incomplete', async () => {
    const store = new StateStore(new MemoryLog());
    const feed = createReassignmentChangeFeed(store);
    await store.write([record('a'), record('b')]);
    await store.write([record('a', { state: 'running', startedAt: 1100, updatedAt: 1100 })]);
    await store.write([record('b', { state: 'cancelled', updatedAt: 1200 })]);
    assert.deepEqual(
      feed.since('a:created').changes.map((c) => c.eventId),
      ['b:created', 'a:started', 'b:cancelled'],
    );
    assert.deepEqual(
      feed.since(undefined, { reassignmentId: 'b' }).changes.map((c) => c.eventId),
      ['b:created', 'b:cancelled'],
    );
    assert.deepEqual(feed.since('b:cancelled'), { changes: [], complete: true });
    assert.equal(feed.since('gone:created').complete, false);
    assert.deepEqual(feed.since(undefined, { limit: 2 }).changes.length, 2);
  });

  it('a view rebuilt from the log start emits nothing again; a tombstone forgets the record', async () => {
    const log = new MemoryLog();
    const store = new StateStore(log);
    const feed = createReassignmentChangeFeed(store);
    await runLifecycle(store);
    const before = feed.size;
    let heard = 0;
    feed.subscribe(() => heard++);
    // The topic re-created (a new id): the store clears its view and re-reads every version.
    let topicId = 'one';
    const offsets = log.offsets.bind(log);
    log.offsets = async () => ({ ...(await offsets()), topicId });
    await store.refresh();
    topicId = 'two';
    await store.refresh();
    assert.equal(store.view().reassignments.get('r1')?.state, 'completed');
    assert.equal(heard, 0);
    assert.equal(feed.size, before);
    await store.write([], ['reassignment/r1']);
    await store.write([record('r1', { createdAt: 5000, updatedAt: 5000 })]);
    assert.equal(heard, 0, 'an id reused while its changes are retained: nothing new (same ids)');
  });

  it('retains at most maxEvents, dropping the oldest', async () => {
    const store = new StateStore(new MemoryLog());
    const feed = createReassignmentChangeFeed(store, { maxEvents: 20 });
    for (let i = 0; i < 30; i++) await store.write([record(`r${i}`)]);
    assert.ok(feed.size <= 20 && feed.size >= 18, String(feed.size));
    assert.equal(feed.get('r29:created')?.reassignmentId, 'r29');
    assert.equal(feed.get('r0:created'), undefined);
    assert.equal(feed.since('r0:created').complete, false);
    const all = feed.since().changes;
    assert.deepEqual(
      all.map((c) => c.seq),
      all.map((_, i) => all[0].seq + i),
      'seq follows retention order',
    );
  });

  it('a running record with a hold (issue 30) is held; its hold ending is resumed', () => {
    const map = new ObservedMap<string, ReassignmentRecord>();
    const feed = createReassignmentChangeFeed({ observeReassignments: (o) => map.observe(o), header: () => undefined });
    const running = record('h', { state: 'running', startedAt: 1100, updatedAt: 1100 });
    map.set('h', running);
    const hold = { since: 1500, reasons: [{ kind: 'offlinePartitions' }], healthyPasses: 0 };
    map.set('h', { ...running, hold, updatedAt: 1500 } as unknown as ReassignmentRecord);
    map.set('h', { ...running, hold: { ...hold, healthyPasses: 1 }, updatedAt: 1600 } as unknown as ReassignmentRecord);
    map.set('h', { ...running, updatedAt: 1700 });
    const cs = feed.since().changes;
    assert.deepEqual(
      cs.map((c) => [c.eventId, c.state, c.previousState]),
      [
        ['h:created', 'pending', null],
        ['h:started', 'running', 'pending'],
        ['h:held:1500', 'held', 'running'],
        ['h:resumed:1700', 'running', 'held'],
      ],
    );
    assert.equal(cs[2].reason, 'held: offlinePartitions');
  });

  it('never reads the partitions of a record (a 100,000-partition record costs what a small one does)', () => {
    const map = new ObservedMap<string, ReassignmentRecord>();
    const store: ObservableStore = {
      observeReassignments: (o) => map.observe(o),
      header: () => ({ layout: { partitionCount: 100_000 } }) as never,
    };
    const feed = createReassignmentChangeFeed(store);
    const big = (over: Partial<ReassignmentRecord>): ReassignmentRecord => {
      const r = record('big', over);
      Object.defineProperty(r, 'partitions', { get: () => assert.fail('partitions read') });
      return r;
    };
    map.set('big', big({}));
    map.set('big', big({ state: 'running', startedAt: 1100, updatedAt: 1100 }));
    for (let t = 1101; t < 1200; t++) map.set('big', big({ state: 'running', startedAt: 1100, updatedAt: t }));
    map.set('big', big({ state: 'completed', startedAt: 1100, endedAt: 1300, updatedAt: 1300 }));
    assert.deepEqual(
      feed.since().changes.map((c) => [c.type, c.partitions]),
      [
        ['created', 100_000],
        ['started', 100_000],
        ['completed', 100_000],
      ],
    );
    // An older version applied after a newer one (a read under way): ignored.
    map.set('big', big({ state: 'running', startedAt: 1100, updatedAt: 1150, paused: true }));
    assert.equal(feed.size, 3);
  });
});
