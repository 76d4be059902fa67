// The gateway's Prometheus metrics (prom-client) on a per-app Registry: tests build many apps in
// one process, and the global registry would reject the second registration of the same metric
// name. It lives below src/http so that the worker thread and the services can build and feed it
// without importing HTTP code; src/http/metrics.ts times the HTTP requests into it.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

/**
 * Label objects by their values, built once per distinct combination and reused by every
 * observation after (issue 32: no per-request allocation for what repeats). The combinations are
 * few and bounded: HTTP method × route template × status, Kafka API × error name.
 */
class LabelCache<L extends Record<string, string>> {
  readonly #byKey = new Map<string, Map<string, Map<string, L>>>();
  constructor(readonly build: (a: string, b: string, c: string) => L) {}
  get(a: string, b: string, c: string): L {
    let byB = this.#byKey.get(a);
    if (!byB) this.#byKey.set(a, (byB = new Map<string, Map<string, L>>()));
    let byC = byB.get(b);
    if (!byC) byB.set(b, (byC = new Map<string, L>()));
    let labels = byC.get(c);
    if (!labels) byC.set(c, (labels = this.build(a, b, c)));
    return labels;
  }
}

const statusText: string[] = [];
/** String(status) without a new string per request. */
const statusLabel = (status: number): string => (statusText[status] ??= String(status));

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
  const httpLabels = new LabelCache((method, route, status) => ({ method, route, status }));
  const kafkaLabels = new LabelCache((api, error) => ({ api, error }));

  return {
    registry,
    observeHttp(method, route, status, seconds) {
      const labels = httpLabels.get(method, route, statusLabel(status));
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
    onKafkaRequest: (api, error, seconds) => {
      const labels = kafkaLabels.get(api, error || KAFKA_NO_ERROR, '');
      kafkaRequests.inc(labels);
      kafkaDuration.observe(labels, seconds);
    },
  };
}
