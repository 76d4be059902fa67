// GET /whoami: who the gateway takes the caller for. The web console and the CLI ask it
// once after login to offer only the actions the caller's role allows (the gateway still
// enforces every role itself; hiding a button is a courtesy, not access control).
import type { Router } from 'express';
import { strictRouter } from '../router.js';
import { principalOf } from '../auth/access-control.js';
import type { components } from '../openapi-types.js';

export function whoamiRoutes({ authentication }: { authentication: 'none' | 'enforced' }): Router {
  const router = strictRouter();
  router.get('/whoami', (_req, res) => {
    const p = principalOf(res)!; // set by accessControl on every non-public route
    const body: components['schemas']['WhoAmI'] = { id: p.id, role: p.role, authentication, ...(p.oidc && { oidc: p.oidc }) };
    res.json(body);
  });
  return router;
}
