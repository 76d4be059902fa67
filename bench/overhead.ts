// What does an answer of the gateway cost, next to what express itself costs for the same answer?
// (issue 32: CPU seconds per 1,000 requests per route, gateway ÷ bare express, in the same run.)
//
// In one run, against one simulated cluster (3 brokers, BENCH_TOPICS topics, the described one
// with 12 partitions):
//   gateway = the gateway as `npm run dev` runs it (src/main.ts under tsx, a child process; the
//             reconciler's interval set to 10 min so that its passes are not counted)
//   bare    = bench/bare-express.ts, a bare express 5 app (another child) answering each route
//             with the gateway's own answer (same status, content type and body, re-serialised)
// For each route and each of REPS repetitions, REQUESTS requests are sent to each (CONCURRENCY at
// a time over keep-alive connections, the two alternating which goes first), and the CPU each
// child took during them (all its threads: /proc/<pid>/task/*/schedstat) is divided by the count.
// Every figure is min/median/max over the repetitions, printed with the load it was taken
// under (a summary line next to the figures, then one line per repetition): the 1-minute load
// average, the busy share of the machine's CPUs, and the CPU seconds of this process (the load
// generator and the simulator), of both apps, and of the rest of the machine ("others").
// The gateway's Kafka work (the simulator's answers decoded) is inside its figure for the routes
// that read Kafka (GET /topics, GET /topics/{name}); bare express does none.
//
//   npm run bench:overhead                         (REPS=5 REQUESTS=1000 CONCURRENCY=4)
//   SCALE_PROFILE=<dir> npm run bench:overhead     a CPU profile of the gateway (bench/gateway-process.ts)
//   BENCH_ROUTES=/healthz,/metrics                 only these routes (names as printed)
import { spawn } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import { startSimulator } from '../src/sim/index.js';
import { startGateway } from './gateway-process.js';
import { describeLoad, othersCpuSeconds, processCpuSeconds, startLoadWindow, type LoadWindow } from './machine-load.js';

const REPS = Number(process.env.REPS ?? 5);
const REQUESTS = Number(process.env.REQUESTS ?? 1000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const TOPICS = Number(process.env.BENCH_TOPICS ?? 20);
const WARMUP = Math.max(200, Math.floor(REQUESTS / 2));

interface Route {
  /** As printed; BENCH_ROUTES selects by it. */
  name: string;
  /** The request path. */
  path: string;
  /** The bare app's route (express syntax). */
  bare: string;
}

const ALL_ROUTES: Route[] = [
  { name: '/healthz', path: '/healthz', bare: '/healthz' },
  { name: 'GET /topics', path: '/topics', bare: '/topics' },
  { name: 'GET /topics/{name}', path: '/topics/bench-described', bare: '/topics/:topic' },
  { name: 'GET /reassignments', path: '/reassignments', bare: '/reassignments' },
  { name: '/metrics', path: '/metrics', bare: '/metrics' },
];
const ROUTES = process.env.BENCH_ROUTES ? ALL_ROUTES.filter((r) => process.env.BENCH_ROUTES!.split(',').includes(r.name)) : ALL_ROUTES;

type Stat = { min: number; median: number; max: number };
const stat = (xs: number[]): Stat => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0] ?? NaN, median: s[Math.floor((s.length - 1) / 2)] ?? NaN, max: s.at(-1) ?? NaN };
};
const fmt = (s: Stat, d = 2) => `${s.min.toFixed(d)} / ${s.median.toFixed(d)} / ${s.max.toFixed(d)}`;

/** The load of a route's repetitions in one line, next to its figures: ranges, and CPU seconds summed over the repetitions. */
function summarizeLoad(windows: readonly LoadWindow[]): string {
  const range = (xs: number[], d: number) => `${Math.min(...xs).toFixed(d)}-${Math.max(...xs).toFixed(d)}`;
  const sum = (f: (w: LoadWindow) => number) => windows.reduce((a, w) => a + f(w), 0).toFixed(2);
  const children = Object.keys(windows[0]?.children ?? {}).map((name) => `${name} ${sum((w) => w.children[name] ?? 0)}`);
  return (
    `1-min load ${range(
      windows.flatMap((w) => [...w.loadavg]),
      1,
    )}, machine ${range(
      windows.map((w) => 100 * w.machineBusy),
      0,
    )} % busy; ` +
    `CPU s over the ${windows.length} repetitions: bench ${sum((w) => w.ownCpu)}, ${children.join(', ')}, others ${sum(othersCpuSeconds)}`
  );
}

