// The JSON body parser of POST /reassignments, whose bodies reach 10 MB (100,000 partitions in
// kafka-reassign-partitions.sh's format). express.json would hold the event loop for the whole
// body twice in a row: the nesting-depth check over the raw bytes (hostile-input.ts), then
// JSON.parse (together 150-400 ms at 100k), while /healthz and every other request wait.
//
// Here one scan in slices does the depth check and finds the largest array and cut points in
// it; JSON.parse then reads the rest of the body (with a placeholder where the array was)
// and the array in slices of ~64 KB, giving the event loop back between slices. The result
// is exactly JSON.parse's; whenever the scan cannot vouch for that (invalid JSON, the array
// not where a value goes, a repeated key) the whole text goes to JSON.parse as before, so
// every error answer is body-parser's, word for word.
//
// Reading the body (limit 413, Content-Encoding, aborted requests) is body-parser's own
// (express.raw with the same options); a charset other than utf-8 goes to express.json
// unchanged (it answers 415 or decodes it).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Steps } from '../domain/steps.js';
import { runInSlices, yieldTurn as yieldToLoop } from '../event-loop-turns.js';
import express, { type RequestHandler } from 'express';
import { JsonTooDeepError, rejectDeepJson } from './hostile-input.js';

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** Arrays shorter than this (in UTF-16 units) are parsed with the rest of the text; longer ones in slices of about this size. */
const CUT_CHARS = 65_536;

export interface JsonScan {
  /** Deepest nesting (jsonNestingDepth's count: strings skipped, stray closers counted down). */
  maxDepth: number;
  /** Brackets paired (each closer matches its opener, none left open, none stray). */
  balanced: boolean;
  /** The largest array with cut points, if one spans at least cutChars. */
  largest: { start: number; end: number; cuts: number[] } | null;
}

/**
 * Scans JSON text for its nesting depth and its largest array, in slices: a `yield` every
 * `sliceChars` characters lets the caller give the event loop back (64K: before V8 optimizes
 * the loop, a slice of 256K characters took ~40 ms). Past `stopDeeperThan`
 * levels it stops (the body is refused whatever follows). The open containers are kept in
 * parallel arrays of numbers: a 100,000-row body opens 300,000 of them.
 */
export function* scanJson(
  text: string,
  {
    sliceChars = 65_536,
    cutChars = CUT_CHARS,
    stopDeeperThan = Infinity,
  }: { sliceChars?: number; cutChars?: number; stopDeeperThan?: number } = {},
): Steps<JsonScan> {
  let depth = 0;
  let maxDepth = 0;
  let balanced = true;
  let inString = false;
  // The open containers: whether each is an array, where it starts, its last cut and its cuts.
  const isArray: boolean[] = [];
  const starts: number[] = [];
  const lastCuts: number[] = [];
  const cutsOf: (number[] | null)[] = [];
  let open = 0;
  let largest: JsonScan['largest'] = null;
  const n = text.length;
  for (let from = 0; from < n; from += sliceChars) {
    const to = Math.min(n, from + sliceChars);
    let i = from;
    for (; i < to; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) inString = true;
      else if (c === COMMA) {
        const top = open - 1;
        if (top >= 0 && isArray[top] && i - lastCuts[top] >= cutChars) {
          (cutsOf[top] ??= []).push(i);
          lastCuts[top] = i;
        }
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++depth > maxDepth) {
          maxDepth = depth;
          if (maxDepth > stopDeeperThan) return { maxDepth, balanced: false, largest: null };
        }
        isArray[open] = c === OPEN_BRACKET;
        starts[open] = i;
        lastCuts[open] = i;
        cutsOf[open] = null;
        open++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (open === 0 || isArray[open - 1] !== (c === CLOSE_BRACKET)) {
          // A stray or mismatched closer: not JSON; only the depth count goes on.
          balanced = false;
          if (open > 0) open--;
          continue;
        }
        open--;
        const cuts = cutsOf[open];
        if (cuts && (!largest || i - starts[open] > largest.end - largest.start)) largest = { start: starts[open], end: i, cuts };
      }
    }
    // A backslash ending the slice skipped the next slice's first character: start after it.
    if (i > to) from = i - sliceChars;
    if (to < n) yield;
  }
  if (open > 0 || inString) balanced = false;
  return { maxDepth, balanced, largest };
}

