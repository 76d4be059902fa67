// The HTTP side of the gateway's metrics: every request timed into the app's GatewayMetrics
// (src/observability/metrics.ts, prom-client), labelled by the route table's OpenAPI template.
import type { RequestHandler, Response } from 'express';
import type { GatewayMetrics } from '../observability/metrics.js';
import { routeLabel, routeMatchOf } from './route-table.js';

// For the routes and the quota feature, which read them from here.
export { createMetrics, KAFKA_NO_ERROR, METRIC_PREFIX, type GatewayMetrics, type MetricsOptions } from '../observability/metrics.js';

const STARTED = 'metricsStartedAt';

/**
 * Times every request, including ones rejected before routing (413, 415, 404, 405). Labelled by
 * the route table's OpenAPI path template (mount after routeMatchMiddleware), never by raw URL:
 * topic names in labels would explode the series count. One listener per request, built once
 * per app (issue 32): 'close' comes once per response, after 'finish' for one that was sent and
 * alone for a client that hung up first (counted with whatever status was set).
 */
export function httpMetricsMiddleware(metrics: GatewayMetrics): RequestHandler {
  function record(this: Response): void {
    const seconds = Number(process.hrtime.bigint() - (this.locals[STARTED] as bigint)) / 1e9;
    metrics.observeHttp(this.req.method, routeLabel(routeMatchOf(this)), this.statusCode, seconds);
  }
  return (_req, res, next) => {
    res.locals[STARTED] = process.hrtime.bigint();
    res.on('close', record);
    next();
  };
}
