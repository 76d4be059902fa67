// A simulator + real Kafka layer + gateway app WITH the reassignment runtime (state topic,
// throttle sync, reconciler), for the /reassignments and /throttles tests. Responses are
// validated against openapi.yaml. The reconciler runs on a short interval; tests wait for
// conditions with `eventually`, never for fixed times.
import assert from 'node:assert/strict';
import request from 'supertest';
import { appOverKafka } from './app-over-kafka.js';
import { createMetrics, type GatewayMetrics } from '../../src/observability/metrics.js';
import { createReassignmentMetrics } from '../../src/observability/reassignment-metrics.js';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { createReassignmentRuntime, loadReassignmentConfig, type ReassignmentRuntime } from '../../src/reconcile/index.js';
import { THROTTLE_KEYS, type ThrottleSyncHooks } from '../../src/reconcile/throttle-sync.js';
import { startSimulator, type ManualClock, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import { assertNoRequestOutsideRelease } from '../sim/out-of-range-guard.js';
import { FAST_KAFKA_ENV, recordingLogger, type RecordingLogger } from './helpers.js';
import { eventually } from '../eventually.js';

export interface ReassignGateway {
  sim: Simulator;
  kafka: PlatformaticKafkaGateway;
  runtime: ReassignmentRuntime;
  metrics: GatewayMetrics;
  logger: RecordingLogger;
  app: ReturnType<typeof appOverKafka>;
  http(): ReturnType<typeof request>;
  close(): Promise<void>;
}

export interface ReassignGatewayOptions {
  simulator?: SimulatorOptions;
  /** An existing simulator (a second gateway instance on the same cluster). */
  sim?: Simulator;
  env?: Record<string, string>;
  /** Start the reconciler loop (default true). */
  reconcile?: boolean;
  /** Drives the simulator's replica copies AND the gateway's clock (records, progress samples). */
  clock?: ManualClock;
  /** Gates in the throttle sync (forced interleavings). */
  syncGate?: ThrottleSyncHooks['gate'];
  /** The instance's monotonic clock for claim leases (a clock moved ahead = every other instance paused). */
  monotonic?: () => number;
  /** This instance's wall clock runs this far ahead of the machine's (clock skew between hosts). */
  wallClockOffsetMs?: number;
  /** Hears of every Kafka request the gateway completes (after the metrics do). */
  onKafkaRequest?: (api: string, error: string | null | undefined, seconds: number) => void;
}

export async function startReassignGateway(opts: ReassignGatewayOptions = {}): Promise<ReassignGateway> {
  const sim = opts.sim ?? (await startSimulator({ brokers: 4, ...(opts.clock && { clock: opts.clock }), ...opts.simulator }));
  const metrics = createMetrics({ defaultMetrics: false });
  const kafka = createKafkaGateway(parseKafkaConfig({ ...FAST_KAFKA_ENV, KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') }), {
    onKafkaRequest: opts.onKafkaRequest
      ? (api, error, seconds) => {
          metrics.onKafkaRequest(api, error, seconds);
          opts.onKafkaRequest!(api, error, seconds);
        }
      : metrics.onKafkaRequest,
  });
  // The Kafka request timeout the leases must outlast is the client's (src/reconcile/config.ts).
  const config = loadReassignmentConfig({
    RECONCILE_INTERVAL_MS: '100',
    STALL_AFTER_SECONDS: '2',
    REASSIGNMENT_START_TIMEOUT_MS: '1500',
    KAFKA_REQUEST_TIMEOUT_MS: FAST_KAFKA_ENV.KAFKA_REQUEST_TIMEOUT_MS,
    ...opts.env,
  });
  const logger = recordingLogger();
  const offset = opts.wallClockOffsetMs;
  const clock = opts.clock ?? (offset ? { now: () => Date.now() + offset } : undefined);
  const runtime = createReassignmentRuntime({
    kafka,
    config,
    metrics: createReassignmentMetrics(metrics.registry),
    logger,
    ...(clock && { now: () => clock.now() }),
    ...(opts.syncGate && { syncGate: opts.syncGate }),
    ...(opts.monotonic && { monotonic: opts.monotonic }),
  });
  const app = appOverKafka({ kafka, metrics, logger, validateResponses: true, reassignments: runtime });
  if (opts.reconcile !== false) runtime.reconciler.start();
  let closed = false;
  return {
    sim,
    kafka,
    runtime,
    metrics,
    logger,
    app,
    http: () => request(app),
    async close() {
      if (closed) return;
      closed = true;
      await runtime.reconciler.stop();
      await kafka.close().catch(() => undefined);
      if (!opts.sim) await sim.close();
      assertNoRequestOutsideRelease(sim); // issue 29: the gateway never sends outside the release's ranges
    },
  };
}

/** Every throttle config override in the cluster: `topic:<t>` / `broker:<id>` -> {config: value}. */
export async function throttleConfigs(kafka: PlatformaticKafkaGateway): Promise<Record<string, Record<string, string>>> {
  const topics = (await kafka.listTopics()).map((t) => t.name);
  const brokers = (await kafka.describeCluster()).brokers.map((b) => String(b.id));
  const results = await kafka.describeConfigOverrides(
    [...topics.map((name) => ({ kind: 'topic' as const, name })), ...brokers.map((name) => ({ kind: 'broker' as const, name }))],
    THROTTLE_KEYS,
  );
  const out: Record<string, Record<string, string>> = {};
  for (const r of results) {
    assert.ok(r.ok, JSON.stringify(r));
    if (r.ok && Object.keys(r.value).length > 0) out[`${r.kind}:${r.name}`] = r.value;
  }
  return out;
}

/** Creates topics through the API (helpers.ts's createTopics, for a ReassignGateway). */
export async function createTopics(
  gw: Pick<ReassignGateway, 'http'>,
  ...topics: { name: string; assignments: number[][] }[]
): Promise<void> {
  for (const t of topics) {
    const res = await gw.http().post('/topics').send(t);
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
}

/** kafka_gateway_reconciler_runs_total: reconcile passes finished so far. */
async function reconcileRuns(gw: Pick<ReassignGateway, 'metrics'>): Promise<number> {
  const m = (await gw.metrics.registry.getMetricsAsJSON()).find((x) => x.name === 'kafka_gateway_reconciler_runs_total');
  return m?.values.reduce((sum, v) => sum + v.value, 0) ?? 0;
}

/**
 * Resolves once `n` whole reconcile passes have run after the call (the first pass counted may
 * have started before it, so one more is awaited): for asserting that passes left something
 * alone, without a sleep standing in for "long enough".
 */
export async function reconcilePasses(gw: Pick<ReassignGateway, 'metrics'>, n = 2): Promise<void> {
  const target = (await reconcileRuns(gw)) + n + 1;
  await eventually(async () => ((await reconcileRuns(gw)) >= target ? true : undefined), 30_000, 20);
}
