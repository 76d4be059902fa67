// /metrics with the worker thread's metrics in it: the HTTP thread's registry answers its own
// (HTTP, process, quota, Kafka requests of both threads: the worker sends its Kafka requests
// over, protocol.ts KafkaRequestBatch) followed by the worker's registry's metrics that the HTTP
// thread does not have (reconciler, state store, throttles, webhooks, event streams), taken as
// getMetricsAsJSON() gives them and rendered by prom-client's AggregatorRegistry. Every metric
// name of the in-process gateway appears once.
import { AggregatorRegistry, Counter, Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../observability/metrics.js';
import type { PostedSummaries } from './summary-answers.js';
import type { WorkerSupervisor } from './supervisor.js';

/** /metrics does not wait longer than this for the worker (a busy worker's metrics are left out of that scrape). */
const WORKER_METRICS_WAIT_MS = 2000;

type MetricJson = { name: string };

async function workerMetrics(supervisor: WorkerSupervisor): Promise<MetricJson[] | null> {
  if (!supervisor.ready) return null;
  let timer: NodeJS.Timeout | undefined;
  try {
    return (await Promise.race([
      supervisor.call('metrics'),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), WORKER_METRICS_WAIT_MS);
      }),
    ])) as MetricJson[] | null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** Registers the worker's own metrics and makes `registry.metrics()` include the worker's. */
export function mergeWorkerMetrics(
  registry: Registry,
  supervisor: WorkerSupervisor,
  summaries?: Pick<PostedSummaries, 'answered' | 'passed'>,
): void {
  new Gauge({
    name: `${METRIC_PREFIX}reassignment_worker_up`,
    help: '1 while the reassignment worker thread runs and answers, 0 while it starts or restarts.',
    registers: [registry],
    collect() {
      this.set(supervisor.ready ? 1 : 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}reassignment_worker_heap_bytes`,
    help: "The reassignment worker thread's V8 heap: kind used (live and not yet collected), total (reserved), external (buffers and array buffers its objects hold) or malloced (V8's own allocations outside the heap: compiler zones, tables). The process metrics (RSS) count both threads; nodejs_heap_* is the HTTP thread's.",
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const heap = await supervisor.heap();
      if (!heap) return;
      this.set({ kind: 'used' }, heap.used);
      this.set({ kind: 'total' }, heap.total);
      this.set({ kind: 'external' }, heap.external);
      this.set({ kind: 'malloced' }, heap.malloced);
    },
  });
  let startsSeen = 0;
  new Counter({
    name: `${METRIC_PREFIX}reassignment_worker_starts_total`,
    help: 'Reassignment worker threads started (the first, then one per restart after a crash).',
    registers: [registry],
    collect() {
      if (supervisor.starts > startsSeen) this.inc(supervisor.starts - startsSeen);
      startsSeen = supervisor.starts;
    },
  });
  if (summaries) {
    const seen = { http_thread: 0, worker: 0 };
    new Counter({
      name: `${METRIC_PREFIX}reassignment_summary_answers_total`,
      help: "GET /reassignments/{id} by where it was answered: http_thread (the summary the worker posted, fresh as of the state topic's end offset) or worker (forwarded: not posted, not fresh, or with a query).",
      labelNames: ['answered_by'] as const,
      registers: [registry],
      collect() {
        for (const [by, now] of [
          ['http_thread', summaries.answered],
          ['worker', summaries.passed],
        ] as const) {
          this.inc({ answered_by: by }, now - seen[by]);
          seen[by] = now;
        }
      },
    });
  }
  const own = registry.metrics.bind(registry);
  registry.metrics = async () => {
    const [text, worker] = await Promise.all([own(), workerMetrics(supervisor)]);
    if (!worker) return text;
    const ownNames = new Set(registry.getMetricsAsArray().map((m) => m.name));
    const extra = worker.filter((m) => !ownNames.has(m.name));
    if (extra.length === 0) return text;
    const rendered = await AggregatorRegistry.aggregate([extra]).metrics();
    return `${text}${text.endsWith('\n') ? '' : '\n'}${rendered}`;
  };
}
