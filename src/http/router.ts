// Express routers that match paths as openapi.yaml spells them. Express's defaults ignore case
// and a trailing slash (`/Topics/x/` runs the `/topics/:topic` handler); the route table
// (src/http/route-table.ts) already refuses those spellings, and express must not disagree
// with it if a request ever got that far. Each Router() has its own options: the app's
// 'case sensitive routing' and 'strict routing' settings (set in app.ts) do not reach it.
import { Router } from 'express';

export const STRICT_ROUTING = Object.freeze({ caseSensitive: true, strict: true });

export function strictRouter(): Router {
  return Router(STRICT_ROUTING);
}
