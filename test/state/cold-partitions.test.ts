// Finished reassignments' partitions packed into columns (src/state/cold-partitions.ts): every
// entry comes back as it was (optional fields absent, null or set; the rare fields; the same
// shared replica lists), a cold record reads like any record (spread, JSON), and the store packs
// finished records only, keeps a header-only rewrite header-only, and assembles them again from
// their chunks when another instance rewrites the header.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  coldChunk,
  coldRecord,
  coldSourceOf,
  isCold,
  isColdChunk,
  packable,
  packPartitions,
  partitionCount,
  unpackPartitions,
} from '../../src/state/cold-partitions.js';
import { PARTITION_STATES, RECORD_VERSION, type ReassignmentPartitionRecord, type ReassignmentRecord } from '../../src/state/records.js';
import { StateStore } from '../../src/state/store.js';
import { countPartitions } from '../../src/services/reassignments/counts.js';
import { bytesTotalOf } from '../../src/reconcile/progress.js';
import { MemoryLog } from './memory-log.js';

const LISTS: readonly (readonly number[])[] = [[0, 1, 2], [1, 2, 3], [3], [2, 0], []].map((l) => Object.freeze(l));

const entry: fc.Arbitrary<ReassignmentPartitionRecord> = fc
  .record(
    {
      topic: fc.constantFrom('a', 'b', 'topic-with-a-longer-name', 'ü'),
      partition: fc.oneof(fc.nat(2000), fc.constant(0xffffffff)),
      original: fc.constantFrom(...LISTS),
      target: fc.constantFrom(...LISTS),
      state: fc.constantFrom(...PARTITION_STATES),
      bytesTotal: fc.oneof(fc.constant(null), fc.nat(), fc.double({ min: 0, max: 2 ** 53, noNaN: true })),
      startedAt: fc.integer({ min: 0, max: 2 ** 52 }),
      endedAt: fc.integer({ min: 0, max: 2 ** 52 }),
      startError: fc.record({ code: fc.integer({ min: -1, max: 120 }), name: fc.string(), message: fc.string() }),
      logDirs: fc.array(fc.constantFrom('any', '/var/kafka/a', '/d2'), { maxLength: 3 }),
      supersededBy: fc.string({ minLength: 1 }),
    },
    { requiredKeys: ['topic', 'partition', 'original', 'target', 'state'] },
  )
  // fast-check's records have no prototype; the state's entries are plain objects.
  .map((e) => ({ ...e, ...(e.startError && { startError: { ...e.startError } }) }));

function record(partitions: ReassignmentPartitionRecord[], state: ReassignmentRecord['state'] = 'completed'): ReassignmentRecord {
  return {
    kind: 'reassignment',
    v: RECORD_VERSION,
    id: 'r1',
    state,
    partitions,
    concurrency: null,
    order: 'as-given',
    paused: false,
    throttle: 1000,
    autoRemoveThrottle: true,
    throttleDemand: null,
    owner: 'i',
    requestedBy: null,
    createdAt: 1,
    startDeadline: 2,
    startedAt: 3,
    endedAt: 4,
    updatedAt: 4,
  };
}

describe('packed partitions', () => {
  it('unpack(pack(entries)) is the entries, field for field, with the same replica list arrays', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 60 }), async (ps) => {
        assert.ok(packable(ps));
        const packed = await packPartitions(ps);
        const back = unpackPartitions(packed);
        assert.deepStrictEqual(back, ps);
        for (let i = 0; i < ps.length; i++) {
          assert.equal(back[i].original, ps[i].original);
          assert.equal(back[i].target, ps[i].target);
          assert.deepStrictEqual(Object.keys(back[i]).sort(), Object.keys(ps[i]).sort(), 'no optional field added or lost');
        }
      }),
    );
  });

  it('a cold record reads like the record: spread, JSON, count; the array is kept while held', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 40 }), async (ps) => {
        const r = record(ps);
        const cold = coldRecord(r, await packPartitions(ps));
        assert.ok(isCold(cold));
        assert.ok(!isCold(r));
        assert.deepStrictEqual({ ...cold }, { ...r });
        assert.deepStrictEqual(JSON.parse(JSON.stringify(cold)), JSON.parse(JSON.stringify(r)));
        assert.equal(partitionCount(cold), ps.length);
        const held = cold.partitions;
        assert.equal(cold.partitions, held, 'the same array while it is held');
      }),
    );
  });

  it("a cold record's counts and byte total are the record's, read from its columns without unpacking", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 60 }), async (ps) => {
        const r = record(ps);
        const packed = await packPartitions(ps);
        // Unpacking reads every entry's topic name: here that throws.
        const topics = new Proxy([...packed.topics], {
          get(target, key, receiver) {
            if (typeof key === 'string' && /^\d+$/.test(key)) throw new Error('unpacked');
            return Reflect.get(target, key, receiver) as unknown;
          },
        });
        const cold = coldRecord({ ...r }, { ...packed, topics });
        assert.throws(() => cold.partitions, /unpacked/, 'the trap works');
        assert.deepStrictEqual(countPartitions(cold), countPartitions(r));
        assert.equal(bytesTotalOf(cold), bytesTotalOf(r));
      }),
    );
  });

  it('a header whose chunks all come from one packed record, in order and entire, is assembled from it', async () => {
    const ps = Array.from({ length: 10 }, (_, i): ReassignmentPartitionRecord => ({
      topic: 't',
      partition: i,
      original: LISTS[0],
      target: LISTS[1],
      state: 'completed',
    }));
    const cold = coldRecord(record(ps), await packPartitions(ps));
    const other = coldRecord(record(ps), await packPartitions(ps));
    const raw = { kind: 'reassignment-chunk', v: RECORD_VERSION, reassignment: 'r1', writtenAt: 1 } as const;
    const c1 = coldChunk({ ...raw, partitions: ps.slice(0, 6) }, cold, 0, 6);
    const c2 = coldChunk({ ...raw, partitions: ps.slice(6) }, cold, 6, 4);
    assert.ok(isColdChunk(c1) && !isColdChunk({ ...raw, partitions: ps }));
    assert.deepStrictEqual(c2.partitions, ps.slice(6));
    const packed = coldSourceOf(
      [
        { s: 0, n: 6, chunk: c1 },
        { s: 6, n: 4, chunk: c2 },
      ],
      10,
    );
    assert.ok(packed);
    assert.deepStrictEqual(unpackPartitions(packed), ps);
    assert.equal(coldSourceOf([{ s: 0, n: 6, chunk: c1 }], 10), undefined, 'not entire');
    assert.equal(
      coldSourceOf(
        [
          { s: 6, n: 4, chunk: c2 },
          { s: 0, n: 6, chunk: c1 },
        ],
        10,
      ),
      undefined,
      'out of order',
    );
    assert.equal(
      coldSourceOf(
        [
          { s: 0, n: 6, chunk: c1 },
          { s: 6, n: 4, chunk: coldChunk({ ...raw, partitions: ps.slice(6) }, other, 6, 4) },
        ],
        10,
      ),
      undefined,
      'two packed records',
    );
    assert.equal(
      coldSourceOf(
        [
          { s: 0, n: 6, chunk: c1 },
          { s: 6, n: 4, chunk: { ...raw, partitions: ps.slice(6) } },
        ],
        10,
      ),
      undefined,
      'a chunk not packed',
    );
    assert.equal(
      coldSourceOf(
        [
          { s: 0, n: 6, chunk: c1 },
          { s: 6, n: 4, chunk: undefined },
        ],
        10,
      ),
      undefined,
      'a chunk missing',
    );
  });

  it('what the columns cannot hold is not packed', () => {
    const ok: ReassignmentPartitionRecord = { topic: 't', partition: 1, original: [0], target: [1], state: 'completed' };
    assert.ok(packable([ok]));
    assert.ok(!packable([{ ...ok, partition: -1 }]));
    assert.ok(!packable([{ ...ok, partition: 1.5 }]));
    assert.ok(!packable([{ ...ok, state: 'weird' as ReassignmentPartitionRecord['state'] }]));
  });
});

