// Entry point. With KAFKA_BOOTSTRAP_SERVERS: a gateway in front of that cluster.
// Without: an embedded 4-broker simulator seeded with demo topics that hold data, so
// `npm start` shows a useful gateway with nothing else installed.
import { Producer, stringSerializers } from '@platformatic/kafka';
import { loadGatewayConfig } from './config.js';
import { createApp, warmUpApp } from './http/app.js';
import { loadConsoleAssets } from './http/console.js';
import { loadAuthConfig } from './http/auth/config.js';
import { jsonLogger, type Logger } from './observability/logger.js';
import { createMetrics } from './observability/metrics.js';
import { createReassignmentMetrics } from './observability/reassignment-metrics.js';
import { createReassignmentRuntime, loadReassignmentConfig } from './reconcile/index.js';
import { createGatewayServices } from './services/index.js';
import { createReassignmentChangeFeed } from './events/reassignment-changes.js';
import { loadWebhookConfig } from './events/webhook-config.js';
import { loadStreamConfig } from './events/sse-config.js';
import { createWebhookMetrics } from './events/webhook-metrics.js';
import { createWebhookRuntime } from './events/webhooks.js';
import type { LifecycleState } from './http/routes/health.js';
import { startServer } from './http/server.js';
import { createKafkaGateway } from './kafka/admin.js';
import { parseKafkaConfig, type KafkaConfig } from './kafka/config.js';
import { announceKafkaRelease } from './observability/kafka-release.js';
import type { KafkaGateway, NewTopic } from './kafka/types.js';
import { chooseWorkerThread, countClusterPartitions, parseWorkerThreadSetting } from './worker/index.js';
import { serveWithReassignmentWorker } from './worker/http-thread.js';

/** Bytes each demo partition starts with: a 1 MiB/s throttled move of one orders partition takes ~24 s. */
const DEMO_SEED_BYTES: Record<string, number> = { orders: 24 * 1024 * 1024, payments: 8 * 1024 * 1024, 'audit-log': 2 * 1024 * 1024 };
const demoSeedBytes = (topic: string): number => DEMO_SEED_BYTES[topic] ?? 0;
const DEMO_REPLICATION_BYTES_PER_SECOND = 50 * 1024 * 1024;

const DEMO_TOPICS: NewTopic[] = [
  { name: 'orders', partitions: 6, replicationFactor: 2 },
  { name: 'payments', partitions: 3, replicationFactor: 3 },
  { name: 'audit-log', partitions: 1, replicationFactor: 3, configs: { 'cleanup.policy': 'compact' } },
];

async function seedDemo(kafka: KafkaGateway, bootstrapServers: string[], logger: Logger): Promise<void> {
  const results = await kafka.createTopics(DEMO_TOPICS);
  for (const r of results) if (!r.ok) logger.warn('demo topic not created', { topic: r.name, error: r.error.name });

  // Records give the topics bytes, so size/progress views have something to show.
  const producer = new Producer({
    clientId: 'gateway-demo-seeder',
    bootstrapBrokers: bootstrapServers,
    serializers: stringSerializers,
    idempotent: false,
    acks: -1,
  });
  try {
    for (const topic of ['orders', 'payments', 'audit-log']) {
      // audit-log is compacted: repeat keys so compaction has something to do.
      const messages = Array.from({ length: 300 }, (_, i) => ({
        topic,
        key: topic === 'audit-log' ? `entity-${i % 40}` : `${topic}-${i}`,
        value: JSON.stringify({ seq: i, topic, at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(), amount: (i * 7919) % 1000 }),
      }));
      for (let i = 0; i < messages.length; i += 100) await producer.send({ messages: messages.slice(i, i + 100) });
    }
    logger.info('demo data produced', { topics: DEMO_TOPICS.map((t) => t.name), recordsPerTopic: 300 });
  } catch (err) {
    // The demo is still useful without records; do not refuse to start over it.
    logger.warn('could not produce demo records', { err: err instanceof Error ? err.message : String(err) });
  } finally {
    await producer.close().catch(() => undefined);
  }
}

/** The cluster's partition count, for GATEWAY_WORKER_THREAD=auto; null when it cannot be read. */
async function clusterSize(kafka: KafkaGateway, logger: Logger): Promise<number | null> {
  try {
    return await countClusterPartitions(kafka);
  } catch (err) {
    logger.warn('cluster size not read at startup', { err: err instanceof Error ? err.message : String(err) });
    return null;
  }
}

