// StateStore: the materialised view of the state topic. Unit tests against an in-memory
// log implementing StateLog (the Kafka-backed log is covered in test/kafka/state-topic...).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeValue, encodeValue, RECORD_VERSION, type LedgerRecord, type ReassignmentRecord, type ThrottleRequestRecord } from '../../src/state/records.js';
import { StateStore, StateTopicMissingError, type StateLog } from '../../src/state/store.js';

class MemoryLog implements StateLog {
  readonly name = 'mem';
  records: { offset: bigint; key: string; value: string | null }[] = [];
  start = 0n;
  ensured = 0;
  async ensure() {
    this.ensured++;
  }
  async offsets() {
    return { start: this.start, end: BigInt(this.records.length) };
  }
  async read(from: bigint, to: bigint) {
    return this.records.filter((r) => r.offset >= from && r.offset < to && r.offset >= this.start);
  }
  async write(recs: { key: string; value: string | null }[]) {
    const first = BigInt(this.records.length);
    for (const r of recs) this.records.push({ offset: BigInt(this.records.length), ...r });
    return first;
  }
}

function reassignment(id: string, state: ReassignmentRecord['state'] = 'running'): ReassignmentRecord {
  return {
    kind: 'reassignment', v: RECORD_VERSION, id, state, partitions: [{ topic: 't', partition: 0, original: [0], target: [1], state: 'moving' }],
    concurrency: null, order: 'as-given', paused: false, throttle: null, autoRemoveThrottle: true, throttleDemand: null, owner: 'i', requestedBy: null, createdAt: 1, startDeadline: 2, updatedAt: 1,
  };
}

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
    await log.write([{ key: 'reassignment/x', value: encodeValue(reassignment('x', 'pending')) }, { key: 'reassignment/x', value: encodeValue(reassignment('x', 'failed')) }]);
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
    const t: ThrottleRequestRecord = { kind: 'throttle-request', v: 1, id: 'q', demand: { topics: {}, brokers: {} }, autoRemove: false, waitFor: null, expiresAt: null, owner: 'i', requestedBy: null, createdAt: 0, updatedAt: 0 };
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
    assert.deepEqual(b.claims().map((c) => c.owner), ['a']);
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
    assert.deepEqual(batch.map((r) => r.key), [fence, 'reassignment/made-while-holding', fence, `claim/${c1.claim.id}`], 'result and release in one batch');
    assert.equal(batch[2]!.value, null);
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
    assert.deepEqual(b.claims().map((c) => c.owner), ['a']);
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
    assert.equal((await b.claim(['x'], { purpose: 'p', owner: 'b', ttlMs: 500 })).granted, false, 'a wall clock far ahead takes nothing over');
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
      const s = stores[rnd(2)]!;
      if (held.length && rnd(3) === 0) {
        const h = held.splice(rnd(held.length), 1)[0]!;
        await h.store.release({ id: h.id });
      } else {
        const r = await s.claim([`r${rnd(3)}`, ...(rnd(2) ? [`r${rnd(3)}`] : [])], { purpose: 'p', owner: `o${i}`, ttlMs: 900_000 });
        if (r.granted) held.push({ store: s, id: r.claim.id });
      }
    }
    await stores[0]!.refresh();
    const watched = stores[0]!.claims().map((c) => [c.id, c.granted]);
    // Compaction: the latest record per key, tombstones (and what they delete) gone.
    const latest = new Map<string, (typeof log.records)[number]>();
    for (const r of log.records) latest.set(r.key, r);
    const compacted = new MemoryLog();
    compacted.records = [...latest.values()].filter((r) => r.value !== null).sort((x, y) => Number(x.offset - y.offset));
    compacted.offsets = async () => ({ start: 0n, end: BigInt(log.records.length) });
    compacted.read = async (f, to) => compacted.records.filter((r) => r.offset >= f && r.offset < to);
    const fresh = new StateStore(compacted, { now });
    await fresh.refresh();
    assert.deepEqual(fresh.claims().map((c) => [c.id, c.granted]), watched);
    assert.equal(watched.length, held.length, 'exactly the held claims are live');
    assert.ok(watched.every(([, g]) => g === true));
    for (const r of ['r0', 'r1', 'r2']) assert.equal(fresh.holder(r, t)?.id, stores[0]!.holder(r, t)?.id);
  });
});

