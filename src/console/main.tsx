// The gateway's web console: Preact, bundled by esbuild (src/http/console.ts), served by the
// gateway at `/`. It uses the same HTTP API as everybody else through the shared typed
// client (src/client/api.ts), with the same bearer token, kept in sessionStorage only.
//
// The reassignment pages are live over the gateway's event streams (Server-Sent Events, read
// with fetch because EventSource cannot send the bearer token; live.ts), and fall back to
// polling when a stream cannot be had. The other pages poll while the tab is visible, every
// 2-5 s.
import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ComponentChildren, JSX } from 'preact';
import {
  ApiError,
  createClient,
  formatBytes,
  formatDuration,
  isLive,
  type BrokerLoad,
  type GatewayClient,
  type PartitionCounts,
  type PartitionState,
  type PlanAnswer,
  type Reassignment,
  type ReassignmentOrder,
  type ReassignmentPartitionItem,
  type ReassignmentPlan,
  type ReassignmentRequest,
  type WhoAmI,
} from '../client/api.js';

import { Loading, ProblemBox, RoleHint, usePoll } from './ui.js';
import { TopicConfigs } from './topic-configs.js';
import { HistoryPage } from './history.js';
import { goalLine, goalText } from '../client/origin-text.js';
import { isFinished, tookSeconds, useLiveReassignment, useLiveReassignmentList } from './live.js';
import { LeaderElectionPanel, LeaderElectionRows } from './leaders.js';
import { DeadlineRows } from './deadline.js';
import { BrokerHealthCell, HeldRows, brokerHealth, type BrokerHealth } from './held.js';

const TOKEN_KEY = 'kafka-admin-gateway.token';

// ---------------------------------------------------------------- routing (location.hash)

type Route = { page: 'cluster' } | { page: 'topics' } | { page: 'topic'; name: string } | { page: 'reassignments' } | { page: 'reassignment'; id: string } | { page: 'throttles' } | { page: 'quotas' } | { page: 'history' };

function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  switch (parts[0]) {
    case 'topics':
      return parts[1] ? { page: 'topic', name: parts[1] } : { page: 'topics' };
    case 'reassignments':
      return parts[1] ? { page: 'reassignment', id: parts[1] } : { page: 'reassignments' };
    case 'throttles':
      return { page: 'throttles' };
    case 'quotas':
      return { page: 'quotas' };
    case 'history':
      return { page: 'history' };
    default:
      return { page: 'cluster' };
  }
}
const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

// ---------------------------------------------------------------- small components

function ProgressBar({ percent, label, detail }: { percent: number; label: string; detail?: string }) {
  const p = Math.max(0, Math.min(100, Number.isFinite(percent) ? percent : 0));
  return (
    <div class={`progress${p >= 100 ? ' done' : ''}`}>
      <div class="track" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(p * 10) / 10} aria-valuetext={`${p.toFixed(1)} %${detail ? `, ${detail}` : ''}`}>
        <div class="fill" style={{ width: `${p}%` }} />
      </div>
      <span class="pct">{p.toFixed(1)} %</span>
    </div>
  );
}

const Badge = ({ kind, children }: { kind: string; children: ComponentChildren }) => <span class={`badge state-${kind} owner-${kind}`}>{children}</span>;

const mib = (bytesPerSecond: number | null | undefined) => (bytesPerSecond == null ? '–' : `${formatBytes(bytesPerSecond)}/s`);

// ---------------------------------------------------------------- pages

interface PageProps {
  api: GatewayClient;
  me: WhoAmI | null;
  /** The bearer token, for the event streams (read with fetch, beside the client). */
  token?: string | null;
}

interface BrokerRow {
  id: number;
  rack: string | null;
  host: string;
  replicas: number | null;
  leaders: number | null;
  bytes: number | null;
  leaderRate: number | null;
  followerRate: number | null;
  /** Partitions a running reassignment copies to / drops from it (GET /brokers). */
  moving: { adding: number; removing: number } | null;
  /** Under-replicated partitions it leads, its replicas out of ISR (GET /brokers with ISRs; held.tsx). */
  health: BrokerHealth | null;
}

