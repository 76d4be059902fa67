// JSON answers of many megabytes (the rollback file of a 100,000-partition reassignment is
// ~8 MB) without one long block of the event loop: JSON.stringify of such an answer holds the
// loop for 50-250 ms, during which /healthz and every other request wait. Here the text is
// built piece by piece, the large arrays one element at a time, and the loop is given back
// every few milliseconds; the answer is byte for byte what res.json would send (same text,
// same Content-Type, Content-Length and ETag, since the finished string goes through
// res.send).
import { performance } from 'node:perf_hooks';
import { yieldTurn as yieldToLoop } from '../event-loop-turns.js';
import type { Response } from 'express';
import { noteResponseBody } from './response-body.js';

/**
 * An array whose elements are made when they are serialized: a route can answer 100,000
 * rows without first building 100,000 copies. JSON.stringify (res.json, the response
 * validator) sees the materialized array through toJSON.
 */
export class LazyJsonArray<T> {
  constructor(
    readonly length: number,
    private readonly at: (i: number) => T,
  ) {}
  static map<S, T>(source: readonly S[], f: (s: S) => T): LazyJsonArray<T> {
    return new LazyJsonArray(source.length, (i) => f(source[i]));
  }
  get(i: number): T {
    return this.at(i);
  }
  toJSON(): T[] {
    const out = new Array<T>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.at(i);
    return out;
  }
}

/** A subtree with fewer nodes than this is one JSON.stringify call (fast, and short). */
const SMALL_NODES = 256;

let nodesLeft = 0;

function fits(x: unknown): boolean {
  if (--nodesLeft <= 0) return false;
  if (typeof x !== 'object' || x === null) return true;
  if (x instanceof LazyJsonArray) return (nodesLeft -= x.length) > 0;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) if (!fits(x[i])) return false;
    return true;
  }
  for (const k in x) if (Object.prototype.hasOwnProperty.call(x, k) && !fits((x as Record<string, unknown>)[k])) return false;
  return true;
}

/** Whether `v` has fewer than `budget` nodes; stops counting at the budget. */
function smallerThan(v: unknown, budget: number): boolean {
  nodesLeft = budget;
  return fits(v);
}

function isPlainObject(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Elements serialized by one JSON.stringify call, when they are small together. */
const BATCH = 256;
/** A batch may hold this many times the nodes of a one-call subtree (8,192 by default). */
const BATCH_NODES_PER_SMALL = 32;

/**
 * Whether JSON.stringify(batch) gives exactly its elements' texts: not too many nodes, and no element with a toJSON of its own (it would be called with its index in the
 * batch, not in the array).
 */
function batchFits(batch: unknown[], smallNodes: number): boolean {
  nodesLeft = smallNodes * BATCH_NODES_PER_SMALL;
  for (let j = 0; j < batch.length; j++) {
    const e = batch[j];
    if (typeof e === 'object' && e !== null && typeof (e as { toJSON?: unknown }).toJSON === 'function') return false;
    if (!fits(e)) return false;
  }
  return true;
}

/** oneShot's answer for a value that must be walked piece by piece. */
const WALK = Symbol('walk');

/**
 * The text of a value that one JSON.stringify call serializes (undefined when JSON.stringify
 * leaves it out), or WALK for a large array or plain object (and any LazyJsonArray).
 */
function oneShot(v: unknown, key: string | number, smallNodes: number): string | undefined | typeof WALK {
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  if (v instanceof LazyJsonArray) return WALK;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    // toJSON receives the property name: let JSON.stringify call it on a one-key holder.
    const k = String(key);
    const s = JSON.stringify({ [k]: v });
    return s === '{}' ? undefined : s.slice(JSON.stringify(k).length + 2, -1);
  }
  if ((Array.isArray(v) || isPlainObject(v)) && !smallerThan(v, smallNodes)) return WALK;
  return JSON.stringify(v);
}

/** Pieces are gathered up to this many characters before they are handed on. */
const PIECE_CHARS = 16_384;

/**
 * The text of JSON.stringify(value) in pieces (undefined when JSON.stringify gives undefined).
 * Large arrays and plain objects are walked here, everything else (small subtrees, values
 * with toJSON other than LazyJsonArray, class instances) goes to JSON.stringify itself, so the
 * rules on undefined, functions, symbols, non-finite numbers and toJSON are JSON.stringify's.
 */