describe('StateStore: its own writes read back', () => {
  const ledger = (id: string, added: string[], updatedAt: number): LedgerRecord => ({ kind: 'ledger', v: RECORD_VERSION, id: `topic/${id}`, topic: { leader: { prior: null, added } }, updatedAt });
  // Big enough to be packed in the log (LEDGER_PACK_MIN entries).
  const entries = (n: number, b: number) => Array.from({ length: n }, (_, p) => `${p}:${b}`).sort();

  it('are not decoded again: the view keeps the objects applied at write time, and equals a fresh reader\'s', async () => {
    const log = new MemoryLog();
    const s = new StateStore(log);
    await s.write([ledger('t', entries(400, 1), 1), reassignment('r1')]);
    const before = s.view();
    const ledgerObject = before.ledger.get('topic/t');
    const recordObject = before.reassignments.get('r1');
    const view = await s.refresh();
    assert.equal(view.ledger.get('topic/t'), ledgerObject, 'the ledger read back is the object already applied');
    assert.equal(view.reassignments.get('r1'), recordObject, 'the header read back keeps the record already applied');
    const fresh = await new StateStore(log).refresh();
    assert.deepEqual(view.ledger, fresh.ledger);
    assert.deepEqual(view.reassignments, fresh.reassignments);
  });

  it('a batch of many ledger records (decoded while Kafka acknowledges): the view has each, the last of a repeated key, and equals a fresh reader\'s', async () => {
    const log = new MemoryLog();
    const s = new StateStore(log);
    const many = Array.from({ length: 120 }, (_, i) => ledger(`t${i}`, entries(300, 1 + (i % 5)), i));
    await s.write([...many, ledger('t7', entries(260, 9), 999)]);
    const view = s.view();
    assert.equal(view.ledger.size, 120);
    const fresh = await new StateStore(log).refresh();
    assert.deepEqual(view.ledger, fresh.ledger);
    assert.deepEqual(view.ledger.get('topic/t7'), fresh.ledger.get('topic/t7'));
    assert.equal(view.ledger.get('topic/t7')?.updatedAt, 999, 'the later record of the key wins');
  });

  it('another instance writing the same key between our write and our re-read: the writer ends with what a fresh reader builds', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    const b = new StateStore(log);
    await a.refresh();
    await b.refresh();
    // b writes first, then a (a has not read b's record): in log order, a's value wins.
    await b.write([ledger('t', entries(300, 2), 1), reassignment('r1', 'pending')]);
    await a.write([ledger('t', entries(500, 1), 2), reassignment('r1', 'running')]);
    // Then b again (a reads this one only on its refresh): b's value wins.
    await b.write([ledger('u', entries(260, 3), 3)]);
    await a.write([ledger('u', entries(270, 4), 2)]);
    await b.write([ledger('u', entries(280, 5), 4)]);
    for (const s of [a, b]) {
      const view = await s.refresh();
      const fresh = await new StateStore(log).refresh();
      assert.deepEqual(view.ledger, fresh.ledger);
      assert.deepEqual(view.reassignments, fresh.reassignments);
    }
    assert.equal((await a.refresh()).ledger.get('topic/t')?.updatedAt, 2);
    assert.equal(a.view().ledger.get('topic/u')?.updatedAt, 4);
    assert.equal(a.view().reassignments.get('r1')?.state, 'running');
  });

  it('chunks it holds are not read again (the log may leave them out); their tombstones are', async () => {
    const log = new MemoryLog();
    const skipped: string[] = [];
    const read = log.read.bind(log);
    log.read = async (f, t, opts?: { skip?: (key: string) => boolean }) => (await read(f, t)).filter((r) => !(r.value !== null && opts?.skip?.(r.key) && skipped.push(r.key)));
    const s = new StateStore(log);
    const other = new StateStore(log);
    await s.refresh();
    // Another instance appends first: our batches are not right after what we read, so they are read back.
    await other.write([reassignment('theirs')]);
    const big = { ...reassignment('big'), partitions: Array.from({ length: 1200 }, (_, p) => ({ topic: 't', partition: p, original: [0], target: [1], state: 'moving' as const })) };
    await s.write([big]);
    const chunks = s.chunkKeys();
    assert.equal(chunks.length, 3);
    await s.refresh();
    assert.deepEqual(skipped.sort(), [...chunks].sort(), 'every chunk we wrote is skipped on the re-read');
    // A new version of the first chunk: the old one is tombstoned, and that tombstone is applied.
    await other.write([reassignment('theirs', 'completed')]);
    const next = { ...big, partitions: big.partitions.map((p, i) => (i === 0 ? { ...p, state: 'completed' as const } : p)) };
    await s.write([next]);
    await s.refresh();
    const fresh = new StateStore(log);
    await fresh.refresh();
    assert.deepEqual(s.chunkKeys().sort(), fresh.chunkKeys().sort());
    assert.deepEqual(s.view().reassignments, fresh.view().reassignments);
  });
});

