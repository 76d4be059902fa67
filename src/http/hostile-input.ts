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

const OPEN = 1;
const CLOSE = 2;
const QUOTE = 3;
/** What each byte is to the depth count outside strings (0: nothing). */
const BYTE_CLASS = new Uint8Array(256);
BYTE_CLASS[0x7b] = BYTE_CLASS[0x5b] = OPEN; // { [
BYTE_CLASS[0x7d] = BYTE_CLASS[0x5d] = CLOSE; // } ]
BYTE_CLASS[0x22] = QUOTE; // "

/**
 * Deepest nesting of objects/arrays in JSON text (strings skipped, a backslash in a string
 * skips the next byte), without parsing it. One table lookup per byte outside strings, and
 * strings are skipped by a loop that looks for the quote and the backslash only.
 */
export function jsonNestingDepth(buf: Uint8Array): number {
  let depth = 0;
  let max = 0;
  const n = buf.length;
  let i = 0;
  while (i < n) {
    const k = BYTE_CLASS[buf[i++]];
    if (k === 0) continue;
    if (k === OPEN) {
      if (++depth > max) max = depth;
    } else if (k === CLOSE) depth--;
    else {
      for (;;) {
        if (i >= n) return max;
        const c = buf[i++];
        if (c === 0x22) break;
        if (c === 0x5c) i++;
      }
    }
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
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type === 'application/json') return next();
    sendProblem(res, {
      problem: {
        type: problemType('unsupported-media-type'),
        title: 'Unsupported media type',
        status: 415,
        detail: type
          ? `Content-Type ${type.slice(0, 100)} is not accepted; send the body as application/json.`
          : 'Send the body as application/json (Content-Type is missing).',
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
    problem: {
      type: problemType('json-too-deep'),
      title: 'JSON nested too deeply',
      status: 400,
      detail: `${err.message}.`,
      instance: instanceOf(req.originalUrl),
    },
  });
};
