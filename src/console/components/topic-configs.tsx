// A topic's configs on its page: every config with its value and where it comes from (an
// override set on the topic, or a default from the broker/cluster), and a form that sets or
// removes overrides through PATCH /topics/{topic}/configs. Shown to every role; the gateway
// refuses a viewer's change (403), and the page says so beforehand (RoleHint).
import { useState } from 'preact/hooks';
import { type ConfigChange, type GatewayClient, type ResourceConfig, type WhoAmI } from '../../client/api.js';
import { Loading, ProblemBox, RoleHint, usePoll } from '../ui.js';

/** The level PATCH writes: what "override" means for a topic. */
const OVERRIDE = 'DYNAMIC_TOPIC_CONFIG';

/** Configs change rarely and only through someone's action: a slow poll is enough. */
const POLL_MS = 10_000;

const sourceText = (c: ResourceConfig) =>
  c.source === OVERRIDE ? 'override' : c.source === 'DEFAULT_CONFIG' ? 'default' : c.source.toLowerCase().replace(/_/g, ' ');

/** What an override hides: the next level's value, as Kafka lists it (its synonyms). */
function hidden(c: ResourceConfig): string {
  const below = c.synonyms.find((s) => s.source !== OVERRIDE);
  return below ? `${below.name} = ${below.value ?? '(none)'}` : '';
}

export function TopicConfigs({ api, me, name }: { api: GatewayClient; me: WhoAmI | null; name: string }) {
  const [overridesOnly, setOverridesOnly] = useState(false);
  const poll = usePoll(() => api.topicConfigs(name), [api, name], POLL_MS);
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);

  const change = async (c: ConfigChange, what: string) => {
    setError(null);
    setDone('');
    setBusy(true);
    try {
      await api.alterTopicConfigs(name, c);
      setDone(what);
      poll.refresh();
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };
  const shown = (poll.data ?? []).filter((c) => !overridesOnly || c.source === OVERRIDE);

  return (
    <div class="panel">
      <h3 id="h-configs">Configs</h3>
      <RoleHint me={me} need="operator" />
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) void change({ set: { [key.trim()]: value } }, `Set ${key.trim()} = ${value}`);
        }}
      >
        <label class="field">
          Config name
          <input
            value={key}
            list="config-names"
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
            placeholder="e.g. retention.ms"
          />
        </label>
        <datalist id="config-names">
          {(poll.data ?? [])
            .filter((c) => !c.isReadOnly)
            .map((c) => (
              <option key={c.name} value={c.name} />
            ))}
        </datalist>
        <label class="field">
          Value
          <input value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={busy || !key.trim()}>
          Set config
        </button>
      </form>
      <ProblemBox error={error} title="Not changed" />
      {done && (
        <p role="status" aria-label="Config change">
          {done}
        </p>
      )}
      <label>
        <input type="checkbox" checked={overridesOnly} onChange={(e) => setOverridesOnly((e.target as HTMLInputElement).checked)} />{' '}
        Overrides only
      </label>
      <Loading poll={poll} what={`configs of ${name}`} />
      {poll.data && (
        <table aria-labelledby="h-configs">
          <thead>
            <tr>
              <th scope="col">Config</th>
              <th scope="col">Value</th>
              <th scope="col">Source</th>
              <th scope="col">Hides</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((c) => (
              <tr key={c.name} class={c.source === OVERRIDE ? 'override' : undefined}>
                <th scope="row">{c.name}</th>
                <td>{c.isSensitive ? '(hidden)' : (c.value ?? '')}</td>
                <td>{sourceText(c)}</td>
                <td>{c.source === OVERRIDE ? hidden(c) : ''}</td>
                <td>
                  {c.source === OVERRIDE && (
                    <button
                      type="button"
                      disabled={busy}
                      aria-label={`Remove override ${c.name}`}
                      onClick={() => void change({ delete: [c.name] }, `Removed override ${c.name}`)}
                    >
                      Remove
                    </button>
                  )}
                  {!c.isReadOnly && (
                    <button
                      type="button"
                      aria-label={`Edit ${c.name}`}
                      onClick={() => {
                        setKey(c.name);
                        setValue(c.value ?? '');
                      }}
                    >
                      Edit
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
