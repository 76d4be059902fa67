// Deadline pacing (issue 30): the words the console shows for a finishBy reassignment's deadline
// (deadline.tsx renders them). Plain TypeScript, no JSX: unit-tested on its own.
import { formatBytes, type Reassignment } from '../../client/api.js';

const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '–');
const rate = (n: number | null | undefined) => (n == null ? '–' : `${formatBytes(n)}/s`);

/** The deadline in words (also what the tests read). */
export function deadlineText(r: Reassignment): string {
  const d = r.deadline;
  if (!d) return '';
  const bounds = `bounds ${rate(d.throttleBounds.min)} – ${rate(d.throttleBounds.max)}`;
  if (r.state === 'completed' || r.state === 'cancelled' || r.state === 'failed') {
    if (!r.endedAt) return `finish by ${time(d.finishBy)}`;
    const early = (Date.parse(d.finishBy) - Date.parse(r.endedAt)) / 1000;
    return `finish by ${time(d.finishBy)}: ended ${Math.abs(Math.round(early))} s ${early >= 0 ? 'before' : 'after'} it`;
  }
  if (d.holds) return `finish by ${time(d.finishBy)}: on track, expected end ${time(d.expectedEnd)} at ${rate(d.throttle)} (${bounds})`;
  return `finish by ${time(d.finishBy)}: will NOT make it; even at the highest allowed throttle (${rate(d.throttleBounds.max)}) it ends ${time(d.expectedEndAtMaxThrottle)}`;
}
