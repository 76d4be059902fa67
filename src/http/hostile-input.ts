// Defences against malformed and malicious requests that JSON Schema cannot express
// or that must act before a body is parsed:
//  - JSON nesting depth: `[[[[...]]]]` within the size limit is cheap to send and
//    costly to walk (validators and loggers recurse); refused before JSON.parse.
//  - Content type: a request that carries a body must say application/json, on every
//    route (the validator only checks operations that declare a requestBody).
// Size (413) is body-parser's `limit`; unknown fields, ranges and array sizes are
// openapi.yaml's job (additionalProperties: false, minimum/maximum, maxItems).
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { instanceOf } from './error-handler.js';
import { problemType, sendProblem } from './problem.js';

/** Deeper than any request schema of this API needs (the deepest is 4-5 levels). */
export const DEFAULT_JSON_MAX_DEPTH = 32;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Deepest nesting of objects/arrays in JSON text (strings skipped), without parsing it. */
export function jsonNestingDepth(buf: Uint8Array): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) max = depth;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return max;
}

export class JsonTooDeepError extends Error {
  readonly status = 400;
  readonly type = 'entity.too.deep';
  constructor(readonly maxDepth: number) {
    super(`JSON nesting deeper than ${maxDepth} levels`);
  }
}

/** body-parser `verify` hook: runs on the raw bytes, before JSON.parse. */
export function rejectDeepJson(maxDepth = DEFAULT_JSON_MAX_DEPTH): (req: unknown, res: unknown, buf: Buffer) => void {
  return (_req, _res, buf) => {
    if (jsonNestingDepth(buf) > maxDepth) throw new JsonTooDeepError(maxDepth);
  };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const len = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (len !== undefined && len !== '0');
}

/**
 * 415 for a body that is not declared as JSON, on any route. Runs before body parsing,
 * so a non-JSON body is never read. application/json with any charset parameter other
 * than utf-8 is left to body-parser, which answers 415 itself.
 */
export function requireJsonBodies(): RequestHandler {
  return (req, res, next) => {
    if (!BODY_METHODS.has(req.method) || !hasBody(req.headers)) return next();
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'application/json') return next();
    sendProblem(res, {
      problem: {
        type: problemType('unsupported-media-type'),
        title: 'Unsupported media type',
        status: 415,
        detail: type ? `Content-Type ${type.slice(0, 100)} is not accepted; send the body as application/json.` : 'Send the body as application/json (Content-Type is missing).',
        instance: instanceOf(req.originalUrl),
      },
      headers: { 'Accept-Post': 'application/json' },
    });
  };
}

/** Answers JsonTooDeepError; everything else goes on to the main error handler. */
export const hostileInputErrorHandler: ErrorRequestHandler = (err, req, res, next) => {
  if (!(err instanceof JsonTooDeepError) || res.headersSent) return next(err);
  sendProblem(res, {
    problem: { type: problemType('json-too-deep'), title: 'JSON nested too deeply', status: 400, detail: `${err.message}.`, instance: instanceOf(req.originalUrl) },
  });
};
