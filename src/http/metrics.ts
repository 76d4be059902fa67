// Prometheus metrics on a per-app Registry: tests build many apps in one process, and
// the global registry would reject the second registration of the same metric name.
import type { RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { routeLabel, routeMatchOf } from './route-table.js';

export const METRIC_PREFIX = 'kafka_gateway_';
/** Label value for a Kafka request that succeeded. */
export const KAFKA_NO_ERROR = 'NONE';

export interface GatewayMetrics {
  readonly registry: Registry;
  observeHttp(method: string, route: string, status: number, seconds: number): void;
  /**
   * Wire this to the Kafka layer's `onKafkaRequest` hook. `error` is the Kafka error
   * name (e.g. THROTTLING_QUOTA_EXCEEDED); null/undefined/'' mean success.
   * An arrow-bound property so it can be passed around detached.
   */
  readonly onKafkaRequest: (api: string, error: string | null | undefined, seconds: number) => void;
}

export interface MetricsOptions {
  /** Process metrics (CPU, memory, event loop lag, GC). Default true. */
  defaultMetrics?: boolean;
}

export function createMetrics(opts: MetricsOptions = {}): GatewayMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });

  const httpRequests = new Counter({
    name: `${METRIC_PREFIX}http_requests_total`,
    help: 'HTTP requests by method, OpenAPI route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'HTTP request duration by method, OpenAPI route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    // Admin calls span sub-millisecond metadata reads to multi-second topic creations.
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const kafkaRequests = new Counter({
    name: `${METRIC_PREFIX}kafka_requests_total`,
    help: `Kafka requests by API and error name (${KAFKA_NO_ERROR} = success).`,
    labelNames: ['api', 'error'] as const,
    registers: [registry],
  });
  const kafkaDuration = new Histogram({
    name: `${METRIC_PREFIX}kafka_request_duration_seconds`,
    help: `Kafka request duration by API and error name (${KAFKA_NO_ERROR} = success).`,
    labelNames: ['api', 'error'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });

  return {
    registry,
    observeHttp(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
    onKafkaRequest: (api, error, seconds) => {
      const labels = { api, error: error || KAFKA_NO_ERROR };
      kafkaRequests.inc(labels);
      kafkaDuration.observe(labels, seconds);
    },
  };
}

/**
 * Times every request, including ones rejected before routing (413, 415, 404, 405). Labelled by
 * the route table's OpenAPI path template (mount after routeMatchMiddleware), never by raw URL:
 * topic names in labels would explode the series count.
 */
export function httpMetricsMiddleware(metrics: GatewayMetrics): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    let done = false;
    const record = (): void => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics.observeHttp(req.method, routeLabel(routeMatchOf(res)), res.statusCode, seconds);
    };
    res.once('finish', record);
    // A client that hangs up never gets 'finish'; still count it (with whatever status was set).
    res.once('close', record);
    next();
  };
}