/** Sends `n` GETs of `url`, `CONCURRENCY` at a time; throws on any status but `status`. */
async function hammer(agent: http.Agent, url: URL, n: number, status: number): Promise<void> {
  let sent = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent }, (res) => {
          if (res.statusCode !== status) return reject(new Error(`${url.pathname}: ${res.statusCode}`));
          res
            .on('data', () => undefined)
            .on('end', resolve)
            .on('error', reject);
        })
        .on('error', reject);
    });
  const worker = async () => {
    while (sent < n) {
      sent++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function fetchAnswer(url: string): Promise<{ status: number; contentType: string; body: string }> {
  const res = await fetch(url);
  return { status: res.status, contentType: res.headers.get('content-type') ?? 'text/plain', body: await res.text() };
}

async function startBare(routes: { path: string; status: number; contentType: string; body: string }[]) {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-express.ts'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  proc.send({ routes });
  const [msg] = (await once(proc, 'message')) as [{ port: number }];
  return { proc, url: `http://127.0.0.1:${msg.port}` };
}

async function main(): Promise<void> {
  const sim = await startSimulator({ brokers: 3 });
  const gw = await startGateway(sim, { fromSource: true, env: { RECONCILE_INTERVAL_MS: '600000' } });
  const json = { 'content-type': 'application/json' };
  for (let t = 0; t < TOPICS; t++) {
    const name = t === 0 ? 'bench-described' : `bench-${t}`;
    const res = await fetch(`${gw.url}/topics`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name, partitions: t === 0 ? 12 : 3, replicationFactor: 3 }),
    });
    if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${await res.text()}`);
  }
  const answers = await Promise.all(ROUTES.map((r) => fetchAnswer(`${gw.url}${r.path}`)));
  for (const [i, a] of answers.entries()) if (a.status !== 200) throw new Error(`${ROUTES[i].name}: ${a.status} ${a.body.slice(0, 300)}`);
  const bare = await startBare(ROUTES.map((r, i) => ({ path: r.bare, ...answers[i] })));
  const targets = { gateway: { url: gw.url, pid: gw.proc.pid! }, bare: { url: bare.url, pid: bare.proc.pid! } };
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

  console.log(
    `bench/overhead: ${REPS} repetitions of ${REQUESTS} requests per route and app (${CONCURRENCY} at a time), after ${WARMUP} warm-up each`,
  );
  console.log(`CPU ms per 1,000 requests, min / median / max over the repetitions; ratio = gateway ÷ bare of each repetition\n`);
  for (const r of ROUTES) {
    for (const t of Object.values(targets)) await hammer(agent, new URL(`${t.url}${r.path}`), WARMUP, 200);
    const perApp = { gateway: [] as number[], bare: [] as number[] };
    const ratios: number[] = [];
    const windows: LoadWindow[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      const order = rep % 2 === 0 ? (['gateway', 'bare'] as const) : (['bare', 'gateway'] as const);
      const cost = { gateway: NaN, bare: NaN };
      const end = startLoadWindow({ gateway: targets.gateway.pid, bare: targets.bare.pid });
      for (const app of order) {
        const before = processCpuSeconds(targets[app].pid);
        await hammer(agent, new URL(`${targets[app].url}${r.path}`), REQUESTS, 200);
        cost[app] = ((processCpuSeconds(targets[app].pid) - before) * 1000 * 1000) / REQUESTS;
      }
      windows.push(end());
      perApp.gateway.push(cost.gateway);
      perApp.bare.push(cost.bare);
      ratios.push(cost.gateway / cost.bare);
    }
    console.log(`${r.name}  (answer ${answers[ROUTES.indexOf(r)].body.length} B)`);
    console.log(`  gateway  ${fmt(stat(perApp.gateway))} ms`);
    console.log(`  bare     ${fmt(stat(perApp.bare))} ms`);
    console.log(`  ratio    ${fmt(stat(ratios))} x`);
    console.log(`  load     ${summarizeLoad(windows)}`);
    for (const [i, w] of windows.entries())
      console.log(`  rep ${i + 1}: ${(perApp.gateway[i] / perApp.bare[i]).toFixed(2)}x  ${describeLoad(w)}`);
  }

  agent.destroy();
  bare.proc.disconnect();
  gw.proc.kill('SIGTERM');
  await Promise.all([once(gw.proc, 'exit'), once(bare.proc, 'exit')]);
  await sim.close();
}

await main();
