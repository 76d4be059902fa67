// The chunked layout of reassignments in the state topic (src/state/layout.ts, store.ts):
// bounded messages, a change rewrites only its chunk, readers never see half a record (a crash
// between chunks), compaction leaves exactly the live state.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHUNK_MAX_PARTITIONS, CHUNK_PREFIX, MESSAGE_MAX_BYTES } from '../../src/state/layout.js';
import { RECORD_VERSION, type ReassignmentPartitionRecord, type ReassignmentRecord } from '../../src/state/records.js';
import { BATCH_MAX_BYTES, StateStore } from '../../src/state/store.js';
import { MemoryLog } from './memory-log.js';

function record(id: string, n: number, topicLen = 8): ReassignmentRecord {
  const topic = 't'.repeat(topicLen);
  const partitions: ReassignmentPartitionRecord[] = [];
  for (let i = 0; i < n; i++)
    partitions.push({
      topic: `${topic}${i % 7}`,
      partition: i,
      original: [0, 1, 2],
      target: [1, 2, 3],
      state: 'moving',
      bytesTotal: 1000 + i,
    });
  return {
    kind: 'reassignment',
    v: RECORD_VERSION,
    id,
    state: 'running',
    partitions,
    concurrency: { perBroker: 2, cluster: null },
    order: 'size-asc',
    paused: false,
    throttle: 1000,
    autoRemoveThrottle: true,
    throttleDemand: null,
    owner: 'i',
    requestedBy: null,
    createdAt: 1,
    startDeadline: 2,
    updatedAt: 1,
  };
}

const chunkKeys = (log: MemoryLog) => log.records.filter((r) => r.key.startsWith(CHUNK_PREFIX));

