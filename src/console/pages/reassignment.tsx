// One reassignment: its state, hold, progress, pacing, throttle, deadline and goal (live over its
// event stream); the actions (pause, throttle, concurrency, cancel, roll back); its partitions,
// a filter and a page at a time.
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatBytes, formatDuration, isLive, type PartitionState } from '../../client/api.js';
import { goalLine } from '../../client/origin-text.js';
import { Loading, ProblemBox, RoleHint, usePoll } from '../ui.js';
import { isFinished, tookSeconds, useLiveReassignment } from '../live.js';
import { LeaderElectionRows } from '../components/leaders.js';
import { DeadlineRows } from '../components/deadline.js';
import { HeldRows } from '../components/held.js';
import { href } from '../route.js';
import { Badge, ProgressBar, mib } from '../components/widgets.js';
import { countsText, pacingText, rowPercent } from '../components/reassignment-text.js';
import type { PageProps } from './page-props.js';

const PAGE = 50;
const FILTERS: (PartitionState | 'all')[] = ['moving', 'queued', 'completed', 'failed', 'cancelled', 'all'];

export function ReassignmentPage({ api, me, token, id }: PageProps & { id: string }) {
  const [filter, setFilter] = useState<PartitionState | 'all'>('moving');
  // Pages shown: the first, and one more per "More partitions"; each poll reads them again by
  // following `next`, so rows stay current.
  const [pages, setPages] = useState(1);
  useEffect(() => setPages(1), [filter]);
  // The summary is live (the reassignment's event stream, live.ts); the partition rows are read
  // again on each update of it (`version`), not on a timer.
  const summary = useLiveReassignment(api, token ?? null, id);
  const rowsPoll = usePoll(
    async () => {
      const first = await api.reassignmentPartitions(id, { state: filter, limit: PAGE });
      const rows = [...first.items];
      let next = first.next;
      for (let i = 1; i < pages && next !== null; i++) {
        const page = await api.nextPage(next);
        rows.push(...page.items);
        next = page.next;
      }
      return { id, rows, next };
    },
    [api, id, filter, pages, summary.version],
    3_600_000,
  );
  // A new filter, page count or summary reads the rows afresh; keep showing the last ones meanwhile.
  const last = useRef(rowsPoll.data);
  if (rowsPoll.data) last.current = rowsPoll.data;
  const rows = rowsPoll.data ?? (last.current?.id === id ? last.current : null);
  const shown = summary.data && summary.data.id === id && rows ? { r: summary.data, ...rows } : null;
  const poll = { data: shown, error: summary.error ?? rowsPoll.error, refresh: () => (summary.refresh(), rowsPoll.refresh()) };
  const r = shown?.r ?? null;
  const [actionError, setActionError] = useState<Error | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<'cancel' | 'rollback' | null>(null);
  const [throttleMiB, setThrottleMiB] = useState('');
  const [perBroker, setPerBroker] = useState('');
  const [clusterMoves, setClusterMoves] = useState('');
  const act = async (what: string, fn: () => Promise<unknown>) => {
    setActionError(null);
    setNotice(null);
    try {
      const out = await fn();
      const rb = (out as { rollback?: { id?: string } | null } | undefined)?.rollback;
      const rollbackId = rb && typeof rb === 'object' && 'id' in rb && rb.id ? rb.id : null;
      setNotice(`${what}: done.${rollbackId ? ` Rollback started as ${rollbackId}.` : ''}`);
      if (rollbackId) location.hash = href('reassignments', rollbackId);
      poll.refresh();
    } catch (err) {
      setActionError(err as Error);
    } finally {
      setConfirm(null);
    }
  };
  const live = r !== null && isLive(r.state);
  const bound = (v: string) => (v.trim() === '' ? null : Number(v));
  return (
    <section aria-labelledby="h-reassignment">
      <h2 id="h-reassignment">Reassignment {id}</h2>
      <p>
        <a href="#/reassignments">← all reassignments</a>
      </p>
      {(poll.error || !shown) && <Loading poll={poll} what={`reassignment ${id}`} />}
      {r && shown && (
        <>
          <dl class="kv">
            <dt>State</dt>
            <dd data-testid="state">
              <Badge kind={r.state}>{r.state}</Badge> {r.progress.stalled && <Badge kind="failed">stalled</Badge>}
              {r.paused && r.state === 'paused' && <span class="note"> moves in flight finish, no new one starts</span>}
              {r.reason && <span class="note"> {r.reason}</span>}
            </dd>
            <HeldRows r={r} />
            <LeaderElectionRows r={r} />
            <dt>Progress</dt>
            <dd>
              <ProgressBar
                percent={r.progress.percent}
                label="Total progress"
                detail={`${formatBytes(r.progress.bytesDone)} of ${formatBytes(r.progress.bytesTotal)}`}
              />
            </dd>
            <dt>Bytes</dt>
            <dd>
              {formatBytes(r.progress.bytesDone)} of {formatBytes(r.progress.bytesTotal)} ({formatBytes(r.progress.bytesRemaining)}{' '}
              remaining)
            </dd>
            <dt>{isFinished(r.state) ? 'Took' : 'Rate / ETA'}</dt>
            <dd data-testid="rate-eta">
              {isFinished(r.state)
                ? formatDuration(tookSeconds(r))
                : `${mib(r.progress.bytesPerSecond)} · ETA ${formatDuration(r.progress.etaSeconds)}`}
            </dd>
            <dt>Partitions</dt>
            <dd data-testid="counts">
              {r.counts.total}: {countsText(r.counts)}
            </dd>
            <dt>Concurrency</dt>
            <dd data-testid="pacing">{pacingText(r)}</dd>
            <dt>Throttle</dt>
            <dd data-testid="throttle-state">
              {r.throttle === null ? 'none' : mib(r.throttle)}
              {r.throttle !== null &&
                (r.throttlesRemovedAt
                  ? ` · removed at ${new Date(r.throttlesRemovedAt).toLocaleTimeString()}`
                  : live
                    ? ' · set while it runs'
                    : r.autoRemoveThrottle
                      ? ' · being removed…'
                      : ' · kept (autoRemoveThrottle false)')}
            </dd>
            <DeadlineRows r={r} />
            <dt>Goal</dt>
            <dd data-testid="goal">{goalLine(r)}</dd>
            <dt>Requested by</dt>
            <dd>
              {r.requestedBy ?? 'anonymous'} · created {new Date(r.createdAt).toLocaleString()}
            </dd>
          </dl>

          {live && (
            <div class="panel">
              <h3>Actions</h3>
              <RoleHint me={me} need="operator" />
              <div class="row">
                <button
                  type="button"
                  class="secondary"
                  onClick={() =>
                    void act(r.paused ? 'Resumed' : 'Paused', () => (r.paused ? api.resumeReassignment(id) : api.pauseReassignment(id)))
                  }
                >
                  {r.paused ? 'Resume' : 'Pause'}
                </button>
                <label class="field">
                  New throttle (MiB/s)
                  <input
                    type="number"
                    min="0.001"
                    step="any"
                    value={throttleMiB}
                    onInput={(e) => setThrottleMiB((e.target as HTMLInputElement).value)}
                  />
                </label>
                <button
                  type="button"
                  class="secondary"
                  disabled={!throttleMiB}
                  onClick={() =>
                    void act('Throttle changed', () =>
                      api.patchReassignment(id, { throttle: Math.round(Number(throttleMiB) * 1024 * 1024) }),
                    )
                  }
                >
                  Change throttle
                </button>
                <button
                  type="button"
                  class="secondary"
                  onClick={() => void act('Throttle removed', () => api.patchReassignment(id, { throttle: null }))}
                >
                  Remove throttle
                </button>
              </div>
              <div class="row">
                <label class="field">
                  Moves per broker (empty = no bound)
                  <input
                    type="number"
                    min="1"
                    step="1"
                    value={perBroker}
                    placeholder={r.concurrency?.perBroker != null ? String(r.concurrency.perBroker) : ''}
                    onInput={(e) => setPerBroker((e.target as HTMLInputElement).value)}
                  />
                </label>
                <label class="field">
                  Moves in the cluster (empty = no bound)
                  <input
                    type="number"
                    min="1"
                    step="1"
                    value={clusterMoves}
                    placeholder={r.concurrency?.cluster != null ? String(r.concurrency.cluster) : ''}
                    onInput={(e) => setClusterMoves((e.target as HTMLInputElement).value)}
                  />
                </label>
                <button
                  type="button"
                  class="secondary"
                  onClick={() =>
                    void act('Concurrency changed', () =>
                      api.patchReassignment(id, { concurrency: { perBroker: bound(perBroker), cluster: bound(clusterMoves) } }),
                    )
                  }
                >
                  Change concurrency
                </button>
              </div>
              <div class="row">
                {confirm === null ? (
                  <>
                    <button type="button" class="danger" onClick={() => setConfirm('cancel')}>
                      Cancel reassignment
                    </button>
                    <button type="button" class="danger" onClick={() => setConfirm('rollback')}>
                      Roll back
                    </button>
                  </>
                ) : (
                  <>
                    <button
                      type="button"
                      class="danger"
                      onClick={() =>
                        void act(confirm === 'cancel' ? 'Cancelled' : 'Rolled back', () =>
                          api.cancelReassignment(id, { rollback: confirm === 'rollback' }),
                        )
                      }
                    >
                      Confirm {confirm === 'cancel' ? 'cancel' : 'roll back'}
                    </button>
                    <button type="button" class="secondary" onClick={() => setConfirm(null)}>
                      Keep it running
                    </button>
                  </>
                )}
              </div>
            </div>
          )}
          {!live && (r.state === 'completed' || r.state === 'cancelled') && !r.rollbackOf && (
            <p>
              <button
                type="button"
                class="secondary"
                onClick={() => void act('Rollback started', () => api.cancelReassignment(id, { rollback: true }))}
              >
                Move back to the original replicas
              </button>
            </p>
          )}
          {notice && (
            <p class="alert info" role="status">
              {notice}
            </p>
          )}
          <ProblemBox error={actionError} title="Refused" />

          <h3>Partitions</h3>
          <div class="row">
            <label class="field">
              Show
              <select value={filter} onChange={(e) => setFilter((e.target as HTMLSelectElement).value as PartitionState | 'all')}>
                {FILTERS.map((f) => (
                  <option key={f} value={f}>
                    {f === 'all' ? 'all' : `${f} (${r.counts[f]})`}
                  </option>
                ))}
              </select>
            </label>
          </div>
          {shown.rows.length === 0 ? (
            <p class="note">No {filter === 'all' ? '' : `${filter} `}partitions.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Partition</th>
                  <th scope="col">State</th>
                  <th scope="col">Progress</th>
                  <th scope="col">Replicas: before → after</th>
                  <th scope="col">Bytes</th>
                </tr>
              </thead>
              <tbody>
                {shown.rows.map((p) => (
                  <tr key={`${p.topic}-${p.partition}`}>
                    <th scope="row">
                      {p.topic}-{p.partition}
                    </th>
                    <td>
                      <Badge kind={p.state}>{p.state}</Badge>
                      {p.error && <span class="note"> {p.error.name}</span>}
                    </td>
                    <td>
                      {p.state === 'moving' || p.state === 'completed' ? (
                        <ProgressBar percent={rowPercent(p)} label={`Progress of ${p.topic}-${p.partition}`} />
                      ) : (
                        '–'
                      )}
                    </td>
                    <td>
                      {p.originalReplicas.join(', ')} → {p.targetReplicas.join(', ')}
                    </td>
                    <td class="note">
                      {formatBytes(p.bytesDone)} / {formatBytes(p.bytesTotal)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {shown.next !== null && (
            <p>
              <button type="button" class="secondary" onClick={() => setPages((n) => n + 1)}>
                More partitions
              </button>{' '}
              <span class="note">showing {shown.rows.length}</span>
            </p>
          )}
          {r.rollback && (
            <details>
              <summary>Rollback file (kafka-reassign-partitions.sh format)</summary>
              <pre>{JSON.stringify(r.rollback, null, 2)}</pre>
            </details>
          )}
        </>
      )}
    </section>
  );
}
