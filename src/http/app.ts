// Builds the express app without listening, so tests mount it with supertest and
// several apps can live in one process (per-app metrics registry, no globals).
import express, { type Express } from 'express';
import type { KafkaGateway } from '../kafka/types.js';
import { errorHandler, notFoundHandler } from './error-handler.js';
import { silentLogger, type Logger } from './logger.js';
import { createMetrics, httpMetricsMiddleware, type GatewayMetrics } from './metrics.js';
import { clusterRoutes } from './routes/cluster.js';
import { healthRoutes, type LifecycleState } from './routes/health.js';
import { metaRoutes } from './routes/meta.js';
import { topicRoutes } from './routes/topics.js';
import { createRouteMatcher, loadSpec } from './spec.js';
import { validationMiddleware } from './validation.js';

export interface AppOptions {
  kafka: KafkaGateway;
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
}

export function createApp(opts: AppOptions): Express {
  const spec = loadSpec();
  const metrics = opts.metrics ?? createMetrics();
  const logger = opts.logger ?? silentLogger;
  const state = opts.state ?? { draining: false };

  const app = express();
  app.disable('x-powered-by');

  app.use(httpMetricsMiddleware(metrics, createRouteMatcher(Object.keys(spec.document.paths))));
  // Only JSON is parsed; any other content type leaves the body unparsed and the
  // validator answers 415 from the spec's requestBody content types.
  app.use(express.json({ limit: opts.bodyLimit ?? '1mb', type: 'application/json', strict: true }));
  app.use(validationMiddleware(spec, opts.validateResponses ?? false));

  app.use(healthRoutes({ kafka: opts.kafka, state, readyTimeoutMs: opts.readyTimeoutMs ?? 5000 }));
  app.use(metaRoutes({ metrics, spec }));
  app.use(clusterRoutes({ kafka: opts.kafka }));
  app.use(topicRoutes({ kafka: opts.kafka }));

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
