// Builds the express app without listening, so tests mount it with supertest and
// several apps can live in one process (per-app metrics registry, no globals).
import express, { type Express, type RequestHandler } from 'express';
import type { GatewayServices } from '../services/index.js';
import { auditMiddleware } from './audit.js';
import { accessControl, type AccessControlOptions } from './auth/access-control.js';
import { accessTableFromSpec } from './auth/roles.js';
import { errorHandler, notFoundHandler } from './error-handler.js';
import { DEFAULT_JSON_MAX_DEPTH, hostileInputErrorHandler, rejectDeepJson, requireJsonBodies } from './hostile-input.js';
import { slicedJsonBody } from './json-body.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import { createMetrics, httpMetricsMiddleware, type GatewayMetrics } from './metrics.js';
import { clusterRoutes } from './routes/cluster.js';
import { healthRoutes, livenessFastPath, type LifecycleState } from './routes/health.js';
import { metaRoutes } from './routes/meta.js';
import { topicRoutes } from './routes/topics.js';
import { quotaRoutes } from './routes/quotas.js';
import { topicBatchRoutes } from './routes/topic-batches.js';
import { REASSIGNMENT_BODY_LIMIT, reassignmentReadAhead, reassignmentRoutes } from './routes/reassignments.js';
import { throttleRoutes } from './routes/throttles.js';
import { reassignmentEventRoutes } from './routes/reassignment-events.js';
import type { StreamConfig } from '../events/sse-config.js';
import { planRoutes } from './routes/plans.js';
import { configRoutes } from './routes/configs.js';
import { leaderRoutes } from './routes/leaders.js';
import { whoamiRoutes } from './routes/whoami.js';
import { consoleRoutes, type ConsoleAssets } from './console.js';
import type { ReassignmentChangeFeed } from '../events/reassignment-changes.js';
import type { WebhookService } from '../events/webhook-service.js';
import { webhookRoutes } from './routes/webhooks.js';
import { createQuotaMetrics } from './quota/metrics.js';
import { MutationGuard } from './quota/mutation-guard.js';
import { requestIdMiddleware } from './request-id.js';
import { routeMatchMiddleware, routeMatchOf, routeTableFor } from './route-table.js';
import { STRICT_ROUTING } from './router.js';
import { loadSpec } from './spec.js';
import { validationMiddleware } from './validation.js';
import { validateLargeArraysInSlices } from './large-body-validation.js';
import { warmUpValidation, type WarmUpFilter } from './validation-warm-up.js';

