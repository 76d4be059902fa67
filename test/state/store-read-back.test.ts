// StateStore: the materialised view of the state topic. Unit tests against an in-memory
// log implementing StateLog (the Kafka-backed log is covered in test/kafka/state-topic...).
// Here: what it reads back of its own writes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RECORD_VERSION, type LedgerRecord } from '../../src/state/records.js';
import { StateStore } from '../../src/state/store.js';
import { MemoryLog, reassignment } from './store-memory-log.js';

describe('StateStore: its own writes read back', () => {
  const ledger = (id: string, added: string[], updatedAt: number): LedgerRecord => ({
    kind: 'ledger',
    v: RECORD_VERSION,
    id: `topic/${id}`,
    topic: { leader: { prior: null, added } },
    updatedAt,
  });
  // Big enough to be packed in the log (LEDGER_PACK_MIN entries).
  const entries = (n: number, b: number) => Array.from({ length: n }, (_, p) => `${p}:${b}`).sort();

  it("are not decoded again: the view keeps the objects applied at write time, and equals a fresh reader's", async () => {
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

  it("a batch of many ledger records (decoded while Kafka acknowledges): the view has each, the last of a repeated key, and equals a fresh reader's", async () => {
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
    log.read = async (f, t, opts?: { skip?: (key: string) => boolean }) =>
      (await read(f, t)).filter((r) => !(r.value !== null && opts?.skip?.(r.key) && skipped.push(r.key)));
    const s = new StateStore(log);
    const other = new StateStore(log);
    await s.refresh();
    // Another instance appends first: our batches are not right after what we read, so they are read back.
    await other.write([reassignment('theirs')]);
    const big = {
      ...reassignment('big'),
      partitions: Array.from({ length: 1200 }, (_, p) => ({
        topic: 't',
        partition: p,
        original: [0],
        target: [1],
        state: 'moving' as const,
      })),
    };
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
    const big = {
      ...reassignment('big'),
      partitions: Array.from({ length: 1200 }, (_, p) => ({
        topic: 't',
        partition: p,
        original: [0],
        target: [1],
        state: 'moving' as const,
      })),
    };
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
    const big = {
      ...reassignment('big'),
      partitions: Array.from({ length: 1200 }, (_, p) => ({
        topic: 't',
        partition: p,
        original: [0],
        target: [1],
        state: 'moving' as const,
      })),
    };
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
