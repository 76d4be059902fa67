// StateStore: the materialised view of the state topic. Unit tests against an in-memory
// log implementing StateLog (the Kafka-backed log is covered in test/kafka/state-topic...).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeValue, encodeValue, RECORD_VERSION, type ReassignmentRecord, type ThrottleRequestRecord } from '../../src/state/records.js';
import { StateStore, type StateLog } from '../../src/state/store.js';

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
    kind: 'reassignment', v: RECORD_VERSION, id, state, partitions: [{ topic: 't', partition: 0, original: [0], target: [1] }],
    throttle: null, autoRemoveThrottle: true, throttleDemand: null, owner: 'i', requestedBy: null, createdAt: 1, startDeadline: 2, updatedAt: 1,
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
    await s.refresh(); // position 1
    await log.write([{ key: 'reassignment/gap', value: encodeValue(reassignment('gap')) }]);
    await log.write([{ key: 'reassignment/new', value: encodeValue(reassignment('new')) }]);
    log.start = 2n; // offsets 0 and 1 are gone: the view cannot be patched, only rebuilt
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
