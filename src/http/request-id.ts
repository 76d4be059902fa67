// X-Request-Id: accepted from the caller (a proxy or client correlating its own logs)
// when it is sane, generated otherwise, and always returned. It ends up in every log
// line about the request, audit lines included, so the value is bounded in length and
// charset: a caller must not be able to inject newlines, JSON or megabytes into logs.
import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** UUIDs, ULIDs, trace ids, "svc-1234.5": letters, digits and . _ : - only, up to 128. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isSaneRequestId(value: unknown): value is string {
  return typeof value === 'string' && SANE_REQUEST_ID.test(value);
}

export function requestIdMiddleware(generate: () => string = randomUUID): RequestHandler {
  return (req, res, next) => {
    const offered = req.headers['x-request-id'];
    const id = isSaneRequestId(offered) ? offered : generate();
    res.locals.requestId = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}

/** The request id set by requestIdMiddleware (undefined only if it is not mounted). */
export function requestIdOf(res: Response): string | undefined {
  const id: unknown = res.locals.requestId;
  return typeof id === 'string' ? id : undefined;
}
