// openapi.yaml validation of POST /reassignments bodies with up to 100,000 partitions, without
// one long block of the event loop: ajv (express-openapi-validator, allErrors) checks the
// 100,000 items in one synchronous call, 100-250 ms at 100k.
//
// Here the items of the large array are checked first, in slices, against ReassignmentTarget
// (checkTarget below, which accepts only what the schema accepts); when every item passes, the
// validator sees the body with that array empty (the envelope: oneOf, the options, maxItems is
// checked here) and the array is put back. Anything else (an item the check refuses, a body the
// validator refuses even so) goes through the validator whole, as before: the 400 answers and
// their `errors` are the validator's own, unchanged.
import { performance } from 'node:perf_hooks';
import { yieldTurn as yieldToLoop } from '../event-loop-turns.js';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Arrays shorter than this are left to the validator (no gain in slicing them). */
export const SLICED_VALIDATION_ITEMS = 1000;

/** openapi.yaml's maxItems of `partitions` (ReassignmentRequest and ReassignmentFileInput). */
const MAX_PARTITIONS = 100_000;
const MAX_INT32 = 2_147_483_647;
const MAX_REPLICAS = 1000;
const MAX_LOG_DIR_CHARS = 4096;
/** TopicName's pattern in openapi.yaml. */
const TOPIC_NAME = /^(?!\.{1,2}$)[a-zA-Z0-9._-]{1,249}$/;
const TARGET_KEYS = new Set(['topic', 'partition', 'replicas', 'log_dirs']);

const isInt = (v: unknown, max: number): boolean => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= max;

/**
 * openapi.yaml's ReassignmentTarget, by hand: true only for what the schema accepts
 * (test/http/large-body-validation.test.ts holds it to ajv and to the schema as written).
 */
export function checkTarget(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const t = v as Record<string, unknown>;
  for (const k in t) if (!TARGET_KEYS.has(k)) return false;
  if (typeof t.topic !== 'string' || !TOPIC_NAME.test(t.topic)) return false;
  if (!isInt(t.partition, MAX_INT32)) return false;
  const replicas = t.replicas;
  if (!Array.isArray(replicas) || replicas.length > MAX_REPLICAS) return false;
  for (const r of replicas) if (!isInt(r, MAX_INT32)) return false;
  if ('log_dirs' in t) {
    const dirs = t.log_dirs;
    if (!Array.isArray(dirs) || dirs.length > MAX_REPLICAS) return false;
    // maxLength counts code points (ajv); .length (UTF-16 units) is never fewer, so count them only past the limit.
    for (const d of dirs) if (typeof d !== 'string' || (d.length > MAX_LOG_DIR_CHARS && [...d].length > MAX_LOG_DIR_CHARS)) return false;
  }
  return true;
}

/** Where the large arrays of a createReassignment body sit. */
const ARRAY_PATHS: readonly (readonly string[])[] = [['partitions'], ['plan', 'reassignment', 'partitions']];

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** body with the array at `path` replaced by [] (copies along the path, key order kept). */
function withEmptied(body: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  const [head, ...rest] = path;
  const copy = { ...body };
  Object.defineProperty(copy, head, {
    value: rest.length === 0 ? [] : withEmptied(body[head] as Record<string, unknown>, rest),
    writable: true,
    enumerable: true,
    configurable: true,
  });
  return copy;
}

function arrayAt(body: unknown, path: readonly string[]): unknown[] | undefined {
  let v = body;
  for (const k of path) {
    if (!isPlainObject(v) || !Object.prototype.hasOwnProperty.call(v, k)) return undefined;
    v = v[k];
  }
  return Array.isArray(v) ? v : undefined;
}

/** Puts `array` back at `path` in `shell` (the emptied copy the validator has seen). */
function putBack(shell: Record<string, unknown>, path: readonly string[], array: unknown[]): void {
  let v = shell;
  for (const k of path.slice(0, -1)) v = v[k] as Record<string, unknown>;
  v[path.at(-1)!] = array;
}

/** Runs express middlewares in order, as a router would; `done` gets the first error, if any. */
export function runChain(chain: readonly RequestHandler[], req: Request, res: Response, done: (err?: unknown) => void): void {
  let i = 0;
  const step = (err?: unknown): void => {
    if (err !== undefined && err !== null && err !== 'route' && err !== 'router') return done(err);
    const mw = chain[i++];
    if (!mw) return done();
    try {
      const r = mw(req, res, step);
      if (r instanceof Promise) r.catch(done);
    } catch (e) {
      done(e);
    }
  };
  step();
}

/** Whether every item passes checkTarget, checked in slices with the event loop given back between them. */
async function allTargetsValid(items: unknown[], sliceMs: number): Promise<boolean> {
  let since = performance.now();
  const runner = {};
  for (let i = 0; i < items.length; i++) {
    if (!checkTarget(items[i])) return false;
    if ((i & 1023) === 1023 && performance.now() - since >= sliceMs) {
      await yieldToLoop(runner);
      since = performance.now();
    }
  }
  return true;
}

/**
 * Wraps the validator's middlewares: POST /reassignments bodies with a large array have
 * their items checked in slices and the validator sees the rest; every other request goes
 * through the validator unchanged.
 */
export function validateLargeArraysInSlices(
  validator: readonly RequestHandler[],
  { sliceMs = 5, minItems = SLICED_VALIDATION_ITEMS }: { sliceMs?: number; minItems?: number } = {},
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const body = req.body as unknown;
    const path =
      req.method === 'POST' && req.path === '/reassignments' && isPlainObject(body)
        ? ARRAY_PATHS.find((p) => (arrayAt(body, p)?.length ?? 0) >= minItems)
        : undefined;
    if (!path) return runChain(validator, req, res, next);
    const items = arrayAt(body, path)!;
    if (items.length > MAX_PARTITIONS) return runChain(validator, req, res, next);
    allTargetsValid(items, sliceMs).then((valid) => {
      if (!valid) return runChain(validator, req, res, next);
      const shell = withEmptied(body as Record<string, unknown>, path);
      req.body = shell;
      runChain(validator, req, res, (err) => {
        // (Put back into whatever body the validator left: the shell, unless it made a copy.)
        const emptied = err === undefined ? arrayAt(req.body, path) : undefined;
        if (emptied !== undefined && emptied.length === 0) {
          putBack(req.body as Record<string, unknown>, path, items);
          return next();
        }
        // Refused for something else: the validator's answer is the one it gives on the whole body.
        req.body = body;
        runChain(validator, req, res, next);
      });
    }, next);
  };
}
