// StateStore: the materialised view of the state topic. Unit tests against an in-memory
// log implementing StateLog (the Kafka-backed log is covered in test/kafka/state-topic...).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeValue, encodeValue, RECORD_VERSION, type ThrottleRequestRecord } from '../../src/state/records.js';
import { StateStore } from '../../src/state/store.js';
import { MemoryLog, reassignment } from './store-memory-log.js';

describe('StateStore', () => {
  it('two stores on one log converge: writes of one are seen by the other after refresh, tombstones delete', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    const b = new StateStore(log);
    await a.write([reassignment('r1'), reassignment('r2')]);
    assert.deepEqual([...(await b.refresh()).reassignments.keys()], ['r1', 'r2']);
    await b.write([reassignment('r1', 'completed')], ['reassignment/r2']);
    const view = await a.refresh();
    assert.equal(view.reassignments.get('r1')?.state, 'completed');
    assert.equal(view.reassignments.has('r2'), false);
    assert.equal(log.ensured, 2, 'each store ensures the topic once');
  });

  it('reads only what was appended since the last refresh, in log order (latest wins)', async () => {
    const log = new MemoryLog();
    const s = new StateStore(log);
    await s.refresh();
    let reads = 0;
    const read = log.read.bind(log);
    log.read = async (f, t) => (reads++, read(f, t));
    await log.write([
      { key: 'reassignment/x', value: encodeValue(reassignment('x', 'pending')) },
      { key: 'reassignment/x', value: encodeValue(reassignment('x', 'failed')) },
    ]);
    assert.equal((await s.refresh()).reassignments.get('x')?.state, 'failed');
    await s.refresh();
    assert.equal(reads, 1, 'nothing new, nothing read');
  });

  it('rebuilds from scratch when records it never read were removed (start offset beyond its position)', async () => {
    const log = new MemoryLog();
    const s = new StateStore(log);
    await s.write([reassignment('old')]);
    await s.refresh(); // position 2 (the record's chunk and header)
    await log.write([{ key: 'reassignment/gap', value: encodeValue(reassignment('gap')) }]);
    await log.write([{ key: 'reassignment/new', value: encodeValue(reassignment('new')) }]);
    log.start = 3n; // offsets 0 to 2 are gone: the view cannot be patched, only rebuilt
    assert.deepEqual([...(await s.refresh()).reassignments.keys()], ['new']);
  });

  it('ignores records it does not understand: other keys, bad JSON, newer versions, mismatched ids', () => {
    const t: ThrottleRequestRecord = {
      kind: 'throttle-request',
      v: 1,
      id: 'q',
      demand: { topics: {}, brokers: {} },
      autoRemove: false,
      waitFor: null,
      expiresAt: null,
      owner: 'i',
      requestedBy: null,
      createdAt: 0,
      updatedAt: 0,
    };
    assert.deepEqual(decodeValue('throttle-request/q', encodeValue(t)), t);
    assert.equal(decodeValue('throttle-request/other', encodeValue(t)), undefined);
    assert.equal(decodeValue('reassignment/x', '{not json'), undefined);
    assert.equal(decodeValue('reassignment/x', JSON.stringify({ ...reassignment('x'), v: RECORD_VERSION + 1 })), undefined);
    assert.equal(decodeValue('something/x', JSON.stringify({ ...reassignment('x'), kind: 'something' })), undefined);
  });
});

