// Issue 8's bench: reassignments of SCALE_SIZES partitions (default 1000,10000) on simulated
// clusters of 2x that many partitions (at least 20,000; at 100,000 moving the cluster is 100,000),
// against a gateway running as a child process as `npm start` runs it (bin/gateway.sh: dist/main.js
// with the shipped memory settings; bench/gateway-process.ts for the knobs), so RSS is the gateway's alone.
// Per size, REPS rounds, each a whole reassignment from start to end (odd rounds move the
// partitions back): validateOnly, then the POST that starts it (throttled at 1 KiB/s so nothing
// finishes), two summary GETs and two 1,000-row page GETs while everything moves, the reconcile
// pass duration (the mean of reconciler_pass_duration_seconds over the passes that ran while
// the partitions moved), then the throttle is raised and the removal delay is measured from the
// simulator's last completion to the last throttle config gone. Each figure is
// min/median/max over the rounds. The validateOnly, POST and GETs are timed from a client
// process of their own (this process runs the simulator, whose event loop would delay the
// reading of answers); next to each timed GET, this process's event-loop delay max during it
// (a summary GET waits for the state topic's end offset, which the simulator answers between
// its big answers). /healthz is sampled every 100 ms from a separate process
// during the whole size's run (p99 and max, overall and per phase: validateOnly, POST, moving,
// ending = from raising the throttle to the last throttle gone, other), with the gateway's own
// event-loop delay max over the same window, and each sample over 50 ms listed with the
// sampler's own wait for a CPU during it (schedstat); the same process reads the gateway's VmRSS
// (/proc) every 100 ms: RSS is the max while moving and the max over the whole run, and per phase.
// Then the growth ratio: per-partition cost at the largest size / at the smallest (median).
// Clients poll the gateway throughout, as people watching the web console would (issue 8 asks
// for the throttle removal "with clients polling"): SCALE_POLLERS loops (default 3) in one more
// process, each every SCALE_POLL_MS (default 2000 ms, the console's period) reading the
// reassignment list, the summary of each live reassignment, its first 1,000 moving partitions
// and /throttles (what three of the console's pages read); their latencies are printed too.
// SCALE_POLL_MS=500 is a harsher load; SCALE_POLLERS=0 runs without them.
// Each size ends with the load its figures were taken under (bench/machine-load.ts), over the
// whole run and per round: the 1-minute load average, the busy share of the machine's CPUs, and
// the CPU seconds of this process (the simulator), the timing client, the sampler, the pollers
// and the gateway.
// SCALE_CLIENTS=sse (or CLIENTS=sse) runs the same number of clients as the console does now:
// each follows the all-reassignments event stream and each live reassignment's stream (SSE),
// reads the reassignment's first 1,000 moving partitions when its summary changes (as the
// console's page reloads its rows), and polls /throttles every SCALE_POLL_MS (that page still
// polls); events, page and throttles latencies are printed the same way.
//
//   npm run bench:scale                      (SCALE_SIZES=1000,10000 REPS=3)
//   GATEWAY_WORKER_THREAD=on|off npm run bench:scale   (the reassignment runtime in a worker thread or not; default auto)
//
// The client processes (sampler, pollers, timing client) are in bench/scale-clients.ts; the
// statistics and the printing of the figures in bench/scale-report.ts.
import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startSimulator } from '../src/sim/index.js';
import { startGateway } from './gateway-process.js';
import { startLoadWindow, type LoadWindow } from './machine-load.js';
import { answerField, requestLine, startClients, startSampler, timingClient } from './scale-clients.js';
import { printGrowth, printSize, stat, summarizeHealth, type Phase, type SizeResult } from './scale-report.js';

const SIZES = (process.env.SCALE_SIZES ?? '1000,10000').split(',').map(Number);
const REPS = Number(process.env.REPS ?? 3);
const BROKERS = 12;
const PER_TOPIC = 1000;
const POLLERS = Number(process.env.SCALE_POLLERS ?? 3);
const POLL_MS = Number(process.env.SCALE_POLL_MS ?? 2000);
const SSE_CLIENTS = (process.env.SCALE_CLIENTS ?? process.env.CLIENTS ?? 'poll') === 'sse';
// SCALE_SAFETY=off sends `"safety": "off"` with each body: the start then skips the health
// interlock's read (issue 30), to tell its cost from the rest of the start's.
const SAFETY_OFF = process.env.SCALE_SAFETY === 'off';

