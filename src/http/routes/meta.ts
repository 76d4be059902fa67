// Operational documents: Prometheus metrics and the API description itself.
import type { Router } from 'express';
import { strictRouter } from '../router.js';
import type { GatewayMetrics } from '../metrics.js';
import type { LoadedSpec } from '../spec.js';

export function metaRoutes({ metrics, spec }: { metrics: GatewayMetrics; spec: LoadedSpec }): Router {
  const router = strictRouter();

  router.get('/metrics', async (_req, res) => {
    const body = await metrics.registry.metrics();
    res.type(metrics.registry.contentType).send(body);
  });

  router.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').send(spec.text);
  });

  return router;
}
