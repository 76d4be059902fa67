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
// reading of answers). /healthz is sampled every 100 ms from a separate process
// during the whole size's run (p99 and max, overall and per phase: validateOnly, POST, moving,
// ending = from raising the throttle to the last throttle gone, other), with the gateway's own
// event-loop delay max over the same window, and each sample over 50 ms listed with the
// sampler's own wait for a CPU during it (schedstat); the same process reads the gateway's VmRSS
// (/proc) every 100 ms: RSS is the max while moving and the max over the whole run.
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
//   GATEWAY_WORKER_THREAD=on npm run bench:scale   (the reassignment runtime in a worker thread)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { startSimulator } from '../src/sim/index.js';
import { startGateway } from './gateway-process.js';
import { describeLoad, startLoadWindow, type LoadWindow } from './machine-load.js';

const SIZES = (process.env.SCALE_SIZES ?? '1000,10000').split(',').map(Number);
const REPS = Number(process.env.REPS ?? 3);
const BROKERS = 12;
const PER_TOPIC = 1000;
const POLLERS = Number(process.env.SCALE_POLLERS ?? 3);
const POLL_MS = Number(process.env.SCALE_POLL_MS ?? 2000);
const SSE_CLIENTS = (process.env.SCALE_CLIENTS ?? process.env.CLIENTS ?? 'poll') === 'sse';

const PHASES = ['validateOnly', 'POST', 'moving', 'ending', 'other'] as const;
type Phase = (typeof PHASES)[number];
type Stat = { min: number; median: number; max: number };
const stat = (xs: number[]): Stat => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0] ?? NaN, median: s[Math.floor((s.length - 1) / 2)] ?? NaN, max: s.at(-1) ?? NaN };
};
const fmt = (s: Stat, unit = 'ms', d = 1) => `${s.min.toFixed(d)} / ${s.median.toFixed(d)} / ${s.max.toFixed(d)} ${unit}`;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? NaN;

/**
 * The /healthz sampler (run with node -e): one GET every 100 ms until stdin closes, then
 * [[Date.now() at the request, latency ms, gateway VmRSS bytes, gateway main thread's ns on a CPU
 * and ns waiting for one so far, ms the sampler itself waited for a CPU during the request], ...]
 * as JSON.
 */
const SAMPLER = `
const url = process.argv[1];
const pid = process.argv[2];
const fs = require('node:fs');
const rss = () => { try { return Number(/VmRSS:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/' + pid + '/status', 'utf8'))[1]) * 1024; } catch { return NaN; } };
// The gateway's main thread: ns on a CPU and ns runnable but waiting for one (schedstat).
const sched = (p = pid) => { try { const [run, wait] = fs.readFileSync('/proc/' + p + '/task/' + p + '/schedstat', 'utf8').split(' ').map(Number); return [run, wait]; } catch { return [NaN, NaN]; } };
const out = [];
let on = true;
process.stdin.on('end', () => (on = false)).resume();
(async () => {
  await fetch(url).then((r) => r.text()).catch(() => undefined); // warm-up: the client's own first-request setup is not the gateway's latency
  while (on) {
    const at = Date.now();
    const own = sched(process.pid)[1];
    const t = performance.now();
    await fetch(url).then((r) => r.text()).catch(() => undefined);
    const ms = performance.now() - t;
    // This process's own main thread waiting for a CPU during the request (ms): not the gateway's time.
    out.push([at, ms, rss(), ...sched(), (sched(process.pid)[1] - own) / 1e6]);
    await new Promise((r) => setTimeout(r, 100));
  }
  process.stdout.write(JSON.stringify(out));
})();
`;

/**
 * The polling clients (run with node -e): POLLERS loops, each one every POLL_MS reads what the
 * console's Reassignments and reassignment pages read (the list, each live reassignment's
 * summary and first 1,000 moving partitions) and its Throttles page, until stdin closes; then
 * {"list": [ms...], "summary": [...], "page": [...], "throttles": [...], "errors": n} as JSON.
 */
