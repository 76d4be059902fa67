// Small helpers the resource routers share.
import type { Request } from 'express';
import { instanceOf } from '../error-handler.js';
import { problemType, type HttpProblem } from '../problem.js';

/**
 * A validated boolean query flag. Express 5 re-parses req.query on every access, so the
 * validator's coercion does not stick; the validator has already rejected anything
 * other than true/false, so reading the raw string is safe.
 */
export function queryFlag(req: Request, name: string): boolean {
  const v: unknown = (req.query as Record<string, unknown>)[name];
  return v === true || v === 'true';
}

export function instance(req: Request): string {
  return instanceOf(req.originalUrl);
}

/** Express 5 types params as string | string[]; our routes only have single-segment params. */
export function param(req: Request, name: string): string {
  const v = (req.params as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(v) ? v.join('/') : (v ?? '');
}

/**
 * The one `validateOnly` convention: a query parameter (`?validateOnly=true`) on every
 * operation that can validate without applying; operations whose body is a request object
 * (POST /reassignments, POST /topics/{topic}/partitions) also take `"validateOnly": true` in
 * the body. Either one set to true means validate only; both given and different is a 400
 * (answered as `{problem}`), since one of them would be silently ignored.
 */
export function validateOnlyOf(req: Request, body?: unknown): { validateOnly: boolean } | { problem: HttpProblem } {
  // From the URL itself: the validator fills in the parameter's default (false) when absent.
  const raw = new URL(req.originalUrl, 'http://gateway').searchParams.get('validateOnly');
  const query = raw === null ? undefined : raw === 'true';
  const field: unknown =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).validateOnly : undefined;
  const inBody = typeof field === 'boolean' ? field : undefined;
  if (query !== undefined && inBody !== undefined && query !== inBody) {
    return {
      problem: {
        problem: {
          type: problemType('validation-failed'),
          title: 'Request validation failed',
          status: 400,
          detail: 'validateOnly is given both in the query and in the body, with different values.',
          instance: instance(req),
          errors: [{ path: '/query/validateOnly', message: `must equal the body's validateOnly (${String(inBody)}) when both are given` }],
        },
      },
    };
  }
  return { validateOnly: query ?? inBody ?? false };
}
