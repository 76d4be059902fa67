// bench/scale.ts's figures: the min/median/max statistics, the /healthz samples summed up by
// phase of the run, and the printing of each size's figures and of the growth ratio.
import type { ClientsReport, HealthSample } from './scale-clients.js';
import { describeLoad, type LoadWindow } from './machine-load.js';

export const PHASES = ['validateOnly', 'POST', 'moving', 'ending', 'other'] as const;
export type Phase = (typeof PHASES)[number];
export type Stat = { min: number; median: number; max: number };
export const stat = (xs: number[]): Stat => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0] ?? NaN, median: s[Math.floor((s.length - 1) / 2)] ?? NaN, max: s.at(-1) ?? NaN };
};
const fmt = (s: Stat, unit = 'ms', d = 1) => `${s.min.toFixed(d)} / ${s.median.toFixed(d)} / ${s.max.toFixed(d)} ${unit}`;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? NaN;

/** /healthz over a size's run: overall, per phase, the slow samples and the gateway's CPU wait. */
export interface HealthFigures {
  p99: number;
  max: number;
  samples: number;
  loopMaxMs: number;
  perPhase: string;
  /** The gateway's RSS max per phase (MiB), as perPhase. */
  rssPerPhase: string;
  cpuWait: string;
  slow: string;
}

/** Everything one size's run measured. */
export interface SizeResult {
  n: number;
  load: LoadWindow;
  roundLoads: LoadWindow[];
  validate: Stat;
  /** Each round's, in order (the first rounds pay for the gateway's warm-up). */
  validateEach: number[];
  validateBytes: number;
  post: Stat;
  postEach: number[];
  postBytes: number;
  summary: Stat;
  summaryEach: number[];
  /** The simulator's (this process's) event-loop delay max during each summary GET, ms. */
  summarySimLoop: number[];
  summaryBytes: number;
  page: Stat;
  pageEach: number[];
  /** The same during each page GET. */
  pageSimLoop: number[];
  pageBytes: number;
  pass: Stat;
  removal: Stat;
  steps: string;
  /** Summary GETs (the timed ones and the pollers') by where they were answered, from /metrics; null: in-process (no worker). */
  summaryAnswers: { httpThread: number; worker: number } | null;
  /** The worker's heap releases after large exchanges (memory-reducing collections). */
  heapReleases: number | null;
  health: HealthFigures;
  rssMiB: number;
  rssMaxMiB: number;
  polls: ClientsReport | null;
}

/**
 * The sampler's /healthz samples by phase of the run (`phases`: [from, to, name] in Date.now()
 * time; a sample in none is 'other'), with the gateway's RSS (max while moving, max overall).
 */
export function summarizeHealth(samples: HealthSample[], phases: [number, number, Phase][], loopMaxMs: number) {
  const phaseOf = (at: number): Phase => phases.find(([from, to]) => at >= from && at <= to)?.[2] ?? 'other';
  const byPhase = new Map<Phase, number[]>();
  // The RSS max per phase; while moving and over the whole run are read from it.
  const rssBy = new Map<Phase, number>();
  for (const [at, ms, rss] of samples) {
    const ph = phaseOf(at);
    if (!byPhase.has(ph)) byPhase.set(ph, []);
    byPhase.get(ph)!.push(ms);
    if (rss === rss) rssBy.set(ph, Math.max(rssBy.get(ph) ?? 0, rss)); // rss !== rss: NaN, not read
  }
  const rssMoving = rssBy.get('moving') ?? 0;
  const rssMax = Math.max(0, ...rssBy.values());
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
  const perPhase = PHASES.filter((p) => byPhase.has(p))
    .map((p) => `${p} ${p99(byPhase.get(p)!).toFixed(0)}/${Math.max(...byPhase.get(p)!).toFixed(0)} (${byPhase.get(p)!.length})`)
    .join(', ');
  const rssPerPhase = PHASES.filter((p) => rssBy.has(p))
    .map((p) => `${p} ${(rssBy.get(p)! / 2 ** 20).toFixed(0)}`)
    .join(', ');
  const figures: HealthFigures = {
    p99: p99(health),
    max: Math.max(...health),
    samples: health.length,
    loopMaxMs,
    perPhase,
    rssPerPhase,
    cpuWait,
    slow,
  };
  return { health: figures, rssMiB: rssMoving / 2 ** 20, rssMaxMiB: rssMax / 2 ** 20 };
}

