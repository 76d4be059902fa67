// The reassignments list, live over the all-reassignments event stream, and the partitions
// moving under reassignments started elsewhere.
import { formatDuration } from '../../client/api.js';
import { goalText } from '../../client/origin-text.js';
import { Loading } from '../ui.js';
import { isFinished, tookSeconds, useLiveReassignmentList } from '../live.js';
import { href } from '../route.js';
import { Badge, ProgressBar, mib } from '../components/widgets.js';
import { countsText } from '../components/reassignment-text.js';
import type { PageProps } from './page-props.js';

export function ReassignmentsPage({ api, token }: PageProps) {
  // Live over the all-reassignments event stream (live.ts); each summary has counts and progress.
  const poll = useLiveReassignmentList(api, token ?? null);
  const d = poll.data;
  return (
    <section aria-labelledby="h-reassignments">
      <h2 id="h-reassignments">Reassignments</h2>
      <p class="note">
        Finished ones with who asked and what moved: <a href="#/history">history</a>.
        {poll.mode === 'polling' && ' (Polling: the event stream is not available.)'}
      </p>
      <Loading poll={poll} what="reassignments" />
      {d && d.rows.length === 0 && <p>No reassignments. Start one from a topic's page.</p>}
      {d && d.rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">State</th>
              <th scope="col">Goal</th>
              <th scope="col">Progress</th>
              <th scope="col">Partitions</th>
              <th scope="col">Rate / ETA</th>
              <th scope="col">Throttle</th>
            </tr>
          </thead>
          <tbody>
            {d.rows.map((r) => {
              const x = r;
              return (
                <tr key={r.id}>
                  <th scope="row">
                    <a href={href('reassignments', r.id)}>{r.id}</a>
                  </th>
                  <td>
                    <Badge kind={x?.state ?? r.state}>{x?.state ?? r.state}</Badge>{' '}
                    {x?.progress.stalled && <Badge kind="failed">stalled</Badge>}
                  </td>
                  <td>{goalText(r)}</td>
                  <td>{x ? <ProgressBar percent={x.progress.percent} label={`Progress of ${r.id}`} /> : '–'}</td>
                  <td>{`${x.counts.total}: ${countsText(x.counts)}`}</td>
                  <td>
                    {isFinished(x.state)
                      ? `took ${formatDuration(tookSeconds(x))}`
                      : `${mib(x.progress.bytesPerSecond)} · ETA ${formatDuration(x.progress.etaSeconds)}`}
                  </td>
                  <td>{r.throttle === null ? 'none' : mib(r.throttle)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {d && d.list.external.length > 0 && (
        <>
          <h3>Moving under reassignments started elsewhere</h3>
          <ul>
            {d.list.external.map((m) => (
              <li key={`${m.topic}-${m.partition}`}>
                {m.topic}-{m.partition}: adding {m.adding.join(', ') || '–'}, removing {m.removing.join(', ') || '–'}
              </li>
            ))}
          </ul>
          {d.list.externalCount > d.list.external.length && <p>… and {d.list.externalCount - d.list.external.length} more.</p>}
        </>
      )}
    </section>
  );
}