describe('reassignment layout in the state topic', () => {
  it('splits a large record into bounded chunks and a header written last; another instance reads the same record', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    const r = record('big', 12_345, 120);
    await a.write([r]);
    const last = log.records.at(-1)!;
    assert.equal(last.key, 'reassignment/big', 'the header is the last message');
    for (const m of log.records) assert.ok(m.key.length + (m.value?.length ?? 0) < MESSAGE_MAX_BYTES, `${m.key} is bounded`);
    for (const b of log.batches) assert.ok(b <= BATCH_MAX_BYTES, `batch of ${b} bytes is bounded`);
    assert.ok(log.batches.length > 2, 'several produce batches');
    assert.ok(chunkKeys(log).length >= Math.ceil(12_345 / CHUNK_MAX_PARTITIONS));
    const b = new StateStore(log);
    const seen = (await b.refresh()).reassignments.get('big');
    assert.deepEqual(seen, r);
    assert.deepEqual(seen?.concurrency, { perBroker: 2, cluster: null });
    assert.equal(seen?.order, 'size-asc');
    // The reader holds one frozen array per distinct replica list, not two per partition.
    const ps = seen.partitions;
    assert.ok(ps.every((p) => p.original === ps[0].original && p.target === ps[0].target));
    assert.ok(Object.isFrozen(ps[0].original) && Object.isFrozen(ps[0].target));
  });

  it('a change to one partition rewrites only its chunk (and the header), and tombstones the chunk it replaces', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    const r = record('r', 2_000);
    await a.write([r]);
    const before = log.records.length;
    const parts = [...a.view().reassignments.get('r')!.partitions];
    parts[1234] = { ...parts[1234], state: 'completed', endedAt: 5 };
    await a.write([{ ...a.view().reassignments.get('r')!, partitions: parts, updatedAt: 5 }]);
    const written = log.records.slice(before);
    assert.deepEqual(
      written.map((w) => (w.key.startsWith(CHUNK_PREFIX) ? (w.value === null ? 'tombstone' : 'chunk') : w.key)),
      ['chunk', 'reassignment/r', 'tombstone'],
    );
    const b = new StateStore(log);
    assert.equal((await b.refresh()).reassignments.get('r')!.partitions[1234].state, 'completed');
    assert.equal(
      b
        .view()
        .reassignments.get('r')!
        .partitions.filter((p) => p.state === 'completed').length,
      1,
    );
  });

  it('a crash between chunks: readers never see the record; the orphan chunks are swept; compaction leaves only live state', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    await a.write([record('old', 700)]);
    log.batches = [];
    log.failAfter = 1; // one chunk batch gets through, then the writer dies
    await assert.rejects(a.write([record('new', 12_345, 120)]), /crashed/);
    log.failAfter = Infinity;
    assert.ok(
      chunkKeys(log).some((c) => c.key.includes('/new/')),
      'some of its chunks were written',
    );
    const b = new StateStore(log);
    const view = await b.refresh();
    assert.deepEqual([...view.reassignments.keys()], ['old'], 'no half-written record');
    assert.equal(await b.sweepOrphanChunks(Date.now(), 60_000), 0, 'young orphans are left alone (their writer may still be writing)');
    assert.ok((await b.sweepOrphanChunks(Date.now() + 120_000, 60_000)) > 0);
    const fresh = new StateStore(log.compacted());
    await fresh.refresh();
    assert.deepEqual([...fresh.view().reassignments.keys()], ['old']);
    const keys = fresh.chunkKeys();
    assert.deepEqual(
      keys.sort(),
      [...fresh.header('old')!.layout.chunks.map((c) => `${CHUNK_PREFIX}old/p${c.i}.${c.g}`)].sort(),
      'exactly the chunks the header names',
    );
  });

  it('chunk batches go out while earlier ones await their acknowledgement; the view follows the log order, the header waits for all', async () => {
    // Kafka appends in request order and answers in order; here the first batch's answer is
    // held until three batches are out, then the answers come in reverse order.
    // The number of chunk batches this write makes, from the same write to a plain log: the
    // answers still held when the last one goes out (fewer than three) are released then.
    const r = record('big', 15_000, 120);
    const dry = new MemoryLog();
    let dryBatches = 0;
    const dryWrite = dry.write.bind(dry);
    dry.write = (recs) => {
      if (recs.some((c) => c.key.startsWith(CHUNK_PREFIX))) dryBatches++;
      return dryWrite(recs);
    };
    await new StateStore(dry).write([r]);
    assert.ok(dryBatches > 3, `enough chunk batches to hold three (${dryBatches})`);
    class SlowAcks extends MemoryLog {
      held: (() => void)[] = [];
      outAtOnce = 0;
      chunkBatches = 0;
      #pending = 0;
      override async write(recs: { key: string; value: string | null }[]) {
        const first = await super.write(recs);
        this.#pending++;
        this.outAtOnce = Math.max(this.outAtOnce, this.#pending);
        if (recs.some((c) => c.key.startsWith(CHUNK_PREFIX))) {
          this.chunkBatches++;
          await new Promise<void>((resolve) => {
            this.held.push(resolve);
            if (this.held.length === 3 || this.chunkBatches === dryBatches) for (const f of this.held.splice(0).reverse()) f();
          });
        }
        this.#pending--;
        return first;
      }
    }
    const log = new SlowAcks();
    const a = new StateStore(log);
    await a.write([r]);
    assert.equal(log.outAtOnce, 3, 'three batches out at once');
    const chunks = chunkKeys(log).filter((c) => c.key.includes('/big/'));
    const header = log.records.findIndex((m) => m.key === 'reassignment/big');
    assert.ok(
      chunks.every((c) => c.offset < BigInt(header)),
      'the header after every chunk',
    );
    assert.deepEqual(a.view().reassignments.get('big'), r);
    const b = new StateStore(log);
    assert.deepEqual((await b.refresh()).reassignments.get('big'), r);
    assert.deepEqual(a.chunkKeys().sort(), b.chunkKeys().sort());
  });

  it('a chunk batch that fails while others are out: the write fails, no header is written, nothing is left unhandled', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    await a.write([record('old', 10)]);
    log.batches = [];
    log.failAfter = 2;
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      await assert.rejects(a.write([record('new', 15_000, 120)]), /crashed/);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    assert.deepEqual(unhandled, []);
    assert.ok(!log.records.some((m) => m.key === 'reassignment/new'));
    log.failAfter = Infinity;
    assert.deepEqual([...(await new StateStore(log).refresh()).reassignments.keys()], ['old']);
  });

  it('after many updates and a delete, compaction leaves exactly the live headers and the chunks they name', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    await a.write([record('x', 1_500), record('y', 600)]);
    for (let k = 0; k < 20; k++) {
      const cur = a.view().reassignments.get('x')!;
      const parts = [...cur.partitions];
      const i = (k * 397) % parts.length;
      parts[i] = { ...parts[i], state: 'completed' };
      await a.write([{ ...cur, partitions: parts }]);
    }
    await a.write([], ['reassignment/y']);
    const c = log.compacted();
    const fresh = new StateStore(c);
    const view = await fresh.refresh();
    assert.deepEqual([...view.reassignments.keys()], ['x']);
    assert.deepEqual(view.reassignments.get('x'), a.view().reassignments.get('x'));
    const named = new Set(fresh.header('x')!.layout.chunks.map((ch) => `${CHUNK_PREFIX}x/p${ch.i}.${ch.g}`));
    assert.deepEqual(
      c.records
        .filter((r) => r.key.startsWith(CHUNK_PREFIX))
        .map((r) => r.key)
        .sort(),
      [...named].sort(),
    );
    assert.equal(c.records.length, named.size + 1);
  });

  it('a throttle demand too large for the header is kept in its own chunks and reassembled', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    const leader: string[] = [];
    const follower: string[] = [];
    for (let p = 0; p < 60_000; p++) {
      leader.push(`${p}:0`, `${p}:1`);
      follower.push(`${p}:3`);
    }
    const r = {
      ...record('d', 10),
      throttleDemand: {
        topics: { big: { leader, follower }, small: { leader: '*' as const } },
        brokers: { '0': { leaderRate: 5, followerRate: 5 } },
      },
    };
    await a.write([r]);
    for (const m of log.records) assert.ok((m.value?.length ?? 0) < MESSAGE_MAX_BYTES);
    assert.ok(a.header('d')!.layout.demand!.length > 1);
    const b = new StateStore(log);
    assert.deepEqual((await b.refresh()).reassignments.get('d')!.throttleDemand, r.throttleDemand);
    // A change of rate only: the demand's chunks are named again, not rewritten.
    const before = log.records.length;
    await a.write([
      {
        ...a.view().reassignments.get('d')!,
        throttleDemand: { ...a.view().reassignments.get('d')!.throttleDemand!, brokers: { '0': { leaderRate: 9, followerRate: 9 } } },
      },
    ]);
    assert.deepEqual(
      log.records.slice(before).map((x) => x.key),
      ['reassignment/d'],
    );
  });

  it('reads a v1 record (partitions inline) and fills in partition states', async () => {
    const log = new MemoryLog();
    const { concurrency: _c, order: _o, paused: _p, ...rest } = record('v1', 2);
    await log.write([
      { key: 'reassignment/v1', value: JSON.stringify({ ...rest, v: 1, partitions: rest.partitions.map(({ state: _s, ...p }) => p) }) },
    ]);
    const r = (await new StateStore(log).refresh()).reassignments.get('v1')!;
    assert.deepEqual(
      r.partitions.map((p) => p.state),
      ['moving', 'moving'],
    );
    assert.equal(r.paused, false);
    assert.equal(r.concurrency, null);
  });
});

