// Wires webhooks for one gateway instance: the service the routes call and the delivery that
// every instance runs (one delivers at a time: webhook-delivery.ts).
import type { Logger } from '../observability/logger.js';
import type { StateStore } from '../state/store.js';
import type { ReassignmentChangeFeed } from './reassignment-changes.js';
import type { WebhookConfig } from './webhook-config.js';
import { WebhookDelivery, type WebhookSender } from './webhook-delivery.js';
import type { WebhookMetrics } from './webhook-metrics.js';
import { WebhookService } from './webhook-service.js';

export interface WebhookRuntime {
  readonly service: WebhookService;
  readonly delivery: WebhookDelivery;
}

export interface WebhookRuntimeOptions {
  store: StateStore;
  changes: ReassignmentChangeFeed;
  config: WebhookConfig;
  /** This instance's id (the delivery claim's owner). */
  owner: string;
  /** The state topic: names this deployment in the events' CloudEvents `source`. */
  stateTopic: string;
  metrics?: WebhookMetrics;
  logger?: Logger;
  send?: WebhookSender;
  now?: () => number;
}

export function createWebhookRuntime(opts: WebhookRuntimeOptions): WebhookRuntime {
  const delivery = new WebhookDelivery({
    store: opts.store,
    changes: opts.changes,
    config: opts.config,
    owner: opts.owner,
    source: `urn:kafka-admin-gateway:${opts.stateTopic}`,
    ...(opts.metrics && { metrics: opts.metrics }),
    ...(opts.logger && { logger: opts.logger }),
    ...(opts.send && { send: opts.send }),
    ...(opts.now && { now: opts.now }),
  });
  const service = new WebhookService({
    store: opts.store,
    changes: opts.changes,
    config: opts.config,
    onCreated: () => delivery.wake(),
    ...(opts.now && { now: opts.now }),
  });
  return { service, delivery };
}
