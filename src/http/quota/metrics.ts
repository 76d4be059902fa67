// Prometheus metrics of the controller mutation quota (issue 4), registered on the app's
// registry next to src/http/metrics.ts. Idempotent per registry: a second app built on
// the same registry reuses the metrics instead of failing on a duplicate name.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { QuotaMetrics } from '../../services/quotas/mutation-admission.js';
import { METRIC_PREFIX } from '../metrics.js';

export type { QuotaMetrics, QuotaSource } from '../../services/quotas/mutation-admission.js';

function counter(registry: Registry, name: string, help: string, labelNames: string[]): Counter<string> {
  return (registry.getSingleMetric(name) as Counter<string> | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

export function createQuotaMetrics(registry: Registry): QuotaMetrics {
  const rejections = counter(
    registry,
    `${METRIC_PREFIX}quota_rejections_total`,
    'Topics refused with THROTTLING_QUOTA_EXCEEDED (89), by Kafka API and source (broker = Kafka controller, gateway = gateway-side admission).',
    ['api', 'source'],
  );
  const throttleName = `${METRIC_PREFIX}quota_throttle_seconds`;
  const throttle =
    (registry.getSingleMetric(throttleName) as Histogram<string> | undefined) ??
    new Histogram({
      name: throttleName,
      help: "Throttle time of quota-refused attempts (the longest of the attempt's topics), by Kafka API and source.",
      labelNames: ['api', 'source'],
      // Kafka's throttles run from milliseconds to the window (11 s by default) and beyond.
      buckets: [0.01, 0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120],
      registers: [registry],
    });
  const resent = counter(
    registry,
    `${METRIC_PREFIX}quota_items_resent_total`,
    'Throttled topics re-sent by retryOnQuotaViolation, by Kafka API.',
    ['api'],
  );
  const answered = counter(
    registry,
    `${METRIC_PREFIX}quota_http_429_total`,
    'Responses answered 429 Too Many Requests because of a mutation quota, by Kafka API.',
    ['api'],
  );

  return {
    rejected(api, source, items, throttleMs) {
      if (items <= 0) return;
      rejections.inc({ api, source }, items);
      throttle.observe({ api, source }, Math.max(0, throttleMs) / 1000);
    },
    resent(api, items) {
      if (items > 0) resent.inc({ api }, items);
    },
    answered429(api) {
      answered.inc({ api });
    },
  };
}