describe('batches of many small records', () => {
  it('values that together exceed a batch are written in several batches, each bounded; the release comes last', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    const ledger = Array.from({ length: 100 }, (_, t) => ({
      kind: 'ledger' as const,
      v: RECORD_VERSION,
      id: `topic/t${t}`,
      updatedAt: 1,
      topic: { leader: { added: Array.from({ length: 2000 }, (_, p) => `${p}:${t % 12}`), prior: null }, follower: null } as never,
    }));
    const claim = await a.claim(['r'], { purpose: 'p', owner: 'o', ttlMs: 60_000 });
    assert.ok(claim.granted);
    log.batches = [];
    await a.release(claim.claim, ledger);
    assert.ok(log.batches.length > 1, 'several batches');
    for (const b of log.batches) assert.ok(b <= BATCH_MAX_BYTES, `batch of ${b} bytes`);
    assert.equal(log.records.at(-1)!.key, `claim/${claim.claim.id}`);
    assert.equal((await new StateStore(log).refresh()).ledger.size, 100);
  });

  it('batches out at once answered in reverse order: the view applies them in log order (a repeated key keeps its last value)', async () => {
    class ReverseAcks extends MemoryLog {
      held: (() => void)[] = [];
      override async write(recs: { key: string; value: string | null }[]) {
        const first = await super.write(recs);
        await new Promise<void>((resolve) => {
          this.held.push(resolve);
          if (this.held.length === 3) for (const r of this.held.splice(0).reverse()) r();
        });
        return first;
      }
    }
    const log = new ReverseAcks();
    // Answers still held when fewer than three are out (the last batches) are released here.
    const release = setInterval(() => log.held.splice(0).forEach((f) => f()), 100);
    try {
      const a = new StateStore(log);
      const value = (t: number, n: number, updatedAt: number) => ({
        kind: 'ledger' as const,
        v: RECORD_VERSION,
        id: `topic/t${t}`,
        updatedAt,
        topic: { leader: { added: Array.from({ length: n }, (_, p) => `${p}:${t % 12}`), prior: null }, follower: null } as never,
      });
      // t0 first with 2,000 entries, last again with 3: in different batches.
      const values = [value(0, 2000, 1), ...Array.from({ length: 150 }, (_, t) => value(t + 1, 2000, 1)), value(0, 3, 2)];
      await a.write(values);
      assert.ok(log.batches.length >= 3, 'three batches out at once');
      assert.equal(a.view().ledger.get('topic/t0')!.updatedAt, 2, 'the last value of the key, as the log has it');
      assert.deepEqual(a.view().ledger, (await new StateStore(log).refresh()).ledger);
    } finally {
      clearInterval(release);
    }
  });
});