/**
 * The gateway's event-loop delay max (ms) since `loopMaxMs` was reset: prom-client resets its
 * histogram on every scrape, so every scrape's value is folded in here.
 */
let loopMaxMs = 0;

/** This process's event-loop delay (it runs the simulator), read around each timed GET (printSize says why). */
const simLoop = monitorEventLoopDelay({ resolution: 2 });
simLoop.enable();

async function scrape(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^kafka_gateway_nodejs_eventloop_lag_max_seconds ([0-9.e+-]+)$/m.exec(text);
  if (m) loopMaxMs = Math.max(loopMaxMs, Number(m[1]) * 1000);
  return text;
}

/** Sum (s) and count of reconciler_pass_duration_seconds so far. */
async function passTotals(url: string): Promise<{ sum: number; count: number }> {
  const text = await scrape(url);
  const v = (s: string) =>
    Number(new RegExp(`^kafka_gateway_reconciler_pass_duration_seconds_${s} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? 0);
  return { sum: v('sum'), count: v('count') };
}

/** Mean wall time of each reconcile step so far (from the step histogram's _sum and _count). */
async function stepAverages(url: string): Promise<string> {
  const text = await scrape(url);
  const sums = new Map<string, number>();
  const out: string[] = [];
  for (const m of text.matchAll(/^kafka_gateway_reconciler_step_duration_seconds_(sum|count)\{step="([^"]+)"\} ([0-9.e+-]+)$/gm)) {
    if (m[1] === 'sum') sums.set(m[2], Number(m[3]));
    else if (Number(m[3]) > 0) out.push(`${m[2]} ${(((sums.get(m[2]) ?? 0) / Number(m[3])) * 1000).toFixed(0)}`);
  }
  return out.join(', ');
}

/** Summary GETs by where they were answered (kafka_gateway_reassignment_summary_answers_total in a /metrics text); null without the worker thread. */
function summaryAnswers(text: string): SizeResult['summaryAnswers'] {
  const count = (by: string) =>
    new RegExp(`^kafka_gateway_reassignment_summary_answers_total\\{answered_by="${by}"\\} (\\d+)$`, 'm').exec(text)?.[1];
  const here = count('http_thread');
  const worker = count('worker');
  return here === undefined || worker === undefined ? null : { httpThread: Number(here), worker: Number(worker) };
}

/** The worker's heap releases (kafka_gateway_reassignment_worker_heap_releases_total in a /metrics text); null without the worker thread. */
function heapReleases(text: string): SizeResult['heapReleases'] {
  const count = /^kafka_gateway_reassignment_worker_heap_releases_total (\S+)$/m.exec(text)?.[1];
  return count === undefined ? null : Number(count);
}

async function runSize(n: number): Promise<SizeResult> {
  const clusterPartitions = Math.max(n * 2, 20_000, n);
  const sim = await startSimulator({ brokers: BROKERS, seedBytes: 1_000_000, replicationBytesPerSecond: 1_000_000_000 });
  const topicCount = Math.ceil(clusterPartitions / PER_TOPIC);
  for (let t = 0; t < topicCount; t++) {
    const count = Math.min(PER_TOPIC, clusterPartitions - t * PER_TOPIC);
    sim.model.createTopic({
      name: `s${t}`,
      assignments: Array.from({ length: count }, (_, p) => ({
        partition: p,
        brokerIds: [(t + p) % BROKERS, (t + p + 1) % BROKERS, (t + p + 2) % BROKERS],
      })),
    });
  }
  const gw = await startGateway(sim);
  // What the gateway chose (GATEWAY_WORKER_THREAD=auto decides by the cluster's size): its metric says.
  const workerUp = /^kafka_gateway_reassignment_worker_up 1/m.test(await (await fetch(`${gw.url}/metrics`)).text());
  console.log(`reassignment worker thread: ${workerUp ? 'running' : 'not running'} (a cluster of ${clusterPartitions} partitions)`);
  const client = timingClient();
  const timed = client.timed;
  /** A timed GET; this process's event-loop delay max during it (ms) goes to `delays`. */
  const timedWithSimLoop = async (url: string, delays: number[]) => {
    simLoop.reset();
    const answer = await timed(url);
    delays.push(simLoop.max / 1e6);
    return answer;
  };
  // Warm-up (not measured): the first request of each route compiles its validators.
  const warm = { partitions: [{ topic: 's0', partition: 0, replicas: [3, 1, 2] }], validateOnly: true };
  // The timing client's own first request (its fetch's setup) is not measured either.
  await timed(`${gw.url}/reassignments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(warm) });
  await timed(`${gw.url}/reassignments/r-none/partitions`);
  // The reassignment files, as the client's request lines, built before anything is measured:
  // building one at 100,000 partitions (~4.4 MB of JSON, then escaped into its line) took this
  // process, the simulator's, ~100 ms in one block (a CPU profile of the bench).
  // Move the first n partitions: replace each one's first replica by the broker 3 further on
  // (odd rounds move them back), so every round is a full start-to-end reassignment.
  const fileFor = (round: number) => {
    const partitions: { topic: string; partition: number; replicas: number[]; log_dirs: string[] }[] = [];
    for (let i = 0; i < n; i++) {
      const t = Math.floor(i / PER_TOPIC);
      const p = i % PER_TOPIC;
      const first = round % 2 === 0 ? (t + p + 3) % BROKERS : (t + p) % BROKERS;
      partitions.push({
        topic: `s${t}`,
        partition: p,
        replicas: [first, (t + p + 1) % BROKERS, (t + p + 2) % BROKERS],
        log_dirs: ['any', 'any', 'any'],
      });
    }
    return { version: 1, partitions };
  };
  const post = (b: unknown) =>
    requestLine(`${gw.url}/reassignments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
  const lines = [0, 1].map((parity) => {
    const file = fileFor(parity);
    const safety = SAFETY_OFF ? { safety: 'off' } : {};
    return {
      validate: post({ ...file, ...safety, throttle: 1024, validateOnly: true }),
      start: post({ ...file, ...safety, throttle: 1024 }),
    };
  });
  // /healthz is sampled from a process of its own: this one also runs the simulator, whose
  // event loop (busy answering a 100k-partition request) would otherwise delay the sampler's
  // fetches and be counted against the gateway.
  const sampler = startSampler(`${gw.url}/healthz`, gw.proc.pid);
  // Phases of the run, [from, to, name] in Date.now() time, for /healthz and RSS per phase.
  const phases: [number, number, Phase][] = [];
  const phase = async <T>(name: Phase, fn: () => Promise<T>): Promise<T> => {
    const from = Date.now();
    try {
      return await fn();
    } finally {
      phases.push([from, Date.now(), name]);
    }
  };
  const poller = POLLERS > 0 ? startClients(gw.url, SSE_CLIENTS, POLLERS, POLL_MS) : null;
  // The gateway's own event-loop delay (prom-client's monitorEventLoopDelay, reset on each scrape): read now to start a window.
  await scrape(gw.url);
  loopMaxMs = 0;
  // The machine's load and the CPU of the bench's processes and the gateway, over the whole
  // size's run and per round (bench/machine-load.ts).
  const pids = { client: client.pid, sampler: sampler.pid, pollers: poller?.pid, gateway: gw.proc.pid };
  const wholeRun = startLoadWindow(pids);
  const roundLoads: LoadWindow[] = [];
  try {
    const validate: number[] = [];
    const posts: number[] = [];
    const summary: number[] = [];
    const summarySimLoop: number[] = [];
    const pageSimLoop: number[] = [];
    const page: number[] = [];
    const passes: number[] = [];
    const removals: number[] = [];
    let validateBytes = 0;
    let postBytes = 0;
    let summaryBytes = 0;
    let pageBytes = 0;
    for (let round = 0; round < REPS; round++) {
      const endRound = startLoadWindow(pids);
      const v = await phase('validateOnly', () => client.timedLine(lines[round % 2].validate));
      if (v.status !== 200) throw new Error(`validateOnly ${v.status}: ${JSON.stringify(v.body).slice(0, 500)}`);
      validate.push(v.ms);
      validateBytes = v.bytes;
      // Throttled at 1 KiB/s: nothing completes while GETs are measured.
      const post = await phase('POST', () => client.timedLine(lines[round % 2].start));
      if (post.status !== 202) throw new Error(`POST ${post.status}: ${JSON.stringify(post.body).slice(0, 500)}`);
      posts.push(post.ms);
      postBytes = post.bytes;
      const id = answerField(post, 'id');
      if (id === undefined) throw new Error(`POST 202 without an id: ${JSON.stringify(post.body).slice(0, 500)}`);
      const movingFrom = Date.now();
      const pass0 = await passTotals(gw.url);
      for (let r = 0; r < 2; r++) {
        const s = await timedWithSimLoop(`${gw.url}/reassignments/${id}`, summarySimLoop);
        summary.push(s.ms);
        summaryBytes = s.bytes;
        const pg = await timedWithSimLoop(`${gw.url}/reassignments/${id}/partitions?limit=1000`, pageSimLoop);
        page.push(pg.ms);
        pageBytes = pg.bytes;
        await new Promise((res) => setTimeout(res, 1000));
      }
      // Let it finish: raise the throttle, then time from Kafka's last completion to the last throttle gone.
      let lastCompletion = 0;
      const off = sim.onReassignmentCompleted(() => (lastCompletion = Date.now()));
      const endingFrom = Date.now();
      phases.push([movingFrom, endingFrom, 'moving']);
      const patched = await timed(`${gw.url}/reassignments/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ throttle: 1_000_000_000 }),
      });
      if (patched.status !== 200) throw new Error(`PATCH ${patched.status}`);
      const deadline = Date.now() + 600_000;
      let removal = NaN;
      while (Date.now() < deadline) {
        // Read in the simulator itself (asking the gateway would add load to what is measured).
        const moving = sim.model.movingPartitionCount();
        const throttled = (() => {
          for (let b = 0; b < BROKERS; b++)
            if (sim.model.dynamicBrokerConfigs(String(b))['leader.replication.throttled.rate'] !== undefined) return true;
          for (let t = 0; t < topicCount; t++)
            if (sim.model.effectiveTopicConfig(`s${t}`, 'leader.replication.throttled.replicas')) return true;
          return false;
        })();
        if (moving === 0 && lastCompletion > 0 && !throttled) {
          removal = Date.now() - lastCompletion;
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      off();
      phases.push([endingFrom, Date.now(), 'ending']);
      removals.push(removal);
      roundLoads.push(endRound());
      // Mean pass duration over the passes that ran while the partitions moved and ended.
      const pass1 = await passTotals(gw.url);
      if (pass1.count > pass0.count) passes.push(((pass1.sum - pass0.sum) / (pass1.count - pass0.count)) * 1000);
      // The next round's POST names the same partitions: wait until this reassignment is over in the gateway.
      for (;;) {
        const st = await timed(`${gw.url}/reassignments/${id}`);
        const state = answerField(st, 'state');
        if (state !== 'running' && state !== 'pending') break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const steps = await stepAverages(gw.url);
    // One scrape at the end for both counters.
    const endMetrics = await scrape(gw.url);
    const answers = summaryAnswers(endMetrics);
    const releases = heapReleases(endMetrics);
    const load = wholeRun();
    return {
      n,
      load,
      roundLoads,
      validate: stat(validate),
      validateEach: validate,
      validateBytes,
      post: stat(posts),
      postEach: posts,
      postBytes,
      summary: stat(summary),
      summaryEach: summary,
      summarySimLoop,
      summaryBytes,
      page: stat(page),
      pageEach: page,
      pageSimLoop,
      pageBytes,
      pass: stat(passes),
      removal: stat(removals),
      steps,
      summaryAnswers: answers,
      heapReleases: releases,
      ...(await (async () => {
        await scrape(gw.url);
        const samples = await sampler.finish();
        const figures = summarizeHealth(samples, phases, loopMaxMs);
        const polls = poller ? await poller.finish() : null;
        return { ...figures, polls };
      })()),
    };
  } finally {
    client.close();
    sampler.stop();
    poller?.stop();
    gw.proc.kill('SIGTERM');
    await once(gw.proc, 'exit').catch(() => undefined);
    await sim.close();
  }
}

const results: SizeResult[] = [];
for (const n of SIZES) {
  // GATEWAY_WORKER_THREAD (passed on to the gateway with the rest of the environment): which variant ran (docs/worker-thread.md).
  console.log(`\n== ${n} partitions moving == (GATEWAY_WORKER_THREAD=${process.env.GATEWAY_WORKER_THREAD?.trim() || 'auto, the default'})`);
  const r = await runSize(n);
  results.push(r);
  printSize(r, { pollers: POLLERS, pollMs: POLL_MS });
}
printGrowth(results);