// --- body-parser's json parse (strict), for the fallback: same results, same errors --------

const FIRST_NON_WHITESPACE = /^[\x20\t\n\r]*([^\x20\t\n\r]|$)/;

function normalizeJsonSyntaxError(error: Error, message: string, stack: string): Error {
  for (const key of Object.getOwnPropertyNames(error))
    if (key !== 'stack' && key !== 'message') delete (error as unknown as Record<string, unknown>)[key];
  error.stack = stack.replace(error.message, message);
  error.message = message;
  return error;
}

function strictSyntaxError(str: string, char: string | undefined): Error {
  const index = char === undefined ? -1 : str.indexOf(char);
  const partial = index === -1 ? '' : str.substring(0, index) + '#'.repeat(str.length - index);
  try {
    JSON.parse(partial);
    throw new SyntaxError('strict violation');
  } catch (e) {
    const err = e as Error;
    return normalizeJsonSyntaxError(
      err,
      err.message.replace(/#+/g, (placeholder) => str.substring(index, index + placeholder.length)),
      err.stack ?? '',
    );
  }
}

/** body-parser's strict JSON parse (empty text = {}), synchronous. */
export function parseJsonStrict(text: string): unknown {
  if (text.length === 0) return {};
  if (text[0] !== '{' && text[0] !== '[') {
    const first = FIRST_NON_WHITESPACE.exec(text)?.[1] || undefined;
    if (first !== '{' && first !== '[') throw strictSyntaxError(text, first);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    const err = e as Error;
    throw normalizeJsonSyntaxError(err, err.message, err.stack ?? '');
  }
}

/** What body-parser's read() makes of a parse error: a 400 of type entity.parse.failed. */
function parseFailed(err: unknown, body: string): unknown {
  return Object.assign(err as object, { status: 400, statusCode: 400, expose: true, type: 'entity.parse.failed', body });
}

// --- the sliced parse -----------------------------------------------------------------------

/** Where the one string value `marker` sits in `root` (found once, not as a key), or null. */
function findMarker(root: unknown, marker: string): { holder: Record<string, unknown> | unknown[]; key: string | number } | 'root' | null {
  if (root === marker) return 'root';
  let found: { holder: Record<string, unknown> | unknown[]; key: string | number } | null = null;
  let count = 0;
  const visit = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) return;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (v[i] === marker) {
          found = { holder: v, key: i };
          count++;
        } else visit(v[i]);
      }
      return;
    }
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x === marker) {
        found = { holder: v as Record<string, unknown>, key: k };
        count++;
      } else visit(x);
    }
  };
  visit(root);
  return count === 1 ? found : null;
}

/** Bytes decoded between two looks at the clock (decodeUtf8Steps). */
const DECODE_PIECE_BYTES = 256 * 1024;

/**
 * buf.toString('utf8', start) in pieces, the event loop given back every `sliceMs`: a 4.4 MB
 * body was decoded in one block of ~5 ms on an idle core, 24 ms in bench:scale. Pieces are cut
 * only before a byte that is not a UTF-8 continuation byte (10xxxxxx): a sequence, complete or
 * not, never spans a cut, so each piece decodes as it would inside the whole (the same
 * characters, the same U+FFFD for invalid bytes).
 */
export function* decodeUtf8Steps(buf: Buffer, start = 0, pieceBytes = DECODE_PIECE_BYTES): Steps<string> {
  if (buf.length - start <= pieceBytes) return buf.toString('utf8', start);
  const parts: string[] = [];
  let from = start;
  while (from < buf.length) {
    let to = Math.min(buf.length, from + pieceBytes);
    // Back up to the start of a sequence; if the piece is one sequence's lead and continuation
    // bytes only (input that is not UTF-8), go forward to the next start instead.
    while (to < buf.length && to > from && (buf[to] & 0xc0) === 0x80) to--;
    if (to === from) {
      to = from + pieceBytes;
      while (to < buf.length && (buf[to] & 0xc0) === 0x80) to++;
    }
    parts.push(buf.toString('utf8', from, to));
    from = to;
    yield;
  }
  return parts.join('');
}

/**
 * JSON.parse(text) (body-parser's strict flavour), the largest array parsed in slices with the
 * event loop given back between them; the same value, or the same error, as parseJsonStrict.
 */
