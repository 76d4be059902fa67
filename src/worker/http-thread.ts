// src/main.ts's second half when GATEWAY_WORKER_THREAD=on: the HTTP thread keeps the light
// routes (health, metrics, topics, configs, quotas, cluster) on its own Kafka connections and
// forwards the reassignment side's to the worker thread (index.ts). Mirrors main.ts's in-process
// wiring from the console assets to the banner; keep the two alike.
import type { Express } from 'express';
import type { GatewayConfig } from '../config.js';
import { releaseHeapPages } from '../heap-release.js';
import { createApp, warmUpApp } from '../http/app.js';
import type { AuthConfig } from '../http/auth/config.js';
import { loadConsoleAssets } from '../http/console.js';
import type { LifecycleState } from '../http/routes/health.js';
import { startServer } from '../http/server.js';
import type { KafkaConfig } from '../kafka/config.js';
import type { KafkaAdmin } from '../kafka/kafka-admin.js';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { TopicConfigService } from '../services/configs.js';
import { createGatewayServices } from '../services/index.js';
import { loadStreamConfig } from '../events/sse-config.js';
import { isWorkerPath } from './forward.js';
import { startReassignmentWorker } from './index.js';

export interface HttpThreadContext {
  config: GatewayConfig;
  auth: AuthConfig;
  kafka: KafkaAdmin;
  kafkaConfig: KafkaConfig;
  metrics: GatewayMetrics;
  logger: Logger;
  bandwidthBytesPerSecond: number | null;
  onStopped?: () => Promise<void>;
}

export async function serveWithReassignmentWorker(ctx: HttpThreadContext): Promise<{ url: string; app: Express }> {
  const { config, kafka, kafkaConfig, metrics, logger } = ctx;
  const worker = await startReassignmentWorker({
    env: process.env,
    // The embedded simulator's addresses (main.ts started it): the worker connects there too.
    envOverrides:
      config.kafka.mode === 'embedded'
        ? {
            KAFKA_BOOTSTRAP_SERVERS: kafkaConfig.bootstrapServers
              .map((b) => (b.host.includes(':') ? `[${b.host}]:${b.port}` : `${b.host}:${b.port}`))
              .join(','),
          }
        : {},
    externalKafka: config.kafka.mode === 'external',
    bandwidthBytesPerSecond: ctx.bandwidthBytesPerSecond,
    metrics,
    logger,
    // Summary GETs answered here when the worker's posted summary is fresh (summary-answers.ts).
    stateLog: (name) => kafka.stateTopic({ name }),
  });
  logger.info('reassignment worker thread running', { ready: worker.supervisor.ready });
  // Before startServer's own handlers: the worker starts no new reconcile pass once shutdown has begun.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void worker.drain());

  const state: LifecycleState = { draining: false };
  const quota = {
    config: config.quota,
    baseClientId: kafkaConfig.clientId,
    ...(kafkaConfig.sasl && { kafkaUser: kafkaConfig.sasl.username }),
  };
  const consoleFiles = await loadConsoleAssets();
  if (consoleFiles.assets) logger.info('web console enabled', { path: '/', origin: consoleFiles.assets.origin });
  else logger.warn('web console not available', { reason: consoleFiles.reason });
  // Topic and broker configs stay here, on the HTTP thread's own Kafka connections; readiness
  // reads the state topic through the worker, and the topic routes protect it.
  const services = createGatewayServices({
    kafka,
    quota,
    configs: new TopicConfigService(kafka),
    stateTopic: worker.stateStore,
    // The worker's changes (moves, throttles, leaders) are not this thread's Kafka layer's writes.
    writesElsewhere: worker.writes,
    topicReadMaxAgeMs: config.topicReadMaxAgeMs,
  });
  const app = createApp({
    services,
    metrics,
    logger,
    state,
    auth: ctx.auth.access,
    reassignmentWorker: { forward: worker.forward, summary: worker.summary },
    streams: loadStreamConfig(process.env),
    ...(consoleFiles.assets && { console: consoleFiles.assets }),
    bodyLimit: config.bodyLimit,
    readyTimeoutMs: kafkaConfig.pingTimeoutMs + 1000,
    // The forwarded operations are validated in the worker (which warms those up), never here;
    // GET /reassignments/{id} is this thread's too (then forwarded if need be).
    warmUpPaths: (path) => !isWorkerPath(path) || path === '/reassignments/warm-up',
  });
  await warmUpApp(app, logger);
  // Compiling them made most of this heap's startup peak: its pages go back before it listens
  // (src/heap-release.ts; its heap 37-43 MiB while 100,000 partitions move, against 45-48).
  await releaseHeapPages();
  const server = await startServer({
    app,
    kafka,
    state,
    logger,
    port: config.port,
    host: config.host,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    handleSignals: true,
    https: ctx.auth.https,
    onStopped: async () => {
      await worker.stop();
      await ctx.onStopped?.();
    },
  });
  return { url: server.url, app };
}
