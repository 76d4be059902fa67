// The reassignment worker thread, as src/main.ts wires it (GATEWAY_WORKER_THREAD, choice.ts): the
// supervisor, the forwarder for src/http/app.ts, the state store's readiness seen through the
// worker, and the worker's metrics in /metrics. Design and figures: docs/worker-thread.md.
import { setFlagsFromString } from 'node:v8';
import type { RequestHandler } from 'express';
import { envInt } from '../env.js';
import { processNodeFlags } from '../heap-release.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Logger } from '../observability/logger.js';
import { loadReassignmentConfig } from '../reconcile/index.js';
import type { StateHealth } from '../state/store.js';
import { forwardToWorker } from './forward.js';
import { PostedSummaries, summaryGetKeptHere, summaryRoute, type StateLogOffsets } from './summary-answers.js';
import { mergeWorkerMetrics } from './metrics.js';
import type { WorkerStartData } from './protocol.js';
import { WORKER_YOUNG_GENERATION_MB, WorkerSupervisor } from './supervisor.js';

export { isWorkerPath } from './forward.js';
export { chooseWorkerThread, countClusterPartitions, parseWorkerThreadSetting, type WorkerThreadChoice } from './choice.js';
export { WorkerSupervisor, WorkerUnavailableError } from './supervisor.js';

/**
 * GATEWAY_WORKER_HEAP_GROWING_PERCENT's default: 0, the node flags' value (bin/gateway.sh: 30).
 * A trade, measured at 100,000 moving partitions (docs/worker-thread.md): 15 kept both threads
 * under 400 MiB in five runs of five (370-395), for ~30 % more of the gateway's CPU, and the
 * HTTP thread's own collections come more often too (a V8 flag is the process's): the summary
 * GET went over 50 ms in three runs and `/healthz` over 50 ms in one. 20: 384-410 MiB.
 */
export const WORKER_HEAP_GROWING_PERCENT = 0;

/**
 * GATEWAY_WORKER_HEAP_RELEASE_BYTES's default: 0, off. Set (e.g. 4194304), after a forwarded
 * request and answer of that many bytes or more together (a start or dry run of ~30,000
 * partitions or more) the worker's next full collections give its free heap pages back to the
 * OS (heap-releaser.ts). A trade, measured at 100,000 moving partitions (docs/worker-thread.md,
 * nineteenth session): RSS 333-356 MiB in six runs against 350-389, but the page GET a second
 * after a start took up to 159 ms (over 150 in two runs of six) against up to 113, and the
 * gateway ~4 % more CPU.
 */
export const WORKER_HEAP_RELEASE_BYTES = 0;

export interface ReassignmentWorker {
  readonly supervisor: WorkerSupervisor;
  /** Mount in the HTTP thread's app before access control (AppOptions.reassignmentWorker). */
  readonly forward: RequestHandler;
  /** GET /reassignments/{id} answered on this thread when it can (summary-answers.ts); mount with the routes. */
  readonly summary?: RequestHandler;
  /** For /readyz: the worker's state store, or why the worker cannot answer now. */
  readonly stateStore: { readonly topic: string; refresh(): Promise<unknown>; health(): StateHealth };
  /** The gateway's state topic (not deletable through the gateway). */
  readonly stateTopic: string;
  /** Forwarded requests that may have changed the cluster, answered so far (forwardToWorker's onWrite). */
  readonly writes: () => number;
  /** Shutdown, part 1 (on SIGTERM): no new reconcile pass, event streams end. */
  drain(): Promise<void>;
  /** Shutdown, part 2 (after the server closed): the worker ends. */
  stop(): Promise<void>;
}

export interface WorkerWiring {
  env: NodeJS.ProcessEnv;
  /** Values the worker's environment needs beyond process.env (the embedded simulator's bootstrap servers). */
  envOverrides: Record<string, string>;
  externalKafka: boolean;
  bandwidthBytesPerSecond: number | null;
  metrics: GatewayMetrics;
  logger: Logger;
  /** How long to wait for the worker's first start before listening anyway (/readyz says why meanwhile). */
  firstStartWaitMs?: number;
  /**
   * The state topic's offsets on this thread's own Kafka connections: with it, summary GETs are
   * answered here from the worker's posts when those are fresh (summary-answers.ts).
   */
  stateLog?: (topic: string) => StateLogOffsets;
}

