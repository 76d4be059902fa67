// bench/scale.ts's client processes: the /healthz sampler, the polling (or event-stream) clients
// and the timing client, each run with `node -e` as a process of its own (bench/scale.ts runs the
// simulator, whose event loop would otherwise delay their reading of the gateway's answers), and
// the types of the JSON each one writes back.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

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

/**
 * One /healthz sample, as SAMPLER writes it: Date.now() at the request, latency ms, gateway VmRSS
 * bytes (NaN when unreadable), the gateway main thread's ns on a CPU and ns waiting for one so far,
 * ms the sampler itself waited for a CPU during the request.
 */
export type HealthSample = [at: number, ms: number, rss: number, run: number, wait: number, ownWaitMs: number];

/** What POLLER writes on stdin's end: each request kind's latencies (ms) and the failed requests. */
export interface PollerReport {
  list: number[];
  summary: number[];
  page: number[];
  throttles: number[];
  errors: number;
}

/** What SSE_CLIENT writes on stdin's end: latencies (ms), the count of each event type, the failures. */
export interface SseReport {
  connect: number[];
  page: number[];
  throttles: number[];
  events: Record<string, number>;
  errors: number;
}

/** The clients' report, by which kind ran (SCALE_CLIENTS). */
export type ClientsReport = { kind: 'sse'; report: SseReport } | { kind: 'poll'; report: PollerReport };

/** A child process run with `node -e script args...`, its stdout collected until it exits. */
function scriptProcess(script: string, args: string[]) {
  const proc = spawn(process.execPath, ['-e', script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return {
    pid: proc.pid,
    /** Closes its stdin (its signal to write its report) and resolves with what it wrote. */
    finish: async (): Promise<string> => {
      proc.stdin.end();
      await once(proc, 'exit');
      return out;
    },
    /** Kills it if it is still running. */
    stop: () => {
      if (proc.exitCode === null) proc.kill();
    },
  };
}

/** Starts the /healthz sampler (SAMPLER) against `healthzUrl`, reading the gateway's /proc entries. */
export function startSampler(healthzUrl: string, gatewayPid: number | undefined) {
  const p = scriptProcess(SAMPLER, [healthzUrl, String(gatewayPid)]);
  return { pid: p.pid, stop: p.stop, finish: async () => JSON.parse(await p.finish()) as HealthSample[] };
}

/** Starts `clients` polling clients (POLLER) or, with `sse`, event-stream clients (SSE_CLIENT). */
export function startClients(baseUrl: string, sse: boolean, clients: number, everyMs: number) {
  const p = scriptProcess(sse ? SSE_CLIENT : POLLER, [baseUrl, String(clients), String(everyMs)]);
  const finish = async (): Promise<ClientsReport> => {
    const out = await p.finish();
    return sse ? { kind: 'sse', report: JSON.parse(out) as SseReport } : { kind: 'poll', report: JSON.parse(out) as PollerReport };
  };
  return { pid: p.pid, stop: p.stop, finish };
}

export type RequestInit = { method: string; headers?: Record<string, string>; body?: string };
/** One request for the CLIENT process, as the line it reads. */
export const requestLine = (url: string, init?: RequestInit): string => JSON.stringify({ url, init }) + '\n';

/** The fields of a gateway answer the bench reads back (a reassignment's id and state). */
export interface AnswerFields {
  id?: string;
  state?: string;
}

/** One answer as CLIENT reports it: a JSON object's fields, or the text of anything else. */
export interface TimedAnswer {
  ms: number;
  bytes: number;
  status: number;
  body: AnswerFields | string;
}

/** A field of an answer's JSON object; undefined when the answer was not one. */
export const answerField = (a: TimedAnswer, name: keyof AnswerFields): string | undefined =>
  typeof a.body === 'string' ? undefined : a.body[name];

/** Sends requests to a CLIENT process and resolves each with its answer, in order. */
export function timingClient() {
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
  const timedLine = (request: string): Promise<TimedAnswer> =>
    new Promise((resolve) => {
      waiting.push((line) => {
        const { ms, bytes, status, text } = JSON.parse(line) as { ms: number; bytes: number; status: number; text: string };
        resolve({ ms, bytes, status, body: text.startsWith('{') ? (JSON.parse(text) as AnswerFields) : text });
      });
      proc.stdin.write(request);
    });
  const timed = (url: string, init?: RequestInit) => timedLine(requestLine(url, init));
  return { timed, timedLine, pid: proc.pid, close: () => proc.kill() };
}