/** 3,000 partitions: several chunks. */
function many(state: ReassignmentPartitionRecord['state']): ReassignmentPartitionRecord[] {
  return Array.from({ length: 3000 }, (_, i) => ({
    topic: `t${i % 7}`,
    partition: i,
    original: LISTS[i % 3],
    target: LISTS[(i + 1) % 3],
    state,
    bytesTotal: i * 10,
    startedAt: 1000 + i,
    ...(state !== 'moving' && { endedAt: 5000 + i }),
  }));
}

describe('StateStore: finished reassignments packed', () => {
  it('a finished record in the view is packed, reads the same, and a header-only change writes no chunk', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    const running = { ...record(many('moving'), 'running'), endedAt: undefined } as ReassignmentRecord;
    await a.write([running]);
    await a.cooled();
    assert.ok(!isCold(a.view().reassignments.get('r1')!), 'a running record is not packed');

    const done = record(many('completed'));
    await a.write([done]);
    await a.cooled();
    const cold = a.view().reassignments.get('r1')!;
    assert.ok(isCold(cold));
    assert.deepStrictEqual(cold.partitions, done.partitions);

    // The reconciler's throttlesRemovedAt: a spread of the cold record.
    const before = log.records.length;
    await a.write([{ ...cold, throttlesRemovedAt: 9, updatedAt: 9 }]);
    const written = log.records.slice(before);
    assert.deepStrictEqual(
      written.map((r) => r.key),
      ['reassignment/r1'],
      'the header alone',
    );
    await a.cooled();
    const again = a.view().reassignments.get('r1')!;
    assert.ok(isCold(again));
    assert.equal(again.throttlesRemovedAt, 9);
    assert.deepStrictEqual(again.partitions, done.partitions);
  });

  it('another instance reads it (and packs it); a header rewritten there is assembled again from the packed chunks', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    const b = new StateStore(log);
    const done = record(many('completed'));
    await a.write([done]);
    await a.cooled();
    const seen = (await b.refresh()).reassignments.get('r1')!;
    await b.cooled();
    assert.ok(isCold(b.view().reassignments.get('r1')!));
    assert.deepStrictEqual(seen.partitions, done.partitions);

    await b.write([{ ...b.view().reassignments.get('r1')!, throttlesRemovedAt: 7, updatedAt: 7 }]);
    const before = log.records.length;
    const r = (await a.refresh()).reassignments.get('r1')!;
    assert.ok(before > 0);
    assert.ok(isCold(r), 'assembled cold from its packed chunks, not unpacked');
    assert.equal(r.throttlesRemovedAt, 7);
    assert.deepStrictEqual(r.partitions, done.partitions);
    await a.cooled();
    assert.ok(isCold(a.view().reassignments.get('r1')!));

    // A third instance reading everything from the start gets the same record.
    const c = new StateStore(log);
    const fresh = (await c.refresh()).reassignments.get('r1')!;
    assert.deepStrictEqual({ ...fresh }, { ...r });
  });

  it('a finished record deleted while it is being packed stays deleted', async () => {
    const log = new MemoryLog();
    const a = new StateStore(log);
    await a.write([record(many('completed'))]);
    // The packing has started (queued at the write); the tombstone lands before it ends.
    await a.write([], ['reassignment/r1']);
    await a.cooled();
    assert.equal(a.view().reassignments.has('r1'), false);
  });
});
