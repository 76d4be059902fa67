// Deadline pacing (issue 30): a reassignment started with `finishBy`, on its page: the deadline,
// whether it still holds at the throttle the gateway picked, and if not, when it will end at the
// highest allowed throttle. Rows of the reassignment page's <dl class="kv">; nothing without a deadline.
import { formatBytes, type Reassignment } from '../client/api.js';

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

export function DeadlineRows({ r }: { r: Reassignment }) {
  if (!r.deadline) return null;
  const late = !r.deadline.holds && (r.state === 'running' || r.state === 'paused' || r.state === 'pending');
  return (
    <>
      <dt>Deadline</dt>
      <dd data-testid="deadline">
        <span class={late ? 'stalled' : undefined} role={late ? 'status' : undefined}>
          {deadlineText(r)}
        </span>
        {!late && r.state === 'running' && <span class="note"> · the throttle is re-picked every reconcile pass</span>}
      </dd>
    </>
  );
}
