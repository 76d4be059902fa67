// One topic: its partitions (leader, replicas, ISR), a form to move a partition, its configs.
import { useState } from 'preact/hooks';
import { Loading, RoleHint, usePoll } from '../ui.js';
import { TopicConfigs } from '../components/topic-configs.js';
import { StartForm } from '../components/start-form.js';
import type { PageProps } from './page-props.js';

export function TopicPage({ api, me, name }: PageProps & { name: string }) {
  const poll = usePoll(() => api.topic(name), [api, name], 5000);
  const t = poll.data;
  const [partition, setPartition] = useState('0');
  const [target, setTarget] = useState('');
  return (
    <section aria-labelledby="h-topic">
      <h2 id="h-topic">Topic {name}</h2>
      <p>
        <a href="#/topics">← all topics</a>
      </p>
      <Loading poll={poll} what={`topic ${name}`} />
      {t && (
        <>
          <table>
            <thead>
              <tr>
                <th scope="col" class="num">
                  Partition
                </th>
                <th scope="col" class="num">
                  Leader
                </th>
                <th scope="col">Replicas</th>
                <th scope="col">In sync</th>
              </tr>
            </thead>
            <tbody>
              {t.partitions.map((p) => (
                <tr key={p.partition}>
                  <th scope="row" class="num">
                    {p.partition}
                  </th>
                  <td class="num">{p.leader}</td>
                  <td>{p.replicas.join(', ')}</td>
                  <td>{p.isr.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="panel">
            <h3>Move a partition</h3>
            <div class="row">
              <label class="field">
                Partition
                <select value={partition} onChange={(e) => setPartition((e.target as HTMLSelectElement).value)}>
                  {t.partitions.map((p) => (
                    <option key={p.partition} value={String(p.partition)}>
                      {p.partition} (on {p.replicas.join(', ')})
                    </option>
                  ))}
                </select>
              </label>
              <label class="field">
                Target replicas (broker ids, first = preferred leader)
                <input value={target} onInput={(e) => setTarget((e.target as HTMLInputElement).value)} placeholder="e.g. 1,2" />
              </label>
            </div>
            <RoleHint me={me} need="operator" />
            <StartForm
              api={api}
              partitions={
                target.trim()
                  ? [{ topic: name, partition: Number(partition), replicas: target.split(',').map((s) => Number(s.trim())) }]
                  : []
              }
            />
          </div>
          <TopicConfigs api={api} me={me} name={name} />
        </>
      )}
    </section>
  );
}
