// The request validators are compiled by warmUpApp, before the server listens, and not again by
// the requests that follow: express-openapi-validator's RequestValidator builds (and ajv compiles)
// one middleware per (method, route, content type) at the first request with that key, a block
// of the event loop of 20-80 ms each. Counted on the validator's own buildMiddleware.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { warmUpApp } from '../../src/http/app.js';
import { appOverKafka } from './app-over-kafka.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { loadSpec } from '../../src/http/spec.js';
import { warmUpRequests } from '../../src/http/validation-warm-up.js';
import { FakeKafka } from './fake-kafka.js';

const require = createRequire(import.meta.url);
const { RequestValidator } = require('express-openapi-validator/dist/middlewares/openapi.request.validator.js') as {
  RequestValidator: { prototype: { buildMiddleware: (...args: unknown[]) => unknown } };
};

const built: string[] = [];
const original = RequestValidator.prototype.buildMiddleware;
before(() => {
  RequestValidator.prototype.buildMiddleware = function (this: unknown, ...args: unknown[]) {
    built.push(String(args[3])); // the cache key: METHOD-route-contentType
    return original.apply(this, args);
  };
});
after(() => {
  RequestValidator.prototype.buildMiddleware = original;
});

describe('request validators compiled at startup (warmUpApp)', () => {
  it('sends every operation of openapi.yaml, without a body and with each content type it takes', () => {
    const spec = loadSpec();
    const requests = warmUpRequests(spec);
    let operations = 0;
    for (const item of Object.values(spec.document.paths))
      operations += Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k)).length;
    assert.equal(requests.filter((r) => r.contentType === undefined).length, operations);
    assert.ok(requests.some((r) => r.method === 'POST' && r.path === '/reassignments' && r.contentType === 'application/json'));
    assert.ok(requests.some((r) => r.method === 'GET' && r.path === '/reassignments/warm-up/partitions' && r.contentType === undefined));
  });

  it('builds each validator once, before any request, and the requests that follow build none', async () => {
    const kafka = new FakeKafka();
    const app = appOverKafka({ kafka, metrics: createMetrics({ defaultMetrics: false }) });
    built.length = 0;
    const sent = await warmUpApp(app);
    assert.equal(sent, warmUpRequests(loadSpec()).length);
    const atStartup = built.length;
    // One build per distinct key; a key that the warm-up missed (a wrong route or content type) would show below.
    assert.equal(new Set(built).size, atStartup);
    assert.ok(atStartup >= sent * 0.9, `${atStartup} validators built for ${sent} warm-up requests`);

    await request(app).get('/healthz').expect(200);
    await request(app).get('/topics').expect(200);
    await request(app).post('/topics').send({ name: 'warm', partitions: 1, replicationFactor: 1 }).expect(201);
    await request(app).get('/topics/warm').expect(200);
    await request(app).post('/topics').send({ name: 'bad name' }).expect(400);
    await request(app).delete('/topics/warm').expect(204);
    // Routes of features this app does not have are still validated first (and compiled at startup).
    await request(app).get('/reassignments/abc/partitions?limit=10');
    await request(app).post('/reassignments').send({ partitions: [] });
    assert.deepEqual(built.slice(atStartup), [], 'validators built after the warm-up');
  });

  it('with warmUpPaths, sends only the requests of the paths it accepts (a worker thread and the HTTP thread split them)', async () => {
    const spec = loadSpec();
    const all = warmUpRequests(spec);
    const forwarded = (path: string) => path === '/reassignments' || path.startsWith('/reassignments/');
    const worker = warmUpRequests(spec, forwarded);
    const httpThread = warmUpRequests(spec, (path) => !forwarded(path));
    assert.ok(worker.length > 0 && httpThread.length > 0);
    assert.ok(worker.every((r) => forwarded(r.path)));
    assert.ok(httpThread.every((r) => !forwarded(r.path)));
    assert.equal(worker.length + httpThread.length, all.length);

    const app = appOverKafka({
      kafka: new FakeKafka(),
      metrics: createMetrics({ defaultMetrics: false }),
      warmUpPaths: (path) => !forwarded(path),
    });
    built.length = 0;
    assert.equal(await warmUpApp(app), httpThread.length);
    assert.ok(built.length > 0 && built.every((key) => !key.includes('reassignments')), built.join(', '));
    const atStartup = built.length;
    await request(app).get('/topics').expect(200);
    assert.equal(built.length, atStartup, 'a warmed-up path builds nothing');
    // A path left out compiles at its first request, as without the warm-up.
    await request(app).get('/reassignments/abc/partitions?limit=10');
    assert.ok(
      built.slice(atStartup).some((key) => key.includes('reassignments')),
      built.slice(atStartup).join(', '),
    );
  });

  it('an app that was not warmed up builds them at its first requests (what the warm-up saves)', async () => {
    const app = appOverKafka({ kafka: new FakeKafka(), metrics: createMetrics({ defaultMetrics: false }) });
    built.length = 0;
    await request(app).get('/whoami').expect(200); // (/healthz has a fast path before the validators: routes/health.ts)
    await request(app).get('/topics').expect(200);
    assert.equal(built.length, 2);
  });
});
