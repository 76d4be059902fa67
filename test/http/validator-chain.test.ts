// src/http/validator-chain.ts: express-openapi-validator's middlewares driven by the route table.
//  - Every operation of openapi.yaml (read at test time), sent valid-looking and mutated (an
//    unknown query parameter, a query value of the wrong type, a parameter value that the
//    schema refuses, a body that does not match, a body where none is taken, HEAD), gets the
//    same answer from the route-table chain as from the validator's own middleware(): the same
//    status, the same problem, the same req.params and req.query seen by the handler.
//  - After the warm-up, the requests of the gateway's app never reach path-to-regexp (counted on
//    the module the validator requires) nor the validator's own lookupRoute (validatorLookups).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import request from 'supertest';
import { warmUpApp } from '../../src/http/app.js';
import { appOverKafka } from './app-over-kafka.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { routeMatchMiddleware, routeMatchOf, routeTableFor } from '../../src/http/route-table.js';
import { loadSpec } from '../../src/http/spec.js';
import { requestErrorToProblem, validationMiddleware } from '../../src/http/validation.js';
import { ADAPTED_VALIDATOR_VERSION, validatorLookups } from '../../src/http/validator-chain.js';
import { STRICT_ROUTING } from '../../src/http/router.js';
import { FakeKafka } from './fake-kafka.js';

const require = createRequire(import.meta.url);
const spec = loadSpec();
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The validator's path-to-regexp (the module its lookupRoute calls), with a call counter. */
const validatorRequire = createRequire(require.resolve('express-openapi-validator/dist/middlewares/openapi.metadata.js'));
const pathToRegexpModule = validatorRequire('path-to-regexp') as { pathToRegexp: (...args: unknown[]) => unknown };
const originalPathToRegexp = pathToRegexpModule.pathToRegexp;
let pathToRegexpCalls = 0;
/** The validator's request validator, with a call counter. */
const { RequestValidator } = require('express-openapi-validator/dist/middlewares/openapi.request.validator.js') as {
  RequestValidator: { prototype: { validate: (...args: unknown[]) => unknown } };
};
const originalValidate = RequestValidator.prototype.validate;
let validateCalls = 0;
before(() => {
  RequestValidator.prototype.validate = function (this: unknown, ...args: unknown[]) {
    validateCalls++;
    return originalValidate.apply(this, args);
  };
  pathToRegexpModule.pathToRegexp = (...args: unknown[]) => {
    pathToRegexpCalls++;
    return originalPathToRegexp(...args);
  };
});
after(() => {
  RequestValidator.prototype.validate = originalValidate;
  pathToRegexpModule.pathToRegexp = originalPathToRegexp;
});

/** An app with only what validation needs around it; the handler echoes what it was given. */
function harness(validator: RequestHandler[]): Express {
  const app = express();
  app.set('case sensitive routing', STRICT_ROUTING.caseSensitive);
  app.set('strict routing', STRICT_ROUTING.strict);
  app.use(routeMatchMiddleware(routeTableFor(spec.document)));
  app.use(express.json());
  app.use(validator);
  app.use((req, res) => {
    res.json({ params: req.params, query: req.query });
  });
  const toProblem: ErrorRequestHandler = (err, req, res, _next) => {
    const p = requestErrorToProblem(err, req.originalUrl);
    res.status(p?.problem.status ?? 500).json(p ?? { unexpected: String(err) });
  };
  app.use(toProblem);
  return app;
}

interface Probe {
  method: string;
  path: string;
  body?: unknown;
}

/** Requests for every operation: as the contract spells them, and mutated. */
function probes(): Probe[] {
  const out: Probe[] = [];
  for (const [template, item] of Object.entries(spec.document.paths)) {
    for (const method of METHODS) {
      const op = item[method] as { requestBody?: unknown; parameters?: { in: string; name: string }[] } | undefined;
      if (!op) continue;
      const M = method.toUpperCase();
      for (const value of ['bench-1', '12', 'a%20b', 'x'.repeat(300), '-1']) {
        const path = template.replace(/\{[^}]+\}/g, value);
        out.push({ method: M, path });
        out.push({ method: M, path: `${path}?unknownParameter=1` });
        out.push({ method: M, path: `${path}?limit=notanumber&state=nosuchstate&cursor=` });
        out.push({ method: M, path: `${path}?limit=10` });
        if (op.requestBody) {
          out.push({ method: M, path, body: {} });
          out.push({ method: M, path, body: { name: 'x', partitions: 'three', unexpected: true } });
          out.push({ method: M, path, body: [] });
        } else if (M !== 'GET' && M !== 'DELETE') {
          out.push({ method: M, path, body: { anything: 1 } });
        }
      }
      if (M === 'GET') out.push({ method: 'HEAD', path: template.replace(/\{[^}]+\}/g, 'x') });
    }
  }
  return out;
}

async function answer(app: Express, p: Probe): Promise<{ status: number; body: unknown }> {
  let r = request(app)[p.method.toLowerCase() as 'get'](p.path);
  if (p.body !== undefined) r = r.set('content-type', 'application/json').send(JSON.stringify(p.body));
  const res = await r;
  return { status: res.status, body: res.body as unknown };
}