export interface AppOptions {
  /**
   * The application services (src/services/index.ts, createGatewayServices; built once by
   * src/main.ts): topics, cluster, readiness, quotas, configs, and with a reassignment runtime
   * reassignments, throttles, plans and leader elections (without it those paths answer 404).
   */
  services: GatewayServices;
  /** Share with the Kafka layer's onKafkaRequest hook; created (with process metrics) when omitted. */
  metrics?: GatewayMetrics;
  /** Validate every JSON response against openapi.yaml; on in tests, off in production (cost, and a 500 for a schema slip is worse than the slip). */
  validateResponses?: boolean;
  logger?: Logger;
  /** Largest accepted JSON body (body-parser syntax). Admin requests are small; default 1mb. */
  bodyLimit?: string | number;
  /** Shared with src/http/server.ts; /readyz answers 503 while draining. */
  state?: LifecycleState;
  /** Backstop for /readyz's Kafka probe (default 5000); keep it above the Kafka ping timeout. */
  readyTimeoutMs?: number;
  /** Authentication and roles (src/http/auth). Default { mode: 'none' }: everyone is anonymous admin, as in the embedded demo. */
  auth?: AccessControlOptions;
  /** Receives the audit lines (one per change); defaults to `logger`. */
  auditLogger?: Logger;
  /** Deepest JSON nesting accepted in a body (default 32). */
  jsonMaxDepth?: number;
  /**
   * GATEWAY_WORKER_THREAD=on (src/worker, docs/worker-thread.md): instead of the services'
   * reassignment runtime, the runtime lives in a worker thread; `forward` sends its routes'
   * requests there, unparsed. (Its state topic goes to createGatewayServices as `stateTopic`:
   * readiness reads it and the topic routes protect it.) `summary`, when given, is the route
   * of GET /reassignments/{id} on this thread (the forwarder leaves those requests to it; it
   * answers from the worker's posted summaries or forwards: src/worker/summary-answers.ts).
   */
  reassignmentWorker?: { forward: RequestHandler; summary?: RequestHandler | undefined };
  /** The change feed of reassignments (src/events/reassignment-changes.ts): one event per state change, for the event streams and webhooks. */
  changes?: ReassignmentChangeFeed;
  /** Webhooks (src/events/webhook-service.ts): without it /webhooks answers 404. */
  webhooks?: WebhookService;
  /** The event streams' limits (src/events/sse-config.ts; defaults without it). */
  streams?: StreamConfig;
  /** The web console's built assets (src/http/console.ts), served at `/`; without them `/` is 404. */
  console?: ConsoleAssets;
  /**
   * Which request paths warmUpApp compiles the validators of (default all). With the worker
   * thread, each side warms up only the operations it answers: the HTTP thread not those it
   * forwards, the worker only those; any other compiles at its first request, as without warm-up.
   */
  warmUpPaths?: WarmUpFilter;
}

const warmUps = new WeakMap<Express, () => Promise<number>>();

/**
 * Compiles every operation's request validator (or those of `warmUpPaths`) now (src/http/validation-warm-up.ts) instead of
 * at its first request; the server calls it before it listens. Resolves with the number of
 * warm-up requests sent, and logs that (with the time it took) when given a logger.
 */
export async function warmUpApp(app: Express, logger?: Logger, message = 'request validators compiled'): Promise<number> {
  const started = performance.now();
  const requests = await (warmUps.get(app)?.() ?? Promise.resolve(0));
  logger?.info(message, { requests, ms: Math.round(performance.now() - started) });
  return requests;
}

