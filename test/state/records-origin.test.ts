// A reassignment's origin (issue 33: "goal or plan" in the console's history) is kept in the
// record's header, never per partition, and records written without it (older gateways, v1
// inline records, hand-written bodies) still read, with no origin.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeValue, encodeValue, RECORD_VERSION, reassignmentKey, type ReassignmentRecord } from '../../src/state/records.js';
import { StateStore } from '../../src/state/store.js';
import { MemoryLog } from './memory-log.js';

function record(id: string, extra: Partial<ReassignmentRecord> = {}, partitions = 3): ReassignmentRecord {
  return {
    kind: 'reassignment',
    v: RECORD_VERSION,
    id,
    state: 'running',
    partitions: Array.from({ length: partitions }, (_, i) => ({
      topic: 't',
      partition: i,
      original: [0, 1],
      target: [1, 2],
      state: 'moving' as const,
    })),
    concurrency: null,
    order: 'as-given',
    paused: false,
    throttle: null,
    autoRemoveThrottle: true,
    throttleDemand: null,
    owner: 'i',
    requestedBy: 'ci',
    createdAt: 1,
    startDeadline: 2,
    updatedAt: 1,
    ...extra,
  };
}

const ORIGIN = { goal: 'decommission', description: 'broker 3 emptied; 1200 partitions changed; 1200 replicas moved' };

describe('reassignment origin in the state record', () => {
  it('is written in the header only, and read back by another instance', async () => {
    const log = new MemoryLog();
    // 1,200 partitions: three chunks (CHUNK_MAX_PARTITIONS 500) and a header.
    await new StateStore(log).write([record('r1', { origin: ORIGIN }, 1200)]);
    const header = log.records.filter((r) => r.key === reassignmentKey('r1'));
    const chunks = log.records.filter((r) => r.key.startsWith('reassignment-chunk/r1/'));
    assert.equal(header.length, 1);
    assert.ok(chunks.length >= 3, `chunks ${chunks.length}`);
    assert.deepEqual(JSON.parse(header[0].value!).origin, ORIGIN, 'the header carries the origin');
    for (const c of chunks) assert.ok(!c.value!.includes('decommission'), `a chunk carries no origin: ${c.key}`);

    const read = (await new StateStore(log).refresh()).reassignments.get('r1');
    assert.deepEqual(read?.origin, ORIGIN);
    assert.equal(read?.partitions.length, 1200);
  });

  it('a header-only change keeps it (the chunks are not rewritten)', async () => {
    const log = new MemoryLog();
    const store = new StateStore(log);
    await store.write([record('r2', { origin: { goal: 'rebalance' } })]);
    const before = log.records.length;
    const current = store.view().reassignments.get('r2')!;
    await store.write([{ ...current, state: 'completed', endedAt: 5, updatedAt: 5 }]);
    const written = log.records.slice(before).map((r) => r.key);
    assert.deepEqual(written, [reassignmentKey('r2')], 'only the header is rewritten');
    const read = (await new StateStore(log).refresh()).reassignments.get('r2');
    assert.equal(read?.state, 'completed');
    assert.deepEqual(read?.origin, { goal: 'rebalance' });
  });

  it('an old record without the field reads fine: a v2 header of an older gateway, and a v1 inline record', async () => {
    const log = new MemoryLog();
    await new StateStore(log).write([record('old-v2')]);
    const header = JSON.parse(log.records.find((r) => r.key === reassignmentKey('old-v2'))!.value!);
    assert.equal('origin' in header, false, 'no origin written when there is none');
    // A v1 record: one message, partitions inline, none of the fields v2 added.
    const v1 = { ...record('old-v1'), v: 1 } as Partial<ReassignmentRecord>;
    delete v1.concurrency;
    delete v1.order;
    delete v1.paused;
    log.records.push({ offset: BigInt(log.records.length), key: reassignmentKey('old-v1'), value: JSON.stringify(v1) });

    const view = await new StateStore(log).refresh();
    for (const id of ['old-v2', 'old-v1']) {
      const r = view.reassignments.get(id);
      assert.ok(r, id);
      assert.equal(r.origin, undefined, id);
      assert.equal(r.state, 'running', id);
      assert.equal(r.partitions.length, 3, id);
    }
    assert.equal(decodeValue(reassignmentKey('old-v1'), JSON.stringify(v1))?.kind, 'reassignment');
    assert.deepEqual(
      (decodeValue(reassignmentKey('x'), encodeValue(record('x', { origin: ORIGIN }))) as ReassignmentRecord).origin,
      ORIGIN,
    );
  });
});
