// Terminal rendering for the CLI: tables and progress bars. Pure string functions.
import { formatBytes, formatDuration, type ReassignmentPartitionItem, type ReassignmentStatus } from '../client/api.js';
import { goalLine } from '../client/origin-text.js';

/** Columns padded to their widest cell; numbers right-aligned. */
export function table(headers: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '–' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => cells.length > 0 && cells.every((r) => /^-?[\d.]+$|^–$/.test(r[i] ?? '')));
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  if (cells.length === 0) return '(none)';
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** [█████░░░░░] with `width` cells; percent clamped to 0..100. */
export function bar(percent: number, width = 24): string {
  const p = Math.min(100, Math.max(0, Number.isFinite(percent) ? percent : 0));
  const full = Math.round((p / 100) * width);
  return `[${'█'.repeat(full)}${'░'.repeat(width - full)}]`;
}

/** "at most 2 per broker, 5 in the cluster, size-asc" or "all at once". */
export function pacingText(r: ReassignmentStatus['summary']): string {
  const c = r.concurrency;
  const bounds = [
    c?.perBroker != null ? `at most ${c.perBroker} per broker` : null,
    c?.cluster != null ? `at most ${c.cluster} in the cluster` : null,
  ].filter(Boolean);
  return bounds.length ? `${bounds.join(', ')}, ${r.order}` : 'all at once';
}

/** completed, cancelled, failed: nothing moves any more. */
export const finishedState = (state: string): boolean => state === 'completed' || state === 'cancelled' || state === 'failed';

/** Seconds from its start (or creation) to its end; null while it runs. */
export function tookSeconds(r: { createdAt: string; startedAt: string | null; endedAt: string | null }): number | null {
  return r.endedAt ? Math.max(0, (Date.parse(r.endedAt) - Date.parse(r.startedAt ?? r.createdAt)) / 1000) : null;
}

const partitionPercent = (p: ReassignmentPartitionItem): number =>
  p.percent ?? (p.bytesTotal ? ((p.bytesDone ?? 0) / p.bytesTotal) * 100 : 0);

/** The progress of one reassignment: a total bar, its counts and pacing, and one bar per moving partition. */
export function progressLines(s: ReassignmentStatus, width = 24): string[] {
  const r = s.summary;
  const p = r.progress;
  // Finished: how long it took, never a rate or an ETA.
  const pace = finishedState(r.state)
    ? `took ${formatDuration(tookSeconds(r))}`
    : `${p.bytesPerSecond === null ? '–' : `${formatBytes(p.bytesPerSecond)}/s`}  ETA ${formatDuration(p.etaSeconds)}`;
  const head = `${r.id}  ${r.state.padEnd(9)} ${bar(p.percent, width)} ${p.percent.toFixed(1).padStart(5)}%  ${formatBytes(p.bytesDone)}/${formatBytes(p.bytesTotal)}  ${pace}${p.stalled ? '  STALLED' : ''}`;
  const c = r.counts;
  const lines = [
    head,
    `  goal: ${goalLine(r)}${r.requestedBy ? `  requested by ${r.requestedBy}` : ''}`,
    `  partitions: ${c.queued} queued, ${c.moving} moving, ${c.completed} completed, ${c.failed} failed${c.cancelled ? `, ${c.cancelled} cancelled` : ''} (of ${c.total})`,
    `  pacing: ${pacingText(r)}${r.paused ? '  PAUSED (moves in flight finish, none start)' : ''}  throttle: ${r.throttle === null ? 'none' : `${formatBytes(r.throttle)}/s`}${r.throttlesRemovedAt ? ' (removed)' : ''}`,
  ];
  for (const part of s.moving) {
    const pct = partitionPercent(part);
    lines.push(
      `  ${`${part.topic}-${part.partition}`.padEnd(20)} ${bar(pct, width)} ${pct.toFixed(1).padStart(5)}%  ${part.originalReplicas.join(',')} → ${part.targetReplicas.join(',')}`,
    );
  }
  if (s.more !== null) lines.push(`  … ${c.moving - s.moving.length} more moving`);
  if (r.reason) lines.push(`  reason: ${r.reason}`);
  lines.push(...holdLines(r));
  lines.push(...deadlineLines(r));
  return lines;
}

/** Deadline pacing (issue 30): the deadline, whether it holds, and the end at the highest allowed throttle when it does not. */
export function deadlineLines(r: ReassignmentStatus['summary']): string[] {
  const d = r.deadline;
  if (!d) return [];
  const rate = (n: number | null) => (n === null ? '–' : `${formatBytes(n)}/s`);
  if (r.state === 'completed' || r.state === 'cancelled' || r.state === 'failed') {
    if (!r.endedAt) return [`  deadline: finish by ${d.finishBy}`];
    const early = Math.round((Date.parse(d.finishBy) - Date.parse(r.endedAt)) / 1000);
    return [`  deadline: finish by ${d.finishBy}; ended ${Math.abs(early)} s ${early >= 0 ? 'before' : 'AFTER'} it`];
  }
  if (d.holds)
    return [
      `  deadline: finish by ${d.finishBy}; holds, expected end ${d.expectedEnd ?? '–'} at ${rate(d.throttle)} (bounds ${rate(d.throttleBounds.min)}–${rate(d.throttleBounds.max)})`,
    ];
  return [
    `  deadline: finish by ${d.finishBy}; DOES NOT HOLD: at the highest allowed throttle (${rate(d.throttleBounds.max)}) it ends ${d.expectedEndAtMaxThrottle ?? '–'}`,
  ];
}

/** The health interlocks' hold (issue 30): what holds it, how far it is from resuming, how to re-plan around gone brokers. */
export function holdLines(r: ReassignmentStatus['summary']): string[] {
  const h = r.hold;
  if (!h) return [];
  const kinds = h.reasons.map((x) => `${x.kind} ${x.count}`).join(', ');
  const out = [
    `  HELD since ${h.since} (${kinds}): no new move starts; resumes after ${h.resumeAfterPasses} healthy pass(es) in a row (${h.healthyPasses} so far)${r.paused ? ', then stays paused' : ''}`,
  ];
  for (const t of h.targetsGone ?? [])
    out.push(`  target broker ${t.broker} is gone: ${t.partitions} open move(s) go to it (${t.examples.join(', ')})`);
  if (h.replan) out.push(`  re-plan: ${h.replan}`);
  return out;
}
