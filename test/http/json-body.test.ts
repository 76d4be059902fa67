// POST /reassignments' body parser (src/http/json-body.ts): its depth scan agrees with
// jsonNestingDepth, its sliced parse gives JSON.parse's value or body-parser's very error, and
// as middleware it answers every request exactly as express.json with the depth check does.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import express, { type ErrorRequestHandler } from 'express';
import fc from 'fast-check';
import request from 'supertest';
import { JsonTooDeepError, jsonNestingDepth, rejectDeepJson } from '../../src/http/hostile-input.js';
import { drain } from '../../src/domain/steps.js';
import { decodeUtf8Steps, parseJsonInSlices, parseJsonStrict, scanJson, slicedJsonBody } from '../../src/http/json-body.js';

/** jsonNestingDepth as it was before the byte-class table: the reference. */
function referenceDepth(buf: Uint8Array): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) max = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

// JSON-ish text that stresses the scanner: brackets inside strings, escaped quotes, escaped
// backslashes, a backslash at every possible slice boundary, non-ASCII, stray closers.
const jsonish = fc
  .array(
    fc.oneof(
      fc.constantFrom('{', '}', '[', ']', '"', '\\', '\\"', '\\\\', ',', ':', '1', 'a', ' ', 'é', '😀', '"[{"', '"\\\\"', '"\\""'),
      fc.string({ maxLength: 3 }),
    ),
    { maxLength: 80 },
  )
  .map((xs) => xs.join(''));
const nested = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie('v'), { maxKeys: 3 }),
  ),
})).v;

describe('scanJson', () => {
  it('finds the depth the old byte scan finds (as does jsonNestingDepth), whatever the slice size', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          jsonish,
          nested.map((v) => JSON.stringify(v)),
          fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('latin1')),
        ),
        fc.integer({ min: 1, max: 9 }),
        (text, sliceChars) => {
          const expected = referenceDepth(Buffer.from(text));
          assert.equal(jsonNestingDepth(Buffer.from(text)), expected);
          assert.equal(drain(scanJson(text, { sliceChars, cutChars: 3 })).maxDepth, expected);
          assert.equal(drain(scanJson(text)).maxDepth, expected);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('counts the hostile cases as before', () => {
    for (const t of ['1', '{"a":[1,{"b":[]}]}', '{"a":"[[[[{{{{"}', '{"a":"\\"[[[["}', '['.repeat(1000), ']]][[', '"\\\\"[', '"\\']) {
      assert.equal(drain(scanJson(t, { sliceChars: 2 })).maxDepth, referenceDepth(Buffer.from(t)), t);
      assert.equal(jsonNestingDepth(Buffer.from(t)), referenceDepth(Buffer.from(t)), t);
    }
  });
});

const outcome = (f: () => unknown): { value: unknown } | { error: string } => {
  try {
    return { value: f() };
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
};
const outcomeAsync = async (f: () => Promise<unknown>): Promise<{ value: unknown } | { error: string }> => {
  try {
    return { value: await f() };
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  }
};

describe('decodeUtf8Steps', () => {
  // Bytes that make every kind of sequence: ASCII, lead bytes of 2-4 byte sequences (valid and
  // not: C0, E0, ED, F0, F4, F5, FF), continuation bytes, and whole characters.
  const arbBytes = fc
    .array(
      fc.oneof(
        fc.integer({ min: 0, max: 255 }).map((b) => [b]),
        fc.constantFrom([0xc0], [0xe0], [0xed], [0xf0], [0xf4], [0xf5], [0xff], [0x80], [0xbf], [0xa0, 0x80]),
        fc.string({ unit: 'grapheme', maxLength: 3 }).map((t) => [...Buffer.from(t, 'utf8')]),
      ),
      { maxLength: 60 },
    )
    .map((parts) => Buffer.from(parts.flat()));

  it("gives buf.toString('utf8', start) whatever the bytes and the piece size", () => {
    fc.assert(
      fc.property(arbBytes, fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 3 }), (buf, piece, skip) => {
        const start = Math.min(skip, buf.length);
        const steps = decodeUtf8Steps(buf, start, piece);
        let r = steps.next();
        while (!r.done) r = steps.next();
        assert.equal(r.value, buf.toString('utf8', start));
      }),
      { numRuns: 2000 },
    );
  });

  it('yields between pieces of a large body', () => {
    const buf = Buffer.from('{"partitions":[' + '{"topic":"ä-t","partition":1,"replicas":[1,2,3]},'.repeat(20_000) + '{}]}');
    const steps = decodeUtf8Steps(buf);
    let yields = 0;
    let r = steps.next();
    while (!r.done) {
      yields++;
      r = steps.next();
    }
    assert.ok(yields >= Math.floor(buf.length / (256 * 1024)), `${yields} yields for ${buf.length} bytes`);
    assert.equal(r.value, buf.toString('utf8'));
  });
});