describe('StateStore: batches right after what it had read', () => {
  it('are not read back (nothing else can be in them); the view is what a fresh reader builds', async () => {
    const log = new MemoryLog();
    const ranges: [bigint, bigint][] = [];
    const read = log.read.bind(log);
    log.read = async (f, t) => (ranges.push([f, t]), read(f, t));
    const s = new StateStore(log);
    await s.refresh();
    const big = { ...reassignment('big'), partitions: Array.from({ length: 1200 }, (_, p) => ({ topic: 't', partition: p, original: [0], target: [1], state: 'moving' as const })) };
    await s.write([big]);
    await s.write([reassignment('small')], ['reassignment/big']);
    await s.refresh();
    assert.deepEqual(ranges, [], 'nothing of ours fetched back');
    const fresh = new StateStore(log);
    await fresh.refresh();
    assert.deepEqual(s.view().reassignments, fresh.view().reassignments);
    assert.deepEqual(s.chunkKeys().sort(), fresh.chunkKeys().sort());
    // Another instance's record in between: from then on ours are read back in log order.
    await new StateStore(log).write([reassignment('theirs')]);
    await s.write([reassignment('small', 'completed')]);
    const reads = ranges.length;
    assert.equal((await s.refresh()).reassignments.get('theirs')?.state, 'running');
    assert.equal(ranges.length, reads + 1);
    assert.equal(s.view().reassignments.get('small')?.state, 'completed');
  });

  it('acknowledged while a read is under way: passed once that read is through, unless the read applied an older value of its keys', async () => {
    const log = new MemoryLog();
    const ranges: [bigint, bigint][] = [];
    const read = log.read.bind(log);
    let gate: Promise<void> | null = null;
    let entered: () => void = () => undefined;
    log.read = async (f, t) => {
      ranges.push([f, t]);
      const out = await read(f, t);
      if (gate) {
        entered();
        await gate;
      }
      return out;
    };
    /** A refresh held inside its read (of what the log held when it began) while `during` runs. */
    const heldRead = async (s: StateStore, during: () => Promise<void>) => {
      let open: () => void = () => undefined;
      gate = new Promise<void>((r) => (open = r));
      const inRead = new Promise<void>((r) => (entered = r));
      const refreshing = s.refresh();
      await inRead;
      await during();
      gate = null;
      open();
      await refreshing;
    };
    const s = new StateStore(log);
    const other = new StateStore(log);
    await s.refresh();
    const big = { ...reassignment('big'), partitions: Array.from({ length: 1200 }, (_, p) => ({ topic: 't', partition: p, original: [0], target: [1], state: 'moving' as const })) };
    // 1. The read under way covers another key only: our batches are passed once it is through.
    await other.write([reassignment('theirs')]);
    await heldRead(s, () => s.write([big]));
    const before = ranges.length;
    await s.refresh();
    assert.equal(ranges.length, before, 'nothing of ours fetched back');
    assert.equal(s.view().reassignments.get('theirs')?.state, 'running');
    // 2. The read under way holds an older value of a key we then write: ours is read back and wins.
    await other.write([reassignment('shared', 'pending')]);
    await heldRead(s, () => s.write([reassignment('shared', 'completed')]));
    assert.equal(s.view().reassignments.get('shared')?.state, 'pending', 'the older value, applied after ours by the read');
    await s.refresh();
    assert.equal(s.view().reassignments.get('shared')?.state, 'completed', 'read back in log order');
    // 3. A tombstone of ours, the older value applied after it: read back, deleted again.
    await other.write([reassignment('gone')]);
    await heldRead(s, () => s.write([], ['reassignment/gone']));
    await s.refresh();
    assert.equal(s.view().reassignments.has('gone'), false);
    const fresh = await new StateStore(log).refresh();
    assert.deepEqual(s.view().reassignments, fresh.reassignments);
    const freshChunks = new StateStore(log);
    await freshChunks.refresh();
    assert.deepEqual(s.chunkKeys().sort(), freshChunks.chunkKeys().sort());
  });

  it('claims are decided at their offsets: own claim batches are passed without a fetch and applied there, as another instance decides them', async () => {
    const log = new MemoryLog();
    const ranges: [bigint, bigint][] = [];
    const read = log.read.bind(log);
    log.read = async (f, t) => (ranges.push([f, t]), read(f, t));
    const s = new StateStore(log);
    const other = new StateStore(log);
    await s.refresh();
    await other.refresh();
    const r = await s.claim(['x'], { purpose: 'p', owner: 'o', ttlMs: 60_000 });
    assert.equal(r.granted, true);
    assert.deepEqual(ranges, [], 'our claim passed, not fetched back');
    assert.equal(s.holder('x')?.id, r.granted ? r.claim.id : '');
    // Another instance claiming after it (in log order) loses, in its view and in ours.
    const lost = await other.claim(['x'], { purpose: 'p', owner: 'o2', ttlMs: 60_000 });
    assert.equal(lost.granted, false);
    assert.equal(!lost.granted && lost.holder?.id, r.granted ? r.claim.id : '');
    // Our release (a tombstone with the result) after their records: read back in log order.
    const fetches = ranges.length;
    await s.release(r.granted ? r.claim : { id: '' }, [reassignment('done')]);
    await s.refresh();
    assert.equal(ranges.length, fetches + 1, 'their claim and its tombstone fetched once');
    assert.equal(s.holder('x'), undefined);
    assert.equal(s.view().reassignments.get('done')?.state, 'running');
    // Claim and release again with nothing in between: passed, no fetch, and freed.
    const again = await s.claim(['x'], { purpose: 'p', owner: 'o', ttlMs: 60_000 });
    assert.equal(again.granted, true);
    await s.release(again.granted ? again.claim : { id: '' });
    await s.refresh();
    assert.equal(ranges.length, fetches + 1, 'nothing more fetched');
    assert.equal(s.holder('x'), undefined);
    // The other instance, reading it all, now gets it; a fresh reader decides as we did.
    const theirs = await other.claim(['x'], { purpose: 'p', owner: 'o2', ttlMs: 60_000 });
    assert.equal(theirs.granted, true);
    await s.refresh();
    assert.equal(s.holder('x')?.id, theirs.granted ? theirs.claim.id : '');
    const fresh = new StateStore(log);
    await fresh.refresh();
    assert.deepEqual(
      fresh.claims().map((c) => [c.id, c.granted]),
      s.claims().map((c) => [c.id, c.granted]),
    );
  });
});