function ClusterPage({ api, me }: PageProps) {
  const poll = usePoll(
    async () => {
      const [cluster, throttles, fromGateway] = await Promise.all([api.cluster(), api.throttles().catch(() => null), api.brokers()]);
      const rates = new Map((throttles?.rates ?? []).map((r) => [r.broker, r]));
      let rows: BrokerRow[];
      let computed: string | null = null;
      if (fromGateway) {
        rows = fromGateway.map((b: BrokerLoad) => ({
          id: b.id,
          rack: b.rack ?? null,
          host: b.host ? `${b.host}:${b.port ?? ''}` : b.live === false ? 'not alive' : '',
          replicas: b.replicas ?? null,
          leaders: b.leaders ?? null,
          bytes: b.bytes ?? null,
          leaderRate: rates.get(b.id)?.leaderRate ?? null,
          followerRate: rates.get(b.id)?.followerRate ?? null,
          moving: b.reassignment ?? null,
          health: brokerHealth(b),
        }));
      } else {
        // This gateway has no GET /brokers: count from the topics (one request each, first 200).
        const topics = (await api.topics()).topics.slice(0, 200);
        const load = new Map(cluster.brokers.map((b) => [b.id, { replicas: 0, leaders: 0 }]));
        const details = await Promise.all(topics.map((t) => api.topic(t.name)));
        for (const d of details)
          for (const p of d.partitions) {
            for (const r of p.replicas) if (load.has(r)) load.get(r)!.replicas++;
            if (load.has(p.leader)) load.get(p.leader)!.leaders++;
          }
        computed = `Replica and leader counts computed in the browser from ${topics.length} topic(s): this gateway has no GET /brokers, so bytes per broker are not shown.`;
        rows = cluster.brokers.map((b) => ({ id: b.id, rack: b.rack, host: `${b.host}:${b.port}`, replicas: load.get(b.id)!.replicas, leaders: load.get(b.id)!.leaders, bytes: null, leaderRate: rates.get(b.id)?.leaderRate ?? null, followerRate: rates.get(b.id)?.followerRate ?? null, moving: null, health: null }));
      }
      return { cluster, rows, computed };
    },
    [api],
    5000,
  );
  const d = poll.data;
  const hasBytes = (d?.rows ?? []).some((r) => r.bytes !== null);
  const hasMoving = (d?.rows ?? []).some((r) => r.moving !== null);
  const hasHealth = (d?.rows ?? []).some((r) => r.health !== null);
  const max = (k: 'replicas' | 'leaders' | 'bytes') => Math.max(1, ...(d?.rows ?? []).map((r) => r[k] ?? 0));
  const mean = (k: 'replicas' | 'leaders' | 'bytes') => (d && d.rows.length ? d.rows.reduce((a, r) => a + (r[k] ?? 0), 0) / d.rows.length : 0);
  const Skew = ({ row, k, fmt }: { row: BrokerRow; k: 'replicas' | 'leaders' | 'bytes'; fmt?: (n: number) => string }) => {
    const v = row[k];
    if (v === null) return <span>–</span>;
    const m = mean(k);
    const dev = m > 0 ? ((v - m) / m) * 100 : 0;
    return (
      <div class="skew">
        <div class="track" aria-hidden="true">
          <div class={`fill${dev > 20 ? ' hot' : ''}`} style={{ width: `${(v / max(k)) * 100}%` }} />
        </div>
        <span>
          {fmt ? fmt(v) : v} <span class="note">({dev >= 0 ? '+' : ''}{dev.toFixed(0)} % vs mean)</span>
        </span>
      </div>
    );
  };
  return (
    <section aria-labelledby="h-cluster">
      <h2 id="h-cluster">Cluster and brokers</h2>
      <Loading poll={poll} what="the cluster" />
      {d && (
        <>
          <dl class="kv">
            <dt>Cluster id</dt>
            <dd>{d.cluster.clusterId}</dd>
            <dt>Controller</dt>
            <dd>broker {d.cluster.controllerId}</dd>
            <dt>Brokers</dt>
            <dd>{d.rows.length}</dd>
            {d.cluster.kafka && (
              <>
                <dt>Kafka</dt>
                <dd>
                  {d.cluster.kafka.release} ({d.cluster.kafka.mode === 'kraft' ? 'KRaft' : 'ZooKeeper'} mode)
                  {d.cluster.kafka.degraded.map((g) => (
                    <div class="note" key={g.feature}>
                      degraded: {g.feature}: {g.detail}
                    </div>
                  ))}
                </dd>
              </>
            )}
          </dl>
          <table>
            <caption class="note">Bars compare brokers; orange = more than 20 % above the mean (skew).</caption>
            <thead>
              <tr>
                <th scope="col">Broker</th>
                <th scope="col">Rack</th>
                <th scope="col">Address</th>
                <th scope="col">Replicas</th>
                <th scope="col">Leaders</th>
                {hasBytes && <th scope="col">Bytes</th>}
                <th scope="col">Throttle (leader / follower)</th>
                {hasMoving && <th scope="col">Moving in / out</th>}
                {hasHealth && <th scope="col">Under-replicated (led / out of ISR)</th>}
              </tr>
            </thead>
            <tbody>
              {d.rows.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    {r.id}
                    {r.id === d.cluster.controllerId && <span class="note"> (controller)</span>}
                  </th>
                  <td>{r.rack ?? '–'}</td>
                  <td>{r.host}</td>
                  <td><Skew row={r} k="replicas" /></td>
                  <td><Skew row={r} k="leaders" /></td>
                  {hasBytes && <td>{r.bytes === null ? '–' : <Skew row={r} k="bytes" fmt={formatBytes} />}</td>}
                  <td>{r.leaderRate === null && r.followerRate === null ? 'none' : `${mib(r.leaderRate)} / ${mib(r.followerRate)}`}</td>
                  {hasMoving && <td>{r.moving ? `${r.moving.adding} / ${r.moving.removing}` : '–'}</td>}
                  {hasHealth && <td><BrokerHealthCell health={r.health} /></td>}
                </tr>
              ))}
            </tbody>
          </table>
          {d.computed && <p class="note">{d.computed}</p>}
          <PlanPanel api={api} me={me} brokers={d.rows.map((r) => r.id)} />
          <LeaderElectionPanel api={api} me={me} />
        </>
      )}
    </section>
  );
}