describe('parseJsonInSlices', () => {
  it("gives JSON.parse's value for valid JSON, its big arrays cut anywhere", async () => {
    await fc.assert(
      fc.asyncProperty(
        nested,
        fc.array(nested, { minLength: 2, maxLength: 40 }),
        fc.constantFrom(' ', '', '\n'),
        fc.integer({ min: 1, max: 40 }),
        async (env, rows, ws, cutChars) => {
          const text = `${ws}${JSON.stringify({ env, rows }, null, ws === ' ' ? 1 : ws)}${ws}`;
          assert.deepEqual(await parseJsonInSlices(text, 64, { cutChars, sliceMs: 0 }), JSON.parse(text));
          const top = JSON.stringify(rows);
          assert.deepEqual(await parseJsonInSlices(top, 64, { cutChars, sliceMs: 0 }), JSON.parse(top));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("gives body-parser's error (or value) for anything else", async () => {
    const broken = fc.oneof(
      jsonish,
      fc.tuple(nested, fc.array(nested, { minLength: 2, maxLength: 10 }), jsonish, fc.nat()).map(([env, rows, junk, at]) => {
        const t = JSON.stringify({ env, rows, more: rows });
        const i = at % (t.length + 1);
        return t.slice(0, i) + junk + t.slice(i);
      }),
    );
    await fc.assert(
      fc.asyncProperty(broken, fc.integer({ min: 1, max: 20 }), async (text, cutChars) => {
        const expected =
          jsonNestingDepth(Buffer.from(text)) > 64
            ? { error: 'Error: JSON nesting deeper than 64 levels' }
            : outcome(() => parseJsonStrict(text));
        assert.deepEqual(await outcomeAsync(() => parseJsonInSlices(text, 64, { cutChars, sliceMs: 0 })), expected, text);
      }),
      { numRuns: 3000 },
    );
  });

  it("keeps JSON.parse's answer where a sliced array is not what it seems", async () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ i }));
    for (const text of [
      `{"a":${JSON.stringify(rows)},"a":1}`, // a repeated key: the last one wins
      `{"a":1,"a":${JSON.stringify(rows)}}`,
      `{${JSON.stringify(rows)}:1}`, // an array as a key: invalid
      `{"__proto__":${JSON.stringify(rows)}}`,
      `[${JSON.stringify(rows)},${JSON.stringify(rows)}]`,
      `{"a":[1,,2${',3'.repeat(40)}]}`,
      `{"a":[${'1,'.repeat(40)}]}`,
      `{"a":[${'1,'.repeat(40)}1}}`,
      `{"a":[${'1,'.repeat(10)}${' '.repeat(10)},1]}`, // a slice of nothing but blanks
      `{"a":[${' '.repeat(10)},${'1,'.repeat(10)}1]}`,
      `  x${JSON.stringify(rows)}`,
      `"${'['.repeat(40)}"`,
    ]) {
      const got = await outcomeAsync(() => parseJsonInSlices(text, 64, { cutChars: 5, sliceMs: 0 }));
      assert.deepEqual(
        got,
        outcome(() => parseJsonStrict(text)),
        text,
      );
      if ('value' in got && got.value && typeof got.value === 'object')
        assert.equal(Object.getPrototypeOf(got.value), Object.getPrototypeOf(JSON.parse(text)));
    }
  });

  it("parseJsonStrict is body-parser's strict parse", async () => {
    // Through express.json itself: its error messages are the reference.
    const app = express();
    app.use(express.json());
    app.post('/', (req, res) => void res.json({ body: req.body as unknown }));
    app.use(
      ((err, _req, res, _next) => void res.status(err.status ?? 500).json({ message: err.message, type: err.type })) as ErrorRequestHandler,
    );
    for (const text of ['', ' ', 'true', ' "x"', '{"a":1', '[1,]', '{"a":1}', ' [1] ', 'nul', '\u00a0{}']) {
      const res = await request(app).post('/').set('content-type', 'application/json').send(text);
      const mine = outcome(() => parseJsonStrict(text));
      if (res.status === 200) assert.deepEqual(mine, { value: res.body.body }, text);
      else assert.deepEqual(mine, { error: `SyntaxError: ${res.body.message}` }, text);
    }
  });
});

describe('slicedJsonBody', () => {
  const errors: ErrorRequestHandler = (err, _req, res, _next) => {
    res
      .status(err.status ?? err.statusCode ?? 500)
      .json({ status: err.status, type: err.type, message: err.message, deep: err instanceof JsonTooDeepError });
  };
  const echo = (req: express.Request, res: express.Response) => void res.json({ body: req.body === undefined ? '<undefined>' : req.body });
  const reference = express()
    .post('/', express.json({ limit: '2kb', type: 'application/json', strict: true, verify: rejectDeepJson(8) }), echo)
    .use(errors);
  const sliced = express()
    .post('/', slicedJsonBody({ limit: '2kb', maxDepth: 8, sliceMs: 0, cutChars: 16 }), echo)
    .use(errors);

  // fetch sends the bytes as they are (supertest would serialize a Buffer as JSON).
  const servers: Server[] = [];
  const urlOf = async (app: express.Express): Promise<string> => {
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  };
  after(() => servers.forEach((s) => s.close()));
  const send = async (url: string, body: Buffer, headers: Record<string, string>) => {
    const res = await fetch(url, { method: 'POST', headers, body: new Uint8Array(body) });
    return { status: res.status, text: await res.text() };
  };

  it('answers every request as express.json with the depth check does', async () => {
    const [referenceUrl, slicedUrl] = [await urlOf(reference), await urlOf(sliced)];
    const rows = fc.array(
      fc.record({ topic: fc.string({ maxLength: 6 }), partition: fc.nat(), replicas: fc.array(fc.nat(9), { maxLength: 3 }) }),
      { maxLength: 40 },
    );
    const bodies = fc.oneof(
      rows.map((r) => Buffer.from(JSON.stringify({ version: 1, partitions: r }))),
      jsonish.map((t) => Buffer.from(t)),
      fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b)),
      fc.constantFrom(
        Buffer.from('\ufeff{"a":[1,2]}'),
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.alloc(0),
        Buffer.from('{"a":"\xff"}', 'latin1'),
        Buffer.from('[' + '1,'.repeat(1500) + '1]'),
        Buffer.from('['.repeat(9) + ']'.repeat(9)),
        Buffer.from('{"a":' + '['.repeat(7) + ']'.repeat(7) + '}'),
      ),
    );
    const headers = fc.constantFrom<Record<string, string>>(
      { 'content-type': 'application/json' },
      { 'content-type': 'application/json; charset=utf-8' },
      { 'content-type': 'application/json; charset="UTF-8"' },
      { 'content-type': 'application/json; charset=utf-16le' },
      { 'content-type': 'application/json; charset=latin1' },
      { 'content-type': 'text/plain' },
    );
    await fc.assert(
      fc.asyncProperty(bodies, headers, fc.boolean(), async (body, h, gzip) => {
        const hs = gzip ? { ...h, 'content-encoding': 'gzip' } : h;
        const b = gzip ? gzipSync(body) : body;
        const [x, y] = [await send(referenceUrl, b, hs), await send(slicedUrl, b, hs)];
        assert.equal(y.status, x.status, `${body.toString()} ${JSON.stringify(hs)}`);
        assert.equal(y.text, x.text, `${body.toString()} ${JSON.stringify(hs)}`);
      }),
      { numRuns: 400 },
    );
  });
});
