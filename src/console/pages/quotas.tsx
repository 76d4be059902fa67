// The client quotas set in the cluster.
import { Loading, usePoll } from '../ui.js';
import { mib } from '../components/widgets.js';
import type { PageProps } from './page-props.js';

export function QuotasPage({ api }: PageProps) {
  const poll = usePoll(() => api.quotas(), [api], 5000);
  const q = poll.data;
  return (
    <section aria-labelledby="h-quotas">
      <h2 id="h-quotas">Client quotas</h2>
      <Loading poll={poll} what="quotas" />
      {q && q.quotas.length === 0 && <p>No client quotas are set.</p>}
      {q && q.quotas.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Entity</th>
              <th scope="col" class="num">
                Controller mutations/s
              </th>
              <th scope="col" class="num">
                Produce
              </th>
              <th scope="col" class="num">
                Consume
              </th>
              <th scope="col" class="num">
                Request %
              </th>
            </tr>
          </thead>
          <tbody>
            {q.quotas.map((e) => (
              <tr key={JSON.stringify(e.entity)}>
                <th scope="row">
                  {Object.entries(e.entity)
                    .map(([k, v]) => `${k}=${v ?? '<default>'}`)
                    .join(', ')}
                </th>
                <td class="num">{e.controllerMutationRate ?? '–'}</td>
                <td class="num">{e.producerByteRate ? mib(e.producerByteRate) : '–'}</td>
                <td class="num">{e.consumerByteRate ? mib(e.consumerByteRate) : '–'}</td>
                <td class="num">{e.requestPercentage ?? '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
