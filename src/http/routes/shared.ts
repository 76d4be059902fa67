// Small helpers the resource routers share.
import type { Request } from 'express';
import { instanceOf } from '../error-handler.js';

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
