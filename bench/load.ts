// A bounded load run on loopback against the real gateway process (src/main.ts, the
// embedded demo cluster, bearer-token authentication on), with autocannon.
//
//   npm run bench:load                       (DURATION=10 s, CONNECTIONS=10)
//   DURATION=20 CONNECTIONS=32 npm run bench:load
//
// Two phases in the same run, against the same process:
//   baseline = GET /healthz (HTTP + middleware, no Kafka)
//   mixed    = per connection, in a loop: GET /topics, GET /topics/orders,
//              POST /topics (a new topic), DELETE /topics/{that topic}, GET /cluster
// It prints throughput, p50/p99 latency, the ratio mixed/baseline (ratios hold across
// machines; absolute numbers do not), requests lost (errors, timeouts) or answered
// 5xx - both must be 0, or the exit code is 1 - and the gateway's memory (from its own
// /metrics) at start and end. It stops by itself.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import { generateToken, sha256Hex } from '../src/http/auth/tokens.js';

const DURATION = Math.min(20, Math.max(1, Number(process.env.DURATION ?? 10)));
const BASELINE_DURATION = Math.max(1, Math.min(5, Math.round(DURATION / 3)));
const CONNECTIONS = Math.max(1, Number(process.env.CONNECTIONS ?? 10));
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

const token = generateToken();
const auth = { Authorization: `Bearer ${token}` };

function startGateway(): Promise<{ url: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', GATEWAY_TOKENS: `bench:admin:${sha256Hex(token)}` },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /Kafka admin gateway: (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1], stop: () => (child.kill('SIGTERM'), exited) });
    });
    void exited.then((code) => reject(new Error(`gateway exited (${code}) before listening:\n${out}`)));
  });
}

async function memory(url: string): Promise<{ rssMiB: number; heapUsedMiB: number }> {
  const text = await (await fetch(`${url}/metrics`, { headers: auth })).text();
  const metric = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
  return {
    rssMiB: metric('kafka_gateway_process_resident_memory_bytes'),
    heapUsedMiB: metric('kafka_gateway_nodejs_heap_size_used_bytes'),
  };
}

function run(opts: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    // autocannon types its callback's error as `any`; what it passes is an Error (a bad option, a worker's failure) or null.
    autocannon(opts, (err: Error | null, res) => (err ? reject(err) : resolve(res)));
  });
}

function fiveXx(r: Result): number {
  const stats = (r as Result & { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  return Object.entries(stats).reduce((n, [code, s]) => (Number(code) >= 500 ? n + (s.count ?? 0) : n), 0);
}

function statusCounts(r: Result): string {
  const stats = (r as Result & { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  return Object.entries(stats)
    .map(([c, s]) => `${c}:${s.count}`)
    .join(' ');
}

async function main(): Promise<number> {
  const gw = await startGateway();
  try {
    const memStart = await memory(gw.url);

    let seq = 0;
    const mixedRequests: autocannon.Request[] = [
      { method: 'GET', path: '/topics' },
      { method: 'GET', path: '/topics/orders' },
      {
        method: 'POST',
        path: '/topics',
        headers: { ...auth, 'content-type': 'application/json' },
        setupRequest: (req, context) => {
          const name = `load-${process.pid}-${seq++}`;
          (context as { topic?: string }).topic = name;
          return { ...req, body: JSON.stringify({ name, partitions: 2, replicationFactor: 2 }) };
        },
      },
      {
        method: 'DELETE',
        setupRequest: (req, context) => ({ ...req, path: `/topics/${(context as { topic?: string }).topic}` }),
      },
      { method: 'GET', path: '/cluster' },
    ];
    // Warm-up (JIT, connection pools), not measured; then baseline and mixed.
    await run({ url: gw.url, connections: CONNECTIONS, duration: 1, headers: auth, requests: mixedRequests });
    await run({ url: gw.url, connections: CONNECTIONS, duration: 1, requests: [{ method: 'GET', path: '/healthz' }] });
    const baseline = await run({
      url: gw.url,
      connections: CONNECTIONS,
      duration: BASELINE_DURATION,
      requests: [{ method: 'GET', path: '/healthz' }],
    });
    const mixed = await run({ url: gw.url, connections: CONNECTIONS, duration: DURATION, headers: auth, requests: mixedRequests });

    const memEnd = await memory(gw.url);
    const row = (name: string, r: Result) =>
      `${name.padEnd(9)} ${String(Math.round(r.requests.average)).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   total ${r.requests.total}   status ${statusCounts(r)}`;
    const lost = mixed.errors + mixed.timeouts + baseline.errors + baseline.timeouts;
    const failed = fiveXx(mixed) + fiveXx(baseline);
    const non2xx = mixed.non2xx + baseline.non2xx;

    console.log(
      `\nbench:load  ${CONNECTIONS} connections, baseline ${BASELINE_DURATION} s + mixed ${DURATION} s, loopback, embedded simulator, bearer auth on`,
    );
    console.log(row('baseline', baseline) + '   (GET /healthz)');
    console.log(row('mixed', mixed) + '   (GET /topics, GET /topics/orders, POST /topics, DELETE /topics/{t}, GET /cluster)');
    console.log(
      `ratio     mixed/baseline throughput ${(mixed.requests.average / baseline.requests.average).toFixed(3)}   p99 ${(mixed.latency.p99 / Math.max(1, baseline.latency.p99)).toFixed(1)}x`,
    );
    console.log(
      `lost      ${lost} (errors ${mixed.errors + baseline.errors}, timeouts ${mixed.timeouts + baseline.timeouts})   5xx ${failed}   other non-2xx ${non2xx - failed}`,
    );
    console.log(
      `memory    rss ${memStart.rssMiB.toFixed(1)} -> ${memEnd.rssMiB.toFixed(1)} MiB   heap used ${memStart.heapUsedMiB.toFixed(1)} -> ${memEnd.heapUsedMiB.toFixed(1)} MiB`,
    );
    if (lost > 0 || failed > 0 || non2xx - failed > 0) {
      console.error('FAIL: requests were lost or answered with errors');
      return 1;
    }
    return 0;
  } finally {
    const code = await gw.stop();
    if (code !== 0) console.error(`gateway exited with ${code}`);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