export function* jsonPieces(value: unknown, smallNodes = SMALL_NODES): Generator<string, boolean> {
  const seen = new Set<object>();
  function* walk(v: object): Generator<string, void> {
    if (seen.has(v)) throw new TypeError('Converting circular structure to JSON');
    seen.add(v);
    let out: string;
    if (v instanceof LazyJsonArray || Array.isArray(v)) {
      const lazy = v instanceof LazyJsonArray ? (v as LazyJsonArray<unknown>) : undefined;
      const arr = lazy ? undefined : (v as unknown[]);
      out = '[';
      for (let i = 0; i < v.length; i++) {
        if (i > 0) out += ',';
        if (i % BATCH === 0) {
          // A run of small elements is one JSON.stringify call: far cheaper than one per element.
          const end = Math.min(v.length, i + BATCH);
          const batch = lazy ? Array.from({ length: end - i }, (_, j) => lazy.get(i + j)) : arr!.slice(i, end);
          if (batchFits(batch, smallNodes)) {
            out += JSON.stringify(batch).slice(1, -1);
            i = end - 1;
            if (out.length >= PIECE_CHARS) {
              yield out;
              out = '';
            }
            continue;
          }
        }
        const e = lazy ? lazy.get(i) : arr![i];
        const s = oneShot(e, i, smallNodes);
        if (s === WALK) {
          yield out;
          out = '';
          yield* walk(e as object);
        } else {
          out += s ?? 'null';
          if (out.length >= PIECE_CHARS) {
            yield out;
            out = '';
          }
        }
      }
      out += ']';
    } else {
      out = '{';
      let first = true;
      for (const name of Object.keys(v)) {
        const e = (v as Record<string, unknown>)[name];
        const s = oneShot(e, name, smallNodes);
        // A value JSON.stringify leaves out (undefined, a function, a symbol) leaves out its key.
        if (s === undefined) continue;
        out += `${first ? '' : ','}${JSON.stringify(name)}:`;
        first = false;
        if (s === WALK) {
          yield out;
          out = '';
          yield* walk(e as object);
        } else out += s;
      }
      out += '}';
    }
    yield out;
    seen.delete(v);
  }
  const s = oneShot(value, '', smallNodes);
  if (s === undefined) return false;
  if (s === WALK) yield* walk(value as object);
  else yield s;
  return true;
}

export interface SliceOptions {
  /** Give the event loop back after this much work (ms). */
  sliceMs?: number;
  /** Subtrees with fewer nodes are one JSON.stringify call (tests walk everything with 1). */
  smallNodes?: number;
}

/** JSON.stringify(value), built in slices with the event loop given back between them. */
export async function stringifyInSlices(value: unknown, opts: SliceOptions = {}): Promise<string | undefined> {
  const parts = await piecesInSlices(value, opts, (s) => s);
  return parts?.join('');
}

/** Buffer.from(JSON.stringify(value)), encoded as it is built: no 8 MB string to encode at the end. */
export async function jsonBytesInSlices(value: unknown, opts: SliceOptions = {}): Promise<Buffer | undefined> {
  const parts = await piecesInSlices(value, opts, (s) => Buffer.from(s, 'utf8'));
  return parts && Buffer.concat(parts);
}

async function piecesInSlices<T>(
  value: unknown,
  { sliceMs = 5, smallNodes = SMALL_NODES }: SliceOptions,
  convert: (s: string) => T,
): Promise<T[] | undefined> {
  const parts: T[] = [];
  let pending = '';
  let since = performance.now();
  const runner = {};
  const gen = jsonPieces(value, smallNodes);
  let r = gen.next();
  while (!r.done) {
    pending += r.value;
    if (pending.length >= 16_384) {
      parts.push(convert(pending));
      pending = '';
    }
    if (performance.now() - since >= sliceMs) {
      await yieldToLoop(runner);
      since = performance.now();
    }
    r = gen.next();
  }
  if (!r.value) return undefined;
  parts.push(convert(pending));
  return parts;
}

/**
 * `v` with every LazyJsonArray replaced by the array it stands for (copying only the
 * containers on the way to one): what res.json's hooks (the response validator in tests)
 * expect to see.
 */
export function materialize(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof LazyJsonArray) return (v.toJSON() as unknown[]).map(materialize);
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const m = materialize(v[i]);
      if (m !== v[i]) (out ??= [...(v as unknown[])])[i] = m;
    }
    return out ?? v;
  }
  if (!isPlainObject(v)) return v;
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(v)) {
    const m = materialize(v[k]);
    // defineProperty: a key named __proto__ stays a plain member, as JSON.parse makes it.
    if (m !== v[k]) Object.defineProperty((out ??= { ...v }), k, { value: m, writable: true, enumerable: true, configurable: true });
  }
  return out ?? v;
}

/** Answers below this many nodes go through res.json (and the response validator in tests). */
export const SLICED_ANSWER_NODES = 20_000;
/** An app setting that overrides SLICED_ANSWER_NODES (tests send small answers in slices). */
export const SLICED_FROM_SETTING = 'sliced json from nodes';

/**
 * res.status(status).json(body), with large bodies serialized in slices. Small bodies (and
 * apps with their own json replacer/spaces/escape settings) take res.json unchanged.
 */
export async function sendJson(
  res: Response,
  status: number,
  body: unknown,
  opts: SliceOptions & { slicedFrom?: number } = {},
): Promise<void> {
  res.status(status);
  const app = res.app;
  const custom = app.get('json replacer') !== undefined || app.get('json spaces') !== undefined || Boolean(app.get('json escape'));
  const from = opts.slicedFrom ?? (app.get(SLICED_FROM_SETTING) as number | undefined) ?? SLICED_ANSWER_NODES;
  if (custom || smallerThan(body, from)) {
    res.json(materialize(body));
    return;
  }
  const type = res.get('Content-Type') ?? 'application/json';
  if (type.includes(';')) {
    // A type with parameters: let res.send merge the charset into them.
    const text = await stringifyInSlices(body, opts);
    noteResponseBody(res, body);
    res.set('Content-Type', type);
    res.send(text);
    return;
  }
  const bytes = await jsonBytesInSlices(body, opts);
  noteResponseBody(res, body);
  // What res.send does for res.json's string: the charset added to the type (express's
  // setCharset lower-cases the type), then Content-Length, ETag (the same bytes are hashed),
  // freshness and HEAD, all by res.send itself.
  res.set('Content-Type', `${type.trim().toLowerCase()}; charset=utf-8`);
  res.send(bytes);
}
