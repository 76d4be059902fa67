// The replication throttles in the cluster: rates per broker and throttled replicas per topic,
// with their owner and the reassignments they are for.
import { Loading, usePoll } from '../ui.js';
import { href } from '../route.js';
import { Badge, mib } from '../components/widgets.js';
import type { PageProps } from './page-props.js';

/** A throttled-replicas value as set, or (a long one, left out of the lean answer) its entry count. */
const replicaList = (value: string | null | undefined, entries: number | null): string =>
  value !== undefined ? (value ?? '–') : entries === null ? '*' : `${entries.toLocaleString()} entries`;

export function ThrottlesPage({ api }: PageProps) {
  const poll = usePoll(() => api.throttles(), [api], 2000);
  const t = poll.data;
  const links = (ids: string[]) => (ids.length ? ids.map((id, i) => [i > 0 && ', ', <a href={href('reassignments', id)}>{id}</a>]) : '–');
  return (
    <section aria-labelledby="h-throttles">
      <h2 id="h-throttles">Replication throttles</h2>
      <Loading poll={poll} what="throttles" />
      {t && t.rates.length === 0 && t.replicas.length === 0 && <p role="status">No replication throttles are set in the cluster.</p>}
      {t && t.rates.length > 0 && (
        <table>
          <caption class="note">Rates per broker</caption>
          <thead>
            <tr>
              <th scope="col">Broker</th>
              <th scope="col" class="num">
                Leader rate
              </th>
              <th scope="col" class="num">
                Follower rate
              </th>
              <th scope="col">Owner</th>
              <th scope="col">Removed</th>
              <th scope="col">For</th>
            </tr>
          </thead>
          <tbody>
            {t.rates.map((r) => (
              <tr key={r.broker}>
                <th scope="row">{r.broker}</th>
                <td class="num">{mib(r.leaderRate)}</td>
                <td class="num">{mib(r.followerRate)}</td>
                <td>
                  <Badge kind={r.owner}>{r.owner}</Badge>
                </td>
                <td>{r.autoRemove ? 'automatically' : r.expiresAt ? `at ${new Date(r.expiresAt).toLocaleString()}` : 'by hand'}</td>
                <td>{links(r.reassignments)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {t && t.replicas.length > 0 && (
        <table>
          <caption class="note">Throttled replicas per topic</caption>
          <thead>
            <tr>
              <th scope="col">Topic</th>
              <th scope="col">Leader replicas</th>
              <th scope="col">Follower replicas</th>
              <th scope="col">Owner</th>
              <th scope="col">For</th>
            </tr>
          </thead>
          <tbody>
            {t.replicas.map((r) => (
              <tr key={r.topic}>
                <th scope="row">{r.topic}</th>
                <td>{replicaList(r.leader, r.leaderEntries)}</td>
                <td>{replicaList(r.follower, r.followerEntries)}</td>
                <td>
                  <Badge kind={r.owner}>{r.owner}</Badge>
                </td>
                <td>{links(r.reassignments)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