describe('StateStore: refreshes called while one runs', () => {
  it('share the one queued after it, which starts after each of them called: it sees every write acknowledged before', async () => {
    const log = new MemoryLog();
    let offsetsCalls = 0;
    const offsets = log.offsets.bind(log);
    log.offsets = async () => (offsetsCalls++, offsets());
    let open: () => void = () => undefined;
    let entered: () => void = () => undefined;
    let gate: Promise<void> | null = new Promise<void>((r) => (open = r));
    const inRead = new Promise<void>((r) => (entered = r));
    const read = log.read.bind(log);
    log.read = async (f, t) => {
      const out = await read(f, t);
      if (gate) {
        entered();
        await gate;
      }
      return out;
    };
    const s = new StateStore(log);
    const other = new StateStore(log);
    await other.write([reassignment('first')]);
    const running = s.refresh();
    await inRead;
    const callsBefore = offsetsCalls;
    // Written after the running refresh asked for the end offset: only a later read sees it.
    await other.write([reassignment('second')]);
    const waiting = [s.refresh(), s.refresh(), s.refresh()];
    gate = null;
    open();
    const first = await running;
    assert.equal(first.reassignments.has('first'), true);
    const views = await Promise.all(waiting);
    for (const v of views) assert.equal(v.reassignments.has('second'), true, 'each waiting caller sees the write acknowledged before it called');
    assert.equal(offsetsCalls - callsBefore, 1, 'the three waiting callers shared one read');
    // A caller arriving once that shared read has started gets a read of its own.
    await other.write([reassignment('third')]);
    assert.equal((await s.refresh()).reassignments.has('third'), true);
    assert.equal(offsetsCalls - callsBefore, 2);
  });
});