const POLLER = `
const [base, loops, every] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
const out = { list: [], summary: [], page: [], throttles: [], errors: 0 };
let on = true;
process.stdin.on('end', () => (on = false)).resume();
const get = async (kind, path) => {
  const t = performance.now();
  try {
    const res = await fetch(base + path);
    const text = await res.text();
    if (!res.ok) { out.errors++; return null; }
    out[kind].push(performance.now() - t);
    return JSON.parse(text);
  } catch { out.errors++; return null; }
};
const loop = async () => {
  while (on) {
    const list = await get('list', '/reassignments');
    for (const r of list?.reassignments ?? []) {
      if (r.state !== 'running' && r.state !== 'pending' && r.state !== 'paused') continue;
      await get('summary', '/reassignments/' + r.id);
      await get('page', '/reassignments/' + r.id + '/partitions?state=moving&limit=1000');
    }
    await get('throttles', '/throttles');
    await new Promise((r) => setTimeout(r, every));
  }
};
Promise.all(Array.from({ length: loops }, loop)).then(() => process.stdout.write(JSON.stringify(out)));
`;

/**
 * The event-stream clients (run with node -e), SCALE_CLIENTS=sse: POLLERS clients, each on the
 * all-reassignments stream and, per live reassignment, its own stream; a summary change of a
 * live reassignment (a `progress` event on its stream) reads its first 1,000 moving partitions;
 * /throttles every POLL_MS. On stdin's end: {"connect": [ms to the first event...], "page":
 * [...], "throttles": [...], "events": {type: n}, "errors": n} as JSON.
 */
const SSE_CLIENT = `
const [base, clients, every] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
const out = { connect: [], page: [], throttles: [], events: {}, errors: 0 };
let on = true;
const aborts = new Set();
process.stdin.on('end', () => { on = false; for (const a of aborts) a.abort(); }).resume();
const timed = async (kind, path) => {
  const t = performance.now();
  try {
    const res = await fetch(base + path);
    await res.text();
    if (!res.ok) { out.errors++; return; }
    out[kind].push(performance.now() - t);
  } catch { out.errors++; }
};
/** Reads one stream until stdin ends; onEvent(type, data) per event. Reconnects with Last-Event-ID. */
const stream = async (path, onEvent) => {
  let lastId = null;
  while (on) {
    const abort = new AbortController();
    aborts.add(abort);
    const t = performance.now();
    let first = true;
    try {
      const res = await fetch(base + path, { headers: { accept: 'text/event-stream', ...(lastId && { 'last-event-id': lastId }) }, signal: abort.signal });
      if (res.status !== 200) { out.errors++; await res.text(); await new Promise((r) => setTimeout(r, 1000)); continue; }
      const decoder = new TextDecoder();
      let buf = '';
      for await (const chunk of res.body) {
        buf += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buf.indexOf('\\n\\n')) !== -1) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          let type = 'message', data = '';
          for (const line of block.split('\\n')) {
            if (line.startsWith('event: ')) type = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
            else if (line.startsWith('id: ')) lastId = line.slice(4);
          }
          if (!data) continue;
          if (first) { out.connect.push(performance.now() - t); first = false; }
          out.events[type] = (out.events[type] ?? 0) + 1;
          try { onEvent(type, JSON.parse(data)); } catch { out.errors++; }
        }
      }
    } catch { if (on) out.errors++; }
    aborts.delete(abort);
  }
};
const live = (s) => s === 'running' || s === 'pending' || s === 'paused' || s === 'held';
const client = async () => {
  const followed = new Set();
  const loading = new Set();
  const followOne = (id) => {
    if (followed.has(id)) return;
    followed.add(id);
    return stream('/reassignments/' + id + '/events', (type, d) => {
      if (type === 'progress' && d.reassignment && live(d.reassignment.state) && !loading.has(id)) {
        loading.add(id);
        timed('page', '/reassignments/' + id + '/partitions?state=moving&limit=1000').finally(() => loading.delete(id));
      }
    });
  };
  const all = stream('/reassignments/events', (type, d) => {
    for (const r of d.reassignments ?? (d.reassignment ? [d.reassignment] : [])) if (live(r.state)) followOne(r.id);
  });
  const throttles = (async () => { while (on) { await timed('throttles', '/throttles'); await new Promise((r) => setTimeout(r, every)); } })();
  await Promise.all([all, throttles]);
};
Promise.all(Array.from({ length: clients }, client)).then(() => process.stdout.write(JSON.stringify(out)));
`;

