// Preferred leaders in the console (issue 30 part 3): a panel on the cluster page that runs a
// preferred leader election (POST /leaders/elections) for every partition or some topics and
// shows what Kafka answered (a summary and the partitions an election was tried for), and the
// election rows of a reassignment started with electLeaders (its page's <dl class="kv">).
// Unclean elections are left to the API and the CLI, which ask for an explicit confirmation.
import { useState } from 'preact/hooks';
import type { GatewayClient, Reassignment, Schemas, WhoAmI } from '../../client/api.js';
import { ProblemBox, RoleHint } from '../ui.js';

type ElectionAnswer = Schemas['LeaderElectionResponse'];

/** Rows shown at most (the summary counts all). */
const SHOWN = 200;

const OUTCOME_TEXT: Record<Schemas['LeaderElectionResult']['outcome'], string> = {
  elected: 'elected',
  'not-needed': 'already leading',
  'not-available': 'preferred replica not available',
  unknown: 'unknown partition',
  failed: 'failed',
};

/** POST /leaders/elections, preferred, for every partition or the given topics. */
export function electPreferredLeaders(api: GatewayClient, topics: string[]): Promise<ElectionAnswer> {
  return api.request<ElectionAnswer>('POST', '/leaders/elections', {
    body: topics.length > 0 ? { type: 'preferred', topics } : { type: 'preferred', all: true },
  });
}

export function LeaderElectionPanel({ api, me }: { api: GatewayClient; me: WhoAmI | null }) {
  const [topicList, setTopicList] = useState('');
  const [answer, setAnswer] = useState<ElectionAnswer | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setAnswer(null);
    setBusy(true);
    try {
      const topics = topicList
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      setAnswer(await electPreferredLeaders(api, topics));
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };
  const s = answer?.summary;
  return (
    <div class="panel">
      <h3 id="h-leaders">Preferred leaders</h3>
      <p class="note">
        Moves leadership back to each partition's first replica where it is alive and in the ISR (kafka-leader-election.sh --election-type
        preferred).
      </p>
      <form class="row" onSubmit={(e) => void submit(e)}>
        <label class="field">
          Topics (comma-separated; empty = every partition)
          <input value={topicList} onInput={(e) => setTopicList((e.target as HTMLInputElement).value)} placeholder="e.g. orders" />
        </label>
        <button type="submit" disabled={busy}>
          Elect preferred leaders
        </button>
      </form>
      <RoleHint me={me} need="operator" />
      <ProblemBox error={error} title="No election" />
      {answer && s && (
        <div role="status" aria-label="Election results">
          <p data-testid="election-summary">
            {s.partitions} partition(s) in scope: <strong>{s.elected}</strong> elected, {s.notNeeded} already led by their preferred
            replica, {s.notAvailable} not available, {s.unknown} unknown, {s.failed} failed.
          </p>
          {answer.results.length > 0 && (
            <table>
              <caption class="note">
                Partitions an election was tried for{answer.results.length > SHOWN ? ` (first ${SHOWN} of ${answer.results.length})` : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Partition</th>
                  <th scope="col">Result</th>
                  <th scope="col">Kafka</th>
                </tr>
              </thead>
              <tbody>
                {answer.results.slice(0, SHOWN).map((r) => (
                  <tr key={`${r.topic}-${r.partition}`}>
                    <th scope="row">
                      {r.topic}-{r.partition}
                    </th>
                    <td>{OUTCOME_TEXT[r.outcome]}</td>
                    <td>{r.kafkaError ? `${r.kafkaError.name} (${r.kafkaError.code})` : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </div>
  );
}

/** A reassignment's preferred leader elections (electLeaders), as rows of its page; nothing without. */
export function LeaderElectionRows({ r }: { r: Reassignment }) {
  if (!r.electLeaders) return null;
  const t = r.leaderElections;
  return (
    <>
      <dt>Leaders</dt>
      <dd data-testid="leader-elections">
        {t ? (
          <>
            {t.elected} of {t.completed} completed partition(s) led by their first replica; {t.pending} pending, {t.failed} failed
            {t.lastError && (
              <span class="note">
                {' '}
                · last refusal: {t.lastError.topic}-{t.lastError.partition} {t.lastError.name}
              </span>
            )}
          </>
        ) : (
          <span class="note">preferred leaders are elected as partitions complete</span>
        )}
      </dd>
    </>
  );
}
