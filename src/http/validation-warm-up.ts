// express-openapi-validator compiles an operation's request validator (ajv code generation over
// the dereferenced schemas) on the first request that reaches it, keyed by method, route and
// content type: 20-80 ms of one block of the event loop per operation, in the middle of whoever
// else is waiting (a /healthz probe, a 1,000-row page). Here every operation of openapi.yaml is
// sent through the validator once at startup, before the server listens, as a request without a
// body and (for operations that take one) as an application/json request with an empty body;
// the validator refuses most of them, which is fine: only the compilation is wanted. Nothing
// else of the app runs (no access control, no handler, no Kafka).
import type { Express, Request, RequestHandler, Response } from 'express';
import { yieldTurn } from '../event-loop-turns.js';
import { runChain } from './large-body-validation.js';
import type { LoadedSpec } from './spec.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** Which request paths to warm up (e.g. only those a worker thread answers); all when omitted. */
export type WarmUpFilter = (path: string) => boolean;

/**
 * The requests that compile each operation's validators: one per (method, path, content type)
 * key, for the paths `include` accepts (tested on the request path, `{param}` filled in).
 */
export function warmUpRequests(spec: LoadedSpec, include?: WarmUpFilter): { method: string; path: string; contentType?: string }[] {
  const out: { method: string; path: string; contentType?: string }[] = [];
  for (const [template, item] of Object.entries(spec.document.paths)) {
    // Any value matches a path parameter's route; a bad one is refused, after the compilation.
    const path = template.replace(/\{[^}]+\}/g, 'warm-up');
    if (include && !include(path)) continue;
    for (const method of METHODS) {
      const op = item[method] as { requestBody?: { content?: Record<string, unknown> } } | undefined;
      if (!op) continue;
      out.push({ method: method.toUpperCase(), path });
      for (const contentType of Object.keys(op.requestBody?.content ?? {})) out.push({ method: method.toUpperCase(), path, contentType });
    }
  }
  return out;
}

/**
 * Sends each of warmUpRequests(spec) through `validator` (the validator's middlewares), one per
 * turn of the event loop. `app` is the app they are mounted on: the validator's first request
 * installs its path-parameter handlers there (app.param), as a real first request would. Only
 * the paths `include` accepts are sent (warmUpRequests). Resolves with the number sent; never
 * rejects (a request the validator could not take, or one left out, costs a compilation at its
 * first real request, as without the warm-up).
 */
export async function warmUpValidation(
  validator: readonly RequestHandler[],
  spec: LoadedSpec,
  app: Express,
  include?: WarmUpFilter,
): Promise<number> {
  const runner = {};
  const requests = warmUpRequests(spec, include);
  for (const r of requests) {
    const req = {
      method: r.method,
      url: r.path,
      originalUrl: r.path,
      path: r.path,
      baseUrl: '',
      headers: r.contentType ? { 'content-type': r.contentType, 'content-length': '2' } : {},
      query: {},
      params: {},
      body: r.contentType ? {} : undefined,
      app,
    } as unknown as Request;
    await new Promise<void>((resolve) => runChain(validator, req, {} as Response, () => resolve()));
    await yieldTurn(runner);
  }
  return requests.length;
}
