// The cluster page's plan panel: POST /plans for a decommission, rebalance, rack repair or
// leader re-order, the plan's effect per broker, then the start form to run it.
import { useState } from 'preact/hooks';
import { formatBytes, type PlanAnswer } from '../../client/api.js';
import { ProblemBox, RoleHint } from '../ui.js';
import type { PageProps } from '../pages/page-props.js';
import { StartForm } from './start-form.js';

/** Plan a decommission or rebalance with POST /plans (when the gateway has it), review, start. */
export function PlanPanel({ api, me, brokers }: PageProps & { brokers: number[] }) {
  const [goal, setGoal] = useState('decommission');
  const [brokerList, setBrokerList] = useState('');
  const [plan, setPlan] = useState<PlanAnswer | null>(null);
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setPlan(null);
    setBusy(true);
    try {
      const ids = brokerList
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map(Number);
      const answer = await api.plan({ goal, ...(ids.length && { brokers: ids }) });
      if (answer === null) setMissing(true);
      else setPlan(answer);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  const after = new Map((plan?.after ?? []).map((b) => [b.broker, b]));
  return (
    <div class="panel">
      <h3>Plan a decommission or rebalance</h3>
      {missing ? (
        <p class="note" role="status">
          Planning is not available on this gateway (it has no POST /plans). Move partitions from a topic's page, or with{' '}
          <code>kag reassign execute</code>.
        </p>
      ) : (
        <form class="row" onSubmit={(e) => void submit(e)}>
          <label class="field">
            Goal
            <select value={goal} onChange={(e) => setGoal((e.target as HTMLSelectElement).value)}>
              <option value="decommission">decommission</option>
              <option value="rebalance">rebalance</option>
              <option value="rack-repair">rack-repair</option>
              <option value="leaders">leaders (re-order only)</option>
            </select>
          </label>
          <label class="field">
            Brokers ({goal === 'decommission' ? 'to empty' : 'to use, empty = all'}; of {brokers.join(', ')})
            <input value={brokerList} onInput={(e) => setBrokerList((e.target as HTMLInputElement).value)} placeholder="e.g. 3" />
          </label>
          <button type="submit" disabled={busy}>
            Plan
          </button>
        </form>
      )}
      <RoleHint me={me} need="operator" />
      <ProblemBox error={error} title="No plan" />
      {plan && (
        <div role="status" aria-label="Plan">
          <p>
            <strong>{plan.movedReplicas}</strong> replica move(s), <strong>{formatBytes(plan.movedBytes)}</strong> to copy,{' '}
            {plan.partitions.length} partition(s) change
            {plan.lowerBound && <> (any plan must move at least {plan.lowerBound.movedReplicas})</>}.
          </p>
          <table>
            <caption class="note">Per broker, before → after the plan</caption>
            <thead>
              <tr>
                <th scope="col">Broker</th>
                <th scope="col">Replicas</th>
                <th scope="col">Leaders</th>
                <th scope="col">Bytes</th>
              </tr>
            </thead>
            <tbody>
              {plan.before.map((b) => (
                <tr key={b.broker}>
                  <th scope="row">{b.broker}</th>
                  <td>
                    {b.replicas} → {after.get(b.broker)?.replicas ?? '–'}
                  </td>
                  <td>
                    {b.leaders} → {after.get(b.broker)?.leaders ?? '–'}
                  </td>
                  <td>
                    {formatBytes(b.bytes)} → {formatBytes(after.get(b.broker)?.bytes)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {plan.warnings.map((w, i) => (
            <p class="note" key={i}>
              ⚠ {w.message}
            </p>
          ))}
          {plan.reassignment.partitions.length > 0 && (
            <StartForm
              api={api}
              partitions={plan.reassignment.partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas }))}
            />
          )}
        </div>
      )}
    </div>
  );
}
