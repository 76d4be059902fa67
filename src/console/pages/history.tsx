// The reassignment history: every finished reassignment the gateway still keeps (completed,
// cancelled, failed; REASSIGNMENT_RETENTION_SECONDS): when (created, finished), who asked,
// the goal (a plan's, a rollback of which, or manual), what the plan was (pacing, throttle), what moved (partitions, bytes),
// how long it took and how it ended. From GET /reassignments (each summary carries the
// requester, counts and bytes), kept current by the all-reassignments event stream; shown a
// page at a time, so a long history costs one table page of DOM.
import { useState } from 'preact/hooks';
import { formatBytes, formatDuration, type GatewayClient } from '../../client/api.js';
import { goalText } from '../../client/origin-text.js';
import { isFinished, tookSeconds, useLiveReassignmentList, type ReassignmentRow } from '../live.js';
import { Loading } from '../ui.js';

export const HISTORY_PAGE = 25;
const STATES = ['all', 'completed', 'cancelled', 'failed'] as const;
type StateFilter = (typeof STATES)[number];

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '–');

/** The plan in words: how it was paced and throttled (the goal has its own column). */
function planText(r: ReassignmentRow): string {
  const c = r.concurrency;
  const bounds = [c?.perBroker != null && `${c.perBroker}/broker`, c?.cluster != null && `${c.cluster} in the cluster`].filter(Boolean);
  const pacing = bounds.length ? `paced (${bounds.join(', ')}; ${r.order})` : 'all at once';
  const throttle = r.throttle === null ? 'no throttle' : `throttle ${formatBytes(r.throttle)}/s`;
  return `${pacing}; ${throttle}`;
}

/** What moved: partitions completed of those asked, and bytes copied. */
function movedText(r: ReassignmentRow): string {
  const c = r.counts;
  const notMoved = [c.failed && `${c.failed} failed`, c.cancelled && `${c.cancelled} cancelled`].filter(Boolean).join(', ');
  return `${c.completed} of ${c.total} partition(s)${notMoved ? ` (${notMoved})` : ''}, ${formatBytes(r.progress.bytesDone)}`;
}

const endedAt = (r: ReassignmentRow) => r.endedAt ?? r.createdAt;

export function HistoryPage({ api, token, href }: { api: GatewayClient; token: string | null; href: (...parts: string[]) => string }) {
  const live = useLiveReassignmentList(api, token);
  const [filter, setFilter] = useState<StateFilter>('all');
  const [page, setPage] = useState(0);
  const finished = (live.data?.rows ?? [])
    .filter((r) => isFinished(r.state) && (filter === 'all' || r.state === filter))
    .sort((a, b) => endedAt(b).localeCompare(endedAt(a)));
  const pages = Math.max(1, Math.ceil(finished.length / HISTORY_PAGE));
  const at = Math.min(page, pages - 1);
  const shown = finished.slice(at * HISTORY_PAGE, (at + 1) * HISTORY_PAGE);
  return (
    <section aria-labelledby="h-history">
      <h2 id="h-history">Reassignment history</h2>
      <p class="note">
        Finished reassignments stay readable for REASSIGNMENT_RETENTION_SECONDS (a day unless configured); the audit trail keeps who did
        what for longer.
      </p>
      <Loading poll={live} what="the reassignment history" />
      {live.data && (
        <>
          <div class="row">
            <label class="field">
              Final state
              <select
                value={filter}
                onChange={(e) => {
                  setFilter((e.target as HTMLSelectElement).value as StateFilter);
                  setPage(0);
                }}
              >
                {STATES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </label>
            <span class="note" data-testid="history-count">
              {finished.length} finished reassignment(s){pages > 1 ? `, page ${at + 1} of ${pages}` : ''}
            </span>
          </div>
          {finished.length === 0 ? (
            <p>No finished reassignments {filter === 'all' ? '' : `(${filter}) `}are kept.</p>
          ) : (
            <table data-testid="history">
              <thead>
                <tr>
                  <th scope="col">Id</th>
                  <th scope="col">Final state</th>
                  <th scope="col">Created</th>
                  <th scope="col">Finished</th>
                  <th scope="col">Took</th>
                  <th scope="col">Requested by</th>
                  <th scope="col">Goal</th>
                  <th scope="col">Plan</th>
                  <th scope="col">Moved</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      <a href={href('reassignments', r.id)}>{r.id}</a>
                    </th>
                    <td>
                      <span class={`badge state-${r.state}`}>{r.state}</span>
                      {r.reason && <div class="note">{r.reason}</div>}
                    </td>
                    <td>{when(r.createdAt)}</td>
                    <td>{when(r.endedAt)}</td>
                    <td>{formatDuration(tookSeconds(r))}</td>
                    <td>{r.requestedBy ?? 'anonymous'}</td>
                    <td data-testid="history-goal">
                      {goalText(r)}
                      {r.origin?.description && <div class="note">{r.origin.description}</div>}
                    </td>
                    <td>{planText(r)}</td>
                    <td>{movedText(r)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {pages > 1 && (
            <div class="row">
              <button type="button" class="secondary" disabled={at === 0} onClick={() => setPage(at - 1)}>
                Newer
              </button>
              <button type="button" class="secondary" disabled={at >= pages - 1} onClick={() => setPage(at + 1)}>
                Older
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