/** Plan a decommission or rebalance with POST /plans (when the gateway has it), review, start. */
function PlanPanel({ api, me, brokers }: PageProps & { brokers: number[] }) {
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
      const ids = brokerList.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
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
        <p class="note" role="status">Planning is not available on this gateway (it has no POST /plans). Move partitions from a topic's page, or with <code>kag reassign execute</code>.</p>
      ) : (
        <form class="row" onSubmit={submit}>
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
            <strong>{plan.movedReplicas}</strong> replica move(s), <strong>{formatBytes(plan.movedBytes)}</strong> to copy, {plan.partitions.length} partition(s) change
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
          {plan.reassignment.partitions.length > 0 && <StartForm api={api} partitions={plan.reassignment.partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas }))} />}
        </div>
      )}
    </div>
  );
}

function TopicsPage({ api }: PageProps) {
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
              <th scope="col" class="num">Partitions</th>
              <th scope="col" class="num">Replication factor</th>
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

function TopicPage({ api, me, name }: PageProps & { name: string }) {
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
                <th scope="col" class="num">Partition</th>
                <th scope="col" class="num">Leader</th>
                <th scope="col">Replicas</th>
                <th scope="col">In sync</th>
              </tr>
            </thead>
            <tbody>
              {t.partitions.map((p) => (
                <tr key={p.partition}>
                  <th scope="row" class="num">{p.partition}</th>
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
            <StartForm api={api} partitions={target.trim() ? [{ topic: name, partition: Number(partition), replicas: target.split(',').map((s) => Number(s.trim())) }] : []} />
          </div>
          <TopicConfigs api={api} me={me} name={name} />
        </>
      )}
    </section>
  );
}

/** Review (validateOnly) then start a reassignment with a throttle and pacing. */
function StartForm({ api, partitions }: { api: GatewayClient; partitions: { topic: string; partition: number; replicas: number[] }[] }) {
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
      ...(paced && { concurrency: { perBroker: perBroker.trim() === '' ? null : Number(perBroker), cluster: clusterMoves.trim() === '' ? null : Number(clusterMoves) } }),
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
          <input type="number" min="0.001" step="any" value={throttleMiB} onInput={(e) => setThrottleMiB((e.target as HTMLInputElement).value)} />
        </label>
        <label class="field">
          Moves per broker (empty = gateway default)
          <input type="number" min="1" step="1" value={perBroker} onInput={(e) => setPerBroker((e.target as HTMLInputElement).value)} />
        </label>
        <label class="field">
          Moves in the cluster (empty = no bound)
          <input type="number" min="1" step="1" value={clusterMoves} onInput={(e) => setClusterMoves((e.target as HTMLInputElement).value)} />
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
                    <td>{p.targetReplicas.join(', ')}{p.noOp && ' (no change)'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <table>
            <thead>
              <tr>
                <th scope="col">Broker</th>
                <th scope="col" class="num">Receives</th>
                <th scope="col" class="num">Sends</th>
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

/** A page row's percent: the gateway's, or bytes done of bytes total; a completed move is 100. */
function rowPercent(p: ReassignmentPartitionItem): number {
  if (p.state === 'completed') return 100;
  if (p.percent !== null) return p.percent;
  return p.bytesTotal ? ((p.bytesDone ?? 0) / p.bytesTotal) * 100 : 0;
}

const countsText = (c: PartitionCounts) => `${c.queued} queued, ${c.moving} moving, ${c.completed} completed, ${c.failed} failed${c.cancelled ? `, ${c.cancelled} cancelled` : ''}`;

function pacingText(r: Reassignment): string {
  const c = r.concurrency;
  const bounds = [c?.perBroker != null && `at most ${c.perBroker} move(s) per broker`, c?.cluster != null && `at most ${c.cluster} in the cluster`].filter(Boolean);
  return bounds.length ? `${bounds.join(', ')}; order ${r.order}` : 'all at once';
}

function ReassignmentsPage({ api, token }: PageProps) {
  // Live over the all-reassignments event stream (live.ts); each summary has counts and progress.
  const poll = useLiveReassignmentList(api, token ?? null);
  const d = poll.data;
  return (
    <section aria-labelledby="h-reassignments">
      <h2 id="h-reassignments">Reassignments</h2>
      <p class="note">
        Finished ones with who asked and what moved: <a href="#/history">history</a>.{poll.mode === 'polling' && ' (Polling: the event stream is not available.)'}
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
                    <Badge kind={x?.state ?? r.state}>{x?.state ?? r.state}</Badge> {x?.progress.stalled && <Badge kind="failed">stalled</Badge>}
                  </td>
                  <td>{goalText(r)}</td>
                  <td>{x ? <ProgressBar percent={x.progress.percent} label={`Progress of ${r.id}`} /> : '–'}</td>
                  <td>{`${x.counts.total}: ${countsText(x.counts)}`}</td>
                  <td>{isFinished(x.state) ? `took ${formatDuration(tookSeconds(x))}` : `${mib(x.progress.bytesPerSecond)} · ETA ${formatDuration(x.progress.etaSeconds)}`}</td>
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

const PAGE = 50;
const FILTERS: (PartitionState | 'all')[] = ['moving', 'queued', 'completed', 'failed', 'cancelled', 'all'];

function ReassignmentPage({ api, me, token, id }: PageProps & { id: string }) {
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
              <ProgressBar percent={r.progress.percent} label="Total progress" detail={`${formatBytes(r.progress.bytesDone)} of ${formatBytes(r.progress.bytesTotal)}`} />
            </dd>
            <dt>Bytes</dt>
            <dd>
              {formatBytes(r.progress.bytesDone)} of {formatBytes(r.progress.bytesTotal)} ({formatBytes(r.progress.bytesRemaining)} remaining)
            </dd>
            <dt>{isFinished(r.state) ? 'Took' : 'Rate / ETA'}</dt>
            <dd data-testid="rate-eta">{isFinished(r.state) ? formatDuration(tookSeconds(r)) : `${mib(r.progress.bytesPerSecond)} · ETA ${formatDuration(r.progress.etaSeconds)}`}</dd>
            <dt>Partitions</dt>
            <dd data-testid="counts">
              {r.counts.total}: {countsText(r.counts)}
            </dd>
            <dt>Concurrency</dt>
            <dd data-testid="pacing">{pacingText(r)}</dd>
            <dt>Throttle</dt>
            <dd data-testid="throttle-state">
              {r.throttle === null ? 'none' : mib(r.throttle)}
              {r.throttle !== null && (r.throttlesRemovedAt ? ` · removed at ${new Date(r.throttlesRemovedAt).toLocaleTimeString()}` : live ? ' · set while it runs' : r.autoRemoveThrottle ? ' · being removed…' : ' · kept (autoRemoveThrottle false)')}
            </dd>
            <DeadlineRows r={r} />
            <dt>Goal</dt>
            <dd data-testid="goal">{goalLine(r)}</dd>
            <dt>Requested by</dt>
            <dd>{r.requestedBy ?? 'anonymous'} · created {new Date(r.createdAt).toLocaleString()}</dd>
          </dl>

          {live && (
            <div class="panel">
              <h3>Actions</h3>
              <RoleHint me={me} need="operator" />
              <div class="row">
                <button type="button" class="secondary" onClick={() => void act(r.paused ? 'Resumed' : 'Paused', () => (r.paused ? api.resumeReassignment(id) : api.pauseReassignment(id)))}>
                  {r.paused ? 'Resume' : 'Pause'}
                </button>
                <label class="field">
                  New throttle (MiB/s)
                  <input type="number" min="0.001" step="any" value={throttleMiB} onInput={(e) => setThrottleMiB((e.target as HTMLInputElement).value)} />
                </label>
                <button type="button" class="secondary" disabled={!throttleMiB} onClick={() => void act('Throttle changed', () => api.patchReassignment(id, { throttle: Math.round(Number(throttleMiB) * 1024 * 1024) }))}>
                  Change throttle
                </button>
                <button type="button" class="secondary" onClick={() => void act('Throttle removed', () => api.patchReassignment(id, { throttle: null }))}>
                  Remove throttle
                </button>
              </div>
              <div class="row">
                <label class="field">
                  Moves per broker (empty = no bound)
                  <input type="number" min="1" step="1" value={perBroker} placeholder={r.concurrency?.perBroker != null ? String(r.concurrency.perBroker) : ''} onInput={(e) => setPerBroker((e.target as HTMLInputElement).value)} />
                </label>
                <label class="field">
                  Moves in the cluster (empty = no bound)
                  <input type="number" min="1" step="1" value={clusterMoves} placeholder={r.concurrency?.cluster != null ? String(r.concurrency.cluster) : ''} onInput={(e) => setClusterMoves((e.target as HTMLInputElement).value)} />
                </label>
                <button type="button" class="secondary" onClick={() => void act('Concurrency changed', () => api.patchReassignment(id, { concurrency: { perBroker: bound(perBroker), cluster: bound(clusterMoves) } }))}>
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
                    <button type="button" class="danger" onClick={() => void act(confirm === 'cancel' ? 'Cancelled' : 'Rolled back', () => api.cancelReassignment(id, { rollback: confirm === 'rollback' }))}>
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
              <button type="button" class="secondary" onClick={() => void act('Rollback started', () => api.cancelReassignment(id, { rollback: true }))}>
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
                    <td>{p.state === 'moving' || p.state === 'completed' ? <ProgressBar percent={rowPercent(p)} label={`Progress of ${p.topic}-${p.partition}`} /> : '–'}</td>
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

/** A throttled-replicas value as set, or (a long one, left out of the lean answer) its entry count. */
const replicaList = (value: string | null | undefined, entries: number | null): string =>
  value !== undefined ? (value ?? '–') : entries === null ? '*' : `${entries.toLocaleString()} entries`;

function ThrottlesPage({ api }: PageProps) {
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
              <th scope="col" class="num">Leader rate</th>
              <th scope="col" class="num">Follower rate</th>
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

function QuotasPage({ api }: PageProps) {
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
              <th scope="col" class="num">Controller mutations/s</th>
              <th scope="col" class="num">Produce</th>
              <th scope="col" class="num">Consume</th>
              <th scope="col" class="num">Request %</th>
            </tr>
          </thead>
          <tbody>
            {q.quotas.map((e) => (
              <tr key={JSON.stringify(e.entity)}>
                <th scope="row">{Object.entries(e.entity).map(([k, v]) => `${k}=${v ?? '<default>'}`).join(', ')}</th>
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

// ---------------------------------------------------------------- shell

function Login({ token, setToken, me, meError }: { token: string | null; setToken: (t: string | null) => void; me: WhoAmI | null; meError: Error | null }) {
  const [draft, setDraft] = useState('');
  const submit = (e: JSX.TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    setToken(draft.trim() || null);
    setDraft('');
  };
  return (
    <form class="login" onSubmit={submit}>
      <span class="who" role="status" aria-live="polite">
        {me ? (me.authentication === 'none' ? 'Authentication is off: you act as admin.' : `Signed in as ${me.id} (${me.role})`) : meError ? 'Not signed in' : ''}
      </span>
      {token ? (
        <button type="button" class="secondary" onClick={() => setToken(null)}>
          Sign out
        </button>
      ) : (
        <>
          <label for="token">Bearer token</label>
          <input id="token" type="password" autocomplete="off" value={draft} onInput={(e) => setDraft((e.target as HTMLInputElement).value)} />
          <button type="submit" class="secondary">
            Sign in
          </button>
        </>
      )}
    </form>
  );
}

const NAV: [Route['page'], string, string][] = [
  ['cluster', '#/cluster', 'Cluster'],
  ['topics', '#/topics', 'Topics'],
  ['reassignments', '#/reassignments', 'Reassignments'],
  ['history', '#/history', 'History'],
  ['throttles', '#/throttles', 'Throttles'],
  ['quotas', '#/quotas', 'Quotas'],
];

function App() {
  const [token, setTokenState] = useState<string | null>(() => sessionStorage.getItem(TOKEN_KEY));
  const setToken = (t: string | null) => {
    if (t) sessionStorage.setItem(TOKEN_KEY, t);
    else sessionStorage.removeItem(TOKEN_KEY);
    setTokenState(t);
  };
  const api = useMemo(() => createClient({ baseUrl: '', token }), [token]);
  const [me, setMe] = useState<WhoAmI | null>(null);
  const [meError, setMeError] = useState<Error | null>(null);
  useEffect(() => {
    setMe(null);
    setMeError(null);
    // The answer for an earlier token (a 401 before sign-in) must not land after this one's.
    let current = true;
    api.whoami().then(
      (w) => current && setMe(w),
      (e: Error) => current && setMeError(e),
    );
    return () => {
      current = false;
    };
  }, [api]);
  const route = useRoute();
  const mainRef = useRef<HTMLElement>(null);
  // Move focus to the new page's content for keyboard and screen-reader users.
  useEffect(() => mainRef.current?.focus(), [route.page]);
  const active = route.page === 'topic' ? 'topics' : route.page === 'reassignment' ? 'reassignments' : route.page;
  const props = { api, me, token };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <h1>Kafka Admin Gateway</h1>
        <nav aria-label="Sections">
          <ul>
            {NAV.map(([page, link, label]) => (
              <li key={page}>
                <a href={link} aria-current={active === page ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <Login token={token} setToken={setToken} me={me} meError={meError} />
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        {meError instanceof ApiError && meError.status === 401 ? (
          <ProblemBox error={meError} title="Sign in" />
        ) : !me && !meError ? (
          <p aria-busy="true">Connecting…</p>
        ) : (
          <>
            {route.page === 'cluster' && <ClusterPage {...props} />}
            {route.page === 'topics' && <TopicsPage {...props} />}
            {route.page === 'topic' && <TopicPage {...props} name={route.name} />}
            {route.page === 'reassignments' && <ReassignmentsPage {...props} />}
            {route.page === 'reassignment' && <ReassignmentPage {...props} id={route.id} />}
            {route.page === 'throttles' && <ThrottlesPage {...props} />}
            {route.page === 'quotas' && <QuotasPage {...props} />}
            {route.page === 'history' && <HistoryPage api={api} token={token} href={href} />}
          </>
        )}
      </main>
    </>
  );
}

const root = document.getElementById('app')!;
root.textContent = ''; // the no-JavaScript notice
render(<App />, root);
