// Webhook delivery metrics (Prometheus). The delivery engine codes against WebhookMetrics; the
// composition root registers these on the gateway's registry.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type AttemptResult = 'success' | 'http-error' | 'network-error' | 'timeout';

export interface WebhookMetrics {
  /** One attempt's HTTP exchange ended. */
  attempt(result: AttemptResult, seconds: number): void;
  /** A change's delivery to a webhook ended: delivered (with seconds since the change) or given up. */
  delivery(outcome: 'delivered' | 'failed', lagSeconds: number | null): void;
  /** Changes waiting for delivery, over every webhook (as this instance sees them). */
  queueDepth(n: number): void;
  /** This instance holds the delivery claim (it is the one sending), or not. */
  delivering(on: boolean): void;
}

const PREFIX = 'kafka_gateway_';

export function createWebhookMetrics(registry: Registry): WebhookMetrics {
  const deliveries = new Counter({
    name: `${PREFIX}webhook_deliveries_total`,
    help: 'Changes whose delivery to a webhook ended, by outcome (delivered, or failed: given up after WEBHOOK_MAX_ATTEMPTS or WEBHOOK_MAX_AGE_SECONDS).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const attempts = new Counter({
    name: `${PREFIX}webhook_attempts_total`,
    help: 'Webhook delivery attempts by result (success = a 2xx answer).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const attemptSeconds = new Histogram({
    name: `${PREFIX}webhook_attempt_duration_seconds`,
    help: 'Duration of one webhook delivery attempt (request to status line), by result.',
    labelNames: ['result'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const lag = new Histogram({
    name: `${PREFIX}webhook_delivery_latency_seconds`,
    help: 'From a change (its time in the record) to its delivery (the 2xx answer), retries included.',
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers: [registry],
  });
  const depth = new Gauge({
    name: `${PREFIX}webhook_queue_depth`,
    help: 'Changes waiting for delivery over every webhook, as this instance sees them (the delivering instance works them off).',
    registers: [registry],
  });
  const holding = new Gauge({
    name: `${PREFIX}webhook_delivering`,
    help: '1 while this instance holds the delivery claim and sends (one instance at a time), else 0.',
    registers: [registry],
  });
  return {
    attempt(result, seconds) {
      attempts.inc({ result });
      attemptSeconds.observe({ result }, seconds);
    },
    delivery(outcome, lagSeconds) {
      deliveries.inc({ outcome });
      if (outcome === 'delivered' && lagSeconds !== null) lag.observe(Math.max(0, lagSeconds));
    },
    queueDepth(n) {
      depth.set(n);
    },
    delivering(on) {
      holding.set(on ? 1 : 0);
    },
  };
}