describe('StateStore claims (compare-and-set on the log)', () => {
  const opts = (owner: string, ttlMs = 60_000, now = () => 1000) => ({ purpose: 'test', owner, ttlMs, now });

  it('two instances claiming at once: the first claim in log order wins, the loser is tombstoned and names the holder', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    const b = new StateStore(log);
    await a.refresh();
    await b.refresh();
    // Both claim records land before either reads back: reads wait until both are written.
    let writes = 0;
    let open!: () => void;
    const bothWritten = new Promise<void>((r) => (open = r));
    const write = log.write.bind(log);
    log.write = async (recs) => {
      const o = await write(recs);
      if (recs.some((r) => r.key.startsWith('claim/') && r.value !== null) && ++writes === 2) open();
      return o;
    };
    const read = log.read.bind(log);
    log.read = async (f, t) => (await bothWritten, read(f, t));
    const [ra, rb] = await Promise.all([a.claim(['partition/t:0', 'partition/t:1'], opts('a')), b.claim(['partition/t:1'], opts('b'))]);
    assert.equal(ra.granted, true);
    assert.equal(rb.granted, false);
    assert.ok(!rb.granted && rb.holder?.owner === 'a');
    // The loser's claim is gone from the log's live records; the winner's holds.
    await b.refresh();
    assert.deepEqual(
      b.claims().map((c) => c.owner),
      ['a'],
    );
    assert.equal(b.holder('partition/t:1', 1000)?.owner, 'a');
    assert.equal(b.holder('partition/t:2', 1000), undefined);
    assert.equal(b.holder('partition/t:1', 61_000), undefined, 'the lease is over');
  });

  it('disjoint resources are granted side by side; a release (atomic with its result) frees them', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    const b = new StateStore(log);
    const c1 = await a.claim(['x'], opts('a'));
    const c2 = await b.claim(['y'], opts('b'));
    assert.ok(c1.granted && c2.granted);
    assert.equal((await b.claim(['x'], opts('b'))).granted, false);
    assert.ok(c1.granted);
    await a.release(c1.claim, [reassignment('made-while-holding')]);
    const batch = log.records.slice(-4);
    // The result fenced by the claim (its marker, the record, the marker's tombstone), then the release.
    const fence = `fence/${c1.claim.id}`;
    assert.deepEqual(
      batch.map((r) => r.key),
      [fence, 'reassignment/made-while-holding', fence, `claim/${c1.claim.id}`],
      'result and release in one batch',
    );
    assert.equal(batch[2].value, null);
    const again = await b.claim(['x'], opts('b'));
    assert.equal(again.granted, true);
    assert.equal((await b.refresh()).reassignments.has('made-while-holding'), true);
  });

  it('a losing claim swept by another instance before its writer reads it back: the writer learns it lost, and to whom', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    const b = new StateStore(log);
    const won = await a.claim(['x'], opts('a'));
    assert.ok(won.granted);
    // b's claim record lands; before b reads it back, a sweeps it (it lost to a's claim).
    const write = log.write.bind(log);
    log.write = async (recs) => {
      const o = await write(recs);
      if (recs.some((r) => r.key.startsWith('claim/') && r.value !== null)) {
        log.write = write;
        await a.refresh();
        assert.equal(await a.sweepClaims(1000), 1, 'the loser is garbage to a');
      }
      return o;
    };
    const lost = await b.claim(['x'], opts('b'));
    assert.equal(lost.granted, false);
    assert.ok(!lost.granted && lost.holder?.owner === 'a', 'names the holder');
    assert.deepEqual(
      b.claims().map((c) => c.owner),
      ['a'],
    );
  });

  it('a lease that ended holds and blocks nothing; sweepClaims tombstones dead and lost claims', async () => {
    const log = new MemoryLog();
    // Leases run on each instance's monotonic clock from when it first read the claim; the
    // wall clocks here say the lease is long over, and decide nothing.
    let ma = 0;
    let mb = 0;
    const a = new StateStore(log, { now: () => 1000, monotonic: () => ma });
    const b = new StateStore(log, { now: () => 10_000_000, monotonic: () => mb });
    const dead = await a.claim(['x'], { purpose: 'p', owner: 'a', ttlMs: 500 }); // its writer "dies" holding it
    assert.ok(dead.granted);
    await b.refresh(); // b first sees it at mb = 0
    mb = 400;
    assert.equal(
      (await b.claim(['x'], { purpose: 'p', owner: 'b', ttlMs: 500 })).granted,
      false,
      'a wall clock far ahead takes nothing over',
    );
    mb = 500;
    const after = await b.claim(['x'], { purpose: 'p', owner: 'b', ttlMs: 500 });
    assert.ok(after.granted, 'granted once b has seen the dead holder for a whole lease');
    assert.deepEqual(after.granted && after.claim.takesOver, [dead.granted ? dead.claim.id : '']);
    ma = 10;
    assert.equal(a.holds(dead.granted ? dead.claim : { id: '' }), true, 'a has not read the takeover yet, and its own lease runs');
    await a.refresh();
    assert.equal(a.holds(dead.granted ? dead.claim : { id: '' }), false, 'taken over: it holds nothing any more');
    assert.equal(await b.sweepClaims(), 0, 'the taken-over claim already ended; ours is ours');
    assert.equal(b.holds(after.granted ? after.claim : { id: '' }), true);
    mb = 1000;
    assert.equal(b.holds(after.granted ? after.claim : { id: '' }), false, 'our own lease is over');
    assert.equal(await b.sweepClaims(), 1, 'a claim of ours never released is swept once its lease is over');
    await a.refresh();
    assert.deepEqual(a.claims(), [], 'both ended: nothing holds x');
  });

  it('a reader starting from scratch after compaction reaches the same decisions as the instances that watched', async () => {
    const log = new MemoryLog();
    let t = 0;
    const now = () => t;
    const stores = [new StateStore(log, { now }), new StateStore(log, { now })];
    // Random claims and releases on 3 resources; losers tombstone themselves, winners release later.
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const held: { store: StateStore; id: string }[] = [];
    for (let i = 0; i < 200; i++) {
      t += 10;
      const s = stores[rnd(2)];
      if (held.length && rnd(3) === 0) {
        const h = held.splice(rnd(held.length), 1)[0];
        await h.store.release({ id: h.id });
      } else {
        const r = await s.claim([`r${rnd(3)}`, ...(rnd(2) ? [`r${rnd(3)}`] : [])], { purpose: 'p', owner: `o${i}`, ttlMs: 900_000 });
        if (r.granted) held.push({ store: s, id: r.claim.id });
      }
    }
    await stores[0].refresh();
    const watched = stores[0].claims().map((c) => [c.id, c.granted]);
    // Compaction: the latest record per key, tombstones (and what they delete) gone.
    const latest = new Map<string, (typeof log.records)[number]>();
    for (const r of log.records) latest.set(r.key, r);
    const compacted = new MemoryLog();
    compacted.records = [...latest.values()].filter((r) => r.value !== null).sort((x, y) => Number(x.offset - y.offset));
    compacted.offsets = async () => ({ start: 0n, end: BigInt(log.records.length) });
    compacted.read = async (f, to) => compacted.records.filter((r) => r.offset >= f && r.offset < to);
    const fresh = new StateStore(compacted, { now });
    await fresh.refresh();
    assert.deepEqual(
      fresh.claims().map((c) => [c.id, c.granted]),
      watched,
    );
    assert.equal(watched.length, held.length, 'exactly the held claims are live');
    assert.ok(watched.every(([, g]) => g === true));
    for (const r of ['r0', 'r1', 'r2']) assert.equal(fresh.holder(r, t)?.id, stores[0].holder(r, t)?.id);
  });
});
