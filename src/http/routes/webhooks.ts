// /webhooks (admin): create, list, read, delete webhooks, and see their deliveries. Logic in
// src/events/webhook-service.ts; delivery in src/events/webhook-delivery.ts. The secret is in
// the answer to POST only when the gateway generated it, and never after.
import type { Request, Response, Router } from 'express';
import type { DeliveryView } from '../../events/webhook-queue.js';
import type { WebhookService, WebhookView } from '../../events/webhook-service.js';
import type { components } from '../openapi-types.js';
import { problemType, sendProblem } from '../problem.js';
import { strictRouter } from '../router.js';
import { callerOf } from './reassignments.js';
import { instance, param } from './shared.js';

type Schemas = components['schemas'];

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function toWebhook(w: WebhookView): Schemas['Webhook'] {
  return {
    id: w.id,
    url: w.url,
    events: w.events as Schemas['Webhook']['events'],
    description: w.description,
    createdAt: new Date(w.createdAt).toISOString(),
    createdBy: w.createdBy,
    deliveries: w.deliveries,
  };
}

function toDelivery(d: DeliveryView): Schemas['WebhookDelivery'] {
  return {
    eventId: d.eventId,
    type: d.type,
    reassignmentId: d.reassignmentId,
    at: new Date(d.at).toISOString(),
    status: d.status,
    attempts: d.attempts,
    finishedAt: iso(d.finishedAt),
    nextAttemptAt: iso(d.nextAttemptAt),
    lastStatus: d.lastStatus,
    lastError: d.lastError,
  };
}

function notFound(req: Request, res: Response, id: string): void {
  sendProblem(res, {
    problem: {
      type: problemType('webhook-not-found'),
      title: 'Webhook not found',
      status: 404,
      detail: `No webhook with id ${id}.`,
      instance: instance(req),
    },
  });
}

export function webhookRoutes({ service }: { service: WebhookService }): Router {
  const router = strictRouter();

  router.get('/webhooks', async (_req, res) => {
    const body: Schemas['WebhookList'] = { webhooks: (await service.list()).map(toWebhook) };
    res.status(200).json(body);
  });

  router.post('/webhooks', async (req, res) => {
    const input = req.body as Schemas['WebhookRequest'];
    const result = await service.create(
      {
        url: input.url,
        events: input.events ?? null,
        ...(input.secret !== undefined && { secret: input.secret }),
        description: input.description ?? null,
      },
      callerOf(res),
    );
    switch (result.kind) {
      case 'invalid':
        return sendProblem(res, {
          problem: {
            type: problemType('validation-failed'),
            title: 'Request validation failed',
            status: 400,
            detail: 'The webhook was not created; see errors.',
            instance: instance(req),
            errors: result.errors.map((e) => ({ path: `/body${e.path}`, message: e.message })),
          },
        });
      case 'limit':
        return sendProblem(res, {
          problem: {
            type: problemType('webhook-limit'),
            title: 'Too many webhooks',
            status: 409,
            detail: `${result.max} webhooks exist (WEBHOOK_MAX_COUNT); delete one first.`,
            instance: instance(req),
          },
        });
      case 'created': {
        const body: Schemas['WebhookCreated'] = { webhook: toWebhook(result.webhook), secret: result.secret };
        res.status(201).location(`/webhooks/${result.webhook.id}`).json(body);
        return;
      }
    }
  });

  router.get('/webhooks/:webhookId', async (req, res) => {
    const id = param(req, 'webhookId');
    const w = await service.get(id);
    if (!w) return notFound(req, res, id);
    res.status(200).json(toWebhook(w));
  });

  router.delete('/webhooks/:webhookId', async (req, res) => {
    const id = param(req, 'webhookId');
    if (!(await service.delete(id))) return notFound(req, res, id);
    res.status(204).end();
  });

  router.get('/webhooks/:webhookId/deliveries', async (req, res) => {
    const id = param(req, 'webhookId');
    const raw = Number((req.query as Record<string, unknown>).limit ?? 50);
    const deliveries = await service.deliveries(id, Number.isInteger(raw) && raw > 0 ? raw : 50);
    if (!deliveries) return notFound(req, res, id);
    const body: Schemas['WebhookDeliveries'] = { webhookId: id, deliveries: deliveries.map(toDelivery) };
    res.status(200).json(body);
  });

  return router;
}
