// The topics list, each linking to its page.
import { Loading, usePoll } from '../ui.js';
import { href } from '../route.js';
import type { PageProps } from './page-props.js';

export function TopicsPage({ api }: PageProps) {
  const poll = usePoll(() => api.topics(), [api], 5000);
  return (
    <section aria-labelledby="h-topics">
      <h2 id="h-topics">Topics</h2>
      <Loading poll={poll} what="topics" />
      {poll.data && (
        <table>
          <thead>
            <tr>
              <th scope="col">Topic</th>
              <th scope="col" class="num">
                Partitions
              </th>
              <th scope="col" class="num">
                Replication factor
              </th>
              <th scope="col">Internal</th>
            </tr>
          </thead>
          <tbody>
            {poll.data.topics.map((t) => (
              <tr key={t.name}>
                <th scope="row">
                  <a href={href('topics', t.name)}>{t.name}</a>
                </th>
                <td class="num">{t.partitions}</td>
                <td class="num">{t.replicationFactor}</td>
                <td>{t.internal ? 'yes' : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