async function main(): Promise<void> {
  const logger = jsonLogger;
  const config = loadGatewayConfig(process.env);
  // Before anything connects: a gateway in front of a real cluster without
  // authentication refuses to start here (src/http/auth/config.ts).
  const auth = loadAuthConfig(process.env, { externalKafka: config.kafka.mode === 'external' });
  const workerThreadSetting = parseWorkerThreadSetting(process.env);
  for (const n of auth.notices) logger[n.level](n.msg, n.fields);
  // OIDC: fetch the IdP's keys now (not awaited), so a wrong JWKS URL shows in the log before the first caller.
  if (auth.access.mode === 'enforced' && auth.access.oidc) {
    void auth.access.oidc
      .warmUp()
      .then((r) =>
        'error' in r
          ? logger.warn('OIDC key set not fetched at startup; will retry on the first token', r)
          : logger.info('OIDC key set fetched', r),
      );
  }
  const metrics = createMetrics();

  let kafkaConfig: KafkaConfig;
  let stopSimulator: (() => Promise<void>) | undefined;
  let seed: ((kafka: KafkaGateway) => Promise<void>) | undefined;

  if (config.kafka.mode === 'external') {
    kafkaConfig = config.kafka.config;
  } else {
    // Imported lazily: a production deployment never loads the simulator.
    const { startSimulator } = await import('./sim/index.js');
    const sim = await startSimulator({
      brokers: 4,
      racks: ['rack-a', 'rack-a', 'rack-b', 'rack-b'],
      // Demo topics hold data (as if written long ago), so a throttled move takes a while and
      // GET /reassignments/{id} has progress to show; unthrottled copies run at 50 MiB/s.
      seedBytes: demoSeedBytes,
      replicationBytesPerSecond: DEMO_REPLICATION_BYTES_PER_SECOND,
      // Two log dirs per broker, so the README's `log_dirs` example (a move between the dirs of
      // one broker) runs on the demo; replicas start in the first.
      logDirs: ['/var/lib/kafka/data-0', '/var/lib/kafka/data-1'],
    });
    // SIM_CONTROL_PORT: stop and start the embedded brokers over HTTP (src/sim/control.ts).
    const { parseControlPort, startControlServer } = await import('./sim/control.js');
    const controlPort = parseControlPort(process.env.SIM_CONTROL_PORT);
    if (typeof controlPort === 'object') throw new Error(`SIM_CONTROL_PORT: ${controlPort.error}`);
    const control = controlPort === undefined ? null : await startControlServer(sim, { port: controlPort });
    if (control) logger.info('embedded simulator control API', { url: control.url });
    stopSimulator = async () => {
      await control?.close();
      await sim.close();
    };
    // Any other KAFKA_* setting (timeouts, retries) still applies to the embedded cluster.
    kafkaConfig = parseKafkaConfig({ ...process.env, KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') });
    logger.info('embedded simulator started', { bootstrapServers: sim.bootstrapServers, clusterId: sim.clusterId });
    seed = (kafka) => seedDemo(kafka, sim.bootstrapServers, logger);
  }

  const kafka = createKafkaGateway(kafkaConfig, { onKafkaRequest: metrics.onKafkaRequest, callerClients: config.quota.callerClients });
  // The release and mode in the log and kafka_gateway_cluster_info; below Kafka 2.8: refused here.
  const release = await announceKafkaRelease(() => kafka.kafkaRelease(), logger, metrics.registry);
  if (seed) await seed(kafka);

  // The reassignment side in a worker thread or on this one (GATEWAY_WORKER_THREAD, default auto:
  // by the cluster's size; src/worker/choice.ts, docs/worker-thread.md).
  const clusterPartitions =
    workerThreadSetting.mode !== 'auto' || release === null
      ? null
      : config.kafka.mode === 'embedded'
        ? 'embedded'
        : await clusterSize(kafka, logger);
  const runtime = chooseWorkerThread(workerThreadSetting, clusterPartitions);
  // bin/gateway.sh decides auto before node starts (its flags depend on it: src/worker/size-probe.ts)
  // and passes on why, so the log says auto's reason rather than the on or off it exported.
  const reason = process.env.GATEWAY_WORKER_THREAD_REASON?.trim() || runtime.reason;
  logger.info('reassignment runtime', { workerThread: runtime.workerThread, reason });
  if (runtime.workerThread) {
    const bandwidthBytesPerSecond = config.kafka.mode === 'embedded' ? DEMO_REPLICATION_BYTES_PER_SECOND : null;
    const { url } = await serveWithReassignmentWorker({
      config,
      auth,
      kafka,
      kafkaConfig,
      metrics,
      logger,
      bandwidthBytesPerSecond,
      ...(stopSimulator && { onStopped: stopSimulator }),
    });
    logger.info('kafka admin gateway listening', { url, kafka: config.kafka.mode, workerThread: true });
    process.stdout.write(
      `\nKafka admin gateway: ${url}\n  console: ${url}/\n  try: curl -s ${url}/topics\n  API:  ${url}/openapi.yaml\n\n`,
    );
    return;
  }

  const state: LifecycleState = { draining: false };
  const quota = {
    config: config.quota,
    baseClientId: kafkaConfig.clientId,
    ...(kafkaConfig.sasl && { kafkaUser: kafkaConfig.sasl.username }),
  };
  // Reassignments and throttles: every instance runs the reconciler (src/reconcile).
  const reassignments = createReassignmentRuntime({
    kafka,
    config: loadReassignmentConfig(process.env),
    metrics: createReassignmentMetrics(metrics.registry),
    logger,
    bandwidthBytesPerSecond: config.kafka.mode === 'embedded' ? DEMO_REPLICATION_BYTES_PER_SECOND : null,
  });
  // The change feed (src/events): before the reconciler's first read of the state topic, so the
  // history in the log is observed too (webhooks and the event streams consume it).
  const changes = createReassignmentChangeFeed(reassignments.store);
  // Webhooks: every instance runs the delivery; one delivers at a time (src/events/webhook-delivery.ts).
  const webhooks = createWebhookRuntime({
    store: reassignments.store,
    changes,
    config: loadWebhookConfig(process.env),
    owner: reassignments.config.instanceId,
    stateTopic: reassignments.config.stateTopic,
    metrics: createWebhookMetrics(metrics.registry),
    logger,
  });
  webhooks.delivery.start();
  reassignments.reconciler.start();
  // Before startServer's own handlers: no new reconcile pass once shutdown has begun.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void reassignments.reconciler.stop());
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void webhooks.delivery.stop());
  // The web console at `/`: prebuilt in dist/, bundled in memory when running from source.
  const consoleFiles = await loadConsoleAssets();
  if (consoleFiles.assets) logger.info('web console enabled', { path: '/', origin: consoleFiles.assets.origin });
  else logger.warn('web console not available', { reason: consoleFiles.reason });
  // The one composition of the application services (src/services); the app receives them.
  const services = createGatewayServices({ kafka, quota, reassignments, topicReadMaxAgeMs: config.topicReadMaxAgeMs });
  const app = createApp({
    services,
    metrics,
    logger,
    state,
    auth: auth.access,
    changes,
    streams: loadStreamConfig(process.env),
    webhooks: webhooks.service,
    ...(consoleFiles.assets && { console: consoleFiles.assets }),
    bodyLimit: config.bodyLimit,
    readyTimeoutMs: kafkaConfig.pingTimeoutMs + 1000,
  });
  // Every request validator compiled before the first request (20-80 ms each otherwise, at the
  // first request of each operation, while everything else waits).
  await warmUpApp(app, logger);
  // That made most of this heap's startup peak. Its pages are kept (the worker thread's two
  // heaps give theirs back, src/heap-release.ts): here they are the heap's room for the first
  // starts, for which, given back, it grew again in more collections (a second 1,000-partition
  // POST 104-116 ms against 66-75, for ~30 MiB; docs/worker-thread.md, twentieth session).
  const server = await startServer({
    app,
    kafka,
    state,
    logger,
    port: config.port,
    host: config.host,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    handleSignals: true,
    https: auth.https,
    ...(stopSimulator && { onStopped: stopSimulator }),
  });

  logger.info('kafka admin gateway listening', { url: server.url, kafka: config.kafka.mode });
  // Human-facing lines on stdout, after the JSON log line, for the first-run experience.
  process.stdout.write(
    `\nKafka admin gateway: ${server.url}\n  console: ${server.url}/\n  try: curl -s ${server.url}/topics\n  API:  ${server.url}/openapi.yaml\n\n`,
  );
}

main().catch((err: unknown) => {
  jsonLogger.error('startup failed', { err: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
