// A reassignment's figures in words, for the list and the reassignment's page.
import type { PartitionCounts, Reassignment, ReassignmentPartitionItem } from '../../client/api.js';

/** A page row's percent: the gateway's, or bytes done of bytes total; a completed move is 100. */
export function rowPercent(p: ReassignmentPartitionItem): number {
  if (p.state === 'completed') return 100;
  if (p.percent !== null) return p.percent;
  return p.bytesTotal ? ((p.bytesDone ?? 0) / p.bytesTotal) * 100 : 0;
}

export const countsText = (c: PartitionCounts) =>
  `${c.queued} queued, ${c.moving} moving, ${c.completed} completed, ${c.failed} failed${c.cancelled ? `, ${c.cancelled} cancelled` : ''}`;

export function pacingText(r: Reassignment): string {
  const c = r.concurrency;
  const bounds = [
    c?.perBroker != null && `at most ${c.perBroker} move(s) per broker`,
    c?.cluster != null && `at most ${c.cluster} in the cluster`,
  ].filter(Boolean);
  return bounds.length ? `${bounds.join(', ')}; order ${r.order}` : 'all at once';
}
