// Deadline pacing (issue 30): a reassignment started with `finishBy`, on its page: the deadline,
// whether it still holds at the throttle the gateway picked, and if not, when it will end at the
// highest allowed throttle. Rows of the reassignment page's <dl class="kv">; nothing without a deadline.
import type { Reassignment } from '../../client/api.js';
import { deadlineText } from './deadline-text.js';

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
