// Start a reassignment (from a topic's page or a plan): throttle, pacing and order; a review
// first (validateOnly), then the start, which opens the new reassignment's page.
import { useEffect, useState } from 'preact/hooks';
import {
  formatBytes,
  formatDuration,
  type GatewayClient,
  type ReassignmentOrder,
  type ReassignmentPlan,
  type ReassignmentRequest,
} from '../../client/api.js';
import { ProblemBox } from '../ui.js';
import { href } from '../route.js';
import { mib } from './widgets.js';

/** Review (validateOnly) then start a reassignment with a throttle and pacing. */
export function StartForm({
  api,
  partitions,
}: {
  api: GatewayClient;
  partitions: { topic: string; partition: number; replicas: number[] }[];
}) {
  const [throttleMiB, setThrottleMiB] = useState('1');
  const [perBroker, setPerBroker] = useState('');
  const [clusterMoves, setClusterMoves] = useState('');
  const [order, setOrder] = useState<ReassignmentOrder>('size-asc');
  const [review, setReview] = useState<ReassignmentPlan | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const key = JSON.stringify(partitions);
  useEffect(() => setReview(null), [key, throttleMiB, perBroker, clusterMoves, order]);
  const body = (validateOnly: boolean): ReassignmentRequest => {
    const mibs = Number(throttleMiB);
    const paced = perBroker.trim() !== '' || clusterMoves.trim() !== '';
    return {
      partitions,
      ...(throttleMiB.trim() !== '' && Number.isFinite(mibs) && { throttle: Math.round(mibs * 1024 * 1024) }),
      // Empty fields leave concurrency to the gateway's default (REASSIGNMENT_DEFAULT_PER_BROKER).
      ...(paced && {
        concurrency: {
          perBroker: perBroker.trim() === '' ? null : Number(perBroker),
          cluster: clusterMoves.trim() === '' ? null : Number(clusterMoves),
        },
      }),
      ...((paced || order !== 'size-asc') && { order }),
      ...(validateOnly && { validateOnly: true }),
    };
  };
  const send = async (validateOnly: boolean) => {
    setError(null);
    setBusy(true);
    try {
      // The review lists the partitions when there are few; a plan of thousands shows totals only.
      const answer = await api.startReassignment(body(validateOnly), { detail: validateOnly && partitions.length <= 200 });
      if ('id' in answer) location.hash = href('reassignments', answer.id);
      else setReview(answer);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  const pacing = review?.pacing;
  return (
    <div>
      <div class="row">
        <label class="field">
          Throttle (MiB/s)
          <input
            type="number"
            min="0.001"
            step="any"
            value={throttleMiB}
            onInput={(e) => setThrottleMiB((e.target as HTMLInputElement).value)}
          />
        </label>
        <label class="field">
          Moves per broker (empty = gateway default)
          <input type="number" min="1" step="1" value={perBroker} onInput={(e) => setPerBroker((e.target as HTMLInputElement).value)} />
        </label>
        <label class="field">
          Moves in the cluster (empty = no bound)
          <input
            type="number"
            min="1"
            step="1"
            value={clusterMoves}
            onInput={(e) => setClusterMoves((e.target as HTMLInputElement).value)}
          />
        </label>
        <label class="field">
          Order
          <select value={order} onChange={(e) => setOrder((e.target as HTMLSelectElement).value as ReassignmentOrder)}>
            <option value="size-asc">smallest first</option>
            <option value="size-desc">largest first</option>
            <option value="as-given">as given</option>
          </select>
        </label>
        <button type="button" class="secondary" disabled={busy || partitions.length === 0} onClick={() => void send(true)}>
          Review
        </button>
        <button type="button" disabled={busy || !review} onClick={() => void send(false)}>
          Start move
        </button>
      </div>
      {!review && partitions.length > 0 && <p class="note">Review the plan first: nothing changes until you start it.</p>}
      <ProblemBox error={error} title="Not started" />
      {review && (
        <div role="status" aria-label="Review">
          <p>
            <strong>{formatBytes(review.estimate.totalBytes)}</strong> to copy for {review.totals.partitions} partition(s)
            {review.estimate.estimatedSeconds !== null && <>, about {formatDuration(review.estimate.estimatedSeconds)}</>}
            {review.throttle !== null && <> at {mib(review.throttle)}</>}.
            {pacing && (
              <>
                {' '}
                Paced: {pacing.waveCount} wave(s), at most {pacing.peakInFlight} move(s) in flight
                {pacing.estimatedSeconds !== null && <>, about {formatDuration(pacing.estimatedSeconds)} in all</>}.
              </>
            )}
          </p>
          {review.partitions && (
            <table>
              <caption class="note">Before → after, and the bytes each broker sends and receives</caption>
              <thead>
                <tr>
                  <th scope="col">Partition</th>
                  <th scope="col">Before</th>
                  <th scope="col">After</th>
                </tr>
              </thead>
              <tbody>
                {review.partitions.map((p) => (
                  <tr key={`${p.topic}-${p.partition}`}>
                    <th scope="row">
                      {p.topic}-{p.partition}
                    </th>
                    <td>{p.currentReplicas.join(', ')}</td>
                    <td>
                      {p.targetReplicas.join(', ')}
                      {p.noOp && ' (no change)'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <table>
            <thead>
              <tr>
                <th scope="col">Broker</th>
                <th scope="col" class="num">
                  Receives
                </th>
                <th scope="col" class="num">
                  Sends
                </th>
              </tr>
            </thead>
            <tbody>
              {review.estimate.brokers.map((b) => (
                <tr key={b.broker}>
                  <th scope="row">{b.broker}</th>
                  <td class="num">{formatBytes(b.bytesIn)}</td>
                  <td class="num">{formatBytes(b.bytesOut)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {review.warnings.map((w) => (
            <p class="note" key={w.code + w.topic + w.partition}>
              ⚠ {w.message}
            </p>
          ))}
        </div>
      )}
    </div>
  );
}