/** `kind Nx p50 … / p90 … / p99 … / max … ms` for each kind of request the clients timed. */
function latencies<K extends string>(report: Record<K, number[]>, kinds: readonly K[]): string {
  return kinds
    .map((k) => {
      const xs = report[k];
      if (!xs.length) return `${k} 0x`;
      const sorted = [...xs].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(0);
      return `${k} ${xs.length}x p50 ${at(0.5)} / p90 ${at(0.9)} / p99 ${p99(xs).toFixed(0)} / max ${sorted.at(-1)!.toFixed(0)} ms`;
    })
    .join(', ');
}

/** Prints one size's figures; `clients` is how the polling clients ran (SCALE_POLLERS, SCALE_POLL_MS). */
export function printSize(r: SizeResult, clients: { pollers: number; pollMs: number }): void {
  const { pollers, pollMs } = clients;
  console.log(`validateOnly         ${fmt(r.validate)}   ${(r.validateBytes / 1024).toFixed(1)} KiB`);
  console.log(`POST (start)         ${fmt(r.post)}   ${(r.postBytes / 1024).toFixed(1)} KiB`);
  console.log(
    `  each round (ms, in order): validateOnly ${r.validateEach.map((x) => x.toFixed(0)).join(' ')}; POST ${r.postEach.map((x) => x.toFixed(0)).join(' ')}`,
  );
  console.log(`summary GET          ${fmt(r.summary)}   ${r.summaryBytes} B`);
  console.log(`page GET (1000 rows) ${fmt(r.page)}   ${(r.pageBytes / 1024).toFixed(1)} KiB`);
  console.log(
    `  each (ms, in order: two per round, the first right after the POST): summary ${r.summaryEach.map((x) => x.toFixed(0)).join(' ')}; page ${r.pageEach.map((x) => x.toFixed(0)).join(' ')}`,
  );
  // A summary GET waits for the state topic's end offset from Kafka, here the simulator, which
  // answers it between its big answers (one thread, where a broker has several): a slow GET
  // during a long delay of the simulator's loop was waiting for the simulator.
  console.log(
    `  simulator's event-loop delay max during each (ms): summary ${r.summarySimLoop.map((x) => x.toFixed(0)).join(' ')}; page ${r.pageSimLoop.map((x) => x.toFixed(0)).join(' ')}`,
  );
  if (r.summaryAnswers)
    console.log(
      `  summary GETs answered by the HTTP thread (the worker's posted summary, fresh) / forwarded to the worker: ${r.summaryAnswers.httpThread} / ${r.summaryAnswers.worker}`,
    );
  if (r.heapReleases !== null) console.log(`  worker heap releases after large exchanges (memory-reducing collections): ${r.heapReleases}`);
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
  if (r.polls?.kind === 'sse') {
    const { report } = r.polls;
    const kinds = latencies(report, ['connect', 'page', 'throttles']);
    console.log(
      `SSE clients          ${pollers} (streams; /throttles every ${pollMs} ms): ${kinds}; events ${JSON.stringify(report.events)}; ${report.errors} errors`,
    );
  } else if (r.polls) {
    const { report } = r.polls;
    const kinds = latencies(report, ['list', 'summary', 'page', 'throttles']);
    console.log(`polling clients      ${pollers} every ${pollMs} ms: ${kinds}; ${report.errors} errors`);
  } else console.log('polling clients      none (SCALE_POLLERS=0)');
  console.log(
    `gateway RSS          ${r.rssMiB.toFixed(0)} MiB max while moving, ${r.rssMaxMiB.toFixed(0)} MiB max over the whole run (VmRSS every 100 ms)`,
  );
  console.log(`RSS by phase         max MiB: ${r.health.rssPerPhase}`);
  // Every figure above was taken under this load; the bench's own processes are this one (the
  // simulator), the timing client, the /healthz sampler and the pollers.
  console.log(`load, whole run      ${describeLoad(r.load)}`);
  for (const [i, w] of r.roundLoads.entries()) console.log(`  round ${i + 1}           ${describeLoad(w)}`);
}

/** Prints the per-partition growth from the first size's figures to the last's (medians). */
export function printGrowth(results: SizeResult[]): void {
  if (results.length <= 1) return;
  const a = results[0];
  const b = results.at(-1)!;
  const per = (x: number, n: number) => x / n;
  console.log(`\n== growth ratio, per partition (median at ${b.n} / median at ${a.n}; linear = 1) ==`);
  console.log(`validateOnly ${(per(b.validate.median, b.n) / per(a.validate.median, a.n)).toFixed(2)}`);
  console.log(`POST         ${(per(b.post.median, b.n) / per(a.post.median, a.n)).toFixed(2)}`);
  console.log(`summary GET (constant-size answer; ratio of totals) ${(b.summary.median / a.summary.median).toFixed(2)}`);
  console.log(`page GET (same 1000 rows; ratio of totals)         ${(b.page.median / a.page.median).toFixed(2)}`);
}
