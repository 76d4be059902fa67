// The in-memory StateLog and the record the StateStore tests (store*.test.ts) share. Unlike
// ./memory-log.ts it has a movable log start offset (records removed, as by retention or
// compaction) and counts the calls to ensure().
import { RECORD_VERSION, type ReassignmentRecord } from '../../src/state/records.js';
import type { StateLog } from '../../src/state/store.js';

export class MemoryLog implements StateLog {
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

export function reassignment(id: string, state: ReassignmentRecord['state'] = 'running'): ReassignmentRecord {
  return {
    kind: 'reassignment',
    v: RECORD_VERSION,
    id,
    state,
    partitions: [{ topic: 't', partition: 0, original: [0], target: [1], state: 'moving' }],
    concurrency: null,
    order: 'as-given',
    paused: false,
    throttle: null,
    autoRemoveThrottle: true,
    throttleDemand: null,
    owner: 'i',
    requestedBy: null,
    createdAt: 1,
    startDeadline: 2,
    updatedAt: 1,
  };
}
