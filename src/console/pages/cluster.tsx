// The cluster page: the cluster, its brokers with their load and skew, throttle rates, moves in
// flight and health; below, the plan panel and the preferred-leader election.
import { formatBytes, type BrokerLoad } from '../../client/api.js';
import { Loading, usePoll } from '../ui.js';
import { LeaderElectionPanel } from '../components/leaders.js';
import { BrokerHealthCell, brokerHealth, type BrokerHealth } from '../components/held.js';
import { PlanPanel } from '../components/plan-panel.js';
import { mib } from '../components/widgets.js';
import type { PageProps } from './page-props.js';

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

export function ClusterPage({ api, me }: PageProps) {
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
        rows = cluster.brokers.map((b) => ({
          id: b.id,
          rack: b.rack,
          host: `${b.host}:${b.port}`,
          replicas: load.get(b.id)!.replicas,
          leaders: load.get(b.id)!.leaders,
          bytes: null,
          leaderRate: rates.get(b.id)?.leaderRate ?? null,
          followerRate: rates.get(b.id)?.followerRate ?? null,
          moving: null,
          health: null,
        }));
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
  const mean = (k: 'replicas' | 'leaders' | 'bytes') =>
    d && d.rows.length ? d.rows.reduce((a, r) => a + (r[k] ?? 0), 0) / d.rows.length : 0;
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
          {fmt ? fmt(v) : v}{' '}
          <span class="note">
            ({dev >= 0 ? '+' : ''}
            {dev.toFixed(0)} % vs mean)
          </span>
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
                  <td>
                    <Skew row={r} k="replicas" />
                  </td>
                  <td>
                    <Skew row={r} k="leaders" />
                  </td>
                  {hasBytes && <td>{r.bytes === null ? '–' : <Skew row={r} k="bytes" fmt={formatBytes} />}</td>}
                  <td>{r.leaderRate === null && r.followerRate === null ? 'none' : `${mib(r.leaderRate)} / ${mib(r.followerRate)}`}</td>
                  {hasMoving && <td>{r.moving ? `${r.moving.adding} / ${r.moving.removing}` : '–'}</td>}
                  {hasHealth && (
                    <td>
                      <BrokerHealthCell health={r.health} />
                    </td>
                  )}
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
