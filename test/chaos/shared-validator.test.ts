// The harness's one request validator for every gateway app of its process (shared-validator.ts)
// must really be shared: when the gateway stopped calling the library export the harness used
// to replace, every instance built its own again, silently, and the 240 seeds took ~140 s instead
// of ~50 s (and, on the starved loop, accepted a third of the POSTs). Counted on the
// validator's own buildMiddleware, as test/http/validation-warm-up.test.ts does.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, it } from 'node:test';
import request from 'supertest';
import { appOverKafka } from '../http/app-over-kafka.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { FakeKafka } from '../http/fake-kafka.js';
import './shared-validator.js';

const require = createRequire(import.meta.url);
const { RequestValidator } = require('express-openapi-validator/dist/middlewares/openapi.request.validator.js') as {
  RequestValidator: { prototype: { buildMiddleware: (...args: unknown[]) => unknown } };
};

const built: string[] = [];
const original = RequestValidator.prototype.buildMiddleware;
before(() => {
  RequestValidator.prototype.buildMiddleware = function (this: unknown, ...args: unknown[]) {
    built.push(String(args[3]));
    return original.apply(this, args);
  };
});
after(() => {
  RequestValidator.prototype.buildMiddleware = original;
});

it('a second gateway app of the harness builds no validator of its own: the first one is shared', async () => {
  const first = appOverKafka({ kafka: new FakeKafka(), metrics: createMetrics({ defaultMetrics: false }) });
  await request(first).get('/topics').expect(200);
  const byFirst = built.length;
  assert.ok(byFirst >= 1, 'the first app built its validator (or the count does not see builds)');
  const second = appOverKafka({ kafka: new FakeKafka(), metrics: createMetrics({ defaultMetrics: false }) });
  await request(second).get('/topics').expect(200);
  await request(second)
    .get('/topics?name=x')
    .expect((res) => assert.ok(res.status < 500));
  assert.equal(built.length, byFirst, `the second app built ${built.length - byFirst} validator(s): not shared`);
});
