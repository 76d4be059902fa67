// StateStore: the materialised view of the state topic. Unit tests against an in-memory
// log implementing StateLog (the Kafka-backed log is covered in test/kafka/state-topic...).
// Here: refreshes called while one runs; resets of the topic and a missing topic.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeValue } from '../../src/state/records.js';
import { StateStore, StateTopicMissingError } from '../../src/state/store.js';
import { MemoryLog, reassignment } from './store-memory-log.js';

describe('StateStore: refreshes called while one runs', () => {
  it('share the one queued after it, which starts after each of them called: it sees every write acknowledged before', async () => {
    const log = new MemoryLog();
    let reads = 0;
    let open: () => void = () => undefined;
    let entered: () => void = () => undefined;
    let gate: Promise<void> | null = new Promise<void>((r) => (open = r));
    const inRead = new Promise<void>((r) => (entered = r));
    const read = log.read.bind(log);
    log.read = async (f, t) => {
      reads++;
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
    const readsBefore = reads;
    // Written after the running refresh asked for the end offset: only a later read sees it.
    await other.write([reassignment('second')]);
    const waiting = [s.refresh(), s.refresh(), s.refresh()];
    gate = null;
    open();
    const first = await running;
    assert.equal(first.reassignments.has('first'), true);
    const views = await Promise.all(waiting);
    for (const v of views)
      assert.equal(v.reassignments.has('second'), true, 'each waiting caller sees the write acknowledged before it called');
    assert.equal(reads - readsBefore, 1, 'the three waiting callers shared one read');
    // A caller arriving once that shared read has ended, with something new: a read of its own.
    await other.write([reassignment('third')]);
    assert.equal((await s.refresh()).reassignments.has('third'), true);
    assert.equal(reads - readsBefore, 2);
    // Nothing new since: the end offset alone settles it, no read.
    assert.equal((await s.refresh()).reassignments.has('third'), true);
    assert.equal(reads - readsBefore, 2);
  });

  it('called while an end-offset request is out, share the one sent after it, and see what was written before they called', async () => {
    const log = new MemoryLog();
    const s = new StateStore(log);
    const other = new StateStore(log);
    await other.write([reassignment('first')]);
    await s.refresh();
    let asked = 0;
    let open: () => void = () => undefined;
    let gate: Promise<void> | null = new Promise<void>((r) => (open = r));
    const offsets = log.offsets.bind(log);
    log.offsets = async () => {
      asked++;
      const answer = await offsets();
      if (gate) await gate;
      return answer;
    };
    const early = s.refresh(); // its request is out (held by the gate) before 'second' is written
    await new Promise((r) => setImmediate(r));
    assert.equal(asked, 1);
    await other.write([reassignment('second')]);
    const later = [s.refresh(), s.refresh(), s.refresh()];
    gate = null;
    open();
    assert.equal((await early).reassignments.has('first'), true);
    for (const v of await Promise.all(later))
      assert.equal(v.reassignments.has('second'), true, 'a write acknowledged before the call is seen');
    // The early request, one shared by the three later callers (one each: 5), and the whole read
    // that 'second' then needed.
    assert.equal(asked, 3);
  });

  it('answer at once, without a read, when their own writes have taken the position to the end', async () => {
    const log = new MemoryLog();
    let reads = 0;
    const read = log.read.bind(log);
    log.read = async (f, t) => (reads++, read(f, t));
    const s = new StateStore(log);
    const other = new StateStore(log);
    await other.refresh();
    await s.write([reassignment('mine')]);
    const readsBefore = reads;
    for (let i = 0; i < 3; i++) await s.write([reassignment(`mine-${i}`)]);
    const view = await s.refresh();
    assert.deepEqual([...view.reassignments.keys()].sort(), ['mine', 'mine-0', 'mine-1', 'mine-2']);
    assert.equal(reads, readsBefore, 'own writes are passed when acknowledged: nothing to read back');
    // Another writer's record: read, and seen.
    await other.write([reassignment('theirs')]);
    assert.equal((await s.refresh()).reassignments.has('theirs'), true);
    assert.equal(reads, readsBefore + 1);
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
    await log.write([
      { key: 'reassignment/n1', value: encodeValue(reassignment('n1')) },
      { key: 'reassignment/n2', value: encodeValue(reassignment('n2')) },
    ]);
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

describe('StateStore position (what the worker posts summaries at: src/worker/summary-posts.ts)', () => {
  it('is null before the first read and while the topic is unreadable; moves with own writes and reads, telling observers', async () => {
    const log = new MemoryLog();
    const offsets = log.offsets.bind(log);
    let unreadable = false;
    log.offsets = async () => {
      if (unreadable) throw new Error('no leader');
      return { ...(await offsets()), topicId: 'id-1' };
    };
    const s = new StateStore(log);
    const other = new StateStore(log);
    let told = 0;
    const stop = s.observePosition(() => told++);
    assert.equal(s.position(), null, 'nothing read yet');
    await s.refresh();
    assert.deepEqual(s.position(), { position: 0n, topicId: 'id-1' });
    // Its own write, passed when acknowledged: everything below the new position is in the view.
    const toldBefore = told;
    await s.write([reassignment('a'), reassignment('b')]);
    const end = () => ({ position: BigInt(log.records.length), topicId: 'id-1' });
    const afterOwn = end();
    assert.ok(afterOwn.position > 0n);
    assert.deepEqual(s.position(), afterOwn);
    assert.ok(told > toldBefore, 'observers told of the own write');
    // Another instance's write: the position moves when it is read.
    await other.write([reassignment('c')]);
    assert.deepEqual(s.position(), afterOwn);
    const toldBeforeRead = told;
    assert.equal((await s.refresh()).reassignments.has('c'), true);
    assert.deepEqual(s.position(), end());
    assert.ok(end().position > afterOwn.position);
    assert.ok(told > toldBeforeRead, 'observers told of the read');
    // Unreadable: the position says nothing (and observers hear of it); readable again: back.
    unreadable = true;
    await other.write([reassignment('d')]);
    await assert.rejects(s.refresh());
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(s.position(), null);
    unreadable = false;
    await s.refresh();
    assert.deepEqual(s.position(), end());
    stop();
    const toldAtStop = told;
    await s.write([reassignment('e')]);
    assert.equal(told, toldAtStop, 'stopped');
  });
});