export async function parseJsonInSlices(
  text: string,
  maxDepth: number,
  {
    sliceMs = 5,
    cutChars = CUT_CHARS,
    sliceChars,
    runner = {},
  }: { sliceMs?: number; cutChars?: number; sliceChars?: number; runner?: object } = {},
): Promise<unknown> {
  // One runner for the decode, the scan and the parse: a body is one task for event-loop-turns.ts.
  const scan = await runInSlices(
    scanJson(text, { cutChars, stopDeeperThan: maxDepth, ...(sliceChars && { sliceChars }) }),
    sliceMs,
    runner,
  );
  if (scan.maxDepth > maxDepth) throw new JsonTooDeepError(maxDepth);
  const { largest } = scan;
  if (!scan.balanced || !largest) return parseJsonStrict(text);
  // body-parser's strict check (the body is an object or an array), with its own error.
  const first = FIRST_NON_WHITESPACE.exec(text)?.[1];
  if (first !== '{' && first !== '[') return parseJsonStrict(text);
  // The rest of the text, the array replaced by a string nobody can have sent.
  const marker = `kag-sliced-${randomBytes(12).toString('hex')}`;
  let envelope: unknown;
  try {
    envelope = JSON.parse(text.slice(0, largest.start) + JSON.stringify(marker) + text.slice(largest.end + 1));
  } catch {
    return parseJsonStrict(text);
  }
  const place = findMarker(envelope, marker);
  if (!place) return parseJsonStrict(text);
  const items: unknown[] = [];
  const bounds = [largest.start, ...largest.cuts, largest.end];
  let since = performance.now();
  for (let s = 0; s + 1 < bounds.length; s++) {
    let slice: unknown[];
    try {
      slice = JSON.parse(`[${text.slice(bounds[s] + 1, bounds[s + 1])}]`) as unknown[];
    } catch {
      return parseJsonStrict(text);
    }
    // An empty slice would mean two commas in a row (or `[,`): not JSON.
    if (slice.length === 0) return parseJsonStrict(text);
    for (const x of slice) items.push(x);
    if (performance.now() - since >= sliceMs) {
      await yieldToLoop(runner);
      since = performance.now();
    }
  }
  if (place === 'root') return items;
  if (Array.isArray(place.holder)) place.holder[place.key as number] = items;
  // defineProperty, as JSON.parse does it: a member named __proto__ stays a plain member.
  else Object.defineProperty(place.holder, place.key, { value: items, writable: true, enumerable: true, configurable: true });
  return envelope;
}

/** The charset parameter of the Content-Type, lower-cased (undefined when there is none). */
function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '');
  return m ? m[1].toLowerCase() : undefined;
}

/**
 * express.json({limit, type: 'application/json', strict: true, verify: rejectDeepJson(maxDepth)})
 * for large bodies: the same answers (413, 400 malformed-json / json-too-deep, 415), the
 * depth check and JSON.parse in slices.
 */
export function slicedJsonBody({
  limit,
  maxDepth,
  sliceMs = 5,
  cutChars = CUT_CHARS,
}: {
  limit: string | number;
  maxDepth: number;
  sliceMs?: number;
  cutChars?: number;
}): RequestHandler {
  const json = express.json({ limit, type: 'application/json', strict: true, verify: rejectDeepJson(maxDepth) });
  const raw = express.raw({ limit, type: 'application/json' });
  return (req, res, next) => {
    const charset = charsetOf(req.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8') return json(req, res, next);
    raw(req, res, (err?: unknown) => {
      if (err) return next(err);
      const buf = req.body as unknown;
      if (!Buffer.isBuffer(buf)) return next();
      // iconv-lite (body-parser's decoder) drops a byte order mark; Buffer#toString keeps it.
      const bom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
      const runner = {};
      runInSlices(decodeUtf8Steps(buf, bom), sliceMs, runner).then(
        (text) =>
          parseJsonInSlices(text, maxDepth, { sliceMs, cutChars, runner }).then(
            (body) => {
              req.body = body;
              next();
            },
            (e: unknown) => next(e instanceof JsonTooDeepError ? e : parseFailed(e, text)),
          ),
        next,
      );
    });
  };
}
