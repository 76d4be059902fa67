// The sliced JSON serializer (src/http/json-slices.ts) writes exactly JSON.stringify's text,
// and sendJson answers exactly what res.json answers (body, Content-Type, Content-Length, ETag).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import fc from 'fast-check';
import request from 'supertest';
import { auditMiddleware } from '../../src/http/audit.js';
import { jsonPieces, LazyJsonArray, materialize, sendJson, stringifyInSlices } from '../../src/http/json-slices.js';

const joined = (v: unknown, smallNodes: number): string | undefined => {
  const gen = jsonPieces(v, smallNodes);
  let out = '';
  let r = gen.next();
  while (!r.done) {
    out += r.value;
    r = gen.next();
  }
  return r.value ? out : undefined;
};

const values = fc.anything({
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  maxDepth: 5,
});
// Values JSON leaves out or rewrites, inside containers.
const odd = fc.constantFrom<unknown>(
  undefined,
  () => 1,
  Symbol('s'),
  NaN,
  -0,
  Infinity,
  { toJSON: (k: string) => `key:${k}` },
  { toJSON: () => undefined },
  new Date(0),
);
const mixed = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    values,
    odd,
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 6 }),
  ),
})).value;

describe('jsonPieces', () => {
  it('joins to JSON.stringify(value) for any value, walking every container', () => {
    fc.assert(
      fc.property(mixed, (v) => {
        assert.equal(joined(v, 1), JSON.stringify(v));
        assert.equal(joined(v, 8), JSON.stringify(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('joins to JSON.stringify for JSON data (what the routes send)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => assert.equal(joined(v, 1), JSON.stringify(v))),
      { numRuns: 1000 },
    );
  });

  it('serializes a LazyJsonArray like the array it stands for, wherever it is', () => {
    const rows = Array.from({ length: 600 }, (_, i) => ({ topic: `t${i % 7}`, partition: i, replicas: [i % 3, (i + 1) % 3] }));
    const lazy = LazyJsonArray.map(rows, (r) => ({ ...r, log_dirs: r.replicas.map(() => 'any') }));
    const eager = rows.map((r) => ({ ...r, log_dirs: r.replicas.map(() => 'any') }));
    for (const small of [1, 256, 100_000])
      assert.equal(
        joined({ version: 1, partitions: lazy, n: [lazy] }, small),
        JSON.stringify({ version: 1, partitions: eager, n: [eager] }),
      );
    assert.equal(JSON.stringify({ a: lazy }), JSON.stringify({ a: eager }));
  });

  it('materialize replaces lazy arrays by real ones and leaves the rest as it was', () => {
    const lazy = new LazyJsonArray(3, (i) => ({ i, more: new LazyJsonArray(i, (j) => j) }));
    const plain = { keep: [1, { a: 2 }] };
    const m = materialize({ plain, list: [lazy, 'x'], lazy }) as any;
    assert.equal(m.plain, plain, 'untouched subtrees are not copied');
    assert.deepEqual(m.lazy, [
      { i: 0, more: [] },
      { i: 1, more: [0] },
      { i: 2, more: [0, 1] },
    ]);
    assert.ok(Array.isArray(m.list[0]) && Array.isArray(m.lazy[2].more));
  });

  it('passes toJSON its index in the whole array, past the first batch of elements too', () => {
    const keyed = { toJSON: (k: string) => `key:${k}` };
    const long = Array.from({ length: 700 }, (_, i) => (i % 97 === 0 ? keyed : { i }));
    for (const small of [1, 256])
      assert.equal(joined({ long, lazy: new LazyJsonArray(700, (i) => long[i]) }, small), JSON.stringify({ long, lazy: long }));
  });

  it('throws on a cycle, as JSON.stringify does', () => {
    const a: unknown[] = [];
    for (let i = 0; i < 300; i++) a.push({ i });
    a.push(a);
    assert.throws(() => joined(a, 1), TypeError);
  });

  it('stringifyInSlices gives the same text, yielding to the event loop on the way', async () => {
    const big = {
      version: 1,
      partitions: Array.from({ length: 50_000 }, (_, i) => ({
        topic: `s${i >> 10}`,
        partition: i,
        replicas: [1, 2, 3],
        log_dirs: ['any', 'any', 'any'],
      })),
    };
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const text = await stringifyInSlices(big, { sliceMs: 0 });
    clearInterval(timer);
    assert.equal(text, JSON.stringify(big));
    assert.ok(ticks > 0, 'timers ran while the text was built');
  });
});

describe('sendJson', () => {
  const app = express();
  const logged: Record<string, unknown>[] = [];
  app.use(auditMiddleware({ info: (_m: string, f?: Record<string, unknown>) => void logged.push(f ?? {}), warn() {}, error() {} }));
  const body = {
    id: 'r-1',
    type: 'x',
    items: [{ name: 'a', status: 200 }],
    rollback: { version: 1, partitions: Array.from({ length: 3000 }, (_, i) => ({ topic: 'é', partition: i, replicas: [1, 2] })) },
  };
  app.post('/json', (_req, res) => void res.status(202).json(body));
  app.post('/sliced', async (_req, res) => sendJson(res, 202, body, { slicedFrom: 10 }));
  app.post('/small', async (_req, res) => sendJson(res, 202, body));
  app.post('/problem', async (_req, res) => sendJson(res.type('application/problem+json'), 409, body, { slicedFrom: 10 }));
  app.post('/problem-json', (_req, res) => void res.status(409).type('application/problem+json').json(body));

  app.get('/json', (_req, res) => void res.json(body));
  app.get('/sliced', async (_req, res) => sendJson(res, 200, body, { slicedFrom: 10 }));
  app.post('/typed', async (_req, res) => sendJson(res.type('application/json; profile=x'), 202, body, { slicedFrom: 10 }));
  app.post('/typed-json', (_req, res) => void res.status(202).type('application/json; profile=x').json(body));

  it('answers a conditional GET and a HEAD as res.json does (304 on a matching ETag, no body for HEAD)', async () => {
    const first = await request(app).get('/json');
    for (const path of ['/json', '/sliced']) {
      const again = await request(app).get(path).set('If-None-Match', first.headers.etag);
      assert.equal(again.status, 304, path);
      const head = await request(app).head(path);
      assert.equal(head.status, 200);
      assert.equal(head.headers['content-length'], first.headers['content-length']);
      assert.equal(head.text, undefined);
    }
  });

  it('answers what res.json answers, byte for byte, headers included, and the audit line sees the body', async () => {
    for (const [a, b] of [
      ['/json', '/sliced'],
      ['/json', '/small'],
      ['/problem-json', '/problem'],
      ['/typed-json', '/typed'],
    ] as const) {
      logged.length = 0;
      const x = await request(app).post(a);
      const y = await request(app).post(b);
      assert.equal(y.status, x.status);
      assert.equal(y.text, x.text);
      for (const h of ['content-type', 'content-length', 'etag']) assert.equal(y.headers[h], x.headers[h], h);
      assert.equal(logged.length, 2);
      assert.deepEqual(logged[1].result, logged[0].result);
      assert.deepEqual(logged[1].result, {
        status: x.status,
        items: [{ name: 'a', status: 200 }],
        ...(x.status >= 400 && { problem: 'x' }),
      });
    }
  });
});