/**
 * The client whose timings are reported (run with node -e): one request per stdin line
 * ({"url", "init"} as JSON), answered in order on stdout as one line of JSON
 * {"ms", "bytes", "status", "text"}. A process of its own, as the sampler: this one runs the
 * simulator, whose event loop (answering a pass's or a poller's 100k-partition request) would
 * hold the reading of an answer here for 100-200 ms and count it against the gateway.
 * An answer over 64 KiB comes back as its top-level scalar fields only (the id, the state):
 * reading the 8 MB answer of a 100k start here, as one line split in 64 KiB pipe chunks, took
 * this process (the simulator's) 130-150 ms in one task (a CPU profile of the bench).
 */
const CLIENT = `
const rl = require('node:readline').createInterface({ input: process.stdin });
let chain = Promise.resolve();
rl.on('line', (line) => {
  const { url, init } = JSON.parse(line);
  chain = chain.then(async () => {
    const t = performance.now();
    try {
      const res = await fetch(url, init);
      const full = await res.text();
      const ms = performance.now() - t;
      let text = full;
      if (full.length > 65536) {
        try {
          const brief = {};
          for (const [k, v] of Object.entries(JSON.parse(full))) if (v === null || typeof v !== 'object') brief[k] = v;
          text = JSON.stringify(brief);
        } catch {
          text = full.slice(0, 2000);
        }
      }
      process.stdout.write(JSON.stringify({ ms, bytes: Buffer.byteLength(full), status: res.status, text }) + '\\n');
    } catch (err) {
      process.stdout.write(JSON.stringify({ ms: performance.now() - t, bytes: 0, status: 0, text: String(err) }) + '\\n');
    }
  });
});
`;

type RequestInit = { method: string; headers?: Record<string, string>; body?: string };
/** One request for the CLIENT process, as the line it reads. */
const requestLine = (url: string, init?: RequestInit): string => JSON.stringify({ url, init }) + '\n';

