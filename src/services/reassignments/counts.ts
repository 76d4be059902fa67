// Counts of a reassignment's partitions per state, cached per record.
import { isCold, visitPacked } from '../../state/cold-partitions.js';
import type { ReassignmentRecord } from '../../state/records.js';
import type { PartitionCounts } from './types.js';

/**
 * Counts per state. Records are immutable (a change is a new object), so the counts of one are
 * computed once: GETs of a 100,000-partition reassignment do not walk it each time.
 */
export function countPartitions(r: ReassignmentRecord): PartitionCounts {
  const cached = countsOf.get(r);
  // A cold record (finished, its partitions packed: state/cold-partitions.ts) never changes: its
  // counts are kept without its unpacked array, which would otherwise stay alive with them.
  const cold = isCold(r);
  if (cached && (cold || cached.partitions === r.partitions) && cached.updatedAt === r.updatedAt) return { ...cached.counts };
  const c: PartitionCounts = { total: 0, queued: 0, moving: 0, completed: 0, failed: 0, cancelled: 0 };
  // A cold record's from its columns: unpacking it would make ~17 MiB of objects at 100,000.
  let ps: ReassignmentRecord['partitions'] | null = null;
  if (!visitPacked(r, (state) => void (c.total++, c[state]++))) {
    ps = r.partitions;
    c.total = ps.length;
    // Indexed: a for...of over 100,000 entries allocates an iterator result per entry until V8 optimizes it (run once per record).
    for (let i = 0; i < ps.length; i++) c[ps[i].state]++;
  }
  countsOf.set(r, { partitions: cold ? null : ps, updatedAt: r.updatedAt, counts: c });
  return { ...c };
}
const countsOf = new WeakMap<
  ReassignmentRecord,
  { partitions: ReassignmentRecord['partitions'] | null; updatedAt: number; counts: PartitionCounts }
>();