describe('StateStore resets and a missing topic', () => {
  it('rebuilds when the end offset falls below its position (the topic started again at 0)', async () => {
    const log = new MemoryLog();
    const s = new StateStore(log);
    const events: string[] = [];
    const s2 = new StateStore(log, { onEvent: (e) => events.push(e.type === 'reset' ? `reset:${e.cause}` : e.type) });
    await s.write([reassignment('a'), reassignment('b'), reassignment('c')]);
    assert.equal((await s2.refresh()).reassignments.size, 3);
    log.records = []; // re-created and empty
    await s.write([reassignment('new')]);
    assert.deepEqual([...(await s2.refresh()).reassignments.keys()], ['new']);
    assert.deepEqual(events, ['reset:end-below-position']);
  });

  it('rebuilds when the topic id changes, even with the end offset at or beyond its position', async () => {
    const log = new MemoryLog();
    let id = 'id-1';
    const offsets = log.offsets.bind(log);
    log.offsets = async () => ({ ...(await offsets()), topicId: id });
    const s = new StateStore(log);
    await s.write([reassignment('old')]);
    await s.refresh();
    id = 'id-2';
    log.records = [];
    await log.write([{ key: 'reassignment/n1', value: encodeValue(reassignment('n1')) }, { key: 'reassignment/n2', value: encodeValue(reassignment('n2')) }]);
    assert.deepEqual([...(await s.refresh()).reassignments.keys()], ['n1', 'n2']);
  });

  it('creates the topic only on first use; once used, a missing topic is reported, not re-created', async () => {
    const log = new MemoryLog();
    const creates: boolean[] = [];
    let missing = false;
    log.ensure = async (o?: { create: boolean }) => void creates.push(o?.create ?? true);
    const offsets = log.offsets.bind(log);
    log.offsets = async () => {
      if (missing) throw new StateTopicMissingError('mem');
      return offsets();
    };
    const write = log.write.bind(log);
    log.write = async (recs) => {
      if (missing) throw new StateTopicMissingError('mem');
      return write(recs);
    };
    const events: string[] = [];
    const s = new StateStore(log, { onEvent: (e) => events.push(e.type) });
    await s.refresh();
    assert.deepEqual(creates, [true]);
    missing = true;
    await assert.rejects(s.refresh(), StateTopicMissingError);
    await assert.rejects(s.write([reassignment('x')]), StateTopicMissingError);
    assert.equal(s.health().status, 'missing');
    assert.deepEqual(creates, [true], 'never asked to create it again');
    missing = false;
    await s.refresh();
    assert.deepEqual(s.health(), { status: 'ok' });
    assert.deepEqual(events, ['missing', 'recovered']);
  });
});
