// Small pieces the pages share: a progress bar, a state or owner badge, a rate in bytes/s.
import type { ComponentChildren } from 'preact';
import { formatBytes } from '../../client/api.js';

export function ProgressBar({ percent, label, detail }: { percent: number; label: string; detail?: string }) {
  const p = Math.max(0, Math.min(100, Number.isFinite(percent) ? percent : 0));
  return (
    <div class={`progress${p >= 100 ? ' done' : ''}`}>
      <div
        class="track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(p * 10) / 10}
        aria-valuetext={`${p.toFixed(1)} %${detail ? `, ${detail}` : ''}`}
      >
        <div class="fill" style={{ width: `${p}%` }} />
      </div>
      <span class="pct">{p.toFixed(1)} %</span>
    </div>
  );
}

export const Badge = ({ kind, children }: { kind: string; children: ComponentChildren }) => (
  <span class={`badge state-${kind} owner-${kind}`}>{children}</span>
);

export const mib = (bytesPerSecond: number | null | undefined) => (bytesPerSecond == null ? '–' : `${formatBytes(bytesPerSecond)}/s`);
