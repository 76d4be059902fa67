// The reassignment worker thread's entry: a second composition root (as src/main.ts is the
// first) that builds, with its own Kafka connections and its own heap, everything that holds
// reassignment state: the state store, the throttle sync, the progress tracker, the reconciler,
// the change feed, webhooks; and the gateway's own express app over them, which answers the
// requests the HTTP thread forwards (src/worker/forward.ts) on streams of the port
// (port-stream.ts). Started by src/worker/supervisor.ts; design: docs/worker-thread.md.
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { loadGatewayConfig } from '../config.js';
import { createApp, warmUpApp } from '../http/app.js';
import { loadAuthConfig } from '../http/auth/config.js';
import { jsonLogger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { createReassignmentMetrics } from '../observability/reassignment-metrics.js';
import type { LifecycleState } from '../http/routes/health.js';
import { createReassignmentRuntime, loadReassignmentConfig } from '../reconcile/index.js';
import { createReassignmentChangeFeed } from '../events/reassignment-changes.js';
import { loadWebhookConfig } from '../events/webhook-config.js';
import { loadStreamConfig } from '../events/sse-config.js';
import { createWebhookMetrics } from '../events/webhook-metrics.js';
import { createWebhookRuntime } from '../events/webhooks.js';
import { createKafkaGateway } from '../kafka/admin.js';
import { createGatewayServices } from '../services/index.js';
import { materialize } from '../http/json-slices.js';
import { toReassignment } from '../http/routes/reassignment-shapes.js';
import { releaseHeapPages } from '../heap-release.js';
import { isWorkerPath } from './forward.js';
import { workerHeapReleaser } from './heap-releaser.js';
import { SummaryPoster } from './summary-posts.js';
import { PortStreams } from './port-stream.js';
import {
  serializeError,
  type CallRequest,
  type FromWorker,
  type KafkaRequestBatch,
  type ToWorker,
  type WorkerCalls,
  type WorkerStartData,
} from './protocol.js';

/** How often the worker's Kafka requests go to the HTTP thread's metrics. */
const KAFKA_REQUEST_BATCH_MS = 250;

async function runWorker(port: NonNullable<typeof parentPort>, start: WorkerStartData): Promise<void> {
  const logger = jsonLogger;
  const env = { ...process.env, ...start.env };
  const config = loadGatewayConfig(env);
  if (config.kafka.mode !== 'external')
    throw new Error("the reassignment worker needs KAFKA_BOOTSTRAP_SERVERS (the HTTP thread passes the embedded simulator's)");
  const kafkaConfig = config.kafka.config;
  // The same access rules as the HTTP thread's app: forwarded requests are authenticated here.
  // (Its notices were logged by the HTTP thread already.)
  const auth = loadAuthConfig(env, { externalKafka: start.externalKafka });
  // Metrics of this thread: the HTTP thread merges them into its /metrics (worker/metrics.ts).
  // No process metrics here (the HTTP thread's describe the process, both threads included).
  const metrics = createMetrics({ defaultMetrics: false });
  const send = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);
  // Kafka requests are counted by the HTTP thread (one metric for both threads), in batches.
  let kafkaRequests: KafkaRequestBatch['requests'] = [];
  const flushKafkaRequests = setInterval(() => {
    if (kafkaRequests.length === 0) return;
    send({ t: 'kafka-requests', requests: kafkaRequests });
    kafkaRequests = [];
  }, KAFKA_REQUEST_BATCH_MS);
  flushKafkaRequests.unref();
  const onKafkaRequest = (api: string, error: string | null | undefined, seconds: number) =>
    void kafkaRequests.push([api, error || null, seconds]);
  const kafka = createKafkaGateway(kafkaConfig, { onKafkaRequest, callerClients: config.quota.callerClients });

  const state: LifecycleState = { draining: false };
  const quota = {
    config: config.quota,
    baseClientId: kafkaConfig.clientId,
    ...(kafkaConfig.sasl && { kafkaUser: kafkaConfig.sasl.username }),
  };
  const reassignments = createReassignmentRuntime({
    kafka,
    config: loadReassignmentConfig(env),
    metrics: createReassignmentMetrics(metrics.registry),
    logger,
    bandwidthBytesPerSecond: start.bandwidthBytesPerSecond,
  });
  const changes = createReassignmentChangeFeed(reassignments.store);
  const webhooks = createWebhookRuntime({
    store: reassignments.store,
    changes,
    config: loadWebhookConfig(env),
    owner: reassignments.config.instanceId,
    stateTopic: reassignments.config.stateTopic,
    metrics: createWebhookMetrics(metrics.registry),
    logger,
  });
  webhooks.delivery.start();
  reassignments.reconciler.start();
  const services = createGatewayServices({ kafka, quota, reassignments });
  const app = createApp({
    services,
    metrics,
    logger,
    state,
    auth: auth.access,
    changes,
    streams: loadStreamConfig(env),
    webhooks: webhooks.service,
    bodyLimit: config.bodyLimit,
    readyTimeoutMs: kafkaConfig.pingTimeoutMs + 1000,
    // Only the forwarded operations' validators: no other request reaches this app.
    warmUpPaths: isWorkerPath,
  });
  await warmUpApp(app, logger, 'reassignment worker: request validators compiled');
  // Compiling them made most of this heap's startup peak: its pages go back before any work.
  await releaseHeapPages();
  // Never listens: each forwarded exchange arrives as a 'connection' of a port stream.
  // No timeouts of its own: the HTTP thread's server keeps those with the real socket.
  const server = createServer({ requestTimeout: 0, headersTimeout: 0, keepAliveTimeout: 0 }, app);
  server.timeout = 0;
  // Free heap pages back to the OS after a large exchange (heap-releaser.ts).
  const releaser = workerHeapReleaser({
    registry: metrics.registry,
    logger,
    minBytes: start.heapReleaseBytes,
    nodeFlags: start.nodeFlags,
  });

  const streams = new PortStreams();
  const calls: { [M in keyof WorkerCalls]: (...args: WorkerCalls[M]['args']) => Promise<WorkerCalls[M]['result']> } = {
    stateRefresh: async () => {
      const refreshed = await reassignments.store.refresh().then(
        () => true,
        () => false,
      );
      return { refreshed, health: reassignments.store.health() };
    },
    metrics: () => metrics.registry.getMetricsAsJSON(),
    drain: async () => {
      state.draining = true;
      releaser.stop();
      await Promise.all([reassignments.reconciler.stop(), webhooks.delivery.stop()]);
      return null;
    },
  };
  const answer = (call: CallRequest) => {
    const run = calls[call.method] as (...args: unknown[]) => Promise<unknown>;
    run(...call.args).then(
      (value) => send({ t: 'result', id: call.id, ok: true, value }),
      (err: unknown) => send({ t: 'result', id: call.id, ok: false, error: serializeError(err) }),
    );
  };
  port.on('message', (m: ToWorker) => {
    switch (m.t) {
      case 'open': {
        const stream = streams.create(m.s, send, false, { remoteAddress: m.remoteAddress, peerCertificate: m.peerCertificate });
        stream.once('close', () => releaser.exchanged(stream.bytesRead + stream.bytesWritten));
        server.emit('connection', stream);
        return;
      }
      case 'call':
        answer(m);
        return;
      case 'crash':
        if (!start.testHooks) return;
        // As an uncaught bug would: thrown from a timer, outside any promise.
        setImmediate(() => {
          throw new Error('reassignment worker: crash requested by a test (GATEWAY_WORKER_TEST_HOOKS)');
        });
        return;
      default:
        streams.receive(m);
    }
  });
  // The summaries the HTTP thread answers GET /reassignments/{id} with when they are fresh
  // (summary-posts.ts): rendered as the route renders them (res.json of the same object).
  const service = reassignments.reassignments;
  new SummaryPoster({
    source: reassignments.store,
    render: (record) => JSON.stringify(materialize(toReassignment(service.brief(record), false))),
    post: send,
  }).start();
  send({ t: 'ready', stateTopic: reassignments.config.stateTopic, health: reassignments.store.health() });
}

if (!parentPort) throw new Error('src/worker/reassignment-worker.ts runs as a worker thread (src/worker/supervisor.ts starts it)');
await runWorker(parentPort, workerData as WorkerStartData);