describe('validator-chain', () => {
  it('is written against the express-openapi-validator version installed (its internals are used)', () => {
    const pkg = require('express-openapi-validator/package.json') as { version: string };
    assert.equal(
      pkg.version,
      ADAPTED_VALIDATOR_VERSION,
      "validator-chain.ts uses the validator's internals: re-read them against the new version, then update ADAPTED_VALIDATOR_VERSION",
    );
  });

  it("answers every operation, valid and mutated, as the validator's own middleware does", async () => {
    const options = {
      validateApiSpec: true,
      validateRequests: { allErrors: true, removeAdditional: false },
      validateResponses: false,
      validateFormats: true,
      validateSecurity: false,
      ignoreUndocumented: false,
    } as const;
    const reference = harness(OpenApiValidator.middleware({ ...options, apiSpec: structuredClone(spec.document) as never }));
    const chained = harness(validationMiddleware(spec, false, routeMatchOf));
    const all = probes();
    assert.ok(all.length > 200, `${all.length} probes`);
    const statuses = new Set<number>();
    for (const p of all) {
      const [want, got] = [await answer(reference, p), await answer(chained, p)];
      assert.deepEqual(got, want, `${p.method} ${p.path} ${JSON.stringify(p.body)}`);
      statuses.add(want.status);
    }
    // The probes reach both sides of validation: passed (the echo) and refused (400, 405).
    for (const s of [200, 400, 405]) assert.ok(statuses.has(s), `some probe answered ${s}: ${[...statuses].join(', ')}`);
  });

  it("matches no route with path-to-regexp or the validator's lookup per request, once warmed up", async () => {
    const kafka = new FakeKafka();
    await kafka.createTopics([{ name: 'orders', partitions: 2, replicationFactor: 1 }]);
    const app = appOverKafka({ kafka, metrics: createMetrics({ defaultMetrics: false }), validateResponses: true });
    await warmUpApp(app);
    const [regexps, lookups] = [pathToRegexpCalls, validatorLookups.count];
    const gets = [
      '/healthz',
      '/topics',
      '/topics?limit=1',
      '/topics/orders',
      '/topics/orders?unknown=1',
      '/topics/%2E%2E',
      '/cluster',
      '/metrics',
    ];
    for (const path of gets) {
      const res = await request(app).get(path);
      assert.ok(res.status < 500, `${path}: ${res.status} ${res.text.slice(0, 300)}`);
    }
    const posted = await request(app).post('/topics').send({ name: 'x', partitions: 'three' });
    assert.equal(posted.status, 400);
    assert.equal(pathToRegexpCalls - regexps, 0, 'path-to-regexp calls during the requests');
    assert.equal(validatorLookups.count - lookups, 0, 'validator lookups during the requests');
    // The seam counts: HEAD has no operation of its own in the validator's map, so its lookup answers.
    await request(app).head('/healthz');
    assert.equal(validatorLookups.count - lookups, 1);
    assert.ok(pathToRegexpCalls - regexps > 0);
  });

  it('skips the request validator only for an operation without parameters or body, asked without a query string', async () => {
    const app = appOverKafka({ kafka: new FakeKafka(), metrics: createMetrics({ defaultMetrics: false }), validateResponses: true });
    await warmUpApp(app);
    const calls = async (path: string, status: number): Promise<number> => {
      const before = validateCalls;
      const res = await request(app).get(path);
      assert.equal(res.status, status, `${path}: ${res.text.slice(0, 300)}`);
      return validateCalls - before;
    };
    assert.equal(await calls('/healthz', 200), 1, 'the first request of an operation is validated');
    assert.equal(await calls('/healthz', 200), 0);
    assert.equal(await calls('/healthz', 200), 0);
    assert.equal(await calls('/healthz?verbose=1', 400), 1);
    assert.equal(await calls('/topics', 200), 1, 'GET /topics has query parameters');
    assert.equal(await calls('/topics/orders', 404), 1, 'GET /topics/{topic}: the first request of the operation');
  });

  it('skips the request validator for an operation whose only checks are plain string path parameters, when the values pass them', async () => {
    const kafka = new FakeKafka();
    await kafka.createTopics([{ name: 'orders', partitions: 2, replicationFactor: 1 }]);
    const app = appOverKafka({ kafka, metrics: createMetrics({ defaultMetrics: false }), validateResponses: true });
    await warmUpApp(app);
    const calls = async (path: string, status: number): Promise<number> => {
      const before = validateCalls;
      const res = await request(app).get(path);
      assert.equal(res.status, status, `${path}: ${res.text.slice(0, 300)}`);
      return validateCalls - before;
    };
    await calls('/topics/orders', 200); // the operation's first request, or not: the warm-up may have sent it
    assert.equal(await calls('/topics/orders', 200), 0, 'a name the TopicName pattern accepts');
    assert.equal(await calls('/topics/no-such-topic', 404), 0, 'a well-formed name, unknown to Kafka');
    // Values the pattern refuses go through the validator, which answers the 400 as before.
    assert.equal(await calls('/topics/a%20b', 400), 1);
    assert.equal(await calls(`/topics/${'x'.repeat(250)}`, 400), 1);
    assert.equal(await calls('/topics/orders?unknown=1', 400), 1, 'a query string goes through the validator');
  });
});