export function createApp(opts: AppOptions): Express {
  const spec = loadSpec();
  const metrics = opts.metrics ?? createMetrics();
  const logger = opts.logger ?? silentLogger;
  const state = opts.state ?? { draining: false };

  const access = accessTableFromSpec(spec.document);
  for (const problem of access.problems) logger.warn('openapi.yaml: access declaration problem', { problem });

  const app = express();
  app.disable('x-powered-by');
  // Express's own matching as the contract spells paths (no case folding, no trailing slash).
  // Before the first app.use: the app's router is created then, with these settings.
  app.set('case sensitive routing', STRICT_ROUTING.caseSensitive);
  app.set('strict routing', STRICT_ROUTING.strict);

  app.use(requestIdMiddleware());
  // THE match (src/http/route-table.ts): which operation of openapi.yaml this request addresses,
  // if any. Metrics, access control and the audit line all read this one answer. No
  // method-override header or parameter is honoured anywhere: the method is the request line's.
  app.use(routeMatchMiddleware(routeTableFor(spec.document)));
  app.use(httpMetricsMiddleware(metrics));
  // Liveness probes answered before the layers that would let them through unchanged (health.ts);
  // with response validation on (tests), they take the whole way so that their answer is checked.
  if (!opts.validateResponses) app.use(livenessFastPath());
  // The worker thread's routes: before access control and the body parsers (the worker's app does them).
  if (opts.reassignmentWorker) app.use(opts.reassignmentWorker.forward);
  // The console's static files are public (the page asks for a token itself), so they are
  // served before access control; its API calls go through everything below like any other.
  if (opts.console) app.use(consoleRoutes(opts.console));
  // Who may call what is decided before any body is read (src/http/auth); a request that
  // addresses no operation is refused there (401 first, then 404/405).
  app.use(accessControl(opts.auth ?? { mode: 'none' }, logger));
  app.use(requireJsonBodies());
  // Only JSON is parsed; the depth guard runs on the raw bytes before JSON.parse.
  // POST /reassignments alone takes large bodies (100,000 partitions in the tool's format); the
  // body is then parsed, and the general parser below leaves it alone.
  // Its parser (json-body.ts) answers as express.json does, in slices: no long block of the loop.
  if (opts.services.reassignments) app.post('/reassignments', reassignmentReadAhead(opts.services.reassignments.reassignments));
  app.post('/reassignments', slicedJsonBody({ limit: REASSIGNMENT_BODY_LIMIT, maxDepth: opts.jsonMaxDepth ?? DEFAULT_JSON_MAX_DEPTH }));
  app.use(
    express.json({
      limit: opts.bodyLimit ?? '1mb',
      type: 'application/json',
      strict: true,
      verify: rejectDeepJson(opts.jsonMaxDepth ?? DEFAULT_JSON_MAX_DEPTH),
    }),
  );
  // The 100,000 items of a large POST /reassignments are checked in slices beside it.
  // Keyed by the route table's match (src/http/validator-chain.ts): no second matcher per request.
  const validator = validationMiddleware(spec, opts.validateResponses ?? false, routeMatchOf);
  app.use(validateLargeArraysInSlices(validator));
  warmUps.set(app, () => warmUpValidation(validator, spec, app, opts.warmUpPaths));
  // After validation: every change that reaches a handler leaves one audit line.
  app.use(auditMiddleware(opts.auditLogger ?? logger));

  const services = opts.services;
  if (opts.reassignmentWorker?.summary) app.get('/reassignments/:id', opts.reassignmentWorker.summary);
  app.use(healthRoutes({ readiness: services.readiness, state, readyTimeoutMs: opts.readyTimeoutMs ?? 5000 }));
  app.use(metaRoutes({ metrics, spec }));
  app.use(whoamiRoutes({ authentication: (opts.auth ?? { mode: 'none' }).mode === 'none' ? 'none' : 'enforced' }));
  app.use(clusterRoutes({ cluster: services.cluster }));
  // Every topic mutation goes through the quota admission; its metrics are this app's.
  const mutations = new MutationGuard(createQuotaMetrics(metrics.registry));
  // The gateway's own state topic cannot be deleted or re-partitioned through the gateway.
  const protectedTopics = services.protectedTopics;
  app.use(
    topicRoutes({
      topics: services.topics,
      partitions: services.partitions,
      mutations,
      protectedTopics,
      answersMadeOnce: !opts.validateResponses,
    }),
  );
  app.use(topicBatchRoutes({ topics: services.topics, partitions: services.partitions, mutations, protectedTopics }));
  if (services.quotas) app.use(quotaRoutes({ quotas: services.quotas }));
  const runtime = services.reassignments;
  if (runtime) {
    // Before reassignmentRoutes: /reassignments/events is not GET /reassignments/{id}.
    app.use(
      reassignmentEventRoutes({
        runtime,
        changes: opts.changes,
        registry: metrics.registry,
        config: opts.streams,
        draining: () => state.draining,
      }),
    );
    app.use(reassignmentRoutes({ service: runtime.reassignments }));
  }
  if (services.throttles) app.use(throttleRoutes({ service: services.throttles }));
  // Plans and broker loads read what reassignments read (the same Kafka layer).
  if (services.plans) app.use(planRoutes({ plans: services.plans }));
  if (services.configs) app.use(configRoutes({ service: services.configs, protectedTopics }));
  if (opts.webhooks) app.use(webhookRoutes({ service: opts.webhooks }));
  // Leader elections go through the reassignment runtime's Kafka layer (the controller).
  if (services.leaders) app.use(leaderRoutes({ service: services.leaders }));

  app.use(notFoundHandler);
  app.use(hostileInputErrorHandler);
  app.use(errorHandler(logger));
  return app;
}