export async function startReassignmentWorker(w: WorkerWiring): Promise<ReassignmentWorker> {
  const config = loadReassignmentConfig({ ...w.env, ...w.envOverrides });
  const testHooks = w.env.GATEWAY_WORKER_TEST_HOOKS === '1';
  const problems: string[] = [];
  const heapReleaseBytes = envInt(w.env, 'GATEWAY_WORKER_HEAP_RELEASE_BYTES', WORKER_HEAP_RELEASE_BYTES, 0, 2 ** 40, problems);
  const start: WorkerStartData = {
    // One instance id for every worker this process starts: a restarted worker is the same
    // instance (its claims and ledger entries are its own), as a restarted pod with a fixed id.
    env: { ...w.envOverrides, GATEWAY_INSTANCE_ID: config.instanceId },
    externalKafka: w.externalKafka,
    bandwidthBytesPerSecond: w.bandwidthBytesPerSecond,
    heapReleaseBytes,
    nodeFlags: processNodeFlags(),
    testHooks,
  };
  // The first restart's delay (doubling up to 10 s), and the worker's young generation (supervisor.ts).
  const restartMs = envInt(w.env, 'GATEWAY_WORKER_RESTART_MS', 250, 0, 600_000, problems);
  const youngMb = envInt(w.env, 'GATEWAY_WORKER_YOUNG_GENERATION_MB', WORKER_YOUNG_GENERATION_MB, 1, 1024, problems);
  const growingPercent = envInt(w.env, 'GATEWAY_WORKER_HEAP_GROWING_PERCENT', WORKER_HEAP_GROWING_PERCENT, 0, 1000, problems);
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  // V8's allowance after a full collection, for both isolates (a V8 flag is the process's): it is
  // read at each collection, so setting it here, before the worker's isolate exists, is enough.
  // The worker's heap is the one that grows (100,000 partitions' state, the start's big body);
  // the HTTP thread's stays small either way. 0 leaves the node flags' (bin/gateway.sh) value.
  if (growingPercent > 0) {
    setFlagsFromString(`--heap-growing-percent=${growingPercent}`);
    w.logger.info('heap growing percent set for the worker thread', { heapGrowingPercent: growingPercent });
  }
  const posted = w.stateLog ? new PostedSummaries(w.stateLog(config.stateTopic)) : undefined;
  const supervisor = new WorkerSupervisor({
    start,
    logger: w.logger,
    youngGenerationMb: youngMb,
    initialBackoffMs: restartMs,
    maxBackoffMs: Math.max(10_000, restartMs),
    onKafkaRequests: (requests) => {
      for (const [api, error, seconds] of requests) w.metrics.onKafkaRequest(api, error, seconds);
    },
    onSummaries: (m) => (m === null ? posted?.clear() : posted?.receive(m)),
  });
  mergeWorkerMetrics(w.metrics.registry, supervisor, posted);
  // TEST ONLY: SIGUSR2 makes the worker throw (test/worker/*.integration.test.ts).
  if (testHooks) process.on('SIGUSR2', () => supervisor.crashForTest());
  supervisor.start();
  const waitMs = w.firstStartWaitMs ?? 120_000;
  let timer: NodeJS.Timeout | undefined;
  const started = await Promise.race([
    supervisor.whenReady().then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
  ]);
  clearTimeout(timer);
  if (!started)
    w.logger.warn('reassignment worker thread not ready yet; listening anyway (/readyz answers 503 until it is)', {
      waitedMs: waitMs,
      reason: supervisor.unavailableReason(),
    });
  const stateStore = {
    topic: config.stateTopic,
    refresh: () => supervisor.refreshState(),
    health: (): StateHealth => {
      const reason = supervisor.unavailableReason();
      return reason === null ? supervisor.health : { status: 'unavailable', reason, since: supervisor.unavailableSince };
    },
  };
  let writes = 0;
  const onWrite = () => void writes++;
  return {
    supervisor,
    forward: forwardToWorker(supervisor, w.logger, { onWrite, ...(posted && { keepHere: summaryGetKeptHere }) }),
    ...(posted && { summary: summaryRoute(posted, forwardToWorker(supervisor, w.logger, { onWrite })) }),
    writes: () => writes,
    stateStore,
    stateTopic: config.stateTopic,
    drain: () => supervisor.drain(),
    stop: () => supervisor.stop(),
  };
}