/** Sends requests to a CLIENT process and resolves each with its answer, in order. */
function timingClient() {
  const proc = spawn(process.execPath, ['-e', CLIENT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting: ((line: string) => void)[] = [];
  let buf = '';
  proc.stdout.on('data', (c: Buffer) => {
    const chunk = c.toString();
    buf += chunk;
    if (!chunk.includes('\n')) return;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      waiting.shift()?.(line);
    }
  });
  /** Sends one request line (requestLine) and resolves with its answer. */
  const timedLine = (request: string): Promise<{ ms: number; bytes: number; status: number; body: any }> =>
    new Promise((resolve) => {
      waiting.push((line) => {
        const { ms, bytes, status, text } = JSON.parse(line) as { ms: number; bytes: number; status: number; text: string };
        resolve({ ms, bytes, status, body: text.startsWith('{') ? JSON.parse(text) : text });
      });
      proc.stdin.write(request);
    });
  const timed = (url: string, init?: RequestInit) => timedLine(requestLine(url, init));
  return { timed, timedLine, pid: proc.pid, close: () => proc.kill() };
}

/**
 * The gateway's event-loop delay max (ms) since `loopMaxMs` was reset: prom-client resets its
 * histogram on every scrape, so every scrape's value is folded in here.
 */
let loopMaxMs = 0;
async function scrape(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^kafka_gateway_nodejs_eventloop_lag_max_seconds ([0-9.e+-]+)$/m.exec(text);
  if (m) loopMaxMs = Math.max(loopMaxMs, Number(m[1]) * 1000);
  return text;
}

async function metric(url: string, name: string): Promise<number | null> {
  const text = await scrape(url);
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
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

async function runSize(n: number) {
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
  const client = timingClient();
  const timed = client.timed;
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
    return { validate: post({ ...file, throttle: 1024, validateOnly: true }), start: post({ ...file, throttle: 1024 }) };
  });
  // /healthz is sampled from a process of its own: this one also runs the simulator, whose
  // event loop (busy answering a 100k-partition request) would otherwise delay the sampler's
  // fetches and be counted against the gateway.
  const sampler = spawn(process.execPath, ['-e', SAMPLER, `${gw.url}/healthz`, String(gw.proc.pid)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
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
  let samplerOut = '';
  sampler.stdout.on('data', (c: Buffer) => (samplerOut += c.toString()));
  const poller =
    POLLERS > 0
      ? spawn(process.execPath, ['-e', SSE_CLIENTS ? SSE_CLIENT : POLLER, gw.url, String(POLLERS), String(POLL_MS)], {
          stdio: ['pipe', 'pipe', 'inherit'],
        })
      : null;
  let pollerOut = '';
  poller?.stdout!.on('data', (c: Buffer) => (pollerOut += c.toString()));
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
      const id: string = post.body.id;
      const movingFrom = Date.now();
      const pass0 = await passTotals(gw.url);
      for (let r = 0; r < 2; r++) {
        const s = await timed(`${gw.url}/reassignments/${id}`);
        summary.push(s.ms);
        summaryBytes = s.bytes;
        const pg = await timed(`${gw.url}/reassignments/${id}/partitions?limit=1000`);
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
        if (st.body?.state !== 'running' && st.body?.state !== 'pending') break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const steps = await stepAverages(gw.url);
    const load = wholeRun();
    return {
      n,
      load,
      roundLoads,
      validate: stat(validate),
      validateBytes,
      post: stat(posts),
      postBytes,
      summary: stat(summary),
      summaryEach: summary,
      summaryBytes,
      page: stat(page),
      pageEach: page,
      pageBytes,
      pass: stat(passes),
      removal: stat(removals),
      steps,
      ...(await (async () => {
        await scrape(gw.url);
        sampler.stdin.end();
        await once(sampler, 'exit');
        const samples = JSON.parse(samplerOut) as [number, number, number, number, number, number][];
        const phaseOf = (at: number): Phase => phases.find(([from, to]) => at >= from && at <= to)?.[2] ?? 'other';
        const byPhase = new Map<Phase, number[]>();
        let rssMoving = 0;
        let rssMax = 0;
        for (const [at, ms, rss] of samples) {
          const ph = phaseOf(at);
          if (!byPhase.has(ph)) byPhase.set(ph, []);
          byPhase.get(ph)!.push(ms);
          if (rss === rss) rssMax = Math.max(rssMax, rss);
          if (ph === 'moving' && rss === rss) rssMoving = Math.max(rssMoving, rss);
        }
        const health = samples.map((x) => x[1]);
        // The samples over 50 ms: how much of each the sampler itself spent waiting for a CPU.
        const slow = samples
          .filter((x) => x[1] > 50)
          .map((x) => `${x[1].toFixed(0)} (${x[5].toFixed(0)})`)
          .join(', ');
        // Per phase: how much of the gateway's main thread's time it was runnable but had no CPU
        // (the simulator, the pollers and the sampler share the machine's two cores with it).
        const waitBy = new Map<Phase, { run: number; wait: number }>();
        for (let i = 1; i < samples.length; i++) {
          const [at, , , run, wait] = samples[i];
          const [, , , run0, wait0] = samples[i - 1];
          if (!(run === run && run0 === run0)) continue;
          const ph = phaseOf(at);
          const w = waitBy.get(ph) ?? { run: 0, wait: 0 };
          w.run += run - run0;
          w.wait += wait - wait0;
          waitBy.set(ph, w);
        }
        const cpuWait = PHASES.filter((p) => waitBy.has(p))
          .map((p) => {
            const w = waitBy.get(p)!;
            return `${p} ${((100 * w.wait) / Math.max(1, w.run + w.wait)).toFixed(0)}%`;
          })
          .join(', ');
        let polls: Record<string, number[] | number | Record<string, number>> | null = null;
        if (poller) {
          poller.stdin.end();
          await once(poller, 'exit');
          polls = JSON.parse(pollerOut) as Record<string, number[] | number | Record<string, number>>;
        }
        const perPhase = PHASES.filter((p) => byPhase.has(p))
          .map((p) => `${p} ${p99(byPhase.get(p)!).toFixed(0)}/${Math.max(...byPhase.get(p)!).toFixed(0)} (${byPhase.get(p)!.length})`)
          .join(', ');
        return {
          health: { p99: p99(health), max: Math.max(...health), samples: health.length, loopMaxMs, perPhase, cpuWait, slow },
          rssMiB: rssMoving / 2 ** 20,
          rssMaxMiB: rssMax / 2 ** 20,
          polls,
        };
      })()),
    };
  } finally {
    client.close();
    if (sampler.exitCode === null) sampler.kill();
    if (poller && poller.exitCode === null) poller.kill();
    gw.proc.kill('SIGTERM');
    await once(gw.proc, 'exit').catch(() => undefined);
    await sim.close();
  }
}

const results = [];
for (const n of SIZES) {
  // GATEWAY_WORKER_THREAD (passed on to the gateway with the rest of the environment): which variant ran (docs/worker-thread.md).
  console.log(`\n== ${n} partitions moving == (reassignment worker thread: ${process.env.GATEWAY_WORKER_THREAD?.trim() || 'off'})`);
  const r = await runSize(n);
  results.push(r);
  console.log(`validateOnly         ${fmt(r.validate)}   ${(r.validateBytes / 1024).toFixed(1)} KiB`);
  console.log(`POST (start)         ${fmt(r.post)}   ${(r.postBytes / 1024).toFixed(1)} KiB`);
  console.log(`summary GET          ${fmt(r.summary)}   ${r.summaryBytes} B`);
  console.log(`page GET (1000 rows) ${fmt(r.page)}   ${(r.pageBytes / 1024).toFixed(1)} KiB`);
  console.log(
    `  each (ms, in order: two per round, the first right after the POST): summary ${r.summaryEach.map((x) => x.toFixed(0)).join(' ')}; page ${r.pageEach.map((x) => x.toFixed(0)).join(' ')}`,
  );
  console.log(
    `/healthz             p99 ${r.health.p99.toFixed(1)} ms, max ${r.health.max.toFixed(1)} ms (${r.health.samples} samples every 100 ms, from another process); gateway event-loop delay max ${r.health.loopMaxMs.toFixed(0)} ms`,
  );
  console.log(`/healthz by phase    p99/max ms (samples): ${r.health.perPhase}`);
  console.log(`/healthz over 50 ms  ${r.health.slow || 'none'} (ms; in brackets, the sampler's own wait for a CPU during it)`);
  console.log(`CPU wait by phase    the gateway's main thread runnable without a CPU, share of its busy time: ${r.health.cpuWait}`);
  console.log(
    `reconcile pass       ${fmt(r.pass, 'ms', 0)} mean wall time per pass while moving (reconciler_pass_duration_seconds; 2000 ms interval)`,
  );
  console.log(`reconcile steps      ${r.steps} (mean ms per step while moving)`);
  console.log(`throttle removal     ${fmt(r.removal, 'ms', 0)} after Kafka's last completion`);
  if (r.polls && SSE_CLIENTS) {
    const kinds = ['connect', 'page', 'throttles'].map((k) => {
      const xs = r.polls![k] as number[];
      return xs.length ? `${k} ${xs.length}x p99 ${p99(xs).toFixed(0)} / max ${Math.max(...xs).toFixed(0)} ms` : `${k} 0x`;
    });
    console.log(
      `SSE clients          ${POLLERS} (streams; /throttles every ${POLL_MS} ms): ${kinds.join(', ')}; events ${JSON.stringify(r.polls.events)}; ${r.polls.errors} errors`,
    );
  } else if (r.polls) {
    const kinds = ['list', 'summary', 'page', 'throttles'].map((k) => {
      const xs = r.polls![k] as number[];
      return xs.length ? `${k} ${xs.length}x p99 ${p99(xs).toFixed(0)} / max ${Math.max(...xs).toFixed(0)} ms` : `${k} 0x`;
    });
    console.log(`polling clients      ${POLLERS} every ${POLL_MS} ms: ${kinds.join(', ')}; ${r.polls.errors} errors`);
  } else console.log('polling clients      none (SCALE_POLLERS=0)');
  console.log(
    `gateway RSS          ${r.rssMiB.toFixed(0)} MiB max while moving, ${r.rssMaxMiB.toFixed(0)} MiB max over the whole run (VmRSS every 100 ms)`,
  );
  // Every figure above was taken under this load; the bench's own processes are this one (the
  // simulator), the timing client, the /healthz sampler and the pollers.
  console.log(`load, whole run      ${describeLoad(r.load)}`);
  for (const [i, w] of r.roundLoads.entries()) console.log(`  round ${i + 1}           ${describeLoad(w)}`);
}
if (results.length > 1) {
  const a = results[0];
  const b = results.at(-1)!;
  const per = (x: number, n: number) => x / n;
  console.log(`\n== growth ratio, per partition (median at ${b.n} / median at ${a.n}; linear = 1) ==`);
  console.log(`validateOnly ${(per(b.validate.median, b.n) / per(a.validate.median, a.n)).toFixed(2)}`);
  console.log(`POST         ${(per(b.post.median, b.n) / per(a.post.median, a.n)).toFixed(2)}`);
  console.log(`summary GET (constant-size answer; ratio of totals) ${(b.summary.median / a.summary.median).toFixed(2)}`);
  console.log(`page GET (same 1000 rows; ratio of totals)         ${(b.page.median / a.page.median).toFixed(2)}`);
}
