// Deadline pacing (issue 30): the bytes a reassignment with a `finishBy` still has to copy, per
// broker and direction, summed by the progress snapshot (progress.ts) from the same
// DescribeLogDirs answers as its totals, and kept in the progress record beside them. Exact as of
// the snapshot, unlike a split of the totals (every moving copy does not copy the same share:
// Kafka and the simulator share a broker's rate by copies, so small partitions finish first).
import type { BrokerBytes } from '../domain/reassignment/index.js';
import type { ProgressRecord } from '../state/records.js';

/** What the progress record keeps: per broker [id, bytes in, bytes out], as of the snapshot at `t`. */
export type BrokerBytesLeftRecord = NonNullable<ProgressRecord['bytesLeft']>;

export class BrokerBytesLeft {
  readonly #in = new Map<number, number>();
  readonly #out = new Map<number, number>();

  /** `bytes` left of a copy into `to` from `from` (the first original replica: the record keeps no leader). */
  add(to: number, from: number | undefined, bytes: number): void {
    if (!(bytes > 0)) return;
    this.#in.set(to, (this.#in.get(to) ?? 0) + bytes);
    if (from !== undefined) this.#out.set(from, (this.#out.get(from) ?? 0) + bytes);
  }

  /** A queued partition: each adding replica's copy whole. */
  queued(p: { readonly original: readonly number[]; readonly target: readonly number[] }, bytesTotal: number, adding: number): void {
    if (!(bytesTotal > 0) || adding === 0) return;
    for (const b of p.target) if (!p.original.includes(b)) this.add(b, p.original[0], bytesTotal / adding);
  }

  record(t: number): BrokerBytesLeftRecord {
    const ids = [...new Set([...this.#in.keys(), ...this.#out.keys()])].sort((a, b) => a - b);
    return { t, brokers: ids.map((b) => [b, Math.round(this.#in.get(b) ?? 0), Math.round(this.#out.get(b) ?? 0)]) };
  }
}

/** The record's bytes left as BrokerBytes, or null when absent or not from the snapshot at `asOf`. */
export function brokerBytesAsOf(rec: BrokerBytesLeftRecord | undefined, asOf: number | null): BrokerBytes[] | null {
  if (!rec || asOf === null || rec.t !== asOf) return null;
  return rec.brokers.map(([broker, bytesIn, bytesOut]) => ({ broker, bytesIn, bytesOut }));
}
