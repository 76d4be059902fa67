// livenessFastPath (src/http/routes/health.ts): `GET /healthz` with no query and no body
// is answered right after the request id, the route match and the metrics. Its answers must be
// the whole way's: the same app built with response validation on (which keeps the whole way,
// and checks the answer against openapi.yaml) answers every variant alike.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { appOverKafka } from './app-over-kafka.js';
import { startGateway, type Gateway } from './helpers.js';

describe('/healthz fast path', () => {
  let gw: Gateway;
  let fast: ReturnType<typeof appOverKafka>;
  before(async () => {
    gw = await startGateway({ simulator: { brokers: 1 } });
    fast = appOverKafka({ kafka: gw.kafka, metrics: gw.metrics, validateResponses: false });
  });
  after(async () => {
    await gw?.close();
  });

  const variants: [string, (app: ReturnType<typeof appOverKafka>) => request.Test][] = [
    ['GET', (app) => request(app).get('/healthz')],
    ['HEAD', (app) => request(app).head('/healthz')],
    ['GET with a query string', (app) => request(app).get('/healthz?verbose=1')],
    ['GET with a body', (app) => request(app).get('/healthz').set('content-type', 'application/json').send('{"a":1}')],
    ['POST', (app) => request(app).post('/healthz')],
    ['GET /healthz/ (strict routing)', (app) => request(app).get('/healthz/')],
  ];
  for (const [name, send] of variants) {
    it(`${name}: the same answer as the whole way`, async () => {
      const [a, b] = [await send(fast), await send(gw.app)];
      assert.equal(a.status, b.status);
      assert.deepEqual(a.body, b.body);
      for (const h of ['content-type', 'etag', 'allow', 'content-length']) assert.equal(a.headers[h], b.headers[h], h);
      assert.ok(a.headers['x-request-id'], 'a request id');
    });
  }

  it('counted in the HTTP metrics as before', async () => {
    const count = async () =>
      (await gw.metrics.registry.getSingleMetric('kafka_gateway_http_requests_total')!.get()).values
        .filter((v) => v.labels.route === '/healthz' && String(v.labels.status) === '200' && v.labels.method === 'GET')
        .reduce((n, v) => n + v.value, 0);
    const before = await count();
    assert.equal((await request(fast).get('/healthz')).status, 200);
    assert.equal(await count(), before + 1);
  });
});
