// The JSON body a response carried, kept by reference for the audit line (src/http/audit.ts)
// whichever way it was sent: res.json, or sendJson's sliced serialization (src/http/json-slices.ts).
import type { Response } from 'express';

const bodies = new WeakMap<Response, unknown>();

export function noteResponseBody(res: Response, body: unknown): void {
  bodies.set(res, body);
}

export function responseBodyOf(res: Response): unknown {
  return bodies.get(res);
}
