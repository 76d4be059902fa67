// Terminal rendering for the CLI: tables and progress bars. Pure string functions.
import { formatBytes, formatDuration, type Reassignment } from '../client/api.js';

/** Columns padded to their widest cell; numbers right-aligned. */
export function table(headers: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '–' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => cells.length > 0 && cells.every((r) => /^-?[\d.]+$|^–$/.test(r[i] ?? '')));
  const line = (r: string[]) => r.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  if (cells.length === 0) return '(none)';
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** [█████░░░░░] with `width` cells; percent clamped to 0..100. */
export function bar(percent: number, width = 24): string {
  const p = Math.min(100, Math.max(0, Number.isFinite(percent) ? percent : 0));
  const full = Math.round((p / 100) * width);
  return `[${'█'.repeat(full)}${'░'.repeat(width - full)}]`;
}

/** The progress of one reassignment: a total bar and one per partition that is moving. */
export function progressLines(r: Reassignment, width = 24): string[] {
  const p = r.progress;
  const head = `${r.id}  ${r.state.padEnd(9)} ${bar(p.percent, width)} ${p.percent.toFixed(1).padStart(5)}%  ${formatBytes(p.bytesCopied)}/${formatBytes(p.bytesTotal)}  ${p.bytesPerSecond === null ? '–' : `${formatBytes(p.bytesPerSecond)}/s`}  ETA ${formatDuration(p.etaSeconds)}${p.stalled ? '  STALLED' : ''}`;
  const lines = [head];
  if (r.pacing) {
    const c = r.pacing.counts;
    lines.push(`  partitions: ${c.queued} queued, ${c.moving} moving, ${c.completed} completed, ${c.failed} failed${r.pacing.paused ? '  (PAUSED)' : ''}`);
  } else {
    const counts = new Map<string, number>();
    for (const part of r.partitions) counts.set(part.status, (counts.get(part.status) ?? 0) + 1);
    lines.push(`  partitions: ${[...counts].map(([s, n]) => `${n} ${s}`).join(', ') || 'none'}`);
  }
  for (const part of r.partitions.filter((x) => x.status === 'moving').slice(0, 20)) {
    const total = part.copies.reduce((a, c) => a + (c.bytesTotal ?? 0), 0);
    const copied = part.copies.reduce((a, c) => a + c.bytesCopied, 0);
    const pct = total > 0 ? (copied / total) * 100 : 0;
    lines.push(`  ${`${part.topic}-${part.partition}`.padEnd(20)} ${bar(pct, width)} ${pct.toFixed(1).padStart(5)}%  ${part.originalReplicas.join(',')} → ${part.targetReplicas.join(',')}`);
  }
  const more = r.partitions.filter((x) => x.status === 'moving').length - 20;
  if (more > 0) lines.push(`  … ${more} more moving`);
  if (r.reason) lines.push(`  reason: ${r.reason}`);
  return lines;
}
