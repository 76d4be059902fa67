// An in-memory StateLog for the store's tests: offsets in append order, writes that can be
// made to fail from some batch on (a crash), and what compaction would leave.
import type { StateLog } from '../../src/state/store.js';

export class MemoryLog implements StateLog {
  readonly name = 'mem';
  records: { offset: bigint; key: string; value: string | null }[] = [];
  batches: number[] = [];
  /** Fails every write from this many successful ones on (a crash: nothing more is written). */
  failAfter = Infinity;
  async ensure() {}
  async offsets() {
    return { start: 0n, end: BigInt(this.records.length) };
  }
  async read(from: bigint, to: bigint) {
    return this.records.filter((r) => r.offset >= from && r.offset < to);
  }
  async write(recs: { key: string; value: string | null }[]) {
    if (this.batches.length >= this.failAfter) throw new Error('crashed');
    this.batches.push(recs.reduce((n, r) => n + r.key.length + (r.value?.length ?? 0), 0));
    const first = BigInt(this.records.length);
    for (const r of recs) this.records.push({ offset: BigInt(this.records.length), ...r });
    return first;
  }
  /** What compaction leaves: the latest record per key, tombstones and what they delete gone. */
  compacted(): MemoryLog {
    const latest = new Map<string, (typeof this.records)[number]>();
    for (const r of this.records) latest.set(r.key, r);
    const out = new MemoryLog();
    out.records = [...latest.values()].filter((r) => r.value !== null).sort((x, y) => Number(x.offset - y.offset));
    const end = BigInt(this.records.length);
    out.offsets = async () => ({ start: 0n, end });
    out.read = async (f, t) => out.records.filter((r) => r.offset >= f && r.offset < t);
    return out;
  }
}
